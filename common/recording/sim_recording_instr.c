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

/* Where (run, t) a sample stamped sim_t / wall landed; *wall_used is the wall time the
 * row keeps (the sender's, else the arrival). */
static void when(const sim_recording *rec, double sim_t, double wall, double msg_t, int64_t *run, double *t,
                 double *wall_used)
{
    double recv = isfinite(rec->wall) ? rec->wall : NAN;
    *wall_used = isfinite(wall) ? wall : recv;
    *run = rec->run < 0 ? 0 : rec->run;
    if (isfinite(sim_t)) {
        *t = sim_t;
        return;
    }
    if (isfinite(wall) && sim_timebase_map(&rec->tb, wall, run, t, NULL)) return;
    if (isfinite(msg_t)) {
        *t = msg_t;
        return;
    }
    if (!isfinite(recv) || !sim_timebase_map(&rec->tb, recv, run, t, NULL)) *t = rec->t;
}

/* A sample of sender src arrived: its clock row (first, then once a second), and the
 * end of its silence. */
static int sender_seen(sim_recording *rec, sim_drivelog_writer *w, const char *name, int64_t run, double t,
                       double src_t, double wall, sim_error *err)
{
    sim_recording_source *s = source_of(rec, name);
    if (!s) return 0;
    int ret = 0;
    double recv = isfinite(rec->wall) ? rec->wall : wall;
    if (s->stopped) {
        char json[160];
        snprintf(json, sizeof json, "{\"source\":\"%s\",\"gap_s\":%.6g}", s->name, recv - s->last_recv);
        s->stopped = false;
        ret = sim_drivelog_append_event(w, run, t, "sensor", "resumed", json, err);
        if (!ret) rec->events++;
    }
    if (!ret && isfinite(recv) && (isnan(s->last_clock) || recv - s->last_clock >= SIM_RECORDING_CLOCK_S)) {
        sim_drivelog_clock c = {.run = run, .t = t, .wall = wall, .src_t = src_t, .recv_wall = recv};
        copy_name(c.source, name);
        ret = sim_drivelog_append_clock(w, &c, err);
        s->last_clock = recv;
    }
    s->last_recv = recv;
    s->last_t = t;
    s->samples++;
    return ret;
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

static int gaze(sim_recording *rec, sim_drivelog_writer *w, const cJSON *msg, double msg_t, sim_error *bad,
                sim_error *err)
{
    sim_msg_gaze_sample m;
    if (sim_msg_gaze_sample_decode(msg, &m, bad)) return 0; /* said by bad; nothing to keep */
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(msg, "src");
    sim_drivelog_gaze g = {.src_t = m.t_src, .valid = m.valid, .confidence = m.confidence,
                           .yaw_deg = m.yaw_deg, .pitch_deg = m.pitch_deg};
    copy_name(g.source, cJSON_IsString(src) && src->valuestring[0] ? src->valuestring : "gaze");
    copy_name(g.area, m.area);
    copy_name(g.target, m.target);
    when(rec, m.sim_t, m.wall, msg_t, &g.run, &g.t, &g.wall);
    if (!isfinite(g.wall)) g.wall = g.t; /* no clock at all (a test without one): keyed by t */
    if (!g.target[0]) {
        hit_test(rec, &g);
        if (rec->hit_new && rec->hit.kind != SIM_GAZE_NOTHING) copy_name(g.target, rec->hit.name);
    }
    int ret = sim_drivelog_append_gaze(w, &g, err);
    if (!ret) rec->gaze_rows++;
    return ret ? ret : sender_seen(rec, w, g.source, g.run, g.t, g.src_t, g.wall, err);
}

static int sensor(sim_recording *rec, sim_drivelog_writer *w, const char *topic, const cJSON *msg,
                  double msg_t, sim_error *bad, sim_error *err)
{
    static sim_msg_sensor m; /* 2 KiB; the recorder is one thread */
    if (sim_msg_sensor_decode(topic, msg, &m, bad)) return 0;
    sim_drivelog_sensor s = {.src_t = m.t_src};
    copy_name(s.sensor, m.sensor);
    when(rec, m.sim_t, m.wall, msg_t, &s.run, &s.t, &s.wall);
    if (!isfinite(s.wall)) s.wall = s.t;
    int ret = 0;
    for (int i = 0; i < m.n && !ret; i++) {
        copy_name(s.channel, m.ch[i].name);
        s.value = m.ch[i].value;
        if (m.ch[i].unit[0]) ret = sim_drivelog_set_unit(w, s.sensor, s.channel, m.ch[i].unit, err);
        if (!ret) ret = sim_drivelog_append_sensor(w, &s, err);
        if (!ret) rec->sensor_rows++;
    }
    return ret ? ret : sender_seen(rec, w, topic, s.run, s.t, s.src_t, s.wall, err);
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
    if (!isfinite(rec->wall)) return 0;
    sim_timebase_add(&rec->tb, rec->wall, rec->run, rec->t, rec->paused);
    bool due = isnan(rec->clock_wall) || rec->run != rec->clock_run || rec->paused != rec->clock_paused ||
               rec->wall - rec->clock_wall >= SIM_RECORDING_CLOCK_S;
    if (!due) return 0;
    sim_drivelog_clock c = {.run = rec->run, .t = rec->t, .wall = rec->wall, .src_t = NAN, .recv_wall = NAN,
                            .paused = rec->paused, .source = "sim"};
    rec->clock_wall = rec->wall;
    rec->clock_run = rec->run;
    rec->clock_paused = rec->paused;
    return sim_drivelog_append_clock(w, &c, err);
}

int sim_recording_check_sources(sim_recording *rec, sim_drivelog_writer *w, sim_error *err)
{
    if (!isfinite(rec->wall)) return 0;
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
