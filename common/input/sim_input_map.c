/* sim_input_map: device mapping files and raw -> normalized controls (see
 * sim_input_map.h; the file format is documented in docs/input.md). */
#include "sim_input_map.h"

#include "sim_file.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_TAG "sim-input-map/1"

static const char *const axis_names[SIM_AXIS_ROLE_COUNT] = {
    "steer", "throttle", "brake", "clutch", "pedals",
};

static const char *const button_names[SIM_BUTTON_ROLE_COUNT] = {
    "indicator_left", "indicator_right", "horn",    "menu_up",    "menu_down", "menu_select",
    "menu_back",      "gear_up",         "gear_down", "headlights", "wiper",     "pause",
};

static const struct {
    const char *name;
    int mask;
} hat_dirs[] = {{"up", SIM_HAT_UP}, {"right", SIM_HAT_RIGHT}, {"down", SIM_HAT_DOWN},
                {"left", SIM_HAT_LEFT}};

const char *sim_axis_role_name(sim_axis_role role)
{
    return (unsigned)role < SIM_AXIS_ROLE_COUNT ? axis_names[role] : "?";
}

const char *sim_button_role_name(sim_button_role role)
{
    return (unsigned)role < SIM_BUTTON_ROLE_COUNT ? button_names[role] : "?";
}

int sim_button_role_from_name(const char *name)
{
    for (int i = 0; name && i < SIM_BUTTON_ROLE_COUNT; i++)
        if (strcmp(name, button_names[i]) == 0) return i;
    return -1;
}

static void axis_set(sim_axis_map *a, int index, bool invert, double dead_zone)
{
    a->used = true;
    a->index = index;
    a->invert = invert;
    a->dead_zone = dead_zone;
    a->raw_min = -32768;
    a->raw_max = 32767;
}

static void button_set(sim_button_ref *b, int button)
{
    *b = (sim_button_ref){.used = true, .button = button, .hat = -1, .hat_mask = 0};
}

static void hat_set(sim_button_ref *b, int hat, int mask)
{
    *b = (sim_button_ref){.used = true, .button = -1, .hat = hat, .hat_mask = mask};
}

void sim_input_map_default(sim_input_map *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "default wheel");
    m->steering_range_deg = 900;
    axis_set(&m->axes[SIM_AXIS_STEER], 0, false, 0.0);
    axis_set(&m->axes[SIM_AXIS_THROTTLE], 2, true, 0.02);
    axis_set(&m->axes[SIM_AXIS_BRAKE], 3, true, 0.02);
    axis_set(&m->axes[SIM_AXIS_CLUTCH], 1, true, 0.02);
    button_set(&m->buttons[SIM_BUTTON_INDICATOR_LEFT], 5);
    button_set(&m->buttons[SIM_BUTTON_INDICATOR_RIGHT], 4);
    button_set(&m->buttons[SIM_BUTTON_HORN], 0);
    hat_set(&m->buttons[SIM_BUTTON_MENU_UP], 0, SIM_HAT_UP);
    hat_set(&m->buttons[SIM_BUTTON_MENU_DOWN], 0, SIM_HAT_DOWN);
    hat_set(&m->buttons[SIM_BUTTON_MENU_SELECT], 0, SIM_HAT_RIGHT);
    hat_set(&m->buttons[SIM_BUTTON_MENU_BACK], 0, SIM_HAT_LEFT);
    m->hshifter_reverse = -1;
    m->ffb_gain = 1.0;
    m->ffb_torque_limit = 0.8;
}

/* ---- parsing ---------------------------------------------------------------------- */

/* Short words for what a JSON value is, for "found ..." in messages. */
static const char *json_kind(const cJSON *v)
{
    if (!v) return "nothing";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsArray(v)) return "an array";
    return "an object";
}

