/* sim_recording: bus messages to drive-log rows (see sim_recording.h). */
#include "sim_recording.h"

#include "sim_msg_automation.h"
#include "sim_msg_storyboard.h"
#include "sim_msg_traffic.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_json.h"
#include "sim_offset.h"
#include "sim_msg_input.h"
#include "sim_msg_log.h"
#include "sim_msg_motion.h"
#include "sim_msg_render.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"
#include "sim_topics.h"

/* Two simulation times closer than this are the same tick (they come from the same
 * double in physics, but may pass through text with 17 digits). */
#define SAME_T 1e-6
#define LEAD_STALE_S 1.0 /* s: a lead vehicle reported longer ago than this is gone */

void sim_recording_init(sim_recording *rec, bool record_all, int64_t run)
{
    memset(rec, 0, sizeof *rec);
    rec->period = SIM_RECORDING_PERIOD;
    rec->record_all = record_all;
    rec->run = run;
    rec->steer_wheel = rec->throttle = rec->brake = rec->clutch = NAN;
    rec->tick_n = rec->state_tick = NAN;
    rec->state_run = -1;
    sim_drivelog_sample_init(&rec->state);
    rec->wall = rec->clock_wall = rec->tick_wall = NAN;
    sim_timebase_init(&rec->tb, rec->period);
}

void sim_recording_set_line(sim_recording *rec, uint64_t line)
{
    if (line == 0) {
        rec->tick_line = rec->state_line = 0;
        for (size_t i = 0; i < SIM_RECORDING_HELD_GAZE; i++) rec->held_gaze[i].line = 0;
        for (size_t i = 0; i < SIM_RECORDING_HELD_SENSOR; i++) rec->held_sensor[i].line = 0;
    }
    rec->line = line;
}

static uint64_t earlier_line(uint64_t a, uint64_t b)
{
    return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

uint64_t sim_recording_held_from(const sim_recording *rec)
{
    uint64_t first = 0;
    if (rec->tick_valid) first = earlier_line(first, rec->tick_line);
    if (rec->state_valid) first = earlier_line(first, rec->state_line);
    /* the rings release oldest first: their heads are their earliest lines */
    if (rec->n_held_gaze) first = earlier_line(first, rec->held_gaze[rec->held_gaze_head].line);
    if (rec->n_held_sensor) first = earlier_line(first, rec->held_sensor[rec->held_sensor_head].line);
    return first;
}

/* The first malformed field of a message is reported after the message was used as
 * far as it could be (the rows it gave are written): bad is the caller's report. */
static sim_error *first(sim_error *bad)
{
    return bad->code ? NULL : bad;
}

/* A number field of any message (the envelope's t): NAN when missing or null. */
static double num(const cJSON *msg, const char *topic, const char *key, sim_error *bad)
{
    sim_json j = {.file = topic, .err = first(bad)};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, key);
    double x = NAN;
    if (v && !cJSON_IsNull(v)) sim_json_number(&j, v, key, -INFINITY, INFINITY, &x);
    return x;
}

/* A string field of an event message (input.button's role, ...): NULL when missing. */
static const char *text(const cJSON *msg, const char *topic, const char *key, sim_error *bad)
{
    sim_json j = {.file = topic, .err = first(bad)};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, key);
    if (!v || cJSON_IsNull(v)) return NULL;
    if (cJSON_IsString(v)) return v->valuestring;
    sim_json_found(&j, key, v, "a string");
    return NULL;
}

static void copy_id(char dst[SIM_DRIVELOG_ID_MAX], const char *src)
{
    snprintf(dst, SIM_DRIVELOG_ID_MAX, "%s", src ? src : "");
}

/* Which vehicle.state field each sample column comes from (and goes back to in a
 * replay): the one place that pairs the two. */
/* REAL_PAIRS are doubles on both sides, INT_PAIRS an int32_t column and an int field:
 * checked by the compiler (SIM_OFFSETOF). */
#define PAIR(col, field, size_col, size_field)                                                      \
    {SIM_OFFSETOF(sim_drivelog_sample, col, size_col), SIM_OFFSETOF(sim_msg_vehicle_state, field, size_field)}
