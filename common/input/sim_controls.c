/* sim_controls: input.controls fields <-> struct (see sim_controls.h). */
#include "sim_controls.h"

#include <math.h>
#include <string.h>

int sim_controls_to_json(const sim_controls *c, cJSON *obj)
{
    if (!cJSON_AddNumberToObject(obj, "steer", c->steer) ||
        !cJSON_AddNumberToObject(obj, "steer_deg", c->steer_deg) ||
        !cJSON_AddNumberToObject(obj, "throttle", c->throttle) ||
        !cJSON_AddNumberToObject(obj, "brake", c->brake) ||
        !cJSON_AddNumberToObject(obj, "clutch", c->clutch))
        return SIM_ENOMEM;
    if (c->has_gear && !cJSON_AddNumberToObject(obj, "gear", c->gear)) return SIM_ENOMEM;
    return SIM_OK;
}

/* Reads obj[name] into *out when it is a finite number within [lo, hi]. A missing
 * field is an error only when required. */
static int read_number(const cJSON *obj, const char *name, bool required, double lo, double hi,
                       double *out, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v) {
        if (!required) return SIM_OK;
        return sim_error_set(err, SIM_EINVAL, "%s: missing, expected a number in [%g, %g]", name,
                             lo, hi);
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return sim_error_set(err, SIM_EINVAL, "%s: expected a number in [%g, %g], found %s", name,
                             lo, hi, cJSON_IsString(v) ? "a string" : "another type");
    if (v->valuedouble < lo || v->valuedouble > hi)
        return sim_error_set(err, SIM_ERANGE, "%s: expected a number in [%g, %g], found %g", name,
                             lo, hi, v->valuedouble);
    *out = v->valuedouble;
    return SIM_OK;
}

int sim_controls_from_json(const cJSON *obj, sim_controls *out, sim_error *err)
{
    if (!cJSON_IsObject(obj))
        return sim_error_set(err, SIM_EINVAL, "input.controls: expected a JSON object");
    sim_controls c;
    memset(&c, 0, sizeof c);
    int rc;
    if ((rc = read_number(obj, "steer", true, -1, 1, &c.steer, err)) ||
        (rc = read_number(obj, "steer_deg", false, -3600, 3600, &c.steer_deg, err)) ||
        (rc = read_number(obj, "throttle", true, 0, 1, &c.throttle, err)) ||
        (rc = read_number(obj, "brake", true, 0, 1, &c.brake, err)) ||
        (rc = read_number(obj, "clutch", false, 0, 1, &c.clutch, err)))
        return rc;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(obj, "gear");
    if (g) {
        if (!cJSON_IsNumber(g))
            return sim_error_set(err, SIM_EINVAL, "gear: expected an integer in [-1, 12], found a non-number");
        if (g->valuedouble != floor(g->valuedouble) || g->valuedouble < -1 || g->valuedouble > 12)
            return sim_error_set(err, SIM_EINVAL, "gear: expected an integer in [-1, 12], found %g", g->valuedouble);
        c.gear = (int)g->valuedouble;
        c.has_gear = true;
    }
    *out = c;
    return SIM_OK;
}
