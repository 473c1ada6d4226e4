/* sumo_session.h: the SUMO co-simulation tests' session (test_sumo_session.c on Town03,
 * test_sumo_motorway.c on the motorway): a real dispatcher and traffic-node with the
 * real `sumo` it starts, the test playing physics in lockstep (the ego's state and
 * sim.tick out, traffic.state and sim.ack back), and the checks both make: boxes that
 * overlap, vehicles in a drivable lane of the scenario's own road model (with how far
 * they are from its lane centres), `simctl where` at a vehicle's place.
 * Header-only, as render_picture.h (each test is one program); include it after
 * cmocka.h. */
#ifndef TESTS_SUMO_SESSION_H
#define TESTS_SUMO_SESSION_H

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_traffic.h"
#include "sim_road.h"
#include "sim_scenario.h"
#include "test_support.h"

#define DT 0.01
#define EGO_LEN 4.5
#define EGO_WIDTH 1.8

typedef struct session {
    ts_dispatcher d;
    pid_t node;
    ts_conn *phys;
    sim_scenario *sc;
    uint64_t tick, seq;
    double ex, ey, eh, ev;          /* the ego: centre, heading, speed */
    char dir[256];
    const char *scenario;           /* relative to the checkout, or absolute */
    char line[70000];
    sim_msg_traffic_vehicle veh[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    sim_msg_traffic_state st;
} session;

/* The scenario's file: a relative name under the checkout, an absolute one as it is. */
static inline const char *session_scenario_path(const session *s)
{
    return s->scenario[0] == '/' ? s->scenario : ts_root(s->scenario);
}

static inline void sumo_session_open(session *s, const char *scenario, const char *sumo)
{
    memset(s, 0, sizeof *s);
    s->scenario = scenario;
    assert_true(ts_dispatcher_start(&s->d, NULL));
    s->phys = ts_join(s->d.port, "physics", "[\"sim.ack\",\"traffic.\",\"control.ack\",\"dispatcher.joined\"]", NULL);
    assert_non_null(s->phys);
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", s->d.port);
    snprintf(s->dir, sizeof s->dir, "/tmp/test_sumo_session.%d.%d", (int)getpid(), s->d.port);
    if (sumo) setenv("SIM_SUMO", sumo, 1);
    else unsetenv("SIM_SUMO");
    char *argv[] = {"traffic-node", "--bus",    bus,    "--scenario", (char *)session_scenario_path(s), "--lockstep",
                    "--sumo-dir",   s->dir,     NULL};
    s->node = ts_spawn(argv, false);
    assert_true(s->node > 0);
    for (;;) {
        cJSON *j = ts_expect_topic(s->phys, "dispatcher.joined", 60000, NULL, 0);
        assert_non_null(j);
        const cJSON *name = cJSON_GetObjectItem(j, "name");
        bool it = cJSON_IsString(name) && strcmp(name->valuestring, "traffic") == 0;
        cJSON_Delete(j);
        if (it) break;
    }
    sim_error err = {0};
    assert_int_equal(sim_scenario_load_err(session_scenario_path(s), &s->sc, &err), 0);
    const sim_start_point *sp = &s->sc->starts[0];
    s->ex = sp->x, s->ey = sp->y, s->eh = sp->heading, s->ev = 0;
}

static inline void session_stop(session *s)
{
    assert_int_equal(ts_stop(s->node, SIGTERM, 10000), 0);
    ts_close(s->phys);
    ts_dispatcher_stop(&s->d);
    sim_scenario_free(s->sc);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    assert_int_equal(system(cmd), 0);
}

static inline void send_tick(session *s)
{
    double t = s->tick * DT;
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"speed\":%.3f,"
             "\"pos\":[%.4f,%.4f,0],\"heading\":%.6f}",
             (unsigned long long)++s->seq, t, s->ev, s->ex, s->ey, s->eh);
    assert_true(ts_send_line(s->phys, msg));
    snprintf(msg, sizeof msg,
             "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"n\":%llu,\"dt\":0.01,"
             "\"run\":0,\"paused\":false}",
             (unsigned long long)++s->seq, t, (unsigned long long)s->tick);
    assert_true(ts_send_line(s->phys, msg));
}

/* One tick: the ego's state and the tick out, the node's traffic.state (decoded into
 * s->st) and ack back; the line appended to stream when given. */
static inline void tick(session *s, char *stream, size_t cap)
{
    send_tick(s);
    cJSON *state = ts_expect_topic(s->phys, "traffic.state", 30000, s->line, sizeof s->line);
    assert_non_null(state);
    s->st.vehicles = s->veh;
    sim_error err = {0};
    assert_int_equal(sim_msg_traffic_state_decode(state, &s->st, SIM_MSG_TRAFFIC_MAX_VEHICLES, &err), 0);
    cJSON_Delete(state);
    if (stream) {
        assert_true(strlen(stream) + strlen(s->line) + 2 < cap);
        strcat(stream, s->line);
        strcat(stream, "\n");
    }
    cJSON *ack = ts_expect_topic(s->phys, "sim.ack", 30000, NULL, 0);
    assert_non_null(ack);
    cJSON_Delete(ack);
    s->tick++;
}

