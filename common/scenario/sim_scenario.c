/* sim_scenario: loading and validating scenario files (see sim_scenario.h and
 * docs/scenario.md).
 *
 * The loader walks the JSON once per section, writing straight into a calloc'ed
 * sim_scenario and appending a message to the diag for every problem it meets; it
 * keeps going after an error (using defaults) so that one run reports them all.
 * References between sections are resolved by id after the referenced section has
 * been read, in this order: roads and junction ids, roads, junctions, road links,
 * then POIs, start points, traffic, triggers, sectors, tasks and the environment. */
#include "sim_scenario.h"
#include "sim_automation_config.h"
#include "sim_drt.h"
#include "sim_scenario_load.h"
#include "sim_scenery.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_file.h"
#include "sim_grid_image.h"
#include "sim_xosc.h"

/* ---- diagnostics -------------------------------------------------------------- */

void sim_diag_free(sim_diag *d)
{
    if (!d) return;
    for (int i = 0; i < d->n; i++) free(d->msgs[i]);
    free(d->msgs);
    memset(d, 0, sizeof *d);
}

void sim_diag_add(sim_diag *d, const char *fmt, ...)
{
    if (!d) return;
    if (d->n >= SIM_DIAG_MAX) {
        d->dropped++;
        return;
    }
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 16;
        char **m = realloc(d->msgs, sizeof *m * (size_t)cap);
        if (!m) {
            d->dropped++;
            return;
        }
        d->msgs = m;
        d->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        d->dropped++;
        return;
    }
    d->msgs[d->n++] = s;
}

/* ---- entry points ------------------------------------------------------------- */

static void diag_report(void *user, const char *msg)
{
    sim_diag_add(user, "%s", msg);
}

int sim_scenario_parse(const char *text, size_t len, const char *name, const char *base_dir,
                       sim_scenario **out, sim_diag *diag)
{
    static const char *const keys[] = {"format", "name", "description", "author", "version",
                                       "terrain", "roads", "junctions", "pois", "start_points",
                                       "traffic", "triggers", "sectors", "tasks", "environment",
                                       "road_friction", "drt", "automation", "traffic_lights", "scenery", "cabs", NULL};
    *out = NULL;
    ld L = {.j = {.file = name, .report = diag_report, .user = diag}, .base_dir = base_dir};
    cJSON *root;
    int rc = sim_json_parse(&L.j, text, len, &root);
    if (rc) return rc;
    sim_scenario *sc = calloc(1, sizeof *sc);
    if (!sc) {
        cJSON_Delete(root);
        sim_diag_add(diag, "%s: out of memory", name);
        return SIM_ENOMEM;
    }
    L.sc = sc;
    sc->path = strdup(name);
    if (!cJSON_IsObject(root)) {
        scn_err_found(&L, "(top level)", root, "an object");
    } else {
        scn_check_keys(&L, root, "", keys);
        int fmt;
        scn_get_int(&L, root, "", "format", false, 1, 1, 1, &fmt);
        sc->name = scn_dup_str(&L, root, "", "name", true, NULL);
        sc->description = scn_dup_str(&L, root, "", "description", false, NULL);
        sc->author = scn_dup_str(&L, root, "", "author", false, NULL);
        sc->version = scn_dup_str(&L, root, "", "version", false, NULL);
        scn_get_num(&L, root, "", "road_friction", false, 1.0, NUM_RANGE, 0, 3, &sc->road_friction);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "terrain");
        if (t) scn_load_terrain(&L, t);
        sc->net.terrain = sc->terrain;
        scn_load_roads(&L, root);
        scn_load_junctions(&L, root);
        sim_error e = {0};
        if (sim_roadnet_build_index(&sc->net, &e)) scn_err_at(&L, "roads", "%s", e.msg);
        scn_load_lights(&L, root);
        scn_load_pois(&L, root);
        scn_load_starts(&L, root);
        scn_load_cabs(&L, root);
        scn_load_traffic(&L, root);
        scn_load_triggers(&L, root);
        scn_check_sumo(&L);
        scn_load_sectors(&L, root);
        scn_load_tasks(&L, root);
        scn_load_environment(&L, root);
        /* The Detection Response Task, when the scenario runs one (common/tasks). */
        const cJSON *drt = cJSON_GetObjectItemCaseSensitive(root, "drt");
        if (drt && (sc->drt = malloc(sizeof *sc->drt))) sim_drt_config_parse(&L.j, drt, "drt", sc->drt);
        else if (drt) sim_diag_add(diag, "%s: out of memory", name);
        /* Roadside scenery rules and explicit objects (common/scenery). */
        const cJSON *scn = cJSON_GetObjectItemCaseSensitive(root, "scenery");
        if (scn && (sc->scenery = malloc(sizeof *sc->scenery))) sim_scenery_config_parse(&L.j, scn, "scenery", sc->scenery);
        else if (scn) sim_diag_add(diag, "%s: out of memory", name);
        const cJSON *au = cJSON_GetObjectItemCaseSensitive(root, "automation");
        sim_error ae = {0};
        if (au && !(sc->automation = malloc(sizeof *sc->automation))) {
            scn_err_at(&L, "automation", "out of memory");
        } else if (au && sim_auto_config_parse(au, name, sc->automation, &ae)) {
            L.j.errors++; /* the message already names the file and the field */
            sim_diag_add(diag, "%s", ae.msg);
        }
    }
    cJSON_Delete(root);
    if (L.j.errors) {
        sim_scenario_free(sc);
        return SIM_EINVAL;
    }
    *out = sc;
    return SIM_OK;
}