#define REAL(col, field) PAIR(col, field, sizeof(double), sizeof(double))
#define INT(col, field) PAIR(col, field, sizeof(int32_t), sizeof(int))
static const struct {
    size_t sample, state;
} REAL_PAIRS[] = {
    REAL(speed, speed), REAL(accel, accel), REAL(heading, heading), REAL(yaw_rate, yaw_rate),
    REAL(rpm, rpm), REAL(s, s), REAL(d, d), REAL(wheel_angle, steer_angle),
    REAL(headway_dist, headway_dist), REAL(headway_time, headway_time), REAL(lat_dev, lat_dev),
    REAL(x, pos[0]), REAL(y, pos[1]), REAL(z, pos[2]),
}, INT_PAIRS[] = {INT(gear, gear), INT(lane, lane)};
#undef PAIR
#undef REAL
#undef INT

static void parse_state(sim_recording *rec, const cJSON *msg, sim_error *bad)
{
    sim_msg_vehicle_state m;
    sim_msg_vehicle_state_decode(msg, &m, first(bad));
    sim_drivelog_sample *s = &rec->state;
    sim_drivelog_sample_init(s);
    for (size_t k = 0; k < sizeof REAL_PAIRS / sizeof *REAL_PAIRS; k++)
        *(double *)((char *)s + REAL_PAIRS[k].sample) = *(const double *)((const char *)&m + REAL_PAIRS[k].state);
    for (size_t k = 0; k < sizeof INT_PAIRS / sizeof *INT_PAIRS; k++) {
        int v = *(const int *)((const char *)&m + INT_PAIRS[k].state);
        *(int32_t *)((char *)s + INT_PAIRS[k].sample) = v == SIM_MSG_NO_INT ? SIM_DRIVELOG_NULL_INT : (int32_t)v;
    }
    if (isnan(s->headway_time) && !isnan(s->headway_dist) && s->speed > 0.1)
        s->headway_time = s->headway_dist / s->speed;
    if (m.sector[0]) copy_id(rec->sector, m.sector);
    if (m.task[0]) copy_id(rec->task, m.task);
    copy_id(s->road, m.road);
    rec->state_tick = m.tick;
    rec->state_run = m.run == SIM_MSG_NO_INT ? -1 : m.run;
}

void sim_recording_state_of_sample(const sim_drivelog_sample *s, sim_msg_vehicle_state *out)
{
    sim_msg_vehicle_state_clear(out);
    for (size_t k = 0; k < sizeof REAL_PAIRS / sizeof *REAL_PAIRS; k++)
        *(double *)((char *)out + REAL_PAIRS[k].state) = *(const double *)((const char *)s + REAL_PAIRS[k].sample);
    for (size_t k = 0; k < sizeof INT_PAIRS / sizeof *INT_PAIRS; k++) {
        int32_t v = *(const int32_t *)((const char *)s + INT_PAIRS[k].sample);
        *(int *)((char *)out + INT_PAIRS[k].state) = v == SIM_DRIVELOG_NULL_INT ? SIM_MSG_NO_INT : v;
    }
    if (isnan(s->x) || isnan(s->y) || isnan(s->z)) out->pos[0] = out->pos[1] = out->pos[2] = NAN;
    /* lat_dev, sector and task are the recorder's findings, not the car's state. */
    out->lat_dev = NAN;
    out->run = (int)s->run;
    snprintf(out->road, sizeof out->road, "%s", s->road);
    out->replay = true;
}

void sim_recording_resume(sim_recording *rec, const sim_drivelog_sample *last)
{
    rec->run = last->run;
    rec->t = last->t;
    rec->last_valid = true;
    rec->last_run = last->run;
    rec->last_tick = last->tick;
    rec->last_speed = last->speed;
    copy_id(rec->loc_sector, last->sector);
    copy_id(rec->loc_task, last->task);
}

void sim_recording_set_scenario(sim_recording *rec, const sim_scenario *sc)
{
    sim_recording_instr_signs(rec, sc);
    rec->scenario = sc;
}

static bool in_range(int road, double s_start, double s_end, const sim_road_loc *loc)
{
    double lo = s_start < s_end ? s_start : s_end, hi = s_start < s_end ? s_end : s_start;
    return road == loc->road && loc->s >= lo && loc->s <= hi;
}

/* The place physics found for the sample (its road id and s, d), as a sim_road_loc;
 * false when the sample has none or the road is not in sc. */
