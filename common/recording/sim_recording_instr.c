/* sim_recording_instr: instruments into the drive log (see sim_recording.h and
 * docs/instruments.md): gaze.sample and sensor.<name> into the gaze and sensor tables
 * at the simulation time they were taken, the time base (clock rows), and senders that
 * stop.
 *
 * When a sample was taken, in the order the recorder trusts it: sim_t (the sender knew
 * the simulation time exactly: lockstep), wall (the sender's clock mapped onto the
 * session's wall clock by the sender, through the time base), the envelope's t (what
 * every bus message means by t), the arrival time (through the time base). */
#include "sim_recording.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_msg_sensor.h"
#include "sim_msg_task.h"
#include "sim_msg_traffic.h"

/* A sign as the ray sees it: its panel, 0.8 m wide, 0.1 m deep, from 1.5 to 2.5 m
 * above the road (render-node draws signs about there). */
#define SIGN_WIDTH 0.8
#define SIGN_BOTTOM 1.5
#define SIGN_HEIGHT 1.0

void sim_recording_set_wall(sim_recording *rec, double wall)
{
    rec->wall = wall;
}

static void copy_name(char dst[SIM_DRIVELOG_ID_MAX], const char *src)
{
    snprintf(dst, SIM_DRIVELOG_ID_MAX, "%.47s", src ? src : "");
}

/* The sender's entry (a new one when there is room; NULL when there is none). */
static sim_recording_source *source_of(sim_recording *rec, const char *name)
{
    for (int i = 0; i < rec->n_sources; i++)
        if (strcmp(rec->sources[i].name, name) == 0) return &rec->sources[i];
    if (rec->n_sources == SIM_RECORDING_SOURCES) return NULL;
    sim_recording_source *s = &rec->sources[rec->n_sources++];
    memset(s, 0, sizeof *s);
    copy_name(s->name, name);
    s->last_clock = NAN;
    return s;
}

/* A sample of sender name arrived (at rec->wall): the end of its silence. */
static int sender_arrived(sim_recording *rec, sim_drivelog_writer *w, const char *name, sim_error *err)
{
    sim_recording_source *s = source_of(rec, name);
    if (!s) return 0;
    int ret = 0;
    double recv = rec->wall;
    if (s->stopped && isfinite(recv)) {
        char json[160];
        snprintf(json, sizeof json, "{\"source\":\"%s\",\"gap_s\":%.6g}", s->name, recv - s->last_recv);
        s->stopped = false;
        ret = sim_drivelog_append_event(w, rec->run < 0 ? 0 : rec->run, rec->t, "sensor", "resumed", json, err);
        if (!ret) rec->events++;
    }
    if (isfinite(recv)) s->last_recv = recv;
    s->samples++;
    return ret;
}

/* A sample of sender name written at (run, t): its clock row, first then once a
 * second: its own clock src_t against the wall time it stated and its arrival. */
static int sender_clock(sim_recording *rec, sim_drivelog_writer *w, const char *name, int64_t run, double t,
                        double src_t, double wall, double recv, sim_error *err)
{
    sim_recording_source *s = source_of(rec, name);
    if (!s) return 0;
    s->last_t = t;
    if (!isfinite(recv) || !isfinite(wall) || (!isnan(s->last_clock) && recv - s->last_clock < SIM_RECORDING_CLOCK_S))
        return 0;
    s->last_clock = recv;
    sim_drivelog_clock c = {.run = run, .t = t, .wall = wall, .src_t = src_t, .recv_wall = recv};
    copy_name(c.source, name);
    return sim_drivelog_append_clock(w, &c, err);
}

/* (run, t) of wall time stamp through the time base; before any tick, now's. */
static void map_stamp(const sim_recording *rec, double stamp, int64_t *run, double *t)
{
    *run = rec->run < 0 ? 0 : rec->run;
    *t = rec->t;
    (void)sim_timebase_map(&rec->tb, stamp, run, t, NULL);
}

