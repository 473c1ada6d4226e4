/* osi_trace: see osi_trace.h. */
#include "osi_trace.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_msg_signal.h"
#include "sim_osi.h"
#include "sim_scenario.h"
#include "sim_sha256.h"
#include "sim_vehicle_file.h"

#define OSI_LANE_STEP 2.0 /* m of s between a lane's sampled points (docs/osi.md) */
#define RECENT 4 /* traffic.state messages kept for the pending tick */

typedef struct traffic_line {
    bool used;
    int64_t run;
    double t;
    char *line;
    size_t len, cap;
} traffic_line;

typedef struct trace {
    FILE *f;
    sim_osi_ego_geometry geo;
    bool have_env;
    sim_environment env;
    sim_scenario *sc;     /* the drive's (NULL: none): environment and traffic-light heads */
    sim_osi_heads heads;  /* the traffic-light heads in their newest signal.state */
    sim_osi_road_lanes lanes; /* the scenario's road network, in the first message only */
    bool have_ego;
    int64_t ego_run;
    double ego_t, ego_tick;
    sim_msg_vehicle_state ego;
    traffic_line recent[RECENT];
    int next;
    bool have_run;
    int64_t first_run;
    int64_t want_run;     /* --run N by the messages' own run (< 0: any) */
    sim_osi_object objects[1 + SIM_MSG_TRAFFIC_MAX_VEHICLES];
    sim_msg_traffic_vehicle vehicles[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    uint8_t *buf;
    size_t cap;
    size_t frames, vehicle_states;
    sim_error *err;
    int rc;
} trace;

/* The traffic.state for the pending tick: the same run, the newest at or before it. */
static const traffic_line *traffic_for(const trace *c)
{
    const traffic_line *best = NULL;
    for (int i = 0; i < RECENT; i++) {
        const traffic_line *l = &c->recent[i];
        if (l->used && l->run == c->ego_run && l->t <= c->ego_t + 1e-9 && (!best || l->t > best->t)) best = l;
    }
    return best;
}

static int emit(trace *c)
{
    int rc;
    if (!c->have_run) c->have_run = true, c->first_run = c->ego_run;
    else if (c->ego_run != c->first_run)
        return sim_error_set(c->err, SIM_EINVAL,
                             "the log holds more than one run (%lld and %lld): OSI time may not go back, so export "
                             "one run at a time with --run N", (long long)c->first_run, (long long)c->ego_run);
    sim_osi_object_from_vehicle(&c->ego, &c->geo, &c->objects[0]);
    if (c->sc) c->objects[0].assigned_lane = sim_osi_assigned_lane(&c->sc->net, c->ego.road, c->ego.s, c->ego.lane);
    size_t n = 1;
    const traffic_line *l = traffic_for(c);
    if (l) {
        cJSON *pl = cJSON_ParseWithLength(l->line, l->len);
        sim_msg_traffic_state m = {.vehicles = c->vehicles};
        rc = cJSON_IsObject(pl) ? sim_msg_traffic_state_decode(pl, &m, SIM_MSG_TRAFFIC_MAX_VEHICLES, c->err)
                                    : sim_error_set(c->err, SIM_EINVAL, "not a JSON object");
        cJSON_Delete(pl);
        if (rc) {
            char why[SIM_ERROR_MSG_MAX];
            snprintf(why, sizeof why, "%s", c->err->msg);
            return sim_error_set(c->err, rc, "the traffic.state logged at t %.3f s (run %lld): %s", l->t,
                                 (long long)l->run, why);
        }
        for (int i = 0; i < m.n_vehicles; i++) {
            const sim_msg_traffic_vehicle *v = &c->vehicles[i];
            sim_osi_object_from_traffic(v, &c->objects[n]);
            if (c->sc) c->objects[n].assigned_lane = sim_osi_assigned_lane(&c->sc->net, v->road, v->s, v->lane);
            n++;
        }
    }
    size_t n_lights = 0;
    if ((rc = sim_osi_heads_lights(&c->heads, &n_lights, c->err))) return rc;
    sim_osi_environment env;
    if (c->have_env)
        sim_osi_environment_from(c->env.light, c->env.time_of_day, c->env.weather, c->env.visibility, c->ego_t, &env);
    sim_osi_ground_truth gt = {.t = c->ego_t, .host_id = SIM_OSI_HOST_ID, .objects = c->objects, .n_objects = n,
                               .lights = c->heads.lights, .n_lights = n_lights, .env = c->have_env ? &env : NULL,
                               .lanes = c->frames == 0 && c->sc ? &c->lanes : NULL};
    size_t len = 0;
    rc = sim_osi_groundtruth_encode(&gt, &c->buf, &c->cap, &len, c->err);
    if (rc) return rc;
    uint8_t head[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24)};
    if (fwrite(head, 1, 4, c->f) != 4 || fwrite(c->buf, 1, len, c->f) != len)
        return sim_error_set(c->err, SIM_EIO, "the trace cannot be written (disk full?)");
    c->frames++;
    return 0;
}

