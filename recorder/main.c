/* recorder: the drive-log node. It joins the bus as a durable module, turns messages
 * into drive-log rows (sim_recording) and commits them at most 100 ms apart
 * (sim_drivelog). A restarted recorder resumes its unfinished file, and the
 * dispatcher's backlog fills in what arrived while it was away; rows seen twice are
 * stored once. Errors writing the log are published loudly as log.error.
 * On SIGTERM or control.stop it first drains what is still on its way (until the
 * dispatcher's dispatcher.flushed, its answer to durable.flush, has arrived and the
 * bus has been quiet for DRAIN_QUIET_MS), so the end of a drive is never cut off; a new
 * file that got no sample at all is removed rather than left empty. Ticks that stop
 * arriving for --stall-ms (not paused) and losing the bus are logged as events.
 * See docs/drivelog.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "recorder.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_drivelog.h"
#include "sim_error.h"
#include "sim_command.h"
#include "sim_msg_log.h"
#include "sim_msg_sim.h"
#include "sim_msg_automation.h"
#include "sim_msg_storyboard.h"
#include "sim_msg_traffic.h"
#include "sim_msg_vehicle.h"
#include "sim_msg_sensor.h"
#include "sim_node.h"
#include "sim_recording.h"
#include "sim_scenario.h"
#include "sim_topics.h"
#include "sim_vehicle_file.h"

#define TICK_MS 5      /* idle timer asking the writer to commit (it commits at flush_ms) */
#define STATUS_MS 1000 /* log.status period, and the least time between two log.error */
#define DRAIN_QUIET_MS 150 /* stopping: the bus has said everything once quiet this long */
#define DRAIN_MAX_MS 2500  /* ... or after this (simctl's patience is 3 s) */
#define ACK_MS 50          /* least time between two durable.ack */


/* What the recorder subscribes to: the topics sim_topics.def says it keeps. */
static const char *subscribe[SIM_TOPIC_COUNT];
static size_t n_subscribe;

/* The session's wall clock (Unix s): the time base's (docs/instruments.md). */
double rec_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void rec_utc_now(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- bus output ---- */

static void publish_status(recorder *r)
{
    if (!r->bus || !sim_bus_connected(r->bus)) return;
    static sim_msg_log_status m; /* 4.5 KiB of text: off the stack */
    snprintf(m.file, sizeof m.file, "%s", r->w ? sim_drivelog_path(r->w) : "");
    m.rows = r->w ? sim_drivelog_committed(r->w) : 0;
    m.synced = r->w ? sim_drivelog_synced(r->w) : 0;
    m.pending = r->w ? sim_drivelog_pending(r->w) : 0;
    m.samples = r->rec.samples;
    m.events = r->rec.events;
    m.run = (double)r->rec.run;
    m.bad_messages = r->bad_messages;
    snprintf(m.error, sizeof m.error, "%s", r->error);
    cJSON *p = sim_msg_log_status_encode(&m);
    if (p) sim_bus_publish(r->bus, SIM_TOPIC_LOG_STATUS, r->rec.t, p);
    cJSON_Delete(p);
}

/* Two messages of one cause differ only in their numbers ("commit of 712 rows failed"
 * then "... 713 rows ..."). */
static bool same_cause(const char *a, const char *b)
{
    for (;;) {
        while (*a >= '0' && *a <= '9') a++;
        while (*b >= '0' && *b <= '9') b++;
        if (*a != *b) return false;
        if (!*a) return true;
        a++, b++;
    }
}

/* A write error: on stderr and on the bus at once, then again every STATUS_MS while it
 * lasts (one line a second per cause, not one per failed commit), so an operator
 * cannot miss it. */
static void report_error(recorder *r, const sim_error *err)
{
    uint64_t now = uv_now(r->loop);
    bool changed = !same_cause(r->error, err->msg);
    snprintf(r->error, sizeof r->error, "%s", err->msg);
    if (!changed && now - r->last_error_ms < STATUS_MS) return;
    r->last_error_ms = now;
    fprintf(stderr, "recorder: ERROR: %s\n", err->msg);
    if (!r->bus || !sim_bus_connected(r->bus)) return;
    static sim_msg_log_error m;
    snprintf(m.file, sizeof m.file, "%s", r->w ? sim_drivelog_path(r->w) : "");
    snprintf(m.error, sizeof m.error, "%s", err->msg);
    m.pending = r->w ? sim_drivelog_pending(r->w) : 0;
    cJSON *p = sim_msg_log_error_encode(&m);
    if (p) sim_bus_publish(r->bus, SIM_TOPIC_LOG_ERROR, r->rec.t, p);
    cJSON_Delete(p);
}

static void clear_error(recorder *r)
{
    if (!r->error[0]) return;
    fprintf(stderr, "recorder: writing again, error cleared (%s)\n", r->error);
    r->error[0] = '\0';
    publish_status(r);
}

/* An event of the recorder itself (started, resumed, stopped, backlog_...); count < 0:
 * none. */
static void recorder_event_count(recorder *r, const char *name, double count)
{
    char json[512], when[32];
    rec_utc_now(when, sizeof when);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "utc", when);
    if (count >= 0) cJSON_AddNumberToObject(o, "count", count);
    cJSON_AddNumberToObject(o, "pid", (double)getpid());
    cJSON_AddStringToObject(o, "version", SIM_VERSION);
    if (!cJSON_PrintPreallocated(o, json, sizeof json, false)) json[0] = '\0';
    cJSON_Delete(o);
    sim_error err = {0};
    if (sim_drivelog_append_event(r->w, r->rec.run, r->rec.t, "recorder", name, json, &err))
        report_error(r, &err);
}