static bool given_place(const sim_scenario *sc, const sim_drivelog_sample *s, sim_road_loc *loc)
{
    if (!s->road[0] || isnan(s->s)) return false;
    int road = sim_roadnet_find_road(&sc->net, s->road);
    if (road < 0) return false;
    memset(loc, 0, sizeof *loc);
    loc->road = road;
    loc->s = s->s;
    loc->d = isnan(s->d) ? 0 : s->d;
    return true;
}

void sim_recording_locate(const sim_scenario *sc, sim_drivelog_sample *s)
{
    sim_road_loc loc;
    if (given_place(sc, s, &loc)) goto located;
    if (isnan(s->x) || isnan(s->y)) return;
    /* Height and heading pick among overlapping roads (a junction's connecting roads,
     * a bridge) as physics does, so the logged road and lane follow the one the car
     * drives along instead of flipping to whichever lies nearest its reference line.
     * NAN (not in vehicle.state) means no preference. */
    sim_locate_query q = {.x = s->x, .y = s->y, .z = s->z, .heading = s->heading};
    if (sim_roadnet_locate_query(&sc->net, &q, &loc) != 0) return;
    if (isnan(s->s)) s->s = loc.s;
    if (isnan(s->d)) s->d = loc.d;
    if (s->lane == SIM_DRIVELOG_NULL_INT && loc.lane.lane != 0) s->lane = loc.lane.lane;
    copy_id(s->road, loc.road >= 0 && loc.road < sc->net.n_roads && sc->net.roads[loc.road].id
                         ? sc->net.roads[loc.road].id : "");
located:
    s->sector[0] = s->task[0] = '\0';
    s->lat_dev = NAN;
    for (int i = 0; i < sc->n_sectors; i++)
        if (in_range(sc->sectors[i].road, sc->sectors[i].s_start, sc->sectors[i].s_end, &loc)) {
            copy_id(s->sector, sc->sectors[i].id);
            break;
        }
    for (int i = 0; i < sc->n_tasks; i++) {
        const sim_task *t = &sc->tasks[i];
        if (in_range(t->road, t->s_start, t->s_end, &loc)) {
            copy_id(s->task, t->id);
            s->lat_dev = loc.d - sim_task_ideal_d(t, loc.s);
            break;
        }
    }
}

static int event(sim_recording *rec, sim_drivelog_writer *w, double t, const char *kind,
                 const char *name, const char *line, size_t len, sim_error *err);

/* A sector or task start/end found by locating samples in the scenario: an event like
 * the one a sector.* / task.* message gives, with the id and the road s. */
static int located_event(sim_recording *rec, sim_drivelog_writer *w, const sim_drivelog_sample *s,
                         const char *kind, const char *name, const char *id, sim_error *err)
{
    char json[256];
    cJSON *o = cJSON_CreateObject();
    if (!o) return sim_error_set(err, SIM_ENOMEM, "recorder: out of memory");
    cJSON_AddStringToObject(o, "id", id);
    if (!isnan(s->s)) cJSON_AddNumberToObject(o, "s", s->s);
    cJSON_AddBoolToObject(o, "located", true);
    bool ok = cJSON_PrintPreallocated(o, json, sizeof json, false);
    cJSON_Delete(o);
    if (!ok) return sim_error_set(err, SIM_ETOOBIG, "recorder: %s event for '%s' too long", kind, id);
    return event(rec, w, s->t, kind, name, json, strlen(json), err);
}

static int located_change(sim_recording *rec, sim_drivelog_writer *w, const sim_drivelog_sample *s,
                          const char *kind, char last[SIM_DRIVELOG_ID_MAX], const char *now,
                          sim_error *err)
{
    if (strcmp(last, now) == 0) return 0;
    int ret = last[0] ? located_event(rec, w, s, kind, "end", last, err) : 0;
    if (!ret && now[0]) ret = located_event(rec, w, s, kind, "start", now, err);
    if (!ret) copy_id(last, now);
    return ret;
}

/* Whether the newest tick and state belong together: by tick number (and run) when
 * the state says which tick it belongs to, as physics' does; by time otherwise. */