/* Whether a sample stamped at wall time stamp must wait for its tick. */
static bool must_wait(const sim_recording *rec, double stamp)
{
    double newest;
    return !sim_timebase_newest(&rec->tb, &newest) || stamp > newest;
}

/* Whether a held sample (stamped stamp, arrived at recv) may be written now. */
static bool may_release(const sim_recording *rec, double stamp, double recv)
{
    return !must_wait(rec, stamp) || !isfinite(rec->wall) || !isfinite(recv) ||
           rec->wall - recv >= SIM_RECORDING_HOLD_S;
}

void sim_recording_set_gaze(sim_recording *rec, const sim_gaze_area *areas, size_t n, const double eye[3])
{
    if (n > SIM_GAZE_AREAS_MAX) n = SIM_GAZE_AREAS_MAX;
    for (size_t i = 0; i < n; i++) rec->gaze_areas[i] = areas[i];
    rec->n_gaze_areas = n;
    for (int k = 0; k < 3; k++) rec->eye[k] = eye ? eye[k] : 0;
}

void sim_recording_instr_signs(sim_recording *rec, const sim_scenario *sc)
{
    rec->n_signs = 0;
    for (int r = 0; sc && r < sc->net.n_roads; r++) {
        const sim_road *road = &sc->net.roads[r];
        for (int k = 0; k < road->n_signs && rec->n_signs < SIM_RECORDING_GAZE_OBJECTS / 2; k++) {
            sim_road_pose p;
            int rc = sim_road_pose_at(&sc->net, r, road->signs[k].s, road->signs[k].d, &p);
            if (rc && rc != SIM_ERANGE) continue;
            sim_gaze_object *o = &rec->gaze_objects[rec->n_signs++];
            *o = (sim_gaze_object){.kind = SIM_GAZE_SIGN, .x = p.x, .y = p.y, .z = p.z + SIGN_BOTTOM,
                                   .heading = p.heading, .length = 0.1, .width = SIGN_WIDTH, .height = SIGN_HEIGHT};
            /* "ROAD:N": the N-th sign of the road (docs/instruments.md) */
            snprintf(o->id, sizeof o->id, "%.30s:%d", road->id ? road->id : "?", k);
        }
    }
    rec->n_gaze_objects = rec->n_signs;
}

void sim_recording_instr_traffic(sim_recording *rec, const cJSON *msg)
{
    static sim_msg_traffic_vehicle v[SIM_MSG_TRAFFIC_MAX_VEHICLES]; /* the recorder is one thread */
    sim_msg_traffic_state st = {.vehicles = v};
    rec->n_gaze_objects = rec->n_signs;
    (void)sim_msg_traffic_state_decode(msg, &st, SIM_MSG_TRAFFIC_MAX_VEHICLES, NULL); /* good entries stay */
    for (int i = 0; i < st.n_vehicles && rec->n_gaze_objects < SIM_RECORDING_GAZE_OBJECTS; i++) {
        sim_gaze_object *o = &rec->gaze_objects[rec->n_gaze_objects++];
        *o = (sim_gaze_object){.kind = SIM_GAZE_VEHICLE, .x = v[i].pos[0], .y = v[i].pos[1], .z = v[i].pos[2],
                               .heading = v[i].heading, .length = v[i].size[0], .width = v[i].size[1],
                               .height = v[i].size[2]};
        snprintf(o->id, sizeof o->id, "%.47s", v[i].id);
    }
}

/* The hit of a sample's direction, from where the car is now (the newest
 * vehicle.state): its target. */