void rec_event(recorder *r, const char *name) { recorder_event_count(r, name, -1); }

/* Starts draining. The dispatcher answers durable.flush with dispatcher.flushed behind
 * everything it queued for us, so once that arrives (and the bus has been quiet a
 * moment for what the others sent last) nothing of the drive is still on its way. A
 * quiet bus alone is no proof: on a loaded machine the dispatcher may not get the CPU
 * for longer than DRAIN_QUIET_MS while it still holds the drive's last seconds. */
static void begin_stop(recorder *r)
{
    if (r->draining || r->stopping) return;
    r->draining = true;
    r->drain_since_ms = r->last_msg_ms = uv_now(r->loop);
    if (r->bus && sim_bus_connected(r->bus) && r->welcomed) {
        cJSON *p = cJSON_CreateObject();
        r->flush_asked = p && sim_bus_publish(r->bus, "durable.flush", r->rec.t, p) == SIM_OK;
        cJSON_Delete(p);
    }
}
static void finish_stop(recorder *r)
{
    r->stopping = true;
    uv_stop(r->loop);
}

/* A stall of the clock: no sim.tick for --stall-ms while the run is not paused (a
 * stalled dispatcher, a hung physics node); logged once, and its end. */
static void check_tick_stall(recorder *r)
{
    uint64_t now = uv_now(r->loop);
    if (!r->last_tick_ms || r->rec.paused || r->tick_stalled || r->draining || r->opt.stall_ms <= 0) return;
    if (now - r->last_tick_ms < (uint64_t)r->opt.stall_ms) return;
    r->tick_stalled = true;
    char json[96];
    snprintf(json, sizeof json, "{\"after_t\":%.17g,\"wall_ms\":%llu}", r->rec.t,
             (unsigned long long)(now - r->last_tick_ms));
    sim_error err = {0};
    if (sim_drivelog_append_event(r->w, r->rec.run, r->rec.t, "stall", "ticks", json, &err)) report_error(r, &err);
    fprintf(stderr, "recorder: no sim.tick for %d ms after t=%.3f: logged as a stall\n", r->opt.stall_ms, r->rec.t);
}

/* What the newest gaze sample hit (sim_recording's hit test), beside its row. */
static void publish_gaze_target(recorder *r)
{
    r->rec.hit_new = false;
    if (r->rec.hit.kind == SIM_GAZE_NOTHING || !r->bus || !sim_bus_connected(r->bus)) return;
    sim_msg_gaze_target m = {.distance_m = r->rec.hit.distance};
    snprintf(m.source, sizeof m.source, "%s", r->rec.hit_source);
    snprintf(m.target, sizeof m.target, "%s", r->rec.hit.name);
    cJSON *p = sim_msg_gaze_target_encode(&m);
    if (p) sim_bus_publish(r->bus, SIM_TOPIC_GAZE_TARGET, r->rec.hit_t, p);
    cJSON_Delete(p);
}

/* ---- bus input ---- */

