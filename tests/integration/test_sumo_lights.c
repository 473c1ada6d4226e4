/* Integration test of SUMO's traffic lights and pedestrians (real dispatcher,
 * traffic-node and the real `sumo`; the test plays physics). Town03 with netconvert's guessed lights
 * (scenarios/town03-sumo.json, "tls_guess": true): every head SUMO has goes out on
 * signal.state with its place; what SUMO's cars do matches what the heads show: no car's
 * front crosses a stop line whose heads all show red or red-and-amber, cars stand
 * before such a line (the first within metres of it), and cars stood at a red line
 * cross it once it turns green; two runs give the same bytes; the ego driven over a red
 * line gives signal.red_run naming the head. The crossings are computed here, apart
 * from traffic-node's own (sumo_lights.c), from the published boxes and lines.
 * Pedestrians (scenarios/town03-sumo-pedestrians.json): SUMO's persons come in
 * traffic.state as model "pedestrian" with SUMO's size for them, on the scenario's
 * sidewalks or crossing at junctions, and no person's box overlaps a vehicle's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_msg_signal.h"
#include "sim_msg_traffic.h"
#include "sim_road.h"
#include "sim_scenario.h"
#include "test_support.h"

#define DT 0.01
#define SCENARIO "scenarios/town03-sumo.json"
#define TICKS 4000 /* 40 s: every light through a whole cycle (netconvert's: 90 s at most, 42 s green) */
#define MAX_HEADS 512

typedef struct head {
    sim_msg_signal_state m;
    sim_msg_signal_where w;
    bool red_since_seen;      /* red (or red and amber) since it was first seen, and not green since */
} head;

typedef struct seen_car {
    char id[64];
    double front[2];
    int waited_at;            /* the line (head index) it stood at while red, -1: none */
} seen_car;

typedef struct session {
    ts_dispatcher d;
    pid_t node;
    ts_conn *phys;
    uint64_t tick, seq;
    double ex, ey, eh, ev;
    char dir[256];
    char line[70000];
    head heads[MAX_HEADS];
    int n_heads;
    sim_msg_traffic_vehicle veh[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    sim_msg_traffic_state st;
    char red_run[64];
} session;

static void session_start(session *s, const char *scenario)
{
    memset(s, 0, sizeof *s);
    assert_true(ts_dispatcher_start(&s->d, NULL));
    s->phys = ts_join(s->d.port, "physics", "[\"sim.ack\",\"traffic.\",\"signal.\",\"dispatcher.joined\"]", NULL);
    assert_non_null(s->phys);
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", s->d.port);
    snprintf(s->dir, sizeof s->dir, "/tmp/test_sumo_lights.%d.%d", (int)getpid(), s->d.port);
    unsetenv("SIM_SUMO");
    char *argv[] = {"traffic-node", "--bus", bus, "--scenario", (char *)ts_root(scenario), "--lockstep",
                    "--sumo-dir", s->dir, "--radius", "2000", "--max-vehicles", "128", NULL};
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
    sim_scenario *sc;
    sim_error err = {0};
    assert_int_equal(sim_scenario_load_err(ts_root(scenario), &sc, &err), 0);
    s->ex = sc->starts[0].x, s->ey = sc->starts[0].y, s->eh = sc->starts[0].heading;
    sim_scenario_free(sc);
}

static void session_stop(session *s)
{
    assert_int_equal(ts_stop(s->node, SIGTERM, 10000), 0);
    ts_close(s->phys);
    ts_dispatcher_stop(&s->d);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    assert_int_equal(system(cmd), 0);
}

static int find_head(const session *s, const char *id)
{
    for (int i = 0; i < s->n_heads; i++)
        if (strcmp(s->heads[i].m.id, id) == 0) return i;
    return -1;
}

/* What a run published: its bytes' FNV-1a hash and count (a whole stream would be
 * 100 MB with 128 vehicles a tick). */
typedef struct digest {
    uint64_t hash;
    size_t bytes;
} digest;

static void digest_add(digest *d, const char *line)
{
    if (!d->bytes) d->hash = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++) d->hash = (d->hash ^ *p) * 1099511628211ull;
    d->bytes += strlen(line);
}