static int on_vehicle(trace *c, int64_t run, double t, const char *line, size_t len)
{
    cJSON *pl = cJSON_ParseWithLength(line, len);
    sim_msg_vehicle_state m;
    int rc = cJSON_IsObject(pl) ? sim_msg_vehicle_state_decode(pl, &m, c->err)
                                : sim_error_set(c->err, SIM_EINVAL, "not a JSON object");
    cJSON_Delete(pl);
    if (rc) {
        char why[SIM_ERROR_MSG_MAX];
        snprintf(why, sizeof why, "%s", c->err->msg);
        return sim_error_set(c->err, rc, "the vehicle.state logged at t %.3f s (run %lld): %s", t, (long long)run, why);
    }
    if (m.replay) return 0; /* simctl replay's, not the drive's */
    c->vehicle_states++;
    /* the message's own run (the recorder files a state that came before its sim.tick
     * under the run before) */
    int64_t mrun = m.run != SIM_MSG_NO_INT ? m.run : run;
    if (c->want_run >= 0 && mrun != c->want_run) return 0;
    bool same = c->have_ego && mrun == c->ego_run &&
                (isnan(m.tick) || isnan(c->ego_tick) ? fabs(t - c->ego_t) < 1e-9 : m.tick == c->ego_tick);
    if (c->have_ego && !same && (rc = emit(c))) return rc;
    c->have_ego = true;
    c->ego = m;
    c->ego_run = mrun;
    c->ego_t = t;
    c->ego_tick = m.tick;
    return 0;
}

static int on_traffic(trace *c, int64_t run, double t, const char *line, size_t len)
{
    traffic_line *l = &c->recent[c->next];
    c->next = (c->next + 1) % RECENT;
    if (len + 1 > l->cap) {
        char *nl = realloc(l->line, len + 1);
        if (!nl) return sim_error_set(c->err, SIM_ENOMEM, "out of memory");
        l->line = nl, l->cap = len + 1;
    }
    memcpy(l->line, line, len);
    l->line[len] = 0;
    l->len = len, l->t = t, l->used = true;
    /* its own run, as for vehicle.state */
    cJSON *pl = cJSON_ParseWithLength(line, len);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(pl, "run");
    l->run = cJSON_IsNumber(r) ? (int64_t)r->valuedouble : run;
    cJSON_Delete(pl);
    if (c->want_run >= 0 && l->run != c->want_run) l->used = false;
    return 0;
}

/* A head's new state (sim_osi_heads). */
static int on_signal(trace *c, const char *line, size_t len)
{
    cJSON *pl = cJSON_ParseWithLength(line, len);
    sim_msg_signal_state m;
    sim_msg_signal_where w;
    sim_error e = {0};
    int rc = cJSON_IsObject(pl) ? sim_msg_signal_state_decode(pl, &m, &e) : SIM_EINVAL;
    if (!rc) rc = sim_msg_signal_where_decode(pl, &w, &e);
    cJSON_Delete(pl);
    if (rc) return 0; /* (a bad message is the recorder's event; the lights stay as they were) */
    return sim_osi_heads_signal(&c->heads, &m, &w, c->err);
}

/* The operator's light (simctl light MODE): the environment from the next message on,
 * as osi-node follows it live. */
static void on_light(trace *c, const char *line, size_t len)
{
    cJSON *pl = cJSON_ParseWithLength(line, len);
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(pl, "mode");
    int l = cJSON_IsString(mode) ? sim_light_find(mode->valuestring, true) : -1;
    if (l >= 0) c->env.light = (sim_light)l;
    cJSON_Delete(pl);
}