static void on_message(sim_node *sn, const sim_envelope *env, const cJSON *msg, void *user)
{
    recorder *r = user;
    const char *topic = env->topic;
    if (r->stopping) return;
    r->last_msg_ms = uv_now(r->loop);
    if (strcmp(topic, SIM_TOPIC_DISPATCHER_FLUSHED) == 0) {
        r->flushed = true;
        return;
    }
    if (r->skip) {
        r->skip--;
        return;
    }
    sim_error err = {0};
    sim_recording_set_wall(&r->rec, rec_wall_now());
    sim_recording_set_line(&r->rec, sim_bus_received(r->bus));
    int ret = sim_recording_feed(&r->rec, r->w, topic, msg, env->line, env->len, &err);
    if (ret == SIM_EINVAL) {
        /* Logged as far as it could be; say so, but not for every message. */
        r->bad_messages++;
        sim_throttle_say(&r->bad_output, stderr, "recorder", topic, uv_now(r->loop) / 1000.0,
                         "bad message (%" PRIu64 " so far): %s", r->bad_messages, err.msg);
    } else if (ret) {
        report_error(r, &err);
    }
    const sim_topic *row = sim_topic_find(topic);
    sim_topic_id id = row ? row->id : SIM_TOPIC_COUNT;
    if (id == SIM_TOPIC_ID_SIM_TICK) {
        if (r->tick_stalled) {
            sim_error e2 = {0};
            char json[64];
            snprintf(json, sizeof json, "{\"wall_ms\":%llu}", (unsigned long long)(r->last_msg_ms - r->last_tick_ms));
            if (sim_drivelog_append_event(r->w, r->rec.run, r->rec.t, "stall", "ticks_end", json, &e2))
                report_error(r, &e2);
            r->tick_stalled = false;
        }
        r->last_tick_ms = r->last_msg_ms;
    }
    if (r->rec.hit_new) publish_gaze_target(r);
    if (id == SIM_TOPIC_ID_CONTROL_STOP) begin_stop(r);
    if (id == SIM_TOPIC_ID_TRAFFIC_ENGINE && rec_traffic_engine_meta(r->w, msg, &err))
        fprintf(stderr, "recorder: %s\n", err.msg);
}

static void on_bus(sim_node *sn, const cJSON *welcome, void *user)
{
    recorder *r = user;
    if (welcome) {
        fprintf(stderr, "recorder: joined the bus, writing %s\n", sim_drivelog_path(r->w));
        /* The dispatcher hands over what it kept for "recorder" while none was there.
         * It belongs to this file when this process resumed it or has been here before
         * (a lost connection); a fresh file must not start with the tail of an older
         * drive, so a new recorder's first backlog is discarded (and said so). */
        const cJSON *bl = cJSON_GetObjectItemCaseSensitive(welcome, "backlog");
        const cJSON *dropped = cJSON_GetObjectItemCaseSensitive(welcome, "backlog_dropped");
        double n = cJSON_IsNumber(bl) ? bl->valuedouble : 0;
        r->acked = 0; /* a new connection counts its lines from 1 */
        sim_recording_set_line(&r->rec, 0); /* and hands the old one's unacknowledged lines over again */
        double d = cJSON_IsNumber(dropped) ? dropped->valuedouble : 0;
        if (r->welcomed && r->skip_held) {
            /* Cut off before the discarded backlog was acknowledged: the dispatcher hands
             * over again everything after the last durable.ack, so what it still held of
             * the old drive's tail heads this backlog, less what its bound dropped (the
             * oldest; each loss is told at one welcome only). Cut off again, what is left
             * of it is what this welcome promised, not the first backlog's count. */
            r->skip = r->skip_held > (uint64_t)d ? r->skip_held - (uint64_t)d : 0;
            r->skip_held = r->skip;
            fprintf(stderr, "recorder: discarding the rest of the old backlog again (%" PRIu64 " messages)\n", r->skip);
        } else if (n > 0 && !r->welcomed && !r->resumed) {
            r->skip = r->skip_held = (uint64_t)n;
            recorder_event_count(r, "backlog_discarded", n);
            fprintf(stderr, "recorder: discarding a backlog of %.0f messages from before this file\n", n);
        } else if (n > 0) {
            recorder_event_count(r, "backlog", n);
            if (cJSON_IsNumber(dropped) && dropped->valuedouble > 0) {
                /* The backlog overflowed: part of the drive is missing from the log. */
                recorder_event_count(r, "backlog_dropped", dropped->valuedouble);
                sim_error err = {.code = SIM_ERANGE};
                snprintf(err.msg, sizeof err.msg,
                         "%s: the dispatcher's backlog dropped %.0f messages while the recorder was away:"
                         " the log has a gap", sim_drivelog_path(r->w), dropped->valuedouble);
                report_error(r, &err);
                r->error[0] = '\0'; /* reported once; writing itself works */
            }
        }
        if (r->welcomed) rec_event(r, "bus_back");
        r->welcomed = true;
        publish_status(r);
    } else {
        /* what was published meanwhile may be lost: analysis warns about this stretch */
        rec_event(r, "bus_lost");
        fprintf(stderr, "recorder: lost the bus, reconnecting\n");
        if (r->draining) finish_stop(r);
    }
}