/* An OpenDRIVE file alone is the scenario {"name": its name, "roads": {"opendrive":
 * it}}: validate, where and run take road files as they are. */
static char *xodr_scenario_text(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    cJSON *o = cJSON_CreateObject(), *r = cJSON_AddObjectToObject(o, "roads");
    char *text = NULL;
    if (o && r && cJSON_AddStringToObject(o, "name", base) && cJSON_AddStringToObject(r, "opendrive", base))
        text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static bool is_xodr(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcasecmp(path + n - 5, ".xodr") == 0;
}

static bool is_xosc(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcasecmp(path + n - 5, ".xosc") == 0;
}

int sim_scenario_load(const char *path, sim_scenario **out, sim_diag *diag)
{
    char *text;
    size_t len;
    sim_error e = {0};
    *out = NULL;
    if (is_xosc(path)) return sim_scenario_load_xosc(path, NULL, 0, NULL, out, diag);
    if (is_xodr(path)) {
        char *dir = sim_file_dirname(path);
        text = xodr_scenario_text(path);
        int rc = dir && text ? sim_scenario_parse(text, strlen(text), path, dir, out, diag) : SIM_ENOMEM;
        if (rc == SIM_ENOMEM && !(dir && text)) sim_diag_add(diag, "%s: out of memory", path);
        free(dir);
        free(text);
        return rc;
    }
    int rc = sim_file_read(path, &text, &len, &e);
    if (rc) {
        sim_diag_add(diag, "%s", e.msg);
        return rc;
    }
    char *dir = sim_file_dirname(path);
    rc = dir ? sim_scenario_parse(text, len, path, dir, out, diag) : SIM_ENOMEM;
    free(dir);
    free(text);
    return rc;
}

int sim_scenario_load_err(const char *path, sim_scenario **out, sim_error *err)
{
    sim_diag diag = {0};
    int rc = sim_scenario_load(path, out, &diag);
    if (rc && diag.n)
        sim_error_set(err, rc, "%s%s", diag.msgs[0],
                      diag.n + diag.dropped > 1 ? " (and more: see simctl validate)" : "");
    else if (rc)
        sim_error_set(err, rc, "%s: cannot load the scenario", path);
    sim_diag_free(&diag);
    return rc;
}

void sim_scenario_free(sim_scenario *sc)
{
    if (!sc) return;
    free(sc->path);
    free(sc->automation);
    free(sc->opendrive);
    scn_free_sumo(&sc->sumo);
    free(sc->roads_warning);
    free(sc->xosc_warning);
    if (sc->xosc) sim_xosc_free(sc->xosc);
    free(sc->xosc);
    free(sc->name);
    free(sc->description);
    free(sc->author);
    free(sc->version);
    if (sc->terrain) sim_terrain_free(sc->terrain);
    free(sc->terrain);
    sim_roadnet_free(&sc->net);
    for (int i = 0; i < sc->n_pois; i++) {
        free(sc->pois[i].id);
        free(sc->pois[i].name);
        free(sc->pois[i].category);
        free(sc->pois[i].attributes_json);
    }
    free(sc->pois);
    for (int i = 0; i < sc->n_starts; i++) free(sc->starts[i].name);
    for (int i = 0; i < sc->n_cabs; i++) {
        free(sc->cabs[i].name);
        free(sc->cabs[i].vehicle);
    }
    free(sc->cabs);
    free(sc->starts);
    for (int i = 0; i < sc->n_agents; i++) {
        free(sc->agents[i].id);
        free(sc->agents[i].model);
        free(sc->agents[i].route);
    }
    free(sc->agents);
    for (int i = 0; i < sc->n_triggers; i++) {
        free(sc->triggers[i].id);
        free(sc->triggers[i].lanes);
        free(sc->triggers[i].text);
    }
    free(sc->triggers);
    for (int i = 0; i < sc->n_sectors; i++) {
        free(sc->sectors[i].id);
        free(sc->sectors[i].name);
    }
    free(sc->sectors);
    for (int i = 0; i < sc->n_tasks; i++) {
        free(sc->tasks[i].id);
        free(sc->tasks[i].name);
        free(sc->tasks[i].ideal_s);
        free(sc->tasks[i].ideal_d);
    }
    free(sc->tasks);
    free(sc->env.ambient_sound);
    free(sc->drt);
    if (sc->scenery) sim_scenery_config_free(sc->scenery);
    free(sc->scenery);
    free(sc);
}

int sim_scenario_find_start(const sim_scenario *sc, const char *name)
{
    for (int i = 0; i < sc->n_starts; i++)
        if (sc->starts[i].name && strcmp(sc->starts[i].name, name) == 0) return i;
    return -1;
}

int sim_scenario_start_index(const sim_scenario *sc, const char *name, int *index, sim_error *err)
{
    int i = name ? sim_scenario_find_start(sc, name) : sc->n_starts > 0 ? 0 : -1;
    if (i >= 0) {
        *index = i;
        return SIM_OK;
    }
    char known[256] = "";
    for (int k = 0; k < sc->n_starts; k++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s\"%s\"", k ? ", " : "", sc->starts[k].name);
    }
    if (!name)
        return sim_error_set(err, SIM_ENOTFOUND, "%s: start_points: none, expected at least one", sc->path);
    return sim_error_set(err, SIM_ENOTFOUND, "%s: start_points: no start point named \"%s\", expected one of: %s",
                         sc->path, name, known);
}