static inline const sim_msg_traffic_vehicle *find(const session *s, const char *id)
{
    for (int i = 0; i < s->st.n_vehicles; i++)
        if (strcmp(s->veh[i].id, id) == 0) return &s->veh[i];
    return NULL;
}

static inline int overlaps(const session *s, char *which, size_t cap)
{
    int n = 0;
    for (int i = 0; i < s->st.n_vehicles; i++)
        for (int j = i + 1; j < s->st.n_vehicles; j++) {
            const sim_msg_traffic_vehicle *p = &s->veh[i], *q = &s->veh[j];
            double a[5] = {p->pos[0], p->pos[1], p->heading, p->size[0], p->size[1]};
            double b[5] = {q->pos[0], q->pos[1], q->heading, q->size[0], q->size[1]};
            if (ts_boxes_overlap(a, b)) {
                if (!n) snprintf(which, cap, "%s and %s", p->id, q->id);
                n++;
            }
        }
    return n;
}

/* Every vehicle in a drivable lane of the scenario's road model (the same query as
 * `simctl where`, with the vehicle's heading to pick among overlapping junction roads). */
static double offsets[200000];
static int n_offsets;

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void all_on_lanes(const session *s)
{
    for (int i = 0; i < s->st.n_vehicles; i++) {
        const sim_msg_traffic_vehicle *v = &s->veh[i];
        sim_locate_query q = {.x = v->pos[0], .y = v->pos[1], .z = NAN, .heading = v->heading, .drivable_only = true};
        sim_road_loc loc;
        assert_int_equal(sim_roadnet_locate_query(&s->sc->net, &q, &loc), 0);
        if (!loc.on_road || loc.lane.lane == 0 || fabs(loc.lane_offset) > 0.5 * loc.lane.width)
            fail_msg("vehicle %s at (%.3f, %.3f) is in no lane (road %s, t %.3f)", v->id, v->pos[0], v->pos[1],
                     s->sc->net.roads[loc.road].id, loc.d);
        if (strcmp(v->road, s->sc->net.roads[loc.road].id) != 0)
            fail_msg("vehicle %s at (%.3f, %.3f): road \"%s\" in traffic.state, %s here (lane %d, offset %.3f of %.3f)",
                     v->id, v->pos[0], v->pos[1], v->road, s->sc->net.roads[loc.road].id, loc.lane.lane,
                     loc.lane_offset, loc.lane.width);
        /* how far from OpenDRIVE's lane centre, for cars going straight along a road */
        const sim_road *r = &s->sc->net.roads[loc.road];
        double along = loc.lane.lane < 0 ? loc.heading : loc.heading + M_PI;
        if (r->junction < 0 && fabs(remainder(v->heading - along, 2 * M_PI)) < 0.01 &&
            n_offsets < (int)(sizeof offsets / sizeof *offsets))
            offsets[n_offsets++] = fabs(loc.lane_offset);
    }
}

/* Median, 95th percentile and largest of the offsets all_on_lanes gathered (sorted in
 * place); returns how many there are. */
static inline int lane_offsets_summary(double *median, double *p95, double *most)
{
    qsort(offsets, (size_t)n_offsets, sizeof *offsets, cmp_double);
    *median = *p95 = *most = NAN;
    if (n_offsets) {
        *median = offsets[n_offsets / 2];
        *p95 = offsets[n_offsets * 95 / 100];
        *most = offsets[n_offsets - 1];
    }
    return n_offsets;
}

/* `simctl where` answers a lane at a vehicle's place. */
static inline void where_says_lane(const session *s, const sim_msg_traffic_vehicle *v)
{
    char x[32], y[32], out[1024];
    snprintf(x, sizeof x, "%.3f", v->pos[0]);
    snprintf(y, sizeof y, "%.3f", v->pos[1]);
    const char *args[] = {"where", session_scenario_path(s), x, y, NULL};
    assert_int_equal(ts_run("simctl", args, out, sizeof out), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "on_road")));
    assert_int_not_equal((int)cJSON_GetObjectItem(j, "lane")->valuedouble, 0);
    cJSON_Delete(j);
}

/* Where a vehicle will be: `ahead` metres further along its lane (same road), as a pose. */
static inline bool ahead_in_lane(const session *s, const sim_msg_traffic_vehicle *v, double ahead, double *x, double *y,
                          double *h)
{
    int road = sim_roadnet_find_road(&s->sc->net, v->road);
    if (road < 0 || v->lane == 0) return false;
    const sim_road *r = &s->sc->net.roads[road];
    double s1 = v->s + (v->lane < 0 ? ahead : -ahead), d;
    if (s1 < 0 || s1 > r->length || !sim_road_lane_center(r, s1, v->lane, &d)) return false;
    sim_road_pose p;
    if (sim_road_pose_at(&s->sc->net, road, s1, d, &p)) return false;
    *x = p.x, *y = p.y;
    *h = v->lane < 0 ? p.heading : remainder(p.heading + M_PI, 2 * M_PI);
    return true;
}

#endif