static int get_int(const cJSON *v, const char *path, int lo, int hi, int *out, sim_error *err)
{
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
        return sim_error_set(err, SIM_EINVAL, "%s: expected an integer in [%d, %d], found %s", path,
                             lo, hi, json_kind(v));
    if (v->valuedouble < lo || v->valuedouble > hi)
        return sim_error_set(err, SIM_ERANGE, "%s: expected an integer in [%d, %d], found %g", path,
                             lo, hi, v->valuedouble);
    *out = (int)v->valuedouble;
    return SIM_OK;
}

static int get_double(const cJSON *v, const char *path, double lo, double hi, double *out,
                      sim_error *err)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return sim_error_set(err, SIM_EINVAL, "%s: expected a number in [%g, %g], found %s", path,
                             lo, hi, json_kind(v));
    if (v->valuedouble < lo || v->valuedouble > hi)
        return sim_error_set(err, SIM_ERANGE, "%s: expected a number in [%g, %g], found %g", path,
                             lo, hi, v->valuedouble);
    *out = v->valuedouble;
    return SIM_OK;
}

static int get_bool(const cJSON *v, const char *path, bool *out, sim_error *err)
{
    if (!cJSON_IsBool(v))
        return sim_error_set(err, SIM_EINVAL, "%s: expected true or false, found %s", path,
                             json_kind(v));
    *out = cJSON_IsTrue(v);
    return SIM_OK;
}

static int get_string(const cJSON *v, const char *path, char *out, size_t size, sim_error *err)
{
    if (!cJSON_IsString(v))
        return sim_error_set(err, SIM_EINVAL, "%s: expected a string, found %s", path,
                             json_kind(v));
    if (strlen(v->valuestring) >= size)
        return sim_error_set(err, SIM_ETOOBIG, "%s: expected at most %zu characters, found %zu",
                             path, size - 1, strlen(v->valuestring));
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return SIM_OK;
}

/* Rejects members of obj not in allowed (a typo in a mapping file should not be
 * silently ignored: the person would wonder why the setting has no effect). */
static int check_keys(const cJSON *obj, const char *path, const char *const *allowed, size_t n,
                      sim_error *err)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        size_t i = 0;
        while (i < n && strcmp(c->string, allowed[i]) != 0) i++;
        if (i == n) {
            char list[256] = "";
            for (size_t j = 0; j < n; j++) {
                strncat(list, allowed[j], sizeof list - strlen(list) - 1);
                if (j + 1 < n) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return sim_error_set(err, SIM_EINVAL, "%s%s%s: unknown field, expected one of: %s",
                                 path, *path ? "." : "", c->string, list);
        }
    }
    return SIM_OK;
}

static int parse_axis(const cJSON *v, const char *path, sim_axis_map *a, sim_error *err)
{
    static const char *const keys[] = {"axis", "invert", "dead_zone", "min", "max"};
    if (!cJSON_IsObject(v))
        return sim_error_set(err, SIM_EINVAL, "%s: expected an object {\"axis\": N, ...}, found %s",
                             path, json_kind(v));
    int rc = check_keys(v, path, keys, sizeof keys / sizeof *keys, err);
    if (rc) return rc;
    char p[160];
    axis_set(a, 0, false, 0.0);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(v, "axis");
    snprintf(p, sizeof p, "%s.axis", path);
    if ((rc = get_int(f, p, 0, 255, &a->index, err))) return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "invert"))) {
        snprintf(p, sizeof p, "%s.invert", path);
        if ((rc = get_bool(f, p, &a->invert, err))) return rc;
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "dead_zone"))) {
        snprintf(p, sizeof p, "%s.dead_zone", path);
        if ((rc = get_double(f, p, 0.0, 0.5, &a->dead_zone, err))) return rc;
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "min"))) {
        snprintf(p, sizeof p, "%s.min", path);
        if ((rc = get_int(f, p, -32768, 32767, &a->raw_min, err))) return rc;
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "max"))) {
        snprintf(p, sizeof p, "%s.max", path);
        if ((rc = get_int(f, p, -32768, 32767, &a->raw_max, err))) return rc;
    }
    if (a->raw_max - a->raw_min < 2)
        return sim_error_set(err, SIM_EINVAL, "%s: expected min < max - 1, found min %d, max %d",
                             path, a->raw_min, a->raw_max);
    return SIM_OK;
}