static void hit_test(sim_recording *rec, const sim_drivelog_gaze *g)
{
    const sim_drivelog_sample *s = &rec->state;
    if (!g->valid || isnan(g->yaw_deg) || isnan(g->pitch_deg)) return;
    bool placed = !isnan(s->x) && !isnan(s->y) && !isnan(s->heading);
    sim_gaze_scene sc = {.areas = rec->gaze_areas, .n_areas = rec->n_gaze_areas,
                         .objects = rec->gaze_objects, .n_objects = placed ? rec->n_gaze_objects : 0,
                         .ego_x = placed ? s->x : 0, .ego_y = placed ? s->y : 0,
                         .ego_z = placed && !isnan(s->z) ? s->z : 0, .ego_heading = placed ? s->heading : 0,
                         .eye = {rec->eye[0], rec->eye[1], rec->eye[2]}};
    if (sim_gaze_hit_test(&sc, g->yaw_deg, g->pitch_deg, &rec->hit, NULL)) return;
    copy_name(rec->hit_source, g->source);
    rec->hit_t = g->t;
    rec->hit_new = true;
}

static int write_gaze(sim_recording *rec, sim_drivelog_writer *w, sim_drivelog_gaze *g, double recv, sim_error *err)
{
    if (!g->target[0]) {
        hit_test(rec, g);
        if (rec->hit_new && rec->hit.kind != SIM_GAZE_NOTHING) copy_name(g->target, rec->hit.name);
    }
    int ret = sim_drivelog_append_gaze(w, g, err);
    if (!ret) rec->gaze_rows++;
    return ret ? ret : sender_clock(rec, w, g->source, g->run, g->t, g->src_t, g->wall, recv, err);
}

static int write_sensor(sim_recording *rec, sim_drivelog_writer *w, const sim_drivelog_sensor *s, double recv,
                        sim_error *err)
{
    int ret = sim_drivelog_append_sensor(w, s, err);
    if (!ret) rec->sensor_rows++;
    char name[SIM_DRIVELOG_ID_MAX];
    snprintf(name, sizeof name, "sensor.%.39s", s->sensor);
    return ret ? ret : sender_clock(rec, w, name, s->run, s->t, s->src_t, s->wall, recv, err);
}

/* Writes the held samples whose tick has come (or that waited long enough, or all
 * when force), oldest first. */
static int release(sim_recording *rec, sim_drivelog_writer *w, bool force, sim_error *err)
{
    int ret = 0;
    while (!ret && rec->n_held_gaze) {
        sim_recording_held_gaze *h = &rec->held_gaze[rec->held_gaze_head];
        if (!force && !may_release(rec, h->g.wall, h->recv)) break;
        map_stamp(rec, h->g.wall, &h->g.run, &h->g.t);
        ret = write_gaze(rec, w, &h->g, h->recv, err);
        rec->held_gaze_head = (rec->held_gaze_head + 1) % SIM_RECORDING_HELD_GAZE;
        rec->n_held_gaze--;
    }
    while (!ret && rec->n_held_sensor) {
        sim_recording_held_sensor *h = &rec->held_sensor[rec->held_sensor_head];
        if (!force && !may_release(rec, h->s.wall, h->recv)) break;
        map_stamp(rec, h->s.wall, &h->s.run, &h->s.t);
        ret = write_sensor(rec, w, &h->s, h->recv, err);
        rec->held_sensor_head = (rec->held_sensor_head + 1) % SIM_RECORDING_HELD_SENSOR;
        rec->n_held_sensor--;
    }
    return ret;
}

int sim_recording_release_held(sim_recording *rec, sim_drivelog_writer *w, sim_error *err)
{
    return release(rec, w, true, err);
}

/* When a sample was taken: *t when it is known outright, else *stamp the wall time to
 * map (NAN: none); *wall_kept the wall time its row keeps. */
static void stamp_of(const sim_recording *rec, double sim_t, double wall, double msg_t, double *t, double *stamp,
                     double *wall_kept)
{
    double recv = rec->wall;
    *stamp = NAN;
    *wall_kept = isfinite(wall) ? wall : recv;
    if (isfinite(sim_t)) *t = sim_t;
    else if (isfinite(wall)) *stamp = wall;
    else if (isfinite(msg_t)) *t = msg_t;
    else if (isfinite(recv)) *stamp = recv;
    else *t = rec->t;
}