static bool same_tick(const sim_recording *rec)
{
    if (!isnan(rec->state_tick) && !isnan(rec->tick_n))
        return rec->state_tick == rec->tick_n && (rec->state_run < 0 || rec->state_run == rec->tick_run);
    return fabs(rec->tick_t - rec->state_t) <= SAME_T;
}

/* Writes the sample when the newest tick and state belong together and fall on the
 * sample grid. */
static int try_pair(sim_recording *rec, sim_drivelog_writer *w, sim_error *err)
{
    if (!rec->tick_valid || !rec->state_valid || !same_tick(rec))
        return 0;
    rec->tick_valid = rec->state_valid = false;
    assert(rec->period > 0 && rec->tick_run >= 0); /* a tick sets its run before it is paired */
    double t = rec->tick_t;
    int64_t k = llround(t / rec->period);
    if (fabs(t - (double)k * rec->period) > SAME_T) return 0; /* between grid points */
    bool same_run = rec->last_valid && rec->last_run == rec->tick_run;
    if (same_run && rec->last_tick == k) return 0; /* paused: the same state again */
    sim_drivelog_sample s = rec->state;
    s.run = rec->tick_run;
    s.tick = k;
    s.t = t;
    if (isnan(s.accel) && same_run && rec->last_tick == k - 1 && !isnan(s.speed) &&
        !isnan(rec->last_speed))
        s.accel = (s.speed - rec->last_speed) / rec->period;
    /* Headway from the traffic node's lead vehicle when vehicle.state has none; the
     * newest traffic.state is a tick behind (traffic steps on the tick just paired)
     * and older than LEAD_STALE_S means nobody reports it any more. */
    if (isnan(s.headway_dist) && rec->lead_valid && fabs(t - rec->lead_t) <= LEAD_STALE_S) {
        s.headway_dist = rec->lead_gap;
        s.headway_time = isfinite(rec->lead_thw) ? rec->lead_thw : NAN;
    }
    s.steer_wheel = rec->steer_wheel;
    s.throttle = rec->throttle;
    s.brake = rec->brake;
    s.clutch = rec->clutch;
    copy_id(s.sector, rec->sector);
    copy_id(s.task, rec->task);
    int ret = 0;
    if (rec->scenario) {
        sim_recording_locate(rec->scenario, &s);
        ret = located_change(rec, w, &s, "sector", rec->loc_sector, s.sector, err);
        if (!ret) ret = located_change(rec, w, &s, "task", rec->loc_task, s.task, err);
    }
    if (!ret && same_run && k > rec->last_tick + 1) {
        /* ticks that never reached us: the log says where, and analysis warns */
        char json[160];
        snprintf(json, sizeof json, "{\"from_t\":%.17g,\"to_t\":%.17g,\"missing\":%lld}",
                 (double)rec->last_tick * rec->period, t, (long long)(k - rec->last_tick - 1));
        ret = event(rec, w, t, "gap", "samples", json, strlen(json), err);
    }
    if (!ret) ret = sim_drivelog_append_sample(w, &s, err);
    if (ret) return ret;
    assert(!same_run || k != rec->last_tick); /* a paused tick's state is written once */
    rec->samples++;
    rec->last_valid = true;
    rec->last_run = s.run;
    rec->last_tick = k;
    rec->last_speed = s.speed;
    return 0;
}

static int event(sim_recording *rec, sim_drivelog_writer *w, double t, const char *kind,
                 const char *name, const char *line, size_t len, sim_error *err)
{
    char *copy = NULL;
    char small[1024];
    const char *json = line;
    /* The line is not NUL-terminated where it sits in the bus's buffer. */
    if (len < sizeof small) {
        memcpy(small, line, len);
        small[len] = '\0';
        json = small;
    } else {
        copy = malloc(len + 1);
        if (!copy) return sim_error_set(err, SIM_ENOMEM, "recorder: out of memory");
        memcpy(copy, line, len);
        copy[len] = '\0';
        json = copy;
    }
    int ret = sim_drivelog_append_event(w, rec->run, t, kind, name, json, err);
    free(copy);
    if (!ret) rec->events++;
    return ret;
}

