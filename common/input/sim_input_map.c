/* sim_input_map: device mapping files and raw -> normalized controls (see
 * sim_input_map.h; the file format is documented in docs/input.md). */
#include "sim_input_map.h"

#include "sim_file.h"
#include "sim_json.h"

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
    "drt",
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
    return sim_enum_parse(name, button_names, SIM_BUTTON_ROLE_COUNT);
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

/* Every read goes through sim_json (docs/base.md): "path: found X, expected Y". The
 * object checks come first so that a typo in a mapping file is never silently ignored
 * (the person would wonder why the setting has no effect). */
static int object(sim_json *j, const cJSON *v, const char *path, const char *shape,
                  const char *const *keys, int n)
{
    if (!cJSON_IsObject(v)) return sim_json_found(j, path, v, shape);
    return sim_json_keys(j, v, path, keys, n);
}

static int parse_axis(sim_json *j, const cJSON *v, const char *path, sim_axis_map *a)
{
    static const char *const keys[] = {"axis", "invert", "dead_zone", "min", "max"};
    int rc = object(j, v, path, "an object {\"axis\": N, ...}", keys, 5);
    if (rc) return rc;
    axis_set(a, 0, false, 0.0);
    if ((rc = sim_json_int(j, v, path, "axis", true, 0, 0, 255, &a->index)) ||
        (rc = sim_json_bool(j, v, path, "invert", false, false, &a->invert)) ||
        (rc = sim_json_num(j, v, path, "dead_zone", false, 0, SIM_JSON_RANGE, 0, 0.5, &a->dead_zone)) ||
        (rc = sim_json_int(j, v, path, "min", false, -32768, -32768, 32767, &a->raw_min)) ||
        (rc = sim_json_int(j, v, path, "max", false, 32767, -32768, 32767, &a->raw_max)))
        return rc;
    if (a->raw_max - a->raw_min < 2)
        return sim_json_fail(j, SIM_EINVAL, path, "found min %d, max %d, expected min < max - 1",
                             a->raw_min, a->raw_max);
    return SIM_OK;
}

static int parse_button(sim_json *j, const cJSON *v, const char *path, sim_button_ref *b)
{
    if (cJSON_IsNumber(v)) {
        int n;
        int rc = sim_json_integer(j, v, path, 0, 255, &n);
        if (rc) return rc;
        button_set(b, n);
        return SIM_OK;
    }
    static const char *const keys[] = {"hat", "dir"};
    int rc = object(j, v, path, "a button number or {\"hat\": N, \"dir\": \"up\"}", keys, 2);
    if (rc) return rc;
    static const char *const dirs[] = {"up", "right", "down", "left"};
    int hat, dir;
    if ((rc = sim_json_int(j, v, path, "hat", true, 0, 0, 15, &hat)) ||
        (rc = sim_json_enum(j, v, path, "dir", -1, dirs, 4, &dir)))
        return rc;
    hat_set(b, hat, hat_dirs[dir].mask);
    return SIM_OK;
}

static int parse_hshifter(sim_json *j, const cJSON *v, sim_input_map *m)
{
    static const char *const keys[] = {"reverse", "gears"};
    int rc = object(j, v, "hshifter", "an object {\"gears\": [buttons], \"reverse\": N}", keys, 2);
    if (rc) return rc;
    if ((rc = sim_json_int(j, v, "hshifter", "reverse", false, -1, 0, 255, &m->hshifter_reverse)))
        return rc;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(v, "gears");
    int n = cJSON_GetArraySize(g);
    char want[64];
    snprintf(want, sizeof want, "an array of 1 to %d button numbers", SIM_INPUT_MAX_GEARS);
    if (!cJSON_IsArray(g) || n < 1 || n > SIM_INPUT_MAX_GEARS)
        return sim_json_found(j, "hshifter.gears", g, want);
    int i = 0;
    for (const cJSON *e = g->child; e; e = e->next, i++) {
        char p[SIM_JSON_PATH_MAX];
        if ((rc = sim_json_integer(j, e, sim_json_index_path(p, "hshifter.gears", i), 0, 255,
                                   &m->hshifter_gears[i])))
            return rc;
    }
    m->n_hshifter_gears = n;
    return SIM_OK;
}

