/* sim_vehicle_params: the vehicle parameter file (JSON; docs/vehicle.md describes every
 * field). A table maps each JSON path to a struct field with its unit conversion and
 * allowed range, so that parsing, range checks and unknown-field errors come from one
 * place; the few structured fields (torque curve, gear ratios, names) have their own
 * code. Every field is required: a vehicle file is meant to be copied and edited, and a
 * silently defaulted value would hide a typo. */
#include "sim_json.h"
#include "sim_offset.h"
#include "sim_vehicle.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_NUM, F_DEG, F_KMH, F_BOOL, F_VEC3 } field_kind;

typedef struct field {
    const char *path;
    size_t offset;
    field_kind kind;
    double min, max; /* in file units */
} field;

#define P(m) offsetof(sim_vehicle_params, m)
/* The size of a member of this kind; PK refuses at compile time an entry whose member
 * has another (an int read as a double). */
#define KIND_SIZE(kind) ((kind) == F_VEC3 ? 3 * sizeof(double) : (kind) == F_BOOL ? sizeof(bool) : sizeof(double))
#define PK(m, kind) SIM_OFFSETOF(sim_vehicle_params, m, KIND_SIZE(kind))
#define BIG DBL_MAX
#define SUSP(side, base)                                                                        \
    {"suspension." side ".spring_rate", base + SIM_OFFSETOF(sim_suspension_params, spring_rate, sizeof(double)), F_NUM, 1, BIG}, \
    {"suspension." side ".spring_cubic", base + SIM_OFFSETOF(sim_suspension_params, spring_cubic, sizeof(double)), F_NUM, 0, BIG}, \
    {"suspension." side ".preload", base + SIM_OFFSETOF(sim_suspension_params, preload, sizeof(double)), F_NUM, 0, BIG}, \
    {"suspension." side ".damping_bump", base + SIM_OFFSETOF(sim_suspension_params, damping_bump, sizeof(double)), F_NUM, 0, BIG}, \
    {"suspension." side ".damping_rebound", base + SIM_OFFSETOF(sim_suspension_params, damping_rebound, sizeof(double)), F_NUM, 0, BIG}, \
    {"suspension." side ".damping_knee", base + SIM_OFFSETOF(sim_suspension_params, damping_knee, sizeof(double)), F_NUM, 1e-3, BIG}, \
    {"suspension." side ".bump_travel", base + SIM_OFFSETOF(sim_suspension_params, bump_travel, sizeof(double)), F_NUM, 0, 1}, \
    {"suspension." side ".bump_rate", base + SIM_OFFSETOF(sim_suspension_params, bump_rate, sizeof(double)), F_NUM, 0, BIG}, \
    {"suspension." side ".droop_rate", base + SIM_OFFSETOF(sim_suspension_params, droop_rate, sizeof(double)), F_NUM, 0, BIG}, \
    {"suspension." side ".antiroll_rate", base + SIM_OFFSETOF(sim_suspension_params, antiroll_rate, sizeof(double)), F_NUM, 0, BIG}
#define TIRE(name, m, lo, hi) {"tire." name, P(tire) + SIM_OFFSETOF(sim_tire_params, m, sizeof(double)), F_NUM, lo, hi}