/* Everything read so far is committed (or discarded on purpose): tell the dispatcher,
 * at most every ACK_MS, so that it never hands those lines over again. */
static void acknowledge(recorder *r)
{
    uint64_t received = sim_bus_received(r->bus), now = uv_now(r->loop);
    /* Lines read but held in memory (half a tick/state pair, say) are not done: a
     * recorder killed now must be handed them again. */
    uint64_t held = sim_recording_held_from(&r->rec);
    if (held && held <= received) received = held - 1;
    if (!sim_bus_connected(r->bus) || received <= r->acked || now - r->acked_ms < ACK_MS) return;
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "received", (double)received);
    sim_bus_publish(r->bus, "durable.ack", r->rec.t, p);
    cJSON_Delete(p);
    r->acked = received;
    r->acked_ms = now;
    r->skip_held = r->skip; /* what the dispatcher still holds of the old tail */
}

static void commit_due(recorder *r)
{
    sim_error err = {0};
    if (sim_drivelog_tick(r->w, uv_now(r->loop) / 1000.0, &err)) report_error(r, &err);
    else if (sim_drivelog_pending(r->w) == 0) {
        clear_error(r);
        acknowledge(r);
    }
}

static void on_tick(uv_timer_t *t)
{
    recorder *r = t->data;
    sim_error serr = {0};
    sim_recording_set_wall(&r->rec, rec_wall_now());
    if (!r->draining && sim_recording_check_sources(&r->rec, r->w, &serr)) report_error(r, &serr);
    commit_due(r);
    check_tick_stall(r);
    uint64_t now = uv_now(r->loop);
    /* Quiet counts only once welcomed: a recorder restarted at the end of a drive and
     * told to stop at once still takes the dispatcher's backlog (its welcome first). */
    if (!r->draining) return;
    bool quiet = now - r->last_msg_ms >= DRAIN_QUIET_MS && r->welcomed;
    if (quiet && (r->flushed || !r->flush_asked)) {
        finish_stop(r);
    } else if (now - r->drain_since_ms >= DRAIN_MAX_MS) {
        if (r->flush_asked && !r->flushed) {
            /* The log ends without the dispatcher's word that it holds nothing more. */
            rec_event(r, "drain_timeout");
            fprintf(stderr, "recorder: stopping after %d ms without the dispatcher's dispatcher.flushed: "
                            "the last messages of the drive may be missing from the log\n", DRAIN_MAX_MS);
        }
        finish_stop(r);
    }
}
static void on_after_io(uv_check_t *c) { commit_due(c->data); }

static void on_status(uv_timer_t *t)
{
    recorder *r = t->data;
    sim_error serr = {0};
    /* Not while draining at a stop: the sync waits for the disk, and the close makes
     * everything durable anyway. */
    if (!r->draining && sim_drivelog_sync(r->w, &serr)) report_error(r, &serr);
    publish_status(r);
    if (r->error[0]) {
        sim_error err = {.code = SIM_EIO};
        snprintf(err.msg, sizeof err.msg, "%s", r->error);
        report_error(r, &err);
    }
}

static void on_signal(sim_node *sn, int signum, void *user)
{
    recorder *r = user;
    if (r->draining) finish_stop(r); /* a second signal: now */
    else begin_stop(r);
}

/* The checks the option table cannot make; false with why filled on the first that
 * fails. */
