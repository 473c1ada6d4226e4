/* sim_sky: the light and weather tables and their lookups (see sim_sky.h). */
#include "sim_sky.h"

#include <stdio.h>
#include <string.h>

const char *const sim_light_names[SIM_LIGHTS + 1] = {
#define SIM_LIGHT(id, name, op) name,
#include "sim_sky.def"
#undef SIM_LIGHT
    NULL};
static const bool light_operator[SIM_LIGHTS] = {
#define SIM_LIGHT(id, name, op) op,
#include "sim_sky.def"
#undef SIM_LIGHT
};
const char *const sim_weather_names[SIM_WEATHERS + 1] = {
#define SIM_WEATHER(id, name) name,
#include "sim_sky.def"
#undef SIM_WEATHER
    NULL};

int sim_light_find(const char *name, bool operator_only)
{
    for (int i = 0; name && i < SIM_LIGHTS; i++)
        if (strcmp(name, sim_light_names[i]) == 0) return operator_only && !light_operator[i] ? -1 : i;
    return -1;
}

int sim_weather_find(const char *name)
{
    for (int i = 0; name && i < SIM_WEATHERS; i++)
        if (strcmp(name, sim_weather_names[i]) == 0) return i;
    return -1;
}

/* "a, b or c" of the names whose keep[i] is true (keep NULL: all). */
static const char *words(const char *const *names, int n, const bool *keep, bool quote, char *buf, size_t cap)
{
    int total = 0, k = 0;
    for (int i = 0; i < n; i++) total += !keep || keep[i];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < cap; i++) {
        if (keep && !keep[i]) continue;
        const char *sep = k == 0 ? "" : k + 1 == total ? " or " : ", ";
        int w = snprintf(buf + used, cap - used, quote ? "%s\"%s\"" : "%s%s", sep, names[i]);
        if (w < 0) break;
        used += (size_t)w;
        k++;
    }
    return buf;
}

const char *sim_light_operator_words(bool quote, char *buf, size_t cap)
{
    return words(sim_light_names, SIM_LIGHTS, light_operator, quote, buf, cap);
}

const char *sim_weather_words(char *buf, size_t cap)
{
    return words(sim_weather_names, SIM_WEATHERS, NULL, false, buf, cap);
}