static int gaze(sim_recording *rec, sim_drivelog_writer *w, const cJSON *msg, double msg_t, sim_error *bad,
                sim_error *err)
{
    sim_msg_gaze_sample m;
    if (sim_msg_gaze_sample_decode(msg, &m, bad)) return 0; /* said by bad; nothing to keep */
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(msg, "src");
    sim_drivelog_gaze g = {.src_t = m.t_src, .valid = m.valid, .confidence = m.confidence,
                           .yaw_deg = m.yaw_deg, .pitch_deg = m.pitch_deg, .run = rec->run < 0 ? 0 : rec->run,
                           .surface_x = m.surface_x, .surface_y = m.surface_y};
    copy_name(g.source, cJSON_IsString(src) && src->valuestring[0] ? src->valuestring : "gaze");
    copy_name(g.area, m.area);
    copy_name(g.target, m.target);
    double stamp;
    stamp_of(rec, m.sim_t, m.wall, msg_t, &g.t, &stamp, &g.wall);
    int ret = sender_arrived(rec, w, g.source, err);
    if (ret) return ret;
    if (isnan(stamp)) {
        if (!isfinite(g.wall)) g.wall = g.t; /* no clock at all (a test without one): keyed by t */
        return write_gaze(rec, w, &g, rec->wall, err);
    }
    g.wall = stamp;
    if (!must_wait(rec, stamp) && !rec->n_held_gaze) {
        map_stamp(rec, stamp, &g.run, &g.t);
        return write_gaze(rec, w, &g, rec->wall, err);
    }
    if (rec->n_held_gaze == SIM_RECORDING_HELD_GAZE && (ret = release(rec, w, true, err))) return ret;
    sim_recording_held_gaze *h = &rec->held_gaze[(rec->held_gaze_head + rec->n_held_gaze++) % SIM_RECORDING_HELD_GAZE];
    h->g = g;
    h->recv = rec->wall;
    h->line = rec->line;
    return 0;
}

static int sensor(sim_recording *rec, sim_drivelog_writer *w, const char *topic, const cJSON *msg,
                  double msg_t, sim_error *bad, sim_error *err)
{
    static sim_msg_sensor m; /* 2 KiB; the recorder is one thread */
    if (sim_msg_sensor_decode(topic, msg, &m, bad)) return 0;
    sim_drivelog_sensor s = {.src_t = m.t_src, .run = rec->run < 0 ? 0 : rec->run};
    copy_name(s.sensor, m.sensor);
    double stamp;
    stamp_of(rec, m.sim_t, m.wall, msg_t, &s.t, &stamp, &s.wall);
    int ret = sender_arrived(rec, w, topic, err);
    bool wait = false;
    if (isnan(stamp)) {
        if (!isfinite(s.wall)) s.wall = s.t;
    } else {
        s.wall = stamp;
        wait = must_wait(rec, stamp) || rec->n_held_sensor;
        if (!wait) map_stamp(rec, stamp, &s.run, &s.t);
    }
    for (int i = 0; i < m.n && !ret; i++) {
        copy_name(s.channel, m.ch[i].name);
        s.value = m.ch[i].value;
        if (m.ch[i].unit[0]) ret = sim_drivelog_set_unit(w, s.sensor, s.channel, m.ch[i].unit, err);
        if (ret) break;
        if (!wait) {
            ret = write_sensor(rec, w, &s, rec->wall, err);
            continue;
        }
        if (rec->n_held_sensor == SIM_RECORDING_HELD_SENSOR && (ret = release(rec, w, true, err))) break;
        sim_recording_held_sensor *h =
            &rec->held_sensor[(rec->held_sensor_head + rec->n_held_sensor++) % SIM_RECORDING_HELD_SENSOR];
        h->s = s;
        h->recv = rec->wall;
        h->line = rec->line;
    }
    return ret;
}