/* One tick: the ego and the tick out; the node's signal.state, signal.red_run and
 * traffic.state until its ack, each line added to dg when given. */
static void tick(session *s, digest *dg)
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
    for (;;) {
        int n = ts_read_line(s->phys, s->line, sizeof s->line, 30000);
        assert_true(n > 0);
        cJSON *j = cJSON_Parse(s->line);
        assert_non_null(j);
        const char *topic = cJSON_GetObjectItem(j, "topic")->valuestring;
        sim_error err = {0};
        bool done = false;
        if (!strcmp(topic, "signal.state")) {
            sim_msg_signal_state m;
            sim_msg_signal_where w;
            assert_int_equal(sim_msg_signal_state_decode(j, &m, &err), 0);
            assert_int_equal(sim_msg_signal_where_decode(j, &w, &err), 0);
            assert_false(isnan(w.pos[0])); /* SUMO's heads say where they stand */
            int h = find_head(s, m.id);
            if (h < 0) {
                assert_true(s->n_heads < MAX_HEADS);
                h = s->n_heads++;
                s->heads[h].red_since_seen = true;
            }
            s->heads[h].m = m;
            s->heads[h].w = w;
            if (strcmp(m.state, "red") && strcmp(m.state, "red_amber")) s->heads[h].red_since_seen = false;
        } else if (!strcmp(topic, "signal.red_run")) {
            sim_msg_signal_red_run r;
            assert_int_equal(sim_msg_signal_red_run_decode(j, &r, &err), 0);
            snprintf(s->red_run, sizeof s->red_run, "%s", r.head);
        } else if (!strcmp(topic, "traffic.state")) {
            s->st.vehicles = s->veh;
            assert_int_equal(sim_msg_traffic_state_decode(j, &s->st, SIM_MSG_TRAFFIC_MAX_VEHICLES, &err), 0);
        } else if (!strcmp(topic, "sim.ack")) {
            done = true;
        }
        /* (traffic.engine names the run's own folder and is left out) */
        if (dg && (!strncmp(topic, "signal.", 7) || !strcmp(topic, "traffic.state"))) digest_add(dg, s->line);
        cJSON_Delete(j);
        if (done) break;
    }
    s->tick++;
}

/* The traffic's direction at head h (its face looks against it). */
static void travel(const head *h, double u[2])
{
    u[0] = -cos(h->w.heading), u[1] = -sin(h->w.heading);
}

/* Where p is relative to h's stop line: along the traffic (negative: before it) and
 * whether it is between the line's ends. */
static double along(const head *h, const double p[2], bool *within)
{
    double u[2], a[2] = {h->w.stop_a[0], h->w.stop_a[1]}, b[2] = {h->w.stop_b[0], h->w.stop_b[1]};
    travel(h, u);
    double ab[2] = {b[0] - a[0], b[1] - a[1]}, len2 = ab[0] * ab[0] + ab[1] * ab[1];
    double k = ((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1]) / len2;
    *within = k >= 0 && k <= 1;
    return (p[0] - a[0]) * u[0] + (p[1] - a[1]) * u[1];
}

static bool same_line(const head *a, const head *b)
{
    return memcmp(a->w.stop_a, b->w.stop_a, sizeof a->w.stop_a) == 0 &&
           memcmp(a->w.stop_b, b->w.stop_b, sizeof a->w.stop_b) == 0;
}

/* A line is closed when every head on it shows red or red and amber. */
static bool closed(const session *s, int h)
{
    for (int k = 0; k < s->n_heads; k++)
        if (same_line(&s->heads[k], &s->heads[h]) && strcmp(s->heads[k].m.state, "red") &&
            strcmp(s->heads[k].m.state, "red_amber"))
            return false;
    return true;
}

