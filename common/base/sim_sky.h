/* sim_sky: the light (day, dawn, dusk, night) and weather (clear ... snow) names and
 * values, from the one table in sim_sky.def. Pure, no I/O. */
#ifndef SIM_SKY_H
#define SIM_SKY_H

#include <stdbool.h>
#include <stddef.h>

typedef enum sim_light {
#define SIM_LIGHT(id, ...) SIM_LIGHT_##id,
#include "sim_sky.def"
#undef SIM_LIGHT
    SIM_LIGHTS
} sim_light;

typedef enum sim_weather {
#define SIM_WEATHER(id, ...) SIM_WEATHER_##id,
#include "sim_sky.def"
#undef SIM_WEATHER
    SIM_WEATHERS
} sim_weather;

/* The names in the enums' order, NULL-terminated (for sim_json_enum and friends). */
extern const char *const sim_light_names[SIM_LIGHTS + 1];
extern const char *const sim_weather_names[SIM_WEATHERS + 1];

/* The value named, or -1. operator_only: only the lights the operator's command and
 * render-node --light take. */
int sim_light_find(const char *name, bool operator_only);
int sim_weather_find(const char *name);

/* "day, dusk or night" (quote: "\"day\", \"dusk\" or \"night\""): the operator's
 * lights, or every weather, for messages; into buf, which it returns. */
const char *sim_light_operator_words(bool quote, char *buf, size_t cap);
const char *sim_weather_words(char *buf, size_t cap);

#endif