static int parse_button(const cJSON *v, const char *path, sim_button_ref *b, sim_error *err)
{
    if (cJSON_IsNumber(v)) {
        int n;
        int rc = get_int(v, path, 0, 255, &n, err);
        if (rc) return rc;
        button_set(b, n);
        return SIM_OK;
    }
    if (!cJSON_IsObject(v))
        return sim_error_set(err, SIM_EINVAL,
                             "%s: expected a button number or {\"hat\": N, \"dir\": \"up\"}, found %s",
                             path, json_kind(v));
    static const char *const keys[] = {"hat", "dir"};
    int rc = check_keys(v, path, keys, 2, err);
    if (rc) return rc;
    char p[160];
    int hat;
    snprintf(p, sizeof p, "%s.hat", path);
    if ((rc = get_int(cJSON_GetObjectItemCaseSensitive(v, "hat"), p, 0, 15, &hat, err))) return rc;
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(v, "dir");
    for (size_t i = 0; cJSON_IsString(d) && i < sizeof hat_dirs / sizeof *hat_dirs; i++)
        if (strcmp(d->valuestring, hat_dirs[i].name) == 0) {
            hat_set(b, hat, hat_dirs[i].mask);
            return SIM_OK;
        }
    return sim_error_set(err, SIM_EINVAL,
                         "%s.dir: expected \"up\", \"down\", \"left\" or \"right\", found %s%s%s",
                         path, cJSON_IsString(d) ? "\"" : "",
                         cJSON_IsString(d) ? d->valuestring : json_kind(d),
                         cJSON_IsString(d) ? "\"" : "");
}

static int parse_hshifter(const cJSON *v, sim_input_map *m, sim_error *err)
{
    static const char *const keys[] = {"reverse", "gears"};
    if (!cJSON_IsObject(v))
        return sim_error_set(err, SIM_EINVAL,
                             "hshifter: expected an object {\"gears\": [buttons], \"reverse\": N}, found %s",
                             json_kind(v));
    int rc = check_keys(v, "hshifter", keys, 2, err);
    if (rc) return rc;
    m->hshifter_reverse = -1;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(v, "reverse");
    if (r && (rc = get_int(r, "hshifter.reverse", 0, 255, &m->hshifter_reverse, err))) return rc;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(v, "gears");
    int n = cJSON_GetArraySize(g);
    if (!cJSON_IsArray(g) || n < 1 || n > SIM_INPUT_MAX_GEARS)
        return sim_error_set(err, SIM_EINVAL,
                             "hshifter.gears: expected an array of 1 to %d button numbers, found %s",
                             SIM_INPUT_MAX_GEARS, cJSON_IsArray(g) ? "another length" : json_kind(g));
    int i = 0;
    for (const cJSON *e = g->child; e; e = e->next, i++) {
        char p[64];
        snprintf(p, sizeof p, "hshifter.gears[%d]", i);
        if ((rc = get_int(e, p, 0, 255, &m->hshifter_gears[i], err))) return rc;
    }
    m->n_hshifter_gears = n;
    return SIM_OK;
}

static int parse_ffb(const cJSON *v, sim_input_map *m, sim_error *err)
{
    static const char *const keys[] = {"gain", "torque_limit", "invert"};
    if (!cJSON_IsObject(v))
        return sim_error_set(err, SIM_EINVAL, "ffb: expected an object, found %s", json_kind(v));
    int rc = check_keys(v, "ffb", keys, 3, err);
    if (rc) return rc;
    const cJSON *f;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "gain")) &&
        (rc = get_double(f, "ffb.gain", 0, 1, &m->ffb_gain, err)))
        return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "torque_limit")) &&
        (rc = get_double(f, "ffb.torque_limit", 0, 1, &m->ffb_torque_limit, err)))
        return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "invert")) &&
        (rc = get_bool(f, "ffb.invert", &m->ffb_invert, err)))
        return rc;
    return SIM_OK;
}

