/* logframes: `render-node --log LOG --frames-out FILE`: a drive log drawn frame by frame
 * at log times from + k / fps (sim_video_frame_time), without a bus and without the
 * wall clock, each frame written as raw RGB (width x height x 3 bytes, top row first)
 * to FILE ("-": stdout); `simctl video` reads them from a pipe and encodes them
 * (docs/video.md). The ego car is the log's samples interpolated between the two
 * around the frame's time, as a session interpolates two states; the other cars, in a
 * log recorded with --all, the two traffic.state messages around it; the traffic
 * lights as their controllers show them at that time; the HUD the car's speed, the
 * limit where it is, the scenario's hud_text triggers and the visual DRT stimulus (from
 * the logged drt events), as the driver saw them, and with --stamp the frame's log
 * time, run and number. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "road_adapter.h"
#include "sim_drivelog.h"
#include "sim_msg_task.h"
#include "sim_video.h"

typedef struct lf_sample {
    double t, pos[3], heading, speed, steer, brake, s;
    int lane;
    char road[SIM_DRIVELOG_ID_MAX];
} lf_sample;

typedef struct lf_samples {
    lf_sample *v;
    size_t n, cap;
    int64_t run;
} lf_samples;

static int collect_sample(const sim_drivelog_sample *s, void *user)
{
    lf_samples *a = user;
    if (a->n == 0) a->run = s->run;
    else if (s->run != a->run) return 1; /* one run: the first in the range */
    if (!isfinite(s->x) || !isfinite(s->y) || !isfinite(s->z)) return 0;
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 4096;
        lf_sample *v = realloc(a->v, cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    lf_sample *o = &a->v[a->n++];
    *o = (lf_sample){.t = s->t, .pos = {s->x, s->y, s->z}, .heading = isfinite(s->heading) ? s->heading : 0,
                     .speed = isfinite(s->speed) ? s->speed : 0, .steer = isfinite(s->wheel_angle) ? s->wheel_angle : 0,
                     .brake = s->brake, .s = s->s, .lane = s->lane == SIM_DRIVELOG_NULL_INT ? 0 : s->lane};
    snprintf(o->road, sizeof o->road, "%s", s->road);
    return 0;
}

/* The two traffic.state messages around a frame's time: the last at or before it and
 * the first after it. */
typedef struct lf_traffic {
    double t_frame;
    double ta, tb;
    char *a, *b;
} lf_traffic;

static int collect_traffic(int64_t run, double t, const char *topic, const char *line, size_t len, void *user)
{
    (void)run;
    (void)topic;
    lf_traffic *x = user;
    char **slot = t <= x->t_frame ? &x->a : &x->b;
    if (t > x->t_frame && x->b) return 1; /* the first after it is enough */
    free(*slot);
    *slot = strndup(line, len);
    if (t <= x->t_frame) x->ta = t;
    else x->tb = t;
    return *slot ? 0 : -1;
}

static int decode_agents(const char *line, rn_agent *out, sim_error *err)
{
    cJSON *msg = cJSON_Parse(line);
    if (!msg) return sim_error_set(err, SIM_EINVAL, "a logged traffic.state is not JSON");
    int k = rn_traffic_decode(msg, out, RN_MAX_AGENTS, err);
    cJSON_Delete(msg);
    return k;
}

/* The other cars at log time t from the log's traffic.state messages (none in a log
 * without them), interpolated by id as a session does (rn_session_agents). */