static const field fields[] = {
    {"body.mass", PK(mass, F_NUM), F_NUM, 50, 1e5},
    {"body.unsprung_mass", PK(unsprung_mass, F_NUM), F_NUM, 1, 1e3},
    {"body.inertia", PK(inertia, F_VEC3), F_VEC3, 1, BIG},
    {"body.cog_height", PK(cog_height, F_NUM), F_NUM, 0.05, 5},
    {"body.wheelbase", PK(wheelbase, F_NUM), F_NUM, 0.5, 20},
    {"body.cog_to_front", PK(cog_to_front, F_NUM), F_NUM, 0, 20},
    {"body.track_front", PK(track_front, F_NUM), F_NUM, 0.3, 5},
    {"body.track_rear", PK(track_rear, F_NUM), F_NUM, 0.3, 5},
    {"body.box_half", PK(box_half, F_VEC3), F_VEC3, 0.05, 20},
    {"body.box_offset", PK(box_offset, F_VEC3), F_VEC3, -20, 20},
    {"body.driver_eye", PK(driver_eye, F_VEC3), F_VEC3, -20, 20},
    {"body.restitution", PK(restitution, F_NUM), F_NUM, 0, 1},
    {"body.friction", PK(body_friction, F_NUM), F_NUM, 0, 5},
    {"aero.drag_coefficient", PK(drag_coefficient, F_NUM), F_NUM, 0, 5},
    {"aero.frontal_area", PK(frontal_area, F_NUM), F_NUM, 0, 50},
    {"aero.air_density", PK(air_density, F_NUM), F_NUM, 0, 5},
    {"steering.max_angle_deg", PK(steer_max, F_DEG), F_DEG, 1, 60},
    {"steering.ackermann", PK(ackermann, F_NUM), F_NUM, 0, 1},
    {"steering.time_constant", PK(steer_time, F_NUM), F_NUM, 1e-3, 2},
    {"wheels.inertia_front", PK(wheel_inertia_front, F_NUM), F_NUM, 0.05, 100},
    {"wheels.inertia_rear", PK(wheel_inertia_rear, F_NUM), F_NUM, 0.05, 100},
    TIRE("radius", radius, 0.1, 2),
    TIRE("vertical_stiffness", vertical_stiffness, 1e3, 1e8),
    TIRE("vertical_damping", vertical_damping, 0, 1e6),
    TIRE("relaxation_x", relaxation_x, 0.01, 5),
    TIRE("relaxation_y", relaxation_y, 0.01, 5),
    TIRE("rolling_resistance", rolling_resistance, 0, 0.5),
    TIRE("pacejka.fz0", fz0, 100, 1e6),
    TIRE("pacejka.lambda_mux", lambda_mux, 0.01, 5),
    TIRE("pacejka.lambda_muy", lambda_muy, 0.01, 5),
    TIRE("pacejka.pcx1", pcx1, 1.0, 3), TIRE("pacejka.pdx1", pdx1, 0.05, 5),
    TIRE("pacejka.pdx2", pdx2, -2, 2), TIRE("pacejka.pex1", pex1, -20, 1),
    TIRE("pacejka.pex2", pex2, -20, 20), TIRE("pacejka.pex3", pex3, -20, 20),
    TIRE("pacejka.pkx1", pkx1, 0.1, 200),
    TIRE("pacejka.pkx2", pkx2, -200, 200), TIRE("pacejka.pkx3", pkx3, -20, 20),
    TIRE("pacejka.pcy1", pcy1, 1.0, 3), TIRE("pacejka.pdy1", pdy1, 0.05, 5),
    TIRE("pacejka.pdy2", pdy2, -2, 2), TIRE("pacejka.pey1", pey1, -20, 1),
    TIRE("pacejka.pey2", pey2, -20, 20), TIRE("pacejka.pky1", pky1, 0.1, 200),
    TIRE("pacejka.pky2", pky2, 0.1, 20),
    TIRE("pacejka.qbz1", qbz1, -100, 100), TIRE("pacejka.qbz2", qbz2, -100, 100),
    TIRE("pacejka.qbz3", qbz3, -100, 100), TIRE("pacejka.qcz1", qcz1, 0, 5),
    TIRE("pacejka.qdz1", qdz1, -1, 1), TIRE("pacejka.qdz2", qdz2, -1, 1),
    TIRE("pacejka.qez1", qez1, -100, 1), TIRE("pacejka.qez2", qez2, -100, 100),
    TIRE("brush.cx", brush_cx, 0.1, 200), TIRE("brush.cy", brush_cy, 0.1, 200),
    TIRE("brush.mu", brush_mu, 0.05, 5), TIRE("brush.mu_load", brush_mu_load, -2, 2),
    TIRE("brush.half_length", brush_half_length, 0.005, 1),
    SUSP("front", P(susp_front)),
    SUSP("rear", P(susp_rear)),
    {"engine.torque_max", PK(engine.torque_max, F_NUM), F_NUM, 1, 1e5},
    {"engine.inertia", PK(engine.inertia, F_NUM), F_NUM, 0.01, 100},
    {"engine.friction0", P(engine.friction0), F_NUM, 0, 1e4},
    {"engine.friction1", P(engine.friction1), F_NUM, 0, 100},
    {"engine.idle_rpm", PK(engine.idle_rpm, F_NUM), F_NUM, 100, 5000},
    {"engine.max_rpm", PK(engine.max_rpm, F_NUM), F_NUM, 500, 30000},
    {"clutch.torque_max", PK(clutch.torque_max, F_NUM), F_NUM, 1, 1e5},
    {"clutch.engage_rpm", PK(clutch.engage_rpm, F_NUM), F_NUM, 100, 30000},
    {"clutch.disengage_rpm", PK(clutch.disengage_rpm, F_NUM), F_NUM, 0, 30000},
    {"gearbox.reverse", PK(gearbox.reverse_ratio, F_NUM), F_NUM, 0.1, 50},
    {"gearbox.final_drive", PK(gearbox.final_drive, F_NUM), F_NUM, 0.1, 50},
    {"gearbox.efficiency", PK(gearbox.efficiency, F_NUM), F_NUM, 0.1, 1},
    {"gearbox.auto_efficiency", PK(gearbox.auto_efficiency, F_NUM), F_NUM, 0.1, 1},
    {"gearbox.shift_time", PK(gearbox.shift_time, F_NUM), F_NUM, 0, 5},
    {"gearbox.econ_rpm", PK(auto_econ_rpm, F_NUM), F_NUM, 100, 30000},
    {"differential.lsd_viscous", PK(diff.lsd_viscous, F_NUM), F_NUM, 0, 1e4},
    {"differential.lsd_max", PK(diff.lsd_max, F_NUM), F_NUM, 0, 1e5},
    {"brakes.torque_max_front", PK(brakes.torque_max_front, F_NUM), F_NUM, 0, 1e5},
    {"brakes.torque_max_rear", PK(brakes.torque_max_rear, F_NUM), F_NUM, 0, 1e5},
    {"brakes.abs", PK(brakes.abs_enabled, F_BOOL), F_BOOL, 0, 1},
    {"simple.steer_max_low_deg", PK(simple_steer_max_low, F_DEG), F_DEG, 0.1, 60},
    {"simple.steer_max_high_deg", PK(simple_steer_max_high, F_DEG), F_DEG, 0.1, 60},
    {"simple.speed_low_kmh", PK(simple_speed_low, F_KMH), F_KMH, 0, 500},
    {"simple.speed_high_kmh", PK(simple_speed_high, F_KMH), F_KMH, 0, 500},
    {"simple.friction", PK(simple_friction, F_NUM), F_NUM, 0.01, 5},
    {"wall.mu_max", PK(wall_mu_max, F_NUM), F_NUM, 0, 1},
    {"wall.v_theta_kmh", PK(wall_v_theta, F_KMH), F_KMH, 1, 2000},
    {"wall.max_penetration", PK(wall_max_penetration, F_NUM), F_NUM, 1e-3, 1},
    {"wall.xi", PK(wall_xi, F_NUM), F_NUM, 0, 10},
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* Paths handled by code below rather than the table. */
static const char *const special[] = {"name", "tire.model", "engine.curve", "gearbox.ratios",
                                      "differential.type", "drive", "render", "render.model", "render.cockpit"};
#define N_SPECIAL (sizeof(special) / sizeof(special[0]))

static int bad(sim_json *j, const char *path, const char *found, const char *expected)
{
    return sim_json_fail(j, SIM_EINVAL, path, "found %s, expected %s", found, expected);
}

/* Every key in the file must be a known field or section (catches misspellings). */
static bool known_path(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < N_FIELDS; i++)
        if (strcmp(fields[i].path, path) == 0 ||
            (strncmp(fields[i].path, path, n) == 0 && fields[i].path[n] == '.'))
            return true;
    for (size_t i = 0; i < N_SPECIAL; i++)
        if (strcmp(special[i], path) == 0)
            return true;
    /* the car's areas of interest: read by common/scenario (sim_vehicle_gaze_load) */
    if (strcmp(path, "gaze_areas") == 0) return true;
    return strcmp(path, "comment") == 0 || (n > 8 && strcmp(path + n - 8, ".comment") == 0);
}