static int parse_doc(const cJSON *root, sim_input_map *m, sim_error *err)
{
    static const char *const keys[] = {"format", "name", "match", "steering_range_deg",
                                       "axes",   "buttons", "hshifter", "ffb"};
    if (!cJSON_IsObject(root))
        return sim_error_set(err, SIM_EINVAL, "(top level): expected an object, found %s",
                             json_kind(root));
    int rc = check_keys(root, "", keys, sizeof keys / sizeof *keys, err);
    if (rc) return rc;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(f) || strcmp(f->valuestring, FORMAT_TAG) != 0)
        return sim_error_set(err, SIM_EINVAL, "format: expected \"%s\", found %s%s%s", FORMAT_TAG,
                             cJSON_IsString(f) ? "\"" : "",
                             cJSON_IsString(f) ? f->valuestring : json_kind(f),
                             cJSON_IsString(f) ? "\"" : "");
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "name")) &&
        (rc = get_string(f, "name", m->name, sizeof m->name, err)))
        return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "match"))) {
        static const char *const mkeys[] = {"guid", "name"};
        if (!cJSON_IsObject(f))
            return sim_error_set(err, SIM_EINVAL, "match: expected an object, found %s",
                                 json_kind(f));
        if ((rc = check_keys(f, "match", mkeys, 2, err))) return rc;
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(f, "guid");
        if (g && (rc = get_string(g, "match.guid", m->match_guid, sizeof m->match_guid, err)))
            return rc;
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(f, "name");
        if (n && (rc = get_string(n, "match.name", m->match_name, sizeof m->match_name, err)))
            return rc;
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "steering_range_deg")) &&
        (rc = get_double(f, "steering_range_deg", 90, 3600, &m->steering_range_deg, err)))
        return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "axes"))) {
        if (!cJSON_IsObject(f))
            return sim_error_set(err, SIM_EINVAL, "axes: expected an object, found %s", json_kind(f));
        if ((rc = check_keys(f, "axes", axis_names, SIM_AXIS_ROLE_COUNT, err))) return rc;
        memset(m->axes, 0, sizeof m->axes);
        for (int r = 0; r < SIM_AXIS_ROLE_COUNT; r++) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, axis_names[r]);
            char p[64];
            snprintf(p, sizeof p, "axes.%s", axis_names[r]);
            if (a && (rc = parse_axis(a, p, &m->axes[r], err))) return rc;
        }
        if (m->axes[SIM_AXIS_PEDALS].used &&
            (m->axes[SIM_AXIS_THROTTLE].used || m->axes[SIM_AXIS_BRAKE].used))
            return sim_error_set(err, SIM_EINVAL,
                                 "axes.pedals: expected either a combined \"pedals\" axis or "
                                 "separate \"throttle\"/\"brake\" axes, found both");
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "buttons"))) {
        if (!cJSON_IsObject(f))
            return sim_error_set(err, SIM_EINVAL, "buttons: expected an object, found %s",
                                 json_kind(f));
        if ((rc = check_keys(f, "buttons", button_names, SIM_BUTTON_ROLE_COUNT, err))) return rc;
        memset(m->buttons, 0, sizeof m->buttons);
        for (int r = 0; r < SIM_BUTTON_ROLE_COUNT; r++) {
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(f, button_names[r]);
            char p[64];
            snprintf(p, sizeof p, "buttons.%s", button_names[r]);
            if (b && (rc = parse_button(b, p, &m->buttons[r], err))) return rc;
        }
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "hshifter")) &&
        (rc = parse_hshifter(f, m, err)))
        return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "ffb")) && (rc = parse_ffb(f, m, err)))
        return rc;
    return SIM_OK;
}

int sim_input_map_parse(const char *text, size_t len, sim_input_map *out, sim_error *err)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        int line, col;
        size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        sim_file_line_col(text, off, &line, &col);
        return sim_error_set(err, SIM_EINVAL, "line %d, column %d: expected valid JSON", line, col);
    }
    sim_input_map m;
    sim_input_map_default(&m);
    int rc = parse_doc(root, &m, err);
    cJSON_Delete(root);
    if (rc == SIM_OK) *out = m;
    return rc;
}