static int traffic_at(rn_node *n, sim_drivelog_reader *r, int64_t run, double t, sim_error *err)
{
    lf_traffic x = {.t_frame = t};
    /* a narrow window first (traffic.state comes at the tick rate), then the widest gap
     * a session interpolates over */
    sim_drivelog_range range = {.run = run, .t_from = t - 0.05, .t_to = t + 0.05};
    int rc = sim_drivelog_read_messages(r, range, "traffic.state", collect_traffic, &x, err);
    if (!rc && (!x.a || !x.b)) {
        free(x.a);
        free(x.b);
        x = (lf_traffic){.t_frame = t};
        range.t_from = t - SIM_INTERP_MAX_GAP;
        range.t_to = t + SIM_INTERP_MAX_GAP;
        rc = sim_drivelog_read_messages(r, range, "traffic.state", collect_traffic, &x, err);
    }
    n->n_agents = 0;
    if (!rc && x.a) {
        int k = decode_agents(x.a, n->agents, err);
        if (k < 0) rc = k;
        else n->n_agents = k;
    }
    if (!rc && x.a && x.b) {
        /* prev = a, newest = b, arrived "at" ta: rn_session_agents lerps by (t - ta) / (tb - ta) */
        memcpy(n->prev, n->agents, (size_t)n->n_agents * sizeof *n->prev);
        n->n_prev = n->n_agents;
        int k = decode_agents(x.b, n->agents, err);
        if (k < 0) rc = k;
        else {
            n->n_agents = k;
            n->traffic_t[0] = x.ta;
            n->traffic_t[1] = x.tb;
            n->traffic_arrival = x.ta;
            k = rn_session_agents(n, t);
            memcpy(n->agents, n->drawn, (size_t)k * sizeof *n->agents);
        }
    }
    free(x.a);
    free(x.b);
    return rc;
}

/* The visual DRT stimulus as the driver saw it: the logged drt.stimulus events (kind
 * "drt", name "stimulus") of the visual modality, on and off at their times. */
typedef struct lf_drt {
    double t, angle;
    bool on;
} lf_drt;

static int read_drt(sim_drivelog_reader *r, int64_t run, lf_drt **out, size_t *n, sim_error *err)
{
    *out = NULL;
    *n = 0;
    sim_drivelog_event *e = NULL;
    size_t ne = 0;
    sim_drivelog_range range = sim_drivelog_range_all();
    range.run = run;
    int rc = sim_drivelog_read_events(r, range, &e, &ne, err);
    if (!rc && ne && !(*out = calloc(ne, sizeof **out))) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < ne; i++) {
        if (strcmp(e[i].kind, "drt") || strcmp(e[i].name, "stimulus") || !e[i].json) continue;
        cJSON *msg = cJSON_Parse(e[i].json);
        sim_msg_drt_stimulus m;
        if (msg && sim_msg_drt_stimulus_decode(msg, &m, NULL) == SIM_OK && !strcmp(m.modality, "visual"))
            (*out)[(*n)++] = (lf_drt){.t = e[i].t, .angle = isnan(m.angle_deg) ? 20 : m.angle_deg, .on = m.on};
        cJSON_Delete(msg);
    }
    sim_drivelog_events_free(e, ne);
    return rc;
}

/* The ego pose and HUD at log time t: samples i and i + 1 around it (i advanced). */
static void ego_at(rn_node *n, const lf_samples *a, size_t *i, double t, sim_pose *p)
{
    while (*i + 1 < a->n && a->v[*i + 1].t <= t) (*i)++;
    const lf_sample *s0 = &a->v[*i], *s1 = *i + 1 < a->n ? &a->v[*i + 1] : s0;
    sim_pose p0 = {.pos = {s0->pos[0], s0->pos[1], s0->pos[2]}, .heading = s0->heading};
    sim_pose p1 = {.pos = {s1->pos[0], s1->pos[1], s1->pos[2]}, .heading = s1->heading};
    double gap = s1->t - s0->t, f = gap > 0 && gap <= SIM_INTERP_MAX_GAP ? (t - s0->t) / gap : 0;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    sim_pose_lerp(&p0, &p1, f, p);
    const lf_sample *near = f < 0.5 ? s0 : s1;
    n->ego_speed = s0->speed + (s1->speed - s0->speed) * f;
    n->ego_steer = s0->steer + (s1->steer - s0->steer) * f;
    n->ego_brake = isfinite(near->brake) && near->brake > 0.05;
    /* the HUD as a session's render-node makes it from a state at t (rn_session_update_hud:
     * speed, the limit where physics put the car, the scenario's hud_text triggers, which
     * fire and expire on the log's clock here) */
    n->ego_placed = near->road[0] != '\0';
    snprintf(n->ego_road, sizeof n->ego_road, "%s", near->road);
    n->ego_s = near->s;
    n->ego_lane = near->lane;
    n->ip.pose[1] = *p; /* where the limit is looked up when the log has no road */
    n->ip.n = 2;
    n->connected = true;
    n->last_state_wall = t;
    rn_session_update_hud(n, t);
}

