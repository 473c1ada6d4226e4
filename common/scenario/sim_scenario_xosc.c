/* sim_scenario_xosc: an OpenSCENARIO file as a session's scenario (see
 * sim_scenario_load_xosc in sim_scenario.h): the roads of its LogicFile through the
 * OpenDRIVE import, the ego's start from Init, the environment, the storyboard. */
#include "sim_scenario.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_lanegraph_road.h"
#include "sim_storyboard.h"
#include "sim_lights.h"
#include "sim_xosc.h"

static void environment(sim_scenario *sc, const sim_xosc_env *e)
{
    if (!e->given) return;
    sc->env.time_of_day = e->time_of_day;
    double h = e->time_of_day;
    sc->env.light = h >= 7 && h < 18 ? SIM_LIGHT_DAY : h >= 5 && h < 7 ? SIM_LIGHT_DAWN
                    : h >= 18 && h < 20 ? SIM_LIGHT_DUSK : SIM_LIGHT_NIGHT;
    if (e->rain) sc->env.weather = SIM_WEATHER_RAIN;
    if (e->snow) sc->env.weather = SIM_WEATHER_SNOW;
    if (e->visibility > 0) {
        sc->env.visibility = e->visibility;
        if (e->visibility < 1000 && !e->rain && !e->snow) sc->env.weather = SIM_WEATHER_FOG;
    }
}

/* The ego's start: where Init puts it (the storyboard's own placement, so that every
 * Init position is checked against the lane graph too). */