int sim_scenario_find_task(const sim_scenario *sc, const char *id)
{
    for (int i = 0; i < sc->n_tasks; i++)
        if (sc->tasks[i].id && strcmp(sc->tasks[i].id, id) == 0) return i;
    return -1;
}

double sim_task_ideal_d(const sim_task *t, double s)
{
    int n = t->n_ideal;
    if (n == 0) return 0.0;
    if (s <= t->ideal_s[0]) return t->ideal_d[0];
    if (s >= t->ideal_s[n - 1]) return t->ideal_d[n - 1];
    int lo = 0, hi = n - 1; /* ideal_s[lo] <= s < ideal_s[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (t->ideal_s[mid] <= s) lo = mid;
        else hi = mid;
    }
    double u = (s - t->ideal_s[lo]) / (t->ideal_s[hi] - t->ideal_s[lo]);
    return t->ideal_d[lo] + u * (t->ideal_d[hi] - t->ideal_d[lo]);
}

void sim_scenario_ground(const sim_scenario *sc, double x, double y, sim_ground *out)
{
    memset(out, 0, sizeof *out);
    out->road = -1;
    sim_road_loc loc;
    if (sim_roadnet_locate_on_road(&sc->net, x, y, &loc) == 0) {
        const sim_road *r = &sc->net.roads[loc.road];
        out->on_road = true;
        out->road = loc.road;
        out->z = sim_road_surface(&sc->net, loc.road, loc.s, loc.d, out->n);
        const sim_surface_zone *z = sim_road_zone_at(r, loc.s);
        /* A surface zone covers the whole road; otherwise the verge beside the lanes
         * (median, border) is grass. */
        int lane_surface = sim_lane_surface(loc.lane.type);
        if (z) {
            out->friction = z->friction;
            out->surface = z->surface;
        } else if (lane_surface != SIM_SURFACE_ASPHALT) {
            out->friction = sim_surface_props_of(lane_surface)->friction;
            out->surface = lane_surface;
        } else {
            out->friction = sc->road_friction;
            out->surface = SIM_SURFACE_ASPHALT;
        }
        return;
    }
    if (sc->terrain) {
        sim_terrain_sample smp;
        sim_terrain_eval(sc->terrain, x, y, &smp);
        out->z = smp.z;
        memcpy(out->n, smp.n, sizeof out->n);
        out->friction = smp.friction;
        out->surface = smp.surface;
    } else {
        /* No terrain: the flat ground beside the roads is grass (as it is drawn). */
        out->n[2] = 1.0;
        out->friction = sim_surface_props_of(SIM_SURFACE_GRASS)->friction;
        out->surface = SIM_SURFACE_GRASS;
    }
}