static bool heading_along(const head *h, double heading)
{
    double u[2];
    travel(h, u);
    return cos(heading - atan2(u[1], u[0])) > cos(M_PI / 6);
}

static void lights_match_what_the_cars_do_and_two_runs_are_the_same(void **state)
{
    (void)state;
    digest dg[2] = {{0, 0}, {0, 0}};
    static seen_car cars[4096];
    int n_cars = 0, stood = 0, crossed_open = 0, crossed_closed = 0, went_on_green = 0, changes = 0;
    double min_d = 1e9, max_d = -1e9; /* where the first car at a closed line stood (negative: before it) */
    int near = 0;                     /* of which within 3 m of the line */
    char far_one[200] = "";
    char bad[256] = "";
    for (int run = 0; run < 2; run++) {
        session *s = calloc(1, sizeof *s);
        session_start(s, SCENARIO);
        int first_heads = 0;
        for (int k = 0; k < TICKS; k++) {
            char before[64][24];
            int nh = s->n_heads < 64 ? s->n_heads : 64;
            for (int h = 0; h < nh; h++) snprintf(before[h], sizeof before[h], "%s", s->heads[h].m.state);
            tick(s, &dg[run]);
            if (k == 0) first_heads = s->n_heads;
            if (run) continue;
            for (int h = 0; h < nh; h++) changes += strcmp(before[h], s->heads[h].m.state) != 0;
            for (int i = 0; i < s->st.n_vehicles; i++) {
                const sim_msg_traffic_vehicle *v = &s->veh[i];
                double f[2] = {v->pos[0] + 0.5 * v->size[0] * cos(v->heading),
                               v->pos[1] + 0.5 * v->size[0] * sin(v->heading)};
                double speed = hypot(v->velocity[0], v->velocity[1]);
                int c = 0;
                while (c < n_cars && strcmp(cars[c].id, v->id)) c++;
                bool known = c < n_cars;
                if (!known) {
                    assert_true(n_cars < 4096);
                    n_cars++;
                    snprintf(cars[c].id, sizeof cars[c].id, "%s", v->id);
                    cars[c].waited_at = -1;
                }
                /* the first in a queue at a closed line: standing, its front within 15 m
                 * before the line, nobody between */
                int stand_at = -1;
                double stand_d = -1e9;
                for (int h = 0; h < s->n_heads; h++) {
                    const head *hd = &s->heads[h];
                    if (!heading_along(hd, v->heading)) continue;
                    bool w0, w1;
                    double d1 = along(hd, f, &w1);
                    if (known && w1) {
                        double d0 = along(hd, cars[c].front, &w0);
                        if (d0 < 0 && d1 >= 0) {
                            if (closed(s, h)) {
                                crossed_closed++;
                                if (!bad[0])
                                    snprintf(bad, sizeof bad, "tick %d: %s crossed %s's line on %s", k, v->id,
                                             hd->m.id, hd->m.state);
                            } else {
                                crossed_open++;
                                if (cars[c].waited_at >= 0 && same_line(&s->heads[cars[c].waited_at], hd))
                                    went_on_green++;
                            }
                        }
                    }
                    if (w1 && speed < 0.1 && d1 < 0.5 && d1 > -15 && closed(s, h) && d1 > stand_d)
                        stand_at = h, stand_d = d1;
                }
                if (stand_at >= 0) {
                    const head *hd = &s->heads[stand_at];
                    bool first = true, wc;
                    double dc = along(hd, v->pos, &wc); /* its centre */
                    for (int j = 0; j < s->st.n_vehicles && first; j++) {
                        const sim_msg_traffic_vehicle *o = &s->veh[j];
                        bool wj;
                        double dj = along(hd, o->pos, &wj);
                        if (j != i && wj && heading_along(hd, o->heading) && dj > dc + 0.1 && dj < 1.0) first = false;
                    }
                    if (first) {
                        stood++;
                        cars[c].waited_at = stand_at;
                        near += stand_d > -3;
                        if (stand_d < min_d)
                            snprintf(far_one, sizeof far_one, "tick %d: %s %.2f m before %s's line", k, v->id,
                                     -stand_d, hd->m.id);
                        if (stand_d < min_d) min_d = stand_d;
                        if (stand_d > max_d) max_d = stand_d;
                    }
                }
                cars[c].front[0] = f[0], cars[c].front[1] = f[1];
            }
        }
        if (!run) {
            fprintf(stderr, "SUMO's lights: %d heads, %d changes of the first 64 in %d s\n", first_heads, changes,
                    TICKS / 100);
            assert_true(first_heads >= 40); /* Town03's 13 guessed lights */
            assert_int_equal(s->n_heads, first_heads);
        } else {
            /* the ego driven over a line that shows red: signal.red_run names its head */
            int h = 0;
            while (h < s->n_heads && !(closed(s, h) && !strcmp(s->heads[h].m.state, "red"))) h++;
            assert_true(h < s->n_heads);
            const head *hd = &s->heads[h];
            double u[2];
            travel(hd, u);
            double mid[2] = {0.5 * (hd->w.stop_a[0] + hd->w.stop_b[0]), 0.5 * (hd->w.stop_a[1] + hd->w.stop_b[1])};
            s->eh = atan2(u[1], u[0]);
            s->ev = 10;
            s->red_run[0] = 0;
            for (int k = 0; k < 20 && !s->red_run[0]; k++) { /* the front from 2.5 m before to 1.5 m past */
                double back = 2.5 - 0.2 * k + 2.25;
                s->ex = mid[0] - back * u[0], s->ey = mid[1] - back * u[1];
                tick(s, NULL);
            }
            fprintf(stderr, "the ego over %s's line on red: signal.red_run for %s\n", hd->m.id, s->red_run);
            assert_true(s->red_run[0]);
            assert_true(same_line(&s->heads[find_head(s, s->red_run)], hd));
        }
        session_stop(s);
        free(s);
    }
    fprintf(stderr, "%d cars seen: %d crossings of open lines, %d of closed ones; the first at a closed line "
            "stood %d times, %.2f to %.2f m before it; %d crossed it once it opened\n", n_cars, crossed_open,
            crossed_closed, stood, -max_d, -min_d, went_on_green);
    fprintf(stderr, "%d of them (%.1f %%) within 3 m of the line; the farthest: %s\n", near, 100.0 * near / stood,
            far_one);
    if (crossed_closed) fail_msg("%d crossings on red, the first: %s", crossed_closed, bad);
    assert_true(changes >= 10);
    assert_true(crossed_open >= 20);
    assert_true(stood >= 100);          /* ticks of a first car standing at a red line */
    /* the first stands at the line, not metres before it (but for a few behind a car
     * still in the junction, not on the line's lane, or the unlisted ego) */
    assert_true(near >= 0.9 * stood);
    assert_true(max_d < 0.5);
    assert_true(went_on_green >= 3);
    fprintf(stderr, "the two runs: %zu and %zu bytes, hashes %016llx and %016llx\n", dg[0].bytes, dg[1].bytes,
            (unsigned long long)dg[0].hash, (unsigned long long)dg[1].hash);
    assert_true(dg[0].bytes > (size_t)TICKS * 1000);
    assert_true(dg[0].bytes == dg[1].bytes && dg[0].hash == dg[1].hash);
}