int rn_run_log_frames(rn_node *n, sim_error *err)
{
    const rn_options *o = &n->o;
    sim_drivelog_reader *r = NULL;
    int rc = sim_drivelog_reader_open(o->log, &r, err);
    if (rc) return rc;
    lf_samples a = {0};
    sim_drivelog_range range = sim_drivelog_range_all();
    range.run = o->log_run;
    static const char *const cols[] = {"t", "x", "y", "z", "heading", "speed", "wheel_angle", "brake", "road", "s", "lane"};
    rc = sim_drivelog_each_sample(r, range, cols, sizeof cols / sizeof *cols, collect_sample, &a, err);
    if (!rc && a.n == 0)
        rc = o->log_run >= 0 ? sim_error_set(err, SIM_ENOTFOUND, "%s: no samples with a position in run %d", o->log, o->log_run)
                             : sim_error_set(err, SIM_ENOTFOUND, "%s: no samples with a position", o->log);
    double t0 = 0, t1 = 0;
    long frames = 0;
    if (!rc) {
        t0 = isnan(o->log_from) ? a.v[0].t : fmax(o->log_from, a.v[0].t);
        t1 = isnan(o->log_to) ? a.v[a.n - 1].t : fmin(o->log_to, a.v[a.n - 1].t);
        frames = sim_video_frame_count(t0, t1, o->fps);
        if (frames == 0)
            rc = sim_error_set(err, SIM_ENOTFOUND, "%s: run %lld has no samples from %g to %g s (it runs %g to %g s)",
                               o->log, (long long)a.run, isnan(o->log_from) ? a.v[0].t : o->log_from,
                               isnan(o->log_to) ? a.v[a.n - 1].t : o->log_to, a.v[0].t, a.v[a.n - 1].t);
    }
    bool to_stdout = o->frames_out && !strcmp(o->frames_out, "-");
    FILE *out = NULL;
    if (!rc) {
        out = to_stdout ? stdout : fopen(o->frames_out, "wb");
        if (!out) rc = sim_error_set(err, SIM_EIO, "--frames-out %s: cannot create: %s", o->frames_out, strerror(errno));
    }
    size_t frame_bytes = (size_t)n->g.width * n->g.height * 3;
    if (!rc && !(n->grab = malloc(frame_bytes))) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (!rc) {
        signal(SIGPIPE, SIG_IGN); /* a reader that went away is a write error, said below */
        fprintf(stderr, "render-node: %ld frames of %s run %lld from %.3f to %.3f s at %g fps, %dx%d\n", frames, o->log,
                (long long)a.run, t0, t1, o->fps, n->g.width, n->g.height);
    }
    lf_drt *drt = NULL;
    size_t n_drt = 0, i = 0, di = 0;
    if (!rc) rc = read_drt(r, a.run, &drt, &n_drt, err);
    for (long k = 0; !rc && k < frames; k++) {
        double t = sim_video_frame_time(t0, o->fps, k);
        sim_pose p;
        ego_at(n, &a, &i, t, &p);
        rc = traffic_at(n, r, a.run, t, err);
        if (rc) break;
        rn_lights_show_at(&n->scene.lights, t);
        while (di < n_drt && drt[di].t <= t + 1e-9) { /* the newest visual stimulus event by t */
            n->scene.hud.drt_on = drt[di].on;
            n->scene.hud.drt_angle_deg = drt[di].angle;
            di++;
        }
        if (o->stamp)
            snprintf(n->scene.hud.stamp, sizeof n->scene.hud.stamp, "t %.3f s  run %lld  frame %ld", t,
                     (long long)a.run, k);
        rn_frame_stats st;
        rc = rn_frame(n, &p, t, NULL, &st, err);
        if (!rc && fwrite(n->grab, 1, frame_bytes, out) != frame_bytes)
            rc = sim_error_set(err, SIM_EIO, "--frames-out %s: frame %ld of %ld: cannot write: %s", o->frames_out, k,
                               frames, strerror(errno));
    }
    if (out && fflush(out) != 0 && !rc)
        rc = sim_error_set(err, SIM_EIO, "--frames-out %s: cannot write: %s", o->frames_out, strerror(errno));
    if (out && !to_stdout && fclose(out) != 0 && !rc)
        rc = sim_error_set(err, SIM_EIO, "--frames-out %s: cannot write: %s", o->frames_out, strerror(errno));
    free(drt);
    free(n->grab);
    n->grab = NULL;
    free(a.v);
    sim_drivelog_reader_close(r);
    return rc;
}