int sim_input_map_load(const char *path, sim_input_map *out, sim_error *err)
{
    char *buf;
    size_t len;
    int rc = sim_file_read(path, &buf, &len, err);
    if (rc) return rc;
    rc = sim_input_map_parse(buf, len, out, err);
    if (rc) sim_error_prefix(err, "%s", path);
    free(buf);
    return rc;
}

/* ---- writing ---------------------------------------------------------------------- */

cJSON *sim_input_map_to_json(const sim_input_map *m)
{
    /* Every child is attached to root as soon as it is made, so one cJSON_Delete of
     * root frees everything on any allocation failure. */
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON *match = NULL;
    bool ok = cJSON_AddStringToObject(root, "format", FORMAT_TAG) &&
              cJSON_AddStringToObject(root, "name", m->name) &&
              (match = cJSON_AddObjectToObject(root, "match")) &&
              cJSON_AddNumberToObject(root, "steering_range_deg", m->steering_range_deg);
    if (ok && m->match_guid[0]) ok = cJSON_AddStringToObject(match, "guid", m->match_guid);
    if (ok && m->match_name[0]) ok = cJSON_AddStringToObject(match, "name", m->match_name);
    cJSON *axes = ok ? cJSON_AddObjectToObject(root, "axes") : NULL;
    ok = axes != NULL;
    for (int r = 0; ok && r < SIM_AXIS_ROLE_COUNT; r++) {
        const sim_axis_map *a = &m->axes[r];
        if (!a->used) continue;
        cJSON *o = cJSON_AddObjectToObject(axes, axis_names[r]);
        ok = o && cJSON_AddNumberToObject(o, "axis", a->index) &&
             cJSON_AddBoolToObject(o, "invert", a->invert) &&
             cJSON_AddNumberToObject(o, "dead_zone", a->dead_zone) &&
             cJSON_AddNumberToObject(o, "min", a->raw_min) &&
             cJSON_AddNumberToObject(o, "max", a->raw_max);
    }
    cJSON *buttons = ok ? cJSON_AddObjectToObject(root, "buttons") : NULL;
    ok = buttons != NULL;
    for (int r = 0; ok && r < SIM_BUTTON_ROLE_COUNT; r++) {
        const sim_button_ref *b = &m->buttons[r];
        if (!b->used) continue;
        if (b->button >= 0) {
            ok = cJSON_AddNumberToObject(buttons, button_names[r], b->button) != NULL;
            continue;
        }
        const char *dir = "up";
        for (size_t i = 0; i < sizeof hat_dirs / sizeof *hat_dirs; i++)
            if (hat_dirs[i].mask == b->hat_mask) dir = hat_dirs[i].name;
        cJSON *o = cJSON_AddObjectToObject(buttons, button_names[r]);
        ok = o && cJSON_AddNumberToObject(o, "hat", b->hat) && cJSON_AddStringToObject(o, "dir", dir);
    }
    if (ok && m->n_hshifter_gears > 0) {
        cJSON *h = cJSON_AddObjectToObject(root, "hshifter");
        cJSON *g = h ? cJSON_CreateIntArray(m->hshifter_gears, m->n_hshifter_gears) : NULL;
        ok = g && cJSON_AddItemToObject(h, "gears", g);
        if (!ok) cJSON_Delete(g);
        if (ok && m->hshifter_reverse >= 0)
            ok = cJSON_AddNumberToObject(h, "reverse", m->hshifter_reverse) != NULL;
    }
    cJSON *ffb = ok ? cJSON_AddObjectToObject(root, "ffb") : NULL;
    ok = ffb && cJSON_AddNumberToObject(ffb, "gain", m->ffb_gain) &&
         cJSON_AddNumberToObject(ffb, "torque_limit", m->ffb_torque_limit) &&
         cJSON_AddBoolToObject(ffb, "invert", m->ffb_invert);
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* ---- matching and mapping --------------------------------------------------------- */

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return true;
    }
    return false;
}