static void pedestrians_on_sidewalks_apart_from_cars(void **state)
{
    (void)state;
    enum { PTICKS = 500 };
    session *s = calloc(1, sizeof *s);
    session_start(s, "scenarios/town03-sumo-pedestrians.json");
    sim_scenario *sc;
    sim_error err = {0};
    assert_int_equal(sim_scenario_load_err(ts_root("scenarios/town03-sumo-pedestrians.json"), &sc, &err), 0);
    int samples = 0, sidewalk = 0, junction = 0, lane = 0, near_road = 0, elsewhere = 0, most = 0, overlaps = 0;
    char where_else[200] = "", overlap[200] = "";
    double farthest = 0;
    for (int k = 0; k < PTICKS; k++) {
        tick(s, NULL);
        int people = 0;
        for (int i = 0; i < s->st.n_vehicles; i++) {
            const sim_msg_traffic_vehicle *p = &s->veh[i];
            if (strcmp(p->model, "pedestrian")) continue;
            people++;
            samples++;
            /* SUMO's pedestrian type: 0.215 x 0.478 x 1.719 m */
            assert_true(fabs(p->size[0] - 0.215) < 1e-6 && fabs(p->size[1] - 0.478) < 1e-6 &&
                        fabs(p->size[2] - 1.719) < 1e-6);
            sim_locate_query q = {.x = p->pos[0], .y = p->pos[1], .z = NAN, .heading = NAN};
            sim_road_loc loc;
            assert_int_equal(sim_roadnet_locate_query(&sc->net, &q, &loc), 0);
            if (loc.on_road && loc.lane.type == SIM_LANE_SIDEWALK) sidewalk++;
            else if (loc.on_road && sc->net.roads[loc.road].junction >= 0) junction++;
            else if (loc.on_road) lane++; /* a crossing's end on an approach's lanes */
            else if (loc.distance < 1.5) near_road++; /* a walking area's corner past the road's edge */
            else {
                elsewhere++;
                if (loc.distance > farthest) farthest = loc.distance;
                if (!where_else[0])
                    snprintf(where_else, sizeof where_else, "tick %d: %s at (%.2f, %.2f), %.2f m from road %s", k,
                             p->id, p->pos[0], p->pos[1], loc.distance, sc->net.roads[loc.road].id);
            }
            double a[5] = {p->pos[0], p->pos[1], p->heading, p->size[0], p->size[1]};
            for (int j = 0; j < s->st.n_vehicles; j++) {
                const sim_msg_traffic_vehicle *v = &s->veh[j];
                if (!strcmp(v->model, "pedestrian")) continue;
                double b[5] = {v->pos[0], v->pos[1], v->heading, v->size[0], v->size[1]};
                if (ts_boxes_overlap(a, b)) {
                    overlaps++;
                    if (!overlap[0]) snprintf(overlap, sizeof overlap, "tick %d: %s and %s", k, p->id, v->id);
                }
            }
        }
        if (people > most) most = people;
    }
    fprintf(stderr, "pedestrians: up to %d at once; %d samples: %d on sidewalks, %d in junctions, %d on an "
            "approach's other lanes, %d within 1.5 m of a road, %d farther, at most %.2f m (%s); %d overlaps with "
            "vehicles (%s)\n", most, samples, sidewalk, junction, lane, near_road, elsewhere, farthest, where_else,
            overlaps, overlap);
    assert_true(most >= 20);
    /* What holds today (docs/traffic.md, "SUMO's pedestrians", says what does not yet):
     * the sidewalks are the most common place, nobody is far from a road (SUMO's walking
     * areas round a junction's corners past OpenDRIVE's road edges), and a person's
     * box touches a car's in well under 1 % of the samples (SUMO lets cars pass close
     * to people waiting at a crossing's end; 0.13 % when measured). */
    assert_true(sidewalk >= 0.35 * samples && sidewalk > lane && sidewalk > junction);
    assert_true(elsewhere <= 0.1 * samples && farthest < 6);
    assert_true(overlaps <= 0.01 * samples);
    sim_scenario_free(sc);
    session_stop(s);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lights_match_what_the_cars_do_and_two_runs_are_the_same),
        cmocka_unit_test(pedestrians_on_sidewalks_apart_from_cars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