/* The names allowed directly under prefix ("" the top level, "body", "tire.pacejka"),
 * each once, comma-separated into buf; *meant: the one nearest to `name` when it is
 * a small misspelling of it (else NULL; points into the table). */
static void allowed_at(const char *prefix, const char *name, char *buf, size_t size, const char **meant)
{
    size_t n = strlen(prefix), used = 0;
    buf[0] = '\0';
    *meant = NULL;
    for (size_t i = 0; i < N_FIELDS + N_SPECIAL; i++) {
        const char *path = i < N_FIELDS ? fields[i].path : special[i - N_FIELDS];
        if (n && (strncmp(path, prefix, n) != 0 || path[n] != '.')) continue;
        const char *rest = n ? path + n + 1 : path;
        size_t len = strcspn(rest, ".");
        /* already listed? */
        bool seen = false;
        for (const char *q = buf; *q && !seen; q += strcspn(q, ",") + (q[strcspn(q, ",")] ? 2 : 0))
            seen = strncmp(q, rest, len) == 0 && (q[len] == ',' || q[len] == '\0');
        if (seen || used + len + 3 >= size) continue;
        used += (size_t)sim_format(buf + used, size - used, "%s%.*s", used ? ", " : "", (int)len, rest);
        if (!*meant) {
            char cand[64];
            sim_format(cand, sizeof cand, "%.*s", (int)len, rest);
            size_t a = strlen(cand), b = strlen(name);
            /* a near miss: one or two letters dropped, added or changed */
            size_t common = 0;
            while (common < a && common < b && cand[common] == name[common]) common++;
            size_t tail = 0;
            while (tail < a - common && tail < b - common && cand[a - 1 - tail] == name[b - 1 - tail]) tail++;
            if ((a > b ? a - b : b - a) <= 2 && a - common - tail <= 2 && b - common - tail <= 2 && a >= 2)
                *meant = rest;
        }
    }
}