/* "sector.start" {id} and friends: sets or clears the current id and logs the mark. */
static int mark(sim_recording *rec, sim_drivelog_writer *w, double t, const char *kind,
                char current[SIM_DRIVELOG_ID_MAX], const char *topic, const char *what,
                const cJSON *msg, sim_error *bad, const char *line, size_t len, sim_error *err)
{
    const char *id = text(msg, topic, "id", bad);
    if (strcmp(what, "start") == 0) copy_id(current, id);
    else if (strcmp(what, "end") == 0 && (!id || strcmp(id, current) == 0)) current[0] = '\0';
    return event(rec, w, t, kind, what, line, len, err);
}

/* sim.tick: a new run, pause and resume, a stall of the controls, and the sample when
 * the tick's state is in. */
static int feed_tick(sim_recording *rec, sim_drivelog_writer *w, const cJSON *msg, double msg_t,
                     const char *line, size_t len, sim_error *bad, sim_error *err)
{
    sim_msg_tick tick;
    sim_msg_tick_decode(msg, &tick, first(bad));
    int32_t run = tick.run == SIM_MSG_NO_INT ? SIM_DRIVELOG_NULL_INT : (int32_t)tick.run;
    if (isnan(msg_t)) {
        if (!bad->code) sim_error_set(bad, SIM_EINVAL, "%s: t: missing, expected a number", SIM_TOPIC_SIM_TICK);
        return 0;
    }
    double t = msg_t;
    int ret = 0;
    rec->t = msg_t;
    int64_t new_run = run == SIM_DRIVELOG_NULL_INT ? (rec->run < 0 ? 0 : rec->run) : run;
    if (new_run != rec->run) {
        /* Runs only grow (restart); a smaller one is a replayed backlog that
         * reaches back before a restart, whose start is already logged. */
        bool newer = new_run > rec->run;
        rec->run = new_run;
        rec->last_valid = false;
        rec->loc_sector[0] = rec->loc_task[0] = '\0';
        if (newer) ret = event(rec, w, t, "run", "start", line, len, err);
    }
    bool p = tick.paused;
    if (!ret && p != rec->paused)
        ret = event(rec, w, t, "run", p ? "paused" : "resumed", line, len, err);
    rec->paused = p;
    if (!ret && !p && rec->controls_valid && !rec->controls_stalled &&
        msg_t - rec->controls_t > SIM_RECORDING_STALL_S) {
        /* the car is driving on controls this old: the driver's side is missing */
        char json[128];
        snprintf(json, sizeof json, "{\"since_t\":%.17g,\"t\":%.17g}", rec->controls_t, msg_t);
        rec->controls_stalled = true;
        ret = event(rec, w, t, "stall", "controls", json, strlen(json), err);
    }
    rec->tick_valid = true;
    rec->tick_t = msg_t;
    rec->tick_n = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(msg, "n")) ? (double)tick.n : NAN;
    rec->tick_line = rec->line;
    rec->tick_run = rec->run;
    rec->tick_wall = tick.wall;
    if (!ret) ret = try_pair(rec, w, err);
    if (!ret) ret = sim_recording_instr_tick(rec, w, err);
    return ret;
}

/* The topics that fill the samples (KEEP SAMPLE in sim_topics.def), each by its row. */
static int feed_sample(sim_recording *rec, sim_drivelog_writer *w, sim_topic_id id, const cJSON *msg,
                       double msg_t, double t, const char *line, size_t len, sim_error *bad, sim_error *err)
{
    switch (id) {
    case SIM_TOPIC_ID_SIM_TICK:
        return feed_tick(rec, w, msg, msg_t, line, len, bad, err);
    case SIM_TOPIC_ID_VEHICLE_STATE:
        if (isnan(msg_t)) {
            if (!bad->code) sim_error_set(bad, SIM_EINVAL, "%s: t: missing, expected a number", SIM_TOPIC_VEHICLE_STATE);
            return 0;
        }
        rec->t = msg_t;
        parse_state(rec, msg, bad);
        rec->state_valid = true;
        rec->state_t = msg_t;
        rec->state_line = rec->line;
        return try_pair(rec, w, err);
    case SIM_TOPIC_ID_INPUT_CONTROLS: {
        sim_msg_input_controls c;
        if (sim_msg_input_controls_decode(msg, &c, first(bad)) != SIM_OK) return 0;
        rec->steer_wheel = c.steer_deg * (M_PI / 180.0);
        rec->throttle = c.throttle;
        rec->brake = c.brake;
        rec->clutch = c.clutch;
        rec->controls_valid = true;
        if (!isnan(msg_t)) rec->controls_t = msg_t;
        if (rec->controls_stalled && !isnan(msg_t) && msg_t >= rec->t - SIM_RECORDING_STALL_S) {
            rec->controls_stalled = false;
            return event(rec, w, t, "stall", "controls_end", line, len, err);
        }
        return 0;
    }
    case SIM_TOPIC_ID_TRAFFIC_STATE: {
        sim_msg_traffic_state st = {0};
        rec->lead_valid = false;
        if (!isnan(msg_t) && sim_msg_traffic_state_decode(msg, &st, 0, NULL) == SIM_OK && st.lead.valid &&
            !(rec->cab[0] && st.cab[0] && strcmp(rec->cab, st.cab) != 0)) {
            rec->lead_valid = true;
            rec->lead_t = msg_t;
            rec->lead_gap = st.lead.gap;
            rec->lead_thw = st.lead.thw;
        }
        sim_recording_instr_traffic(rec, msg);
        return 0;
    }
    default:
        return 0;
    }
}