static bool options_valid(const options *o, char *why, size_t why_size)
{
    if (!o->study || !o->study[0])
        snprintf(why, why_size, "--study is required (a non-empty name)");
    else if (!o->subject || !o->subject[0])
        snprintf(why, why_size, "--subject is required (a non-empty id)");
    else if (o->flush_ms < 1 || o->flush_ms > 100)
        snprintf(why, why_size, "--flush-ms %d: expected 1..100", o->flush_ms);
    else if (o->resume_within < 0)
        snprintf(why, why_size, "--resume-within %d: expected seconds >= 0", o->resume_within);
    else if (o->stall_ms < 0 || o->stall_ms > 3600000)
        snprintf(why, why_size, "--stall-ms %d: expected 0..3600000", o->stall_ms);
    else if (o->seed < -1)
        snprintf(why, why_size, "--seed %d: expected a seed >= 0", o->seed);
    else
        return true;
    return false;
}

static int setup(sim_node *sn, void *user, sim_error *err)
{
    recorder *r = user;
    options *o = &r->opt;
    if (!options_valid(o, err->msg, sizeof err->msg)) return 2;
    if (o->scenario) {
        sim_diag diag = {0};
        int lrc = o->params ? sim_scenario_load_params(o->scenario, o->params, &r->scenario, err)
                            : sim_scenario_load(o->scenario, &r->scenario, &diag);
        for (int i = 0; i < diag.n; i++) fprintf(stderr, "recorder: %s\n", diag.msgs[i]);
        sim_diag_free(&diag);
        if (lrc && o->params) return lrc == SIM_EINVAL ? 2 : 1;
        if (lrc) return sim_error_set(err, lrc, "cannot use scenario %s (%s)", o->scenario, sim_error_name(lrc)), 2;
    }
    if (o->vehicle) {
        int vrc = sim_vehicle_gaze_load(o->vehicle, r->gaze_areas, SIM_GAZE_AREAS_MAX, &r->n_gaze_areas, r->eye,
                                        &r->gaze_json, err);
        if (vrc) {
            sim_scenario_free(r->scenario);
            return 2;
        }
    }
    sim_bus_options *bo = sim_node_bus_options(sn);
    bool resumed = false;
    if (rec_open_log(r, &resumed, err)) {
        fprintf(stderr, "recorder: ERROR: %s\n", err->msg);
        sim_drivelog_writer_close(r->w, NULL);
        sim_scenario_free(r->scenario);
        o->token = bo->token;
        rec_announce_fatal(o, bo->host, bo->port, err->msg);
        err->msg[0] = '\0'; /* said above */
        return 1;
    }
    fprintf(stderr, "recorder: %s %s\n", resumed ? "resumed" : "created", sim_drivelog_path(r->w));
    r->resumed = resumed;
    n_subscribe = sim_topics_recorded(subscribe, SIM_TOPIC_COUNT);
    bo->subscribe = o->all ? NULL : subscribe;
    bo->n_subscribe = o->all ? 0 : n_subscribe;
    return 0;
}

static int start(sim_node *sn, void *user, sim_error *err)
{
    recorder *r = user;
    r->loop = sim_node_loop(sn);
    r->bus = sim_node_bus(sn);
    uv_timer_init(r->loop, &r->tick_timer);
    uv_timer_init(r->loop, &r->status_timer);
    r->tick_timer.data = r->status_timer.data = r;
    uv_timer_start(&r->tick_timer, on_tick, TICK_MS, TICK_MS);
    uv_timer_start(&r->status_timer, on_status, STATUS_MS, STATUS_MS);
    uv_check_init(r->loop, &r->after_io);
    r->after_io.data = r;
    uv_check_start(&r->after_io, on_after_io);
    return 0;
}

/* Orderly end, with the bus still open (the loop was stopped by finish_stop): the stop
 * event, end_utc (marks the file finished, so it is not resumed), last commit and WAL
 * checkpoint. A new file without a single sample (a session that ended before the
 * clock ran) is removed instead: an empty log would only be picked up by analysis
 * batch. */
