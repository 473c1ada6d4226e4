/* sim_gaze: the gaze hit test and the areas' parser (see sim_gaze.h). */
#include "sim_gaze.h"

#include <math.h>
#include <string.h>

#include "sim_json.h"

int sim_gaze_area_find(const sim_gaze_area *areas, size_t n, double yaw, double pitch)
{
    for (size_t i = 0; i < n; i++)
        if (yaw >= areas[i].yaw_min && yaw <= areas[i].yaw_max && pitch >= areas[i].pitch_min &&
            pitch <= areas[i].pitch_max)
            return (int)i;
    return -1;
}

/* Distance along the ray (o, d unit) to the object's box, INFINITY when it misses:
 * the slab test in the box's own frame. */
static double ray_box(const double o[3], const double d[3], const sim_gaze_object *b)
{
    double c = cos(b->heading), s = sin(b->heading);
    double rx = o[0] - b->x, ry = o[1] - b->y, rz = o[2] - (b->z + b->height / 2);
    double lo[3] = {rx * c + ry * s, -rx * s + ry * c, rz};
    double ld[3] = {d[0] * c + d[1] * s, -d[0] * s + d[1] * c, d[2]};
    double half[3] = {b->length / 2, b->width / 2, b->height / 2};
    double t0 = 0, t1 = INFINITY;
    for (int k = 0; k < 3; k++) {
        if (fabs(ld[k]) < 1e-12) {
            if (fabs(lo[k]) > half[k]) return INFINITY;
            continue;
        }
        double a = (-half[k] - lo[k]) / ld[k], bb = (half[k] - lo[k]) / ld[k];
        if (a > bb) {
            double tmp = a;
            a = bb;
            bb = tmp;
        }
        if (a > t0) t0 = a;
        if (bb < t1) t1 = bb;
        if (t0 > t1) return INFINITY;
    }
    return t0;
}

int sim_gaze_hit_test(const sim_gaze_scene *sc, double yaw_deg, double pitch_deg, sim_gaze_hit *out,
                      sim_error *err)
{
    memset(out, 0, sizeof *out);
    out->index = out->area = -1;
    out->distance = NAN;
    if (!isfinite(yaw_deg) || !isfinite(pitch_deg) || fabs(yaw_deg) > 180 || fabs(pitch_deg) > 90)
        return sim_error_set(err, SIM_EINVAL, "gaze direction (%g, %g): expected yaw -180..180 and pitch -90..90 "
                             "degrees", yaw_deg, pitch_deg);
    int a = sim_gaze_area_find(sc->areas, sc->n_areas, yaw_deg, pitch_deg);
    out->area = a;
    if (a >= 0 && !sc->areas[a].window) {
        out->kind = SIM_GAZE_AREA;
        out->index = a;
        sim_format(out->name, sizeof out->name, "%s", sc->areas[a].name);
        return SIM_OK;
    }
    /* the ray in the world: eye and direction turned by the ego's heading */
    double ch = cos(sc->ego_heading), sh = sin(sc->ego_heading);
    double o[3] = {sc->ego_x + sc->eye[0] * ch - sc->eye[1] * sh, sc->ego_y + sc->eye[0] * sh + sc->eye[1] * ch,
                   sc->ego_z + sc->eye[2]};
    double yaw = yaw_deg * M_PI / 180, pitch = pitch_deg * M_PI / 180;
    double bx = cos(pitch) * cos(yaw), by = cos(pitch) * sin(yaw);
    double d[3] = {bx * ch - by * sh, bx * sh + by * ch, sin(pitch)};
    double range = sc->max_range > 0 ? sc->max_range : 300;
    double best = INFINITY;
    for (size_t i = 0; i < sc->n_objects; i++) {
        double t = ray_box(o, d, &sc->objects[i]);
        if (t < best && t <= range) {
            best = t;
            out->index = (int)i;
        }
    }
    if (out->index >= 0) {
        const sim_gaze_object *ob = &sc->objects[out->index];
        out->kind = ob->kind;
        out->distance = best;
        sim_format(out->name, sizeof out->name, "%s:%s", ob->kind == SIM_GAZE_SIGN ? "sign" : "vehicle", ob->id);
    } else if (a >= 0) {
        out->kind = SIM_GAZE_AREA;
        out->index = a;
        sim_format(out->name, sizeof out->name, "%s", sc->areas[a].name);
    }
    return SIM_OK;
}

static int pair(sim_json *j, const cJSON *o, const char *path, const char *key, double lim, double *lo, double *hi)
{
    char p[96];
    sim_format(p, sizeof p, "%s.%s", path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return sim_json_found(j, p, v, "[min, max] in degrees");
    int rc = sim_json_number(j, cJSON_GetArrayItem(v, 0), p, -lim, lim, lo);
    if (!rc) rc = sim_json_number(j, cJSON_GetArrayItem(v, 1), p, -lim, lim, hi);
    if (!rc && !(*lo < *hi)) return sim_json_fail(j, SIM_EINVAL, p, "found [%g, %g], expected min < max", *lo, *hi);
    return rc;
}

int sim_gaze_areas_parse(const cJSON *v, const char *file, sim_gaze_area *out, size_t max, size_t *n,
                         sim_error *err)
{
    static const char *const keys[] = {"name", "yaw_deg", "pitch_deg", "window", "comment"};
    sim_json j = {.file = file, .err = err};
    *n = 0;
    if (!cJSON_IsArray(v)) return sim_json_found(&j, "gaze_areas", v, "an array of areas of interest");
    const cJSON *o;
    cJSON_ArrayForEach(o, v)
    {
        char path[48];
        sim_format(path, sizeof path, "gaze_areas[%zu]", *n);
        if (*n == max) return sim_json_fail(&j, SIM_EINVAL, path, "more than %zu areas", max);
        sim_gaze_area *a = &out[*n];
        memset(a, 0, sizeof *a);
        int rc = sim_json_object(&j, o, path);
        if (!rc) rc = sim_json_keys(&j, o, path, keys, 5);
        if (!rc) rc = sim_json_strcpy(&j, o, path, "name", true, a->name, sizeof a->name);
        if (!rc && !a->name[0]) rc = sim_json_fail(&j, SIM_EINVAL, path, "name: expected a non-empty name");
        if (!rc) rc = pair(&j, o, path, "yaw_deg", 180, &a->yaw_min, &a->yaw_max);
        if (!rc) rc = pair(&j, o, path, "pitch_deg", 90, &a->pitch_min, &a->pitch_max);
        if (!rc) rc = sim_json_bool(&j, o, path, "window", false, false, &a->window);
        for (size_t k = 0; !rc && k < *n; k++)
            if (!strcmp(out[k].name, a->name))
                rc = sim_json_fail(&j, SIM_EINVAL, path, "name \"%s\" given twice", a->name);
        if (rc) return rc;
        (*n)++;
    }
    return SIM_OK;
}
