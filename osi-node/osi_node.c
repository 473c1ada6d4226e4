/* osi_node: see osi_node.h. The fields are filled as simctl/osi_trace.c fills a
 * trace's, from the same conversions (common/osi). */
#include "osi_node.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_signal.h"
#include "sim_vehicle_file.h"

int osi_node_load(osi_node *n, sim_error *err)
{
    sim_vehicle_params *p = calloc(1, sizeof *p);
    if (!p) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    int rc = sim_vehicle_params_load(n->vehicle, p, err);
    if (!rc) sim_osi_ego_geometry_from_params(p, &n->geo);
    free(p);
    if (rc) return rc;
    if (!n->scenario) return sim_osi_heads_init(&n->heads, NULL, err); /* (SUMO's heads place themselves) */
    if ((rc = sim_scenario_load_params(n->scenario, n->params, &n->sc, err))) return rc;
    n->env = n->sc->env;
    if ((rc = sim_osi_heads_init(&n->heads, &n->sc->net.lights, err))) return rc;
    return sim_osi_lanes_from_net(&n->sc->net, n->lane_step, &n->lanes, err);
}

void osi_node_free(osi_node *n)
{
    for (int i = 0; i < OSI_NODE_RECENT; i++) cJSON_Delete(n->recent[i]), n->recent[i] = NULL;
    free(n->buf), n->buf = NULL;
    sim_osi_heads_free(&n->heads);
    sim_osi_road_lanes_free(&n->lanes);
    sim_scenario_free(n->sc);
    n->sc = NULL;
}

/* The traffic.state for the pending tick: the same run, the newest at or before it. */
static const cJSON *traffic_for(const osi_node *n)
{
    int best = -1;
    for (int i = 0; i < OSI_NODE_RECENT; i++)
        if (n->recent[i] && n->recent_run[i] == n->ego_run && n->recent_t[i] <= n->ego_t + 1e-9 &&
            (best < 0 || n->recent_t[i] > n->recent_t[best]))
            best = i;
    return best < 0 ? NULL : n->recent[best];
}

static size_t lights(osi_node *n)
{
    size_t k = 0;
    sim_error err = {0};
    if (sim_osi_heads_lights(&n->heads, &k, &err)) fprintf(stderr, "osi-node: traffic lights: %s\n", err.msg);
    return k;
}

static void send_gt(osi_node *n, bool with_lanes, bool greet)
{
    sim_osi_ground_truth gt = n->last;
    gt.lanes = with_lanes && n->sc ? &n->lanes : NULL;
    size_t len = 0;
    sim_error err = {0};
    if (sim_osi_groundtruth_encode(&gt, &n->buf, &n->cap, &len, &err)) {
        fprintf(stderr, "osi-node: GroundTruth at t %.3f s: %s\n", gt.t, err.msg);
        return;
    }
    if (greet) osi_out_greet(n->out, n->buf, len);
    else osi_out_send(n->out, n->buf, len, gt.t);
}

static void emit(osi_node *n)
{
    sim_osi_object_from_vehicle(&n->ego, &n->geo, &n->objects[0]);
    if (n->sc) n->objects[0].assigned_lane = sim_osi_assigned_lane(&n->sc->net, n->ego.road, n->ego.s, n->ego.lane);
    size_t k = 1;
    const cJSON *tr = traffic_for(n);
    if (tr) {
        sim_msg_traffic_state m = {.vehicles = n->vehicles};
        sim_error err = {0};
        if (sim_msg_traffic_state_decode(tr, &m, SIM_MSG_TRAFFIC_MAX_VEHICLES, &err) == 0) {
            for (int i = 0; i < m.n_vehicles; i++) {
                const sim_msg_traffic_vehicle *v = &n->vehicles[i];
                sim_osi_object_from_traffic(v, &n->objects[k]);
                if (n->sc) n->objects[k].assigned_lane = sim_osi_assigned_lane(&n->sc->net, v->road, v->s, v->lane);
                k++;
            }
        } else {
            fprintf(stderr, "osi-node: traffic.state: %s (the tick at t %.3f s goes without traffic)\n", err.msg, n->ego_t);
        }
    }
    if (n->sc)
        sim_osi_environment_from(n->env.light, n->env.time_of_day, n->env.weather, n->env.visibility, n->ego_t,
                                 &n->last_env);
    size_t n_lights = lights(n); /* (before its array is read: it may move it) */
    n->last = (sim_osi_ground_truth){.t = n->ego_t, .host_id = SIM_OSI_HOST_ID, .objects = n->objects, .n_objects = k,
                                     .lights = n->heads.lights, .n_lights = n_lights, .env = n->sc ? &n->last_env : NULL};
    n->have_last = true;
    n->have_ego = false;
    n->sent++;
    send_gt(n, false, false);
    if (n->out && osi_out_fresh(n->out)) send_gt(n, true, true);
}

void osi_node_vehicle(osi_node *n, const cJSON *msg, double t)
{
    sim_msg_vehicle_state m;
    sim_error err = {0};
    if (isnan(t) || t < 0) return;
    if (sim_msg_vehicle_state_decode(msg, &m, &err)) {
        fprintf(stderr, "osi-node: vehicle.state: %s\n", err.msg);
        return;
    }
    if (m.replay) return; /* simctl replay's, not the drive's */
    int64_t run = m.run != SIM_MSG_NO_INT ? m.run : 0;
    bool same = n->have_ego && run == n->ego_run &&
                (isnan(m.tick) || isnan(n->ego_tick) ? fabs(t - n->ego_t) < 1e-9 : m.tick == n->ego_tick);
    if (n->have_ego && !same) emit(n);
    n->have_ego = true;
    n->ego = m;
    n->ego_run = run;
    n->ego_t = t;
    n->ego_tick = m.tick;
}

void osi_node_traffic(osi_node *n, const cJSON *msg, double t)
{
    if (isnan(t)) return;
    int i = n->next;
    n->next = (n->next + 1) % OSI_NODE_RECENT;
    cJSON_Delete(n->recent[i]);
    n->recent[i] = cJSON_Duplicate(msg, true);
    n->recent_t[i] = t;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(msg, "run");
    n->recent_run[i] = cJSON_IsNumber(r) ? (int64_t)r->valuedouble : 0;
}

void osi_node_signal(osi_node *n, const cJSON *msg)
{
    sim_msg_signal_state m;
    sim_msg_signal_where w;
    sim_error e = {0};
    if (sim_msg_signal_state_decode(msg, &m, &e) || sim_msg_signal_where_decode(msg, &w, &e)) return;
    if (sim_osi_heads_signal(&n->heads, &m, &w, &e)) fprintf(stderr, "osi-node: signal.state: %s\n", e.msg);
}

void osi_node_light(osi_node *n, const cJSON *msg)
{
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(msg, "mode");
    int l = cJSON_IsString(mode) ? sim_light_find(mode->valuestring, true) : -1;
    if (l >= 0) n->env.light = (sim_light)l; /* (render-node answers the command) */
}

void osi_node_flush(osi_node *n)
{
    if (n->have_ego) emit(n);
}

void osi_node_greet(osi_node *n)
{
    if (n->have_last) send_gt(n, true, true);
}