static int parse_ffb(sim_json *j, const cJSON *v, sim_input_map *m)
{
    static const char *const keys[] = {"gain", "torque_limit", "invert"};
    int rc = object(j, v, "ffb", "an object", keys, 3);
    if (rc) return rc;
    if ((rc = sim_json_num(j, v, "ffb", "gain", false, m->ffb_gain, SIM_JSON_RANGE, 0, 1, &m->ffb_gain)) ||
        (rc = sim_json_num(j, v, "ffb", "torque_limit", false, m->ffb_torque_limit, SIM_JSON_RANGE, 0, 1,
                           &m->ffb_torque_limit)) ||
        (rc = sim_json_bool(j, v, "ffb", "invert", false, m->ffb_invert, &m->ffb_invert)))
        return rc;
    return SIM_OK;
}

static int parse_doc(sim_json *j, const cJSON *root, sim_input_map *m)
{
    static const char *const keys[] = {"format", "name", "match", "steering_range_deg",
                                       "axes",   "buttons", "hshifter", "ffb"};
    if (!cJSON_IsObject(root)) return sim_json_found(j, "(top level)", root, "an object");
    int rc = sim_json_keys(j, root, "", keys, 8);
    if (rc) return rc;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(f) || strcmp(f->valuestring, FORMAT_TAG) != 0)
        return sim_json_found(j, "format", f, "\"" FORMAT_TAG "\"");
    if ((rc = sim_json_strcpy(j, root, "", "name", false, m->name, sizeof m->name))) return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "match"))) {
        static const char *const mkeys[] = {"guid", "name"};
        if ((rc = object(j, f, "match", "an object", mkeys, 2)) ||
            (rc = sim_json_strcpy(j, f, "match", "guid", false, m->match_guid, sizeof m->match_guid)) ||
            (rc = sim_json_strcpy(j, f, "match", "name", false, m->match_name, sizeof m->match_name)))
            return rc;
    }
    if ((rc = sim_json_num(j, root, "", "steering_range_deg", false, m->steering_range_deg,
                           SIM_JSON_RANGE, 90, 3600, &m->steering_range_deg)))
        return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "axes"))) {
        if ((rc = object(j, f, "axes", "an object", axis_names, SIM_AXIS_ROLE_COUNT))) return rc;
        memset(m->axes, 0, sizeof m->axes);
        for (int r = 0; r < SIM_AXIS_ROLE_COUNT; r++) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, axis_names[r]);
            char p[SIM_JSON_PATH_MAX];
            if (a && (rc = parse_axis(j, a, sim_json_key_path(p, "axes", axis_names[r]), &m->axes[r])))
                return rc;
        }
        if (m->axes[SIM_AXIS_PEDALS].used &&
            (m->axes[SIM_AXIS_THROTTLE].used || m->axes[SIM_AXIS_BRAKE].used))
            return sim_json_fail(j, SIM_EINVAL, "axes.pedals",
                                 "found both, expected either a combined \"pedals\" axis or "
                                 "separate \"throttle\"/\"brake\" axes");
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "buttons"))) {
        if ((rc = object(j, f, "buttons", "an object", button_names, SIM_BUTTON_ROLE_COUNT))) return rc;
        memset(m->buttons, 0, sizeof m->buttons);
        for (int r = 0; r < SIM_BUTTON_ROLE_COUNT; r++) {
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(f, button_names[r]);
            char p[SIM_JSON_PATH_MAX];
            if (b && (rc = parse_button(j, b, sim_json_key_path(p, "buttons", button_names[r]), &m->buttons[r])))
                return rc;
        }
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "hshifter")) && (rc = parse_hshifter(j, f, m)))
        return rc;
    if ((f = cJSON_GetObjectItemCaseSensitive(root, "ffb")) && (rc = parse_ffb(j, f, m))) return rc;
    return SIM_OK;
}

static int parse_named(const char *text, size_t len, const char *file, sim_input_map *out,
                       sim_error *err)
{
    sim_json j = {.file = file, .err = err};
    cJSON *root;
    int rc = sim_json_parse(&j, text, len, &root);
    if (rc) return rc;
    sim_input_map m;
    sim_input_map_default(&m);
    rc = parse_doc(&j, root, &m);
    cJSON_Delete(root);
    if (rc == SIM_OK) *out = m;
    return rc;
}

int sim_input_map_parse(const char *text, size_t len, sim_input_map *out, sim_error *err)
{
    return parse_named(text, len, NULL, out, err);
}

int sim_input_map_load(const char *path, sim_input_map *out, sim_error *err)
{
    char *buf;
    size_t len;
    int rc = sim_file_read(path, &buf, &len, err);
    if (rc) return rc;
    rc = parse_named(buf, len, path, out, err);
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