static int check_unknown(const cJSON *obj, const char *prefix, sim_json *j)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, obj)
    {
        char path[160];
        sim_format(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", c->string);
        if (!known_path(path)) {
            char list[1200];
            const char *meant;
            allowed_at(prefix, c->string, list, sizeof list, &meant);
            if (meant)
                return sim_json_fail(j, SIM_EINVAL, path, "unknown field (did you mean \"%.*s\"?), expected one of: %s",
                                     (int)strcspn(meant, "."), meant, list);
            return sim_json_fail(j, SIM_EINVAL, path, "unknown field, expected one of: %s (docs/vehicle.md)", list);
        }
        bool is_leaf_field = false;
        for (size_t i = 0; i < N_FIELDS; i++)
            if (strcmp(fields[i].path, path) == 0)
                is_leaf_field = true;
        if (cJSON_IsObject(c) && !is_leaf_field) {
            int rc = check_unknown(c, path, j);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int parse_field(const cJSON *root, const field *f, sim_json *j, sim_vehicle_params *out)
{
    const cJSON *v = sim_json_at(root, f->path);
    char *base = (char *)out + f->offset;
    double hi = f->max == BIG ? INFINITY : f->max;
    if (f->kind == F_BOOL) return sim_json_bool(j, root, "", f->path, true, false, (bool *)base);
    if (f->kind == F_VEC3) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
            return sim_json_found(j, f->path, v, "an array of 3 numbers");
        double *d = (double *)base;
        for (int k = 0; k < 3; k++) {
            char path[SIM_JSON_PATH_MAX];
            int rc = sim_json_number(j, cJSON_GetArrayItem(v, k), sim_json_index_path(path, f->path, k),
                                     f->min, hi, &d[k]);
            if (rc) return rc;
        }
        return 0;
    }
    double x;
    int rc = sim_json_num(j, root, "", f->path, true, 0, SIM_JSON_RANGE, f->min, hi, &x);
    if (rc) return rc;
    if (f->kind == F_DEG)
        x *= M_PI / 180.0;
    else if (f->kind == F_KMH)
        x /= 3.6;
    *(double *)base = x;
    return 0;
}

static int parse_structured(const cJSON *root, sim_json *j, sim_vehicle_params *out)
{
    const char *name;
    int rc = sim_json_str(j, root, "", "name", true, NULL, &name);
    if (rc)
        return rc;
    sim_format(out->name, sizeof(out->name), "%s", name);
    /* the look, for render-node (docs/render.md, "Models"): names or paths of models */
    if ((rc = sim_json_strcpy(j, root, "", "render.model", false, out->model, sizeof out->model)) ||
        (rc = sim_json_strcpy(j, root, "", "render.cockpit", false, out->cockpit, sizeof out->cockpit)))
        return rc;

    static const char *const tire_models[] = {"pacejka", "brush"};
    static const char *const diff_types[] = {"open", "lsd"};
    static const char *const drives[] = {"rear", "front"};
    int e;
    if ((rc = sim_json_enum(j, root, "", "tire.model", -1, tire_models, 2, &e)))
        return rc;
    out->tire.model = (sim_tire_model)e;
    if ((rc = sim_json_enum(j, root, "", "differential.type", -1, diff_types, 2, &e)))
        return rc;
    out->diff.type = (sim_diff_type)e;
    if ((rc = sim_json_enum(j, root, "", "drive", -1, drives, 2, &e)))
        return rc;
    out->drive = (sim_drive_layout)e;

    const cJSON *curve = sim_json_at(root, "engine.curve");
    int n = cJSON_IsArray(curve) ? cJSON_GetArraySize(curve) : -1;
    if (n < 2 || n > SIM_ENGINE_MAX_POINTS) {
        char exp[80];
        sim_format(exp, sizeof(exp), "an array of 2..%d [rpm, factor] pairs", SIM_ENGINE_MAX_POINTS);
        return sim_json_found(j, "engine.curve", curve, exp);
    }
    out->engine.n_points = n;
    for (int i = 0; i < n; i++) {
        const cJSON *pt = cJSON_GetArrayItem(curve, i);
        char path[64];
        sim_format(path, sizeof(path), "engine.curve[%d]", i);
        if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2)
            return sim_json_found(j, path, pt, "a [rpm, factor] pair");
        sim_format(path, sizeof(path), "engine.curve[%d][0]", i);
        if ((rc = sim_json_number(j, cJSON_GetArrayItem(pt, 0), path, 0, 30000, &out->engine.curve_rpm[i])))
            return rc;
        if (i > 0 && out->engine.curve_rpm[i] <= out->engine.curve_rpm[i - 1])
            return bad(j, path, "an rpm not above the previous point's", "ascending rpm");
        sim_format(path, sizeof(path), "engine.curve[%d][1]", i);
        if ((rc = sim_json_number(j, cJSON_GetArrayItem(pt, 1), path, 0, 1, &out->engine.curve_factor[i])))
            return rc;
    }

    const cJSON *ratios = sim_json_at(root, "gearbox.ratios");
    n = cJSON_IsArray(ratios) ? cJSON_GetArraySize(ratios) : -1;
    if (n < 1 || n > SIM_GEARBOX_MAX_GEARS) {
        char exp[80];
        sim_format(exp, sizeof(exp), "an array of 1..%d gear ratios", SIM_GEARBOX_MAX_GEARS);
        return sim_json_found(j, "gearbox.ratios", ratios, exp);
    }
    out->gearbox.n_gears = n;
    for (int i = 0; i < n; i++) {
        char path[64];
        sim_format(path, sizeof(path), "gearbox.ratios[%d]", i);
        if ((rc = sim_json_number(j, cJSON_GetArrayItem(ratios, i), path, 0.1, 50, &out->gearbox.ratio[i])))
            return rc;
        if (i > 0 && out->gearbox.ratio[i] >= out->gearbox.ratio[i - 1])
            return bad(j, path, "a ratio not below the previous gear's",
                       "descending ratios (first gear first)");
    }
    return 0;
}

int sim_vehicle_params_validate(const sim_vehicle_params *p, const char *file, sim_error *err)
{
    if (!file || !*file)
        file = "vehicle";
    sim_json js = {.file = file, .err = err}, *j = &js;
    if (!(p->cog_to_front > 0.0 && p->cog_to_front < p->wheelbase))
        return bad(j, "body.cog_to_front", "a value outside the wheelbase",
                   "0 < cog_to_front < body.wheelbase");
    if (!(SIM_WHEELS * p->unsprung_mass < 0.5 * p->mass))
        return bad(j, "body.unsprung_mass", "four wheels weighing half the car or more",
                   "4 * unsprung_mass < body.mass / 2");
    if (!(p->clutch.engage_rpm > p->clutch.disengage_rpm))
        return bad(j, "clutch.engage_rpm", "a value not above clutch.disengage_rpm",
                   "engage_rpm > disengage_rpm");
    if (!(p->engine.max_rpm > p->engine.idle_rpm))
        return bad(j, "engine.max_rpm", "a value not above engine.idle_rpm",
                   "max_rpm > idle_rpm");
    if (p->engine.n_points < 2 || p->gearbox.n_gears < 1 || p->gearbox.n_gears > SIM_GEARBOX_MAX_GEARS)
        return bad(j, "engine.curve/gearbox.ratios", "too few points or gears",
                   "at least 2 curve points and 1 gear");
    if (!(p->simple_speed_high > p->simple_speed_low))
        return bad(j, "simple.speed_high_kmh", "a value not above speed_low_kmh",
                   "speed_high_kmh > speed_low_kmh");
    if (!(p->mass > 0 && p->inertia.x > 0 && p->inertia.y > 0 && p->inertia.z > 0 &&
          p->tire.radius > 0 && p->tire.relaxation_x > 0 && p->tire.relaxation_y > 0 &&
          p->engine.inertia > 0 && p->steer_time > 0 && p->tire.fz0 > 0 &&
          p->wheel_inertia_front > 0 && p->wheel_inertia_rear > 0 && p->unsprung_mass > 0))
        return bad(j, "(parameters)", "a zero or negative mass, inertia or length",
                   "positive values (is the struct filled?)");
    return 0;
}

int sim_vehicle_params_parse(const char *json, size_t len, const char *file,
                             sim_vehicle_params *out, sim_error *err)
{
    if (!file)
        file = "vehicle";
    if (!json || !out)
        return sim_error_set(err, SIM_EINVAL, "%s: no text to parse", file);
    sim_json j = {.file = file, .err = err};
    cJSON *root;
    int rc = sim_json_parse(&j, json, len, &root);
    if (rc)
        return rc;
    sim_vehicle_params p;
    memset(&p, 0, sizeof(p));
    rc = sim_json_object(&j, root, "(top level)");
    if (!rc)
        rc = check_unknown(root, "", &j);
    for (size_t i = 0; !rc && i < N_FIELDS; i++)
        rc = parse_field(root, &fields[i], &j, &p);
    if (!rc)
        rc = parse_structured(root, &j, &p);
    cJSON_Delete(root);
    if (!rc)
        rc = sim_vehicle_params_validate(&p, file, err);
    sim_tire_prepare(&p.tire);
    if (!rc)
        *out = p;
    return rc;
}
