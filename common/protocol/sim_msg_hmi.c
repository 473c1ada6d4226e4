/* sim_msg_hmi: hmi.touch and surt.response (see sim_msg_hmi.h). */
#include "sim_msg_hmi.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sim_msg_fields.h"

#define T(name, kind, lo, hi, size) {#name, kind, SIM_MF_AT(sim_msg_hmi_touch, name, kind, size), lo, hi, size}
static const sim_msg_field TOUCH[] = {
    T(page, SIM_MF_STR, 0, 0, sizeof(((sim_msg_hmi_touch *)0)->page)),
    T(target, SIM_MF_STR, 0, 0, sizeof(((sim_msg_hmi_touch *)0)->target)),
    T(x, SIM_MF_NUM, -1e6, 1e6, 0),
    T(y, SIM_MF_NUM, -1e6, 1e6, 0),
};
#undef T
#define S(name, kind, lo, hi, size) {#name, kind, SIM_MF_AT(sim_msg_surt_response, name, kind, size), lo, hi, size}
static const sim_msg_field SURT[] = {
    S(trial, SIM_MF_INT, 1, 1e9, 0),
    S(correct, SIM_MF_BOOL, 0, 0, 0),
    S(rt_ms, SIM_MF_NUM, 0, 1e9, 0),
    S(level, SIM_MF_STR, 0, 0, sizeof(((sim_msg_surt_response *)0)->level)),
    S(target, SIM_MF_INT, 0, 1000, 0),
    S(chosen, SIM_MF_INT, 0, 1000, 0),
};
#undef S
#define N(a) (sizeof a / sizeof *a)

cJSON *sim_msg_hmi_touch_encode(const sim_msg_hmi_touch *m)
{
    return sim_msg_fields_object(m, TOUCH, N(TOUCH));
}

cJSON *sim_msg_surt_response_encode(const sim_msg_surt_response *m)
{
    return sim_msg_fields_object(m, SURT, N(SURT));
}

/* The fields a message must carry: each present (not null). */
static int require(sim_json *j, const cJSON *msg, const char *const *names, size_t n, const char *const *expected)
{
    for (size_t i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, names[i]);
        if (!v || cJSON_IsNull(v)) return sim_json_found(j, names[i], v, expected[i]);
    }
    return SIM_OK;
}

int sim_msg_hmi_touch_decode(const cJSON *msg, sim_msg_hmi_touch *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_HMI_TOUCH, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, TOUCH, N(TOUCH));
    static const char *const names[] = {"page", "target"};
    static const char *const expected[] = {"the HMI page's name", "the element touched"};
    return rc ? rc : require(&j, msg, names, 2, expected);
}

int sim_msg_surt_response_decode(const cJSON *msg, sim_msg_surt_response *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_SURT_RESPONSE, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, SURT, N(SURT));
    static const char *const names[] = {"trial", "correct", "rt_ms", "level"};
    static const char *const expected[] = {"the trial number, an integer >= 1", "true or false",
                                           "the response time in ms, a number >= 0", "\"easy\" or \"hard\""};
    if (rc || (rc = require(&j, msg, names, 4, expected))) return rc;
    if (strcmp(out->level, "easy") != 0 && strcmp(out->level, "hard") != 0)
        return sim_json_found(&j, "level", cJSON_GetObjectItemCaseSensitive(msg, "level"), "\"easy\" or \"hard\"");
    return SIM_OK;
}