int sim_scenario_validate(const char *path, sim_diag *diag)
{
    sim_scenario *sc;
    int rc = sim_scenario_load(path, &sc, diag);
    sim_scenario_free(sc);
    return rc;
}

/* Rounds to a millimetre so that printed figures do not show float noise. */
static double mm(double v)
{
    return round(v * 1000.0) / 1000.0;
}

char *sim_scenario_where_json(const sim_scenario *sc, double x, double y)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    sim_road_loc loc;
    sim_ground g;
    sim_scenario_ground(sc, x, y, &g);
    if (sim_roadnet_locate(&sc->net, x, y, &loc) == 0) {
        cJSON_AddStringToObject(o, "road", sc->net.roads[loc.road].id);
        cJSON_AddNumberToObject(o, "s", mm(loc.s));
        cJSON_AddNumberToObject(o, "d", mm(loc.d));
        cJSON_AddNumberToObject(o, "lane", loc.lane.lane);
        cJSON_AddBoolToObject(o, "on_road", loc.on_road);
        cJSON_AddNumberToObject(o, "distance", mm(loc.distance));
    } else {
        cJSON_AddNullToObject(o, "road");
    }
    cJSON_AddNumberToObject(o, "z", mm(g.z));
    if (sc->terrain) cJSON_AddNumberToObject(o, "terrain_z", mm(sim_terrain_height(sc->terrain, x, y)));
    char *out = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return out;
}


/* The trigger action's name as scenario files write it (the console's map labels
 * trigger zones with it). */
const char *sim_action_name(sim_action_type a)
{
    static const char *const names[] = {"lane_switch", "brake", "hud_text", "log_mark"};
    return (unsigned)a < sizeof names / sizeof *names ? names[a] : "unknown";
}