static int ego_start(sim_scenario *sc, sim_error *err)
{
    sim_lanegraph g = {0};
    sim_storyboard sb;
    int rc = sim_lanegraph_from_roads_merge(&g, &sc->net, true, err);
    if (rc < 0) return rc;
    rc = sim_storyboard_init(&sb, &sc->xosc->model, &g, err);
    if (rc < 0) {
        char msg[SIM_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        sim_error_set(err, rc, "%s: %s", sc->path, msg);
        sim_lanegraph_free(&g);
        return rc;
    }
    int e = sc->ego_entity;
    const sim_sb_state_ent *s = &sb.ent[e];
    if (!s->placed) {
        rc = sim_error_set(err, SIM_EINVAL, "%s: %d: <ScenarioObject> %s is the ego but Init gives it no position it can take "
                           "(expected a TeleportAction to a world, lane, road or relative position)", sc->path, sc->xosc->model.entities[e].line,
                           sc->xosc->model.entities[e].name);
    } else if ((free(sc->starts), !(sc->starts = calloc(1, sizeof *sc->starts))) || /* the JSON's empty list */
               !(sc->starts[0].name = strdup(sc->xosc->model.entities[e].name))) {
        rc = sim_error_set(err, SIM_ENOMEM, "%s: out of memory", sc->path);
    } else {
        sim_start_point *st = &sc->starts[0];
        sc->n_starts = 1;
        /* the physics places the car's centre: the reference point moved by the box centre */
        double cx, cy;
        sim_storyboard_center(&sb, e, &cx, &cy);
        sim_road_loc loc;
        st->road = -1;
        if (sim_roadnet_locate(&sc->net, cx, cy, &loc) == 0) {
            st->road = loc.road;
            st->s = loc.s;
            st->d = loc.d;
            st->lane = loc.lane.lane;
        }
        sim_ground gr;
        sim_scenario_ground(sc, cx, cy, &gr);
        st->x = cx;
        st->y = cy;
        st->z = gr.z;
        st->heading = s->heading;
        st->speed = s->v;
    }
    sim_storyboard_free(&sb);
    sim_lanegraph_free(&g);
    return rc;
}

/* One task, "drive": from just past the ego's start along its start lane to its road's
 * end (the analysis needs a task; the storyboard's events in the log cut finer ones).
 * Just past: a task starts where the car crosses its start, and the car's first sample
 * is at the start itself (the analysis saw "never started" when both were one point). */
#define TASK_LEAD_M 1.0
static int drive_task(sim_scenario *sc, sim_error *err)
{
    const sim_start_point *st = &sc->starts[0];
    if (st->road < 0) return SIM_OK;
    double len = sc->net.roads[st->road].length;
    double s0 = st->lane > 0 ? 0 : st->s + TASK_LEAD_M, s1 = st->lane > 0 ? st->s - TASK_LEAD_M : len;
    if (s1 - s0 < 1.0) return SIM_OK;
    sim_task *t = calloc(1, sizeof *t);
    if (!t || !(t->id = strdup("drive")) || !(t->name = strdup("drive")) || !(t->ideal_s = malloc(sizeof *t->ideal_s)) ||
        !(t->ideal_d = malloc(sizeof *t->ideal_d))) {
        if (t) {
            free(t->id);
            free(t->name);
            free(t->ideal_s);
        }
        free(t);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", sc->path);
    }
    t->sector = -1;
    t->road = st->road;
    t->s_start = s0;
    t->s_end = s1;
    t->tube_half_width = 1.0;
    t->ideal_s[0] = s0;
    t->ideal_d[0] = st->d;
    t->n_ideal = 1;
    free(sc->tasks); /* the JSON's empty list */
    sc->tasks = t;
    sc->n_tasks = 1;
    return SIM_OK;
}

int sim_scenario_load_xosc(const char *path, const sim_xosc_override *ov, int n_ov, const char *ego,
                           sim_scenario **out, sim_diag *diag)
{
    sim_error err = {0};
    sim_xosc_report rep;
    *out = NULL;
    sim_xosc *x = calloc(1, sizeof *x);
    if (!x) {
        sim_diag_add(diag, "%s: out of memory", path);
        return SIM_ENOMEM;
    }
    int rc = sim_xosc_load(path, ov, n_ov, x, &rep, &err);
    if (rc) {
        sim_diag_add(diag, "%s", err.msg);
        free(x);
        return rc;
    }
    if (!x->xodr) {
        sim_diag_add(diag, "%s: <RoadNetwork> has no <LogicFile>, expected an OpenDRIVE road file", path);
        sim_xosc_free(x);
        free(x);
        return SIM_EINVAL;
    }
    int ego_i = sim_sb_model_pick_ego(&x->model, ego);
    if (ego_i < 0) {
        sim_diag_add(diag, "%s: <Entities> has no entity %s%s%s to be the ego", path, ego ? "\"" : "",
                     ego ? ego : "at all", ego ? "\"" : "");
        sim_xosc_free(x);
        free(x);
        return SIM_ENOTFOUND;
    }
    x->model.ego = ego_i;
    const char *base = strrchr(path, '/');
    cJSON *o = cJSON_CreateObject(), *r = cJSON_AddObjectToObject(o, "roads");
    char *text = NULL;
    if (o && r && cJSON_AddStringToObject(o, "name", base ? base + 1 : path) &&
        (!x->description[0] || cJSON_AddStringToObject(o, "description", x->description)) && cJSON_AddStringToObject(r, "opendrive", x->xodr))
        text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    rc = text ? sim_scenario_parse(text, strlen(text), path, NULL, out, diag) : SIM_ENOMEM;
    free(text);
    if (rc) {
        if (rc == SIM_ENOMEM && !text) sim_diag_add(diag, "%s: out of memory", path);
        sim_xosc_free(x);
        free(x);
        return rc;
    }
    sim_scenario *sc = *out;
    sc->xosc = x;
    sc->ego_entity = ego_i;
    char buf[1024];
    sim_xosc_unsupported_text(&rep, buf, sizeof buf);
    if (buf[0] && !(sc->xosc_warning = strdup(buf))) rc = sim_error_set(&err, SIM_ENOMEM, "%s: out of memory", path);
    if (!rc) rc = sim_xosc_resolve_roads(x, &sc->net, &err);
    if (!rc) { /* the file's controllers before the OpenDRIVE controllers' default programs */
        sim_lights_drop_defaults(&sc->net.lights);
        rc = sim_xosc_lights(x, &sc->net.lights, &err);
        int n = rc ? 0 : sim_lights_group_defaults(&sc->net.lights, &err);
        if (n < 0) rc = n;
    }
    if (!rc) rc = ego_start(sc, &err);
    if (!rc) rc = drive_task(sc, &err);
    if (rc) {
        sim_diag_add(diag, "%s", err.msg);
        sim_scenario_free(sc);
        *out = NULL;
        return rc;
    }
    environment(sc, &x->env);
    return SIM_OK;
}