int sim_recording_instr_feed(sim_recording *rec, sim_drivelog_writer *w, const char *topic, const cJSON *msg,
                             double msg_t, bool *handled, sim_error *bad, sim_error *err)
{
    *handled = true;
    if (strcmp(topic, SIM_TOPIC_GAZE_SAMPLE) == 0) return gaze(rec, w, msg, msg_t, bad, err);
    if (strncmp(topic, SIM_TOPIC_SENSOR_PREFIX, strlen(SIM_TOPIC_SENSOR_PREFIX)) == 0)
        return sensor(rec, w, topic, msg, msg_t, bad, err);
    *handled = false;
    return 0;
}

int sim_recording_instr_tick(sim_recording *rec, sim_drivelog_writer *w, sim_error *err)
{
    /* physics' own stamp of when it reached t, else when the tick arrived here (late by
     * the bus's delay, tens of ms on a loaded machine) */
    double wall = isfinite(rec->tick_wall) ? rec->tick_wall : rec->wall;
    if (!isfinite(wall)) return 0;
    sim_timebase_add(&rec->tb, wall, rec->run, rec->t, rec->paused);
    int ret = release(rec, w, false, err);
    if (ret) return ret;
    /* a row where the clock does not run as the last row says (real time from it, or
     * standing while paused) by more than SIM_RECORDING_CLOCK_SLACK_S: the rows,
     * interpolated, give every tick's wall time to that slack (docs/instruments.md).
     * Real time: one a second; lockstep: one a tick. */
    double predicted = rec->clock_paused ? rec->clock_t : rec->clock_t + (wall - rec->clock_wall);
    bool due = isnan(rec->clock_wall) || rec->run != rec->clock_run || rec->paused != rec->clock_paused ||
               wall - rec->clock_wall >= SIM_RECORDING_CLOCK_S ||
               fabs(rec->t - predicted) > SIM_RECORDING_CLOCK_SLACK_S;
    bool was_logged = rec->last_tick_logged, had_last = rec->last_tick_valid;
    sim_drivelog_clock prev = {.run = rec->last_tick_run, .t = rec->last_tick_t, .wall = rec->last_tick_wall,
                               .src_t = NAN, .recv_wall = NAN, .paused = rec->last_tick_paused, .source = "sim"};
    rec->last_tick_valid = true;
    rec->last_tick_logged = due;
    rec->last_tick_wall = wall;
    rec->last_tick_t = rec->t;
    rec->last_tick_run = rec->run;
    rec->last_tick_paused = rec->paused;
    if (!due) return 0;
    /* the line held up to the tick before: close it there */
    if (had_last && !was_logged && prev.run == rec->run && (ret = sim_drivelog_append_clock(w, &prev, err)))
        return ret;
    sim_drivelog_clock c = {.run = rec->run, .t = rec->t, .wall = wall, .src_t = NAN,
                            .recv_wall = isfinite(rec->wall) ? rec->wall : NAN, .paused = rec->paused,
                            .source = "sim"};
    rec->clock_wall = wall;
    rec->clock_t = rec->t;
    rec->clock_run = rec->run;
    rec->clock_paused = rec->paused;
    return sim_drivelog_append_clock(w, &c, err);
}

int sim_recording_check_sources(sim_recording *rec, sim_drivelog_writer *w, sim_error *err)
{
    if (!isfinite(rec->wall)) return 0;
    int rret = release(rec, w, false, err);
    if (rret) return rret;
    for (int i = 0; i < rec->n_sources; i++) {
        sim_recording_source *s = &rec->sources[i];
        if (s->stopped || !s->samples || rec->wall - s->last_recv < SIM_RECORDING_SOURCE_STOP_S) continue;
        s->stopped = true;
        char json[200];
        snprintf(json, sizeof json, "{\"source\":\"%s\",\"last_t\":%.17g,\"samples\":%llu}", s->name, s->last_t,
                 (unsigned long long)s->samples);
        int ret = sim_drivelog_append_event(w, rec->run < 0 ? 0 : rec->run, s->last_t, "sensor", "stopped", json,
                                            err);
        if (ret) return ret;
        rec->events++;
    }
    return 0;
}