static int teardown(sim_node *sn, void *user)
{
    recorder *r = user;
    sim_throttle_flush(&r->bad_output, stderr, "recorder");
    bool empty = !r->resumed && r->rec.samples == 0;
    sim_error herr = {0};
    if (sim_recording_release_held(&r->rec, r->w, &herr)) report_error(r, &herr); /* samples awaiting a tick */
    char path[4096];
    snprintf(path, sizeof path, "%s", sim_drivelog_path(r->w));
    rec_event(r, "stopped");
    char when[32];
    rec_utc_now(when, sizeof when);
    sim_drivelog_set_meta(r->w, "end_utc", when, NULL);
    int status = 0;
    /* Said only once it is true: rows committed by the last flush, not rows pending. */
    sim_error ferr = {0}, err = {0};
    (void)sim_drivelog_flush(r->w, &ferr); /* close tries again, and says what is lost */
    uint64_t rows = sim_drivelog_committed(r->w);
    int closed = sim_drivelog_writer_close(r->w, &err);
    r->w = NULL; /* freed: report_error must not name it through r->w */
    if (closed) {
        report_error(r, &err);
        status = REC_EXIT_LOST;
    }
    if (empty && status == 0) {
        if (sim_drivelog_remove(path) == 0)
            fprintf(stderr, "recorder: no sample was recorded; removed the empty log %s\n", path);
        else
            fprintf(stderr, "recorder: no sample was recorded, but %s could not be removed: %s\n", path,
                    strerror(errno));
    }
    /* Our own handles; the skeleton closes the bus and the signals after this. */
    if (r->loop) {
        uv_close((uv_handle_t *)&r->tick_timer, NULL);
        uv_close((uv_handle_t *)&r->status_timer, NULL);
        uv_close((uv_handle_t *)&r->after_io, NULL);
    }
    r->bus = NULL;
    sim_scenario_free(r->scenario);
    free(r->gaze_json);
    if (status)
        fprintf(stderr, "recorder: stopped with a LOSS: %" PRIu64 " rows committed; %s\n", rows, err.msg);
    else
        fprintf(stderr, "recorder: stopped, %" PRIu64 " rows\n", rows);
    return status;
}

int main(int argc, char **argv)
{
    static recorder r;
    options *o = &r.opt;
    o->out = "logs";
    o->seed = -1;
    o->flush_ms = 10;
    o->resume_within = 600;
    o->stall_ms = 2000;
    const sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &o->out, "DIR", "log directory (default logs); files go to DIR/STUDY/"},
        {"study", SIM_OPT_STRING, &o->study, "NAME", "study name (required)"},
        {"subject", SIM_OPT_STRING, &o->subject, "ID", "test person's id (required)"},
        {"scenario", SIM_OPT_STRING, &o->scenario, "FILE", "scenario file: its name and SHA-256 go to meta"},
        {"vehicle", SIM_OPT_STRING, &o->vehicle, "FILE", "vehicle file: its name and SHA-256 go to meta"},
        {"seed", SIM_OPT_INT, &o->seed, "N", "the session's random seed, for meta"},
        {"params", SIM_OPT_STRING, &o->params, "NAME=V,...", "OpenSCENARIO parameter overrides of the drive (to meta xosc_params)"},
        {"meta-file", SIM_OPT_STRING, &o->meta_file, "FILE", "a JSON object of string values, each written to meta (simctl study run: study, participant, condition, position)"},
        {"all", SIM_OPT_FLAG, &o->all, NULL, "also keep every bus message (messages table)"},
        {"flush-ms", SIM_OPT_INT, &o->flush_ms, "MS", "longest time between commits, 1..100 (default 10)"},
        {"fsync", SIM_OPT_FLAG, &o->fsync, NULL, "fsync every commit (survives power loss)"},
        {"resume-within", SIM_OPT_INT, &o->resume_within, "S",
         "resume an unfinished log written in the last S seconds (default 600; 0: never)"},
        {"stall-ms", SIM_OPT_INT, &o->stall_ms, "MS",
         "log a stall when no sim.tick came for MS ms while not paused (default 2000; 0: never)"},
    };
    const sim_node_desc desc = {
        .prog = "recorder",
        .usage = "recorder --study NAME --subject ID [--out DIR] [--scenario FILE] [--all] [options]",
        .about = "Writes the drive log: 10 ms samples, events and meta in one SQLite file per drive.",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        .bus = {.name = "recorder", .durable = true},
        .setup = setup, .start = start, .on_message = on_message, .on_bus = on_bus, .on_signal = on_signal,
        .teardown = teardown, .user = &r};
    return sim_node_run(&desc, argc, argv);
}