/* The topics with a table of their own (KEEP TABLE) kept here; gaze.sample and sensor.*
 * are sim_recording_instr's, traffic.engine the recorder's (drive-log meta). */
static int feed_motion(sim_recording *rec, sim_drivelog_writer *w, const cJSON *msg, double msg_t, sim_error *bad,
                       sim_error *err)
{
    /* a motion base's commanded motion: its own table (docs/motion.md) */
    sim_msg_motion_state ms;
    if (isnan(msg_t) || sim_msg_motion_state_decode(msg, &ms, first(bad)) != SIM_OK) return 0;
    sim_drivelog_motion m;
    sim_drivelog_motion_init(&m);
    m.run = rec->run < 0 ? 0 : rec->run;
    m.t = msg_t;
    m.step = (int64_t)ms.step;
    snprintf(m.platform, sizeof m.platform, "%s", ms.platform[0] ? ms.platform : "motion");
    snprintf(m.state, sizeof m.state, "%s", ms.state);
    m.gain = ms.gain;
    m.limits = ms.limits == SIM_MSG_NO_INT ? SIM_DRIVELOG_NULL_INT : ms.limits;
    double *pose[6] = {&m.x, &m.y, &m.z, &m.roll, &m.pitch, &m.yaw};
    double *len[SIM_MSG_MOTION_LEGS] = {&m.len0, &m.len1, &m.len2, &m.len3, &m.len4, &m.len5};
    double *f[3] = {&m.f_x, &m.f_y, &m.f_z}, *wr[3] = {&m.w_x, &m.w_y, &m.w_z};
    double *cf[3] = {&m.car_f_x, &m.car_f_y, &m.car_f_z}, *cw[3] = {&m.car_w_x, &m.car_w_y, &m.car_w_z};
    for (int k = 0; k < 3; k++) {
        *pose[k] = ms.pos[k];
        *pose[3 + k] = ms.ang[k];
        *f[k] = ms.f[k];
        *wr[k] = ms.w[k];
        *cf[k] = ms.car_f[k];
        *cw[k] = ms.car_w[k];
    }
    for (int k = 0; k < ms.n_len && k < SIM_MSG_MOTION_LEGS; k++) *len[k] = ms.len[k];
    int ret = sim_drivelog_append_motion(w, &m, err);
    if (!ret) rec->motion_rows++;
    return ret;
}

static int feed_table(sim_recording *rec, sim_drivelog_writer *w, sim_topic_id id, const cJSON *msg,
                      double msg_t, sim_error *bad, sim_error *err)
{
    if (id == SIM_TOPIC_ID_MOTION_STATE) return feed_motion(rec, w, msg, msg_t, bad, err);
    if (id != SIM_TOPIC_ID_RENDER_LATENCY) return 0;
    /* the wheel-to-picture delay: its own table (docs/latency.md) */
    sim_msg_render_latency m;
    if (isnan(msg_t) || sim_msg_render_latency_decode(msg, &m, first(bad)) != SIM_OK) return 0;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(msg, "src");
    sim_drivelog_latency l = {.run = rec->run < 0 ? 0 : rec->run, .t = msg_t, .window_s = m.window_s,
                              .frames = m.frames, .min_ms = m.min_ms, .median_ms = m.median_ms,
                              .p95_ms = m.p95_ms, .max_ms = m.max_ms};
    snprintf(l.source, sizeof l.source, "%s", cJSON_IsString(src) && src->valuestring[0] ? src->valuestring : "render");
    for (int k = 0; k < SIM_DRIVELOG_LATENCY_STAGES; k++) l.stage_ms[k] = m.stage_ms[k];
    int ret = sim_drivelog_append_latency(w, &l, err);
    if (!ret) rec->latency_rows++;
    return ret;
}