static int one(int64_t run, double t, const char *topic, const char *line, size_t len, void *user)
{
    trace *c = user;
    if (strcmp(topic, SIM_TOPIC_SIGNAL_STATE) == 0) c->rc = on_signal(c, line, len);
    else if (strcmp(topic, SIM_TOPIC_VEHICLE_STATE) == 0) c->rc = on_vehicle(c, run, t, line, len);
    else if (strcmp(topic, SIM_TOPIC_TRAFFIC_STATE) == 0) c->rc = on_traffic(c, run, t, line, len);
    else if (strcmp(topic, "control.light") == 0) on_light(c, line, len);
    return c->rc != 0;
}

/* The host vehicle's file: the one given, else the log's, checked against its hash. */
static int load_vehicle(sim_drivelog_reader *r, const char *given, sim_vehicle_params *p, sim_error *err)
{
    if (given) return sim_vehicle_params_load(given, p, err);
    char file[1024], want[80] = "", hex[65], path[1100];
    if (sim_drivelog_read_meta(r, "vehicle_file", file, sizeof file, NULL) != 0 || !file[0])
        return sim_error_set(err, SIM_ENOTFOUND, "the log's meta names no vehicle_file: give the host vehicle's "
                             "file with --vehicle FILE (its box and axles place it in OSI)");
    sim_drivelog_read_meta(r, "vehicle_file_sha256", want, sizeof want, NULL);
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    for (int k = 0; k < 2; k++) {
        if (k == 0) snprintf(path, sizeof path, "%s", file);
        else snprintf(path, sizeof path, "vehicles/%s", base);
        if (sim_sha256_file(path, hex, NULL) != 0) continue;
        if (want[0] && strcmp(hex, want) != 0)
            return sim_error_set(err, SIM_EINVAL, "%s has changed since the drive (SHA-256 %.12s... in the log's meta): "
                                 "give the drive's vehicle file with --vehicle FILE", path, want);
        return sim_vehicle_params_load(path, p, err);
    }
    return sim_error_set(err, SIM_ENOTFOUND, "the drive's vehicle file %s (the log's meta) is not here, nor under "
                         "vehicles/: give it with --vehicle FILE", file);
}

/* The drive's scenario (the one given, else the log's, checked against its hash);
 * NULL with note saying why when there is none. */
static sim_scenario *load_scenario(sim_drivelog_reader *r, const char *given, char *note, size_t n)
{
    char file[1024] = "", want[80] = "", hex[65], path[1100], params[1024] = "";
    sim_drivelog_read_meta(r, "xosc_params", params, sizeof params, NULL);
    if (given) {
        snprintf(path, sizeof path, "%s", given);
    } else {
        if (sim_drivelog_read_meta(r, "scenario_file", file, sizeof file, NULL) != 0 || !file[0]) {
            snprintf(note, n, "the log's meta names no scenario: environmental conditions, traffic lights and lanes left out "
                     "(give --scenario FILE)");
            return NULL;
        }
        sim_drivelog_read_meta(r, "scenario_file_sha256", want, sizeof want, NULL);
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        path[0] = 0;
        for (int k = 0; k < 2 && !path[0]; k++) {
            if (k == 0) snprintf(path, sizeof path, "%s", file);
            else snprintf(path, sizeof path, "scenarios/%s", base);
            if (sim_sha256_file(path, hex, NULL) != 0 || (want[0] && strcmp(hex, want) != 0)) path[0] = 0;
        }
        if (!path[0]) {
            snprintf(note, n, "the drive's scenario %s (with the SHA-256 in the log's meta) is not here, nor under "
                     "scenarios/: environmental conditions, traffic lights and lanes left out (give --scenario FILE)", file);
            return NULL;
        }
    }
    sim_scenario *sc = NULL;
    sim_error e = {0};
    if (sim_scenario_load_params(path, params[0] ? params : NULL, &sc, &e) != 0) {
        snprintf(note, n, "environmental conditions, traffic lights and lanes left out: %s", e.msg);
        return NULL;
    }
    return sc;
}

