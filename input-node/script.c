/* script: scenario path following and input replay for the input node (see
 * script.h). */
#include "script.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route.h"

#define DEFAULT_SPEED (50 / 3.6) /* where no speed limit is given */
#define FRONT_OVERHANG 0.9       /* m from the front axle to the bumper */
#define FOLLOW_GAP 4.0           /* m kept to the vehicle ahead when stopped */
#define FOLLOW_THW 1.5           /* s of time gap kept to it */
#define FOLLOW_TAU 2.0           /* s over which a larger gap is closed */

int in_script_open(in_script *scr, const in_script_options *o, sim_error *err)
{
    memset(scr, 0, sizeof *scr);
    scr->opts = *o;
    snprintf(scr->start, sizeof scr->start, "%s", o->start ? o->start : "");
    if (o->replay) {
        scr->replaying = true;
        return sim_driver_replay_load(o->replay, &scr->replay, err);
    }
    if (!o->scenario)
        return sim_error_set(err, SIM_EINVAL,
                             "the scripted driver needs --scenario FILE (or --replay FILE)");
    int rc = in_route_build_spans(o->scenario, o->start, &scr->path, &scr->limit, &scr->spans, &scr->n_spans, err);
    if (rc) {
        in_script_close(scr);
        return rc;
    }
    if ((rc = in_lights_open(&scr->lights, o->scenario, &scr->path, err))) {
        in_script_close(scr);
        return rc;
    }
    sim_driver_params p;
    sim_driver_params_default(&p);
    scr->target_override = o->target_kmh > 0 ? o->target_kmh / 3.6 : 0;
    sim_driver_init(&scr->drv, &p, &scr->path, DEFAULT_SPEED);
    return SIM_OK;
}

void in_script_close(in_script *scr)
{
    sim_driver_replay_free(&scr->replay);
    if (scr->path.n) sim_driver_path_free(&scr->path);
    free(scr->limit);
    scr->limit = NULL;
    free(scr->spans);
    scr->spans = NULL;
    scr->n_spans = 0;
    in_lights_close(&scr->lights);
}

void in_script_on_state(in_script *scr, const sim_driver_obs *obs)
{
    if (scr->replaying) return;
    double limit = scr->operator_limit > 0 ? scr->operator_limit
                   : scr->limit[sim_driver_path_segment(&scr->path, scr->drv.s)];
    double v = scr->target_override > 0 ? scr->target_override : limit > 0 ? limit : DEFAULT_SPEED;
    if (scr->operator_limit > 0 && v > scr->operator_limit) v = scr->operator_limit;
    scr->drv.target_speed = v;
    if (scr->lead_valid) {
        /* A careful driver: FOLLOW_GAP m plus FOLLOW_THW s behind the vehicle ahead,
         * closing a larger gap over FOLLOW_TAU s. */
        double follow = sim_follow_gap_speed(scr->lead_gap, scr->lead_speed, obs->speed, FOLLOW_GAP,
                                             FOLLOW_THW, FOLLOW_TAU);
        if (follow < scr->drv.target_speed) scr->drv.target_speed = follow;
    }
    /* Giving way at the next junction: stop before its entry while it must. */
    double cap = in_yield_speed_cap(scr->spans, scr->n_spans, scr->drv.s, scr->traffic, scr->n_traffic);
    if (cap < scr->drv.target_speed) scr->drv.target_speed = cap;
    /* Stopping at a red light ahead (drv.s is the rear axle's: the front is a wheelbase
     * and an overhang further). */
    cap = in_lights_speed_cap(&scr->lights, scr->drv.s + scr->drv.p.wheelbase + FRONT_OVERHANG, obs->speed);
    if (cap < scr->drv.target_speed) scr->drv.target_speed = cap;
    sim_driver_step(&scr->drv, obs, &scr->last);
}

void in_script_set_lead(in_script *scr, bool valid, double gap, double speed)
{
    scr->lead_valid = valid;
    scr->lead_gap = gap;
    scr->lead_speed = speed;
}

void in_script_set_traffic(in_script *scr, const sim_msg_traffic_vehicle *v, int n)
{
    if (n > IN_SCRIPT_MAX_TRAFFIC) n = IN_SCRIPT_MAX_TRAFFIC;
    memcpy(scr->traffic, v, (size_t)(n > 0 ? n : 0) * sizeof *v);
    scr->n_traffic = n > 0 ? n : 0;
}

void in_script_controls(in_script *scr, double t, sim_controls *out)
{
    if (scr->replaying)
        sim_driver_replay_at(&scr->replay, t, out);
    else
        *out = scr->last;
}

void in_script_set_light(in_script *scr, const char *id, const char *state)
{
    in_lights_set(&scr->lights, id, state);
}

void in_script_speed_limit(in_script *scr, double kmh)
{
    scr->operator_limit = kmh > 0 ? kmh / 3.6 : 0;
}

int in_script_restart(in_script *scr, const char *at, sim_error *err)
{
    if (scr->replaying) return SIM_OK;
    if (at && strcmp(at, scr->start) != 0) {
        sim_driver_path path;
        double *limit;
        in_junction_span *spans;
        int n_spans;
        int rc = in_route_build_spans(scr->opts.scenario, at, &path, &limit, &spans, &n_spans, err);
        if (rc) return rc;
        sim_driver_path_free(&scr->path);
        free(scr->limit);
        free(scr->spans);
        scr->path = path;
        scr->limit = limit;
        scr->spans = spans;
        scr->n_spans = n_spans;
        snprintf(scr->start, sizeof scr->start, "%s", at);
        /* the lines on the new path, with the states known so far */
        in_lights lights;
        if (in_lights_open(&lights, scr->opts.scenario, &scr->path, err) == SIM_OK) {
            for (int h = 0; h < lights.n_heads && h < scr->lights.n_heads; h++) lights.stop[h] = scr->lights.stop[h];
            in_lights_close(&scr->lights);
            scr->lights = lights;
        }
    }
    sim_driver_params p = scr->drv.p; /* init clears drv: copy its parameters first */
    sim_driver_init(&scr->drv, &p, &scr->path, scr->drv.target_speed);
    memset(&scr->last, 0, sizeof scr->last);
    scr->operator_limit = 0; /* a restart is a fresh start: the operator's limit goes too */
    return SIM_OK;
}