/* A topic kept as an event (KEEP EVENT): kind and name as its row says. */
static int feed_event(sim_recording *rec, sim_drivelog_writer *w, const sim_topic *row, const char *topic,
                      const cJSON *msg, double t, const char *line, size_t len, sim_error *bad, sim_error *err)
{
    if (row->id == SIM_TOPIC_ID_STORYBOARD_EVENT) {
        /* an OpenSCENARIO storyboard element's transition, "CutInEvent startTransition" */
        sim_msg_storyboard_event sb;
        char name[96];
        if (sim_msg_storyboard_event_decode(msg, &sb, bad) != SIM_OK) return 0;
        snprintf(name, sizeof name, "%s %s", sb.element, sb.transition);
        return event(rec, w, t, row->event_kind, name, line, len, err);
    }
    const char *dot = strchr(topic, '.'), *name;
    if (!row->event_field) {
        name = dot ? dot + 1 : topic; /* drt.stimulus: kind "drt", name "stimulus" */
    } else if (strcmp(row->event_field, "@topic") == 0) {
        name = topic;
    } else {
        name = text(msg, topic, row->event_field, bad);
        if (!name) name = row->event_default ? row->event_default : "";
    }
    return event(rec, w, t, row->event_kind, name, line, len, err);
}

int sim_recording_feed(sim_recording *rec, sim_drivelog_writer *w, const char *topic,
                       const cJSON *msg, const char *line, size_t len, sim_error *err)
{
    sim_error bad = {0};
    double msg_t = num(msg, topic, "t", &bad);
    double t = isnan(msg_t) ? rec->t : msg_t;
    int ret = 0;
    bool instrument = false;
    ret = sim_recording_instr_feed(rec, w, topic, msg, msg_t, &instrument, first(&bad), err);
    /* What is kept of each topic is its row's KEEP in sim_topics.def; a prefix alone
     * ("sector.") names nothing. */
    const sim_topic *row = sim_topic_find(topic);
    if (row && row->prefix && !topic[strlen(row->name)]) row = NULL;
    if (instrument || !row) {
        /* gaze.sample, sensor.*: their own tables (docs/instruments.md) */
    } else if (row->keep == SIM_TOPIC_KEEP_SAMPLE) {
        ret = feed_sample(rec, w, row->id, msg, msg_t, t, line, len, &bad, err);
    } else if (row->keep == SIM_TOPIC_KEEP_TABLE) {
        ret = feed_table(rec, w, row->id, msg, msg_t, &bad, err);
    } else if (row->keep == SIM_TOPIC_KEEP_EVENT) {
        ret = feed_event(rec, w, row, topic, msg, t, line, len, &bad, err);
    } else if (row->keep == SIM_TOPIC_KEEP_MARK) {
        const char *what = strchr(topic, '.') + 1; /* a MARK row is a "kind." prefix */
        char *current = strcmp(row->event_kind, "sector") == 0 ? rec->sector : rec->task;
        ret = mark(rec, w, t, row->event_kind, current, topic, what, msg, &bad, line, len, err);
    }
    if (!ret && rec->record_all) {
        const cJSON *seq = cJSON_GetObjectItemCaseSensitive(msg, "seq");
        const char *src = text(msg, topic, "src", &bad);
        ret = sim_drivelog_append_message(w, rec->run, t, topic, src,
                                          cJSON_IsNumber(seq) ? (int64_t)seq->valuedouble : -1,
                                          line, len, err);
        if (!ret) rec->messages++;
    }
    if (!ret && bad.code) ret = sim_error_set(err, bad.code, "%s", bad.msg);
    return ret;
}