int sim_input_map_match(const sim_input_map *m, const char *guid, const char *name)
{
    if (guid && m->match_guid[0] && strcasecmp(guid, m->match_guid) == 0) return 2;
    if (name && m->match_name[0] && contains_nocase(name, m->match_name)) return 1;
    return 0;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

double sim_axis_centered(const sim_axis_map *a, int raw)
{
    double mid = 0.5 * ((double)a->raw_min + (double)a->raw_max);
    double half = 0.5 * ((double)a->raw_max - (double)a->raw_min);
    double v = clamp((raw - mid) / half, -1.0, 1.0);
    if (a->invert) v = -v;
    double mag = fabs(v);
    if (mag <= a->dead_zone) return 0.0;
    return copysign((mag - a->dead_zone) / (1.0 - a->dead_zone), v);
}

double sim_axis_pedal(const sim_axis_map *a, int raw)
{
    double v = clamp(((double)raw - a->raw_min) / ((double)a->raw_max - a->raw_min), 0.0, 1.0);
    if (a->invert) v = 1.0 - v;
    if (v <= a->dead_zone) return 0.0;
    return (v - a->dead_zone) / (1.0 - a->dead_zone);
}

/* Whether the role's axis exists on this device. */
static bool axis_present(const sim_input_map *m, const sim_input_raw *raw, sim_axis_role r)
{
    return m->axes[r].used && m->axes[r].index < raw->n_axes;
}

/* A pedal role's position, 0 when the device lacks its axis. */
static double pedal(const sim_input_map *m, const sim_input_raw *raw, sim_axis_role r)
{
    if (!axis_present(m, raw, r)) return 0.0;
    return sim_axis_pedal(&m->axes[r], raw->axes[m->axes[r].index]);
}

static bool button_down(const sim_input_raw *raw, int b)
{
    return b >= 0 && b < raw->n_buttons && raw->buttons[b];
}

void sim_input_map_apply(const sim_input_map *m, const sim_input_raw *raw, sim_controls *out)
{
    sim_controls c;
    memset(&c, 0, sizeof c);
    if (axis_present(m, raw, SIM_AXIS_STEER)) {
        const sim_axis_map *a = &m->axes[SIM_AXIS_STEER];
        /* Wheels report left as the low end; our steer is left positive. */
        c.steer = -sim_axis_centered(a, raw->axes[a->index]);
    }
    c.steer_deg = c.steer * 0.5 * m->steering_range_deg;
    c.throttle = pedal(m, raw, SIM_AXIS_THROTTLE);
    c.brake = pedal(m, raw, SIM_AXIS_BRAKE);
    c.clutch = pedal(m, raw, SIM_AXIS_CLUTCH);
    if (axis_present(m, raw, SIM_AXIS_PEDALS)) {
        const sim_axis_map *a = &m->axes[SIM_AXIS_PEDALS];
        double v = sim_axis_centered(a, raw->axes[a->index]);
        c.throttle = v < 0 ? -v : 0.0;
        c.brake = v > 0 ? v : 0.0;
    }
    if (m->n_hshifter_gears > 0) {
        c.has_gear = true;
        c.gear = 0;
        for (int g = 0; g < m->n_hshifter_gears; g++)
            if (button_down(raw, m->hshifter_gears[g])) c.gear = g + 1;
        if (button_down(raw, m->hshifter_reverse)) c.gear = -1;
    }
    *out = c;
}

bool sim_input_map_pressed(const sim_input_map *m, const sim_input_raw *raw, sim_button_role role)
{
    if ((unsigned)role >= SIM_BUTTON_ROLE_COUNT) return false;
    const sim_button_ref *b = &m->buttons[role];
    if (!b->used) return false;
    if (b->button >= 0) return button_down(raw, b->button);
    return b->hat < raw->n_hats && (raw->hats[b->hat] & b->hat_mask) != 0;
}