/* OSI's trace name (docs/osi.md): <start>_gt_<osi>_<protobuf>_<frames>_<scenario>.osi */
static void trace_name(sim_drivelog_reader *r, const char *dir, size_t frames, char *out, size_t n)
{
    char start[64] = "", sc[1024] = "", when[32] = "", pb[32] = "", name[256] = "";
    sim_drivelog_read_meta(r, "start_utc", start, sizeof start, NULL);
    size_t k = 0;
    for (const char *s = start; *s && k + 1 < sizeof when; s++)
        if (*s != '-' && *s != ':') when[k++] = *s; /* 2026-12-02T14:39:24Z -> 20261202T143924Z */
    if (!k) snprintf(when, sizeof when, "00000000T000000Z");
    k = 0;
    for (const char *s = sim_osi_protobuf_version(); *s && k + 1 < sizeof pb; s++)
        if (*s != '.') pb[k++] = *s;
    sim_drivelog_read_meta(r, "scenario_file", sc, sizeof sc, NULL);
    const char *base = strrchr(sc, '/') ? strrchr(sc, '/') + 1 : sc;
    k = 0;
    for (const char *s = base; *s && *s != '.' && k + 1 < sizeof name; s++)
        name[k++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-'
                               ? *s
                               : '-');
    if (!k) snprintf(name, sizeof name, "drive");
    snprintf(out, n, "%s/%s_gt_%d%d%d_%s_%zu_%s.osi", dir, when, SIM_OSI_VERSION_MAJOR, SIM_OSI_VERSION_MINOR,
             SIM_OSI_VERSION_PATCH, pb, frames, name);
}

int osi_trace_export(sim_drivelog_reader *r, sim_drivelog_range range, const char *path, bool dir,
                     const char *vehicle, const char *scenario, char *out, size_t n, char *note, size_t note_n,
                     size_t *frames, sim_error *err)
{
    *frames = 0;
    note[0] = 0;
    sim_vehicle_params *p = calloc(1, sizeof *p);
    trace *c = calloc(1, sizeof *c);
    char *tmp = malloc(strlen(path) + 32);
    int rc = 0;
    if (!p || !c || !tmp) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (!rc) rc = load_vehicle(r, vehicle, p, err);
    if (!rc) {
        sim_osi_ego_geometry_from_params(p, &c->geo);
        c->sc = load_scenario(r, scenario, note, note_n);
        if (c->sc) {
            c->have_env = true;
            c->env = c->sc->env;
        }
        rc = sim_osi_heads_init(&c->heads, c->sc ? &c->sc->net.lights : NULL, err);
        if (!rc && c->sc) {
            rc = sim_osi_lanes_from_net(&c->sc->net, OSI_LANE_STEP, &c->lanes, err);
        }
        c->err = err;
    }
    if (!rc) {
        if (dir) sprintf(tmp, "%s/trace.osi.part", path);
        else sprintf(tmp, "%s.part", path);
        if (!(c->f = fopen(tmp, "wb"))) rc = sim_error_set(err, SIM_EIO, "%s cannot be written", tmp);
    }
    if (!rc) {
        /* the run by each message's own (a state that came before its sim.tick is filed
         * under the run before), so every run is read */
        c->want_run = range.run;
        range.run = -1;
        rc = sim_drivelog_read_messages(r, range, "", one, c, err);
    }
    if (!rc) rc = c->rc;
    if (!rc && c->have_ego) rc = emit(c);
    if (!rc && c->vehicle_states == 0)
        rc = sim_error_set(err, SIM_ENOTFOUND, "the log holds no vehicle.state message in the range: record the drive "
                           "with simctl run --record-all (the recorder's --all)");
    if (c && c->f && fclose(c->f) != 0 && !rc) rc = sim_error_set(err, SIM_EIO, "%s cannot be written", tmp);
    if (!rc) {
        if (dir) trace_name(r, path, c->frames, out, n);
        else snprintf(out, n, "%s", path);
        if (rename(tmp, out) != 0) rc = sim_error_set(err, SIM_EIO, "%s cannot be renamed to %s", tmp, out);
    }
    if (rc && tmp) remove(tmp);
    if (!rc) *frames = c->frames;
    if (c) {
        for (int i = 0; i < RECENT; i++) free(c->recent[i].line);
        free(c->buf);
        sim_osi_heads_free(&c->heads);
        sim_osi_road_lanes_free(&c->lanes);
        sim_scenario_free(c->sc);
    }
    free(c);
    free(p);
    free(tmp);
    return rc;
}
