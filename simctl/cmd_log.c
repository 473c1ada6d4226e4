/* cmd_log: `simctl export LOG --csv DIR` and `simctl replay LOG` (see cmd_log.h). The
 * work is in libsim (sim_drivelog); this file is argument handling and messages. */
#include "cmd_log.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command_bus.h"
#include "sim_drivelog.h"
#include "sim_file.h"
#include "sim_msg_vehicle.h"
#include "sim_recording.h"
#include "osi_trace.h"
#include "xosc_csv.h"

/* The CSV files export is about to write: never the log itself (a log named
 * samples.csv was overwritten by its own export), and an existing file only with
 * --force. */
static int export_targets_free(const char *log, const char *dir, bool force, sim_error *err)
{
    static const char *const names[] = {"samples.csv", "events.csv", "gaze.csv", "sensor.csv", "clock.csv"};
    struct stat in, out;
    bool have_in = stat(log, &in) == 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &out) != 0) continue;
        if (have_in && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return sim_error_set(err, SIM_EINVAL, "%s is the drive log being exported; it is never overwritten: "
                                 "choose another --csv DIR", path);
        if (!force)
            return sim_error_set(err, SIM_EINVAL, "%s exists; give --force to overwrite it", path);
    }
    return 0;
}

int simctl_cmd_export(int argc, char **argv)
{
    const char *csv = NULL, *xosc_csv = NULL, *mcap = NULL, *osi = NULL, *vehicle = NULL, *scenario = NULL, *from = NULL, *to = NULL;
    int run = -1;
    bool force = false, uncompressed = false;
    sim_opt opts[] = {
        {"csv", SIM_OPT_STRING, &csv, "DIR", "write DIR/samples.csv, events.csv, gaze.csv, sensor.csv and clock.csv"},
        {"mcap", SIM_OPT_STRING, &mcap, "FILE", "write FILE.mcap: samples, events (and an --all log's bus topics) as JSON channels"},
        {"uncompressed", SIM_OPT_FLAG, &uncompressed, NULL, "--mcap: chunks without zstd"},
        {"osi", SIM_OPT_STRING, &osi, "FILE|DIR", "write an ASAM OSI trace (.osi): one osi3.GroundTruth per tick, the host vehicle and the traffic (a log recorded with simctl run --record-all); a DIR gets a file named by OSI's convention (docs/osi.md)"},
        {"vehicle", SIM_OPT_STRING, &vehicle, "FILE", "--osi: the host vehicle's file (default: the log's, checked by its SHA-256)"},
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "--osi: the scenario whose environment the messages carry (default: the log's, checked by its SHA-256)"},
        {"xosc-csv", SIM_OPT_STRING, &xosc_csv, "FILE", "write FILE: time, entity, x, y, z, h, speed of every entity at OpenSCENARIO's reference point, as esmini's --csv_logger (a log recorded with simctl run --record-all)"},
        {"force", SIM_OPT_FLAG, &force, NULL, "overwrite existing CSV files (never the LOG itself)"},
        {"from", SIM_OPT_STRING, &from, "T|sector:ID|task:ID", "start at time T (s) or where the sector/task begins"},
        {"to", SIM_OPT_STRING, &to, "T|sector:ID|task:ID", "end at time T (s) or where the sector/task ends"},
        {"run", SIM_OPT_INT, &run, "N", "only run N (a restart starts a new run); default all"},
    };
    const char *usage = "simctl export LOG --csv DIR|--mcap FILE|--osi FILE|DIR|--xosc-csv FILE [--from ...] [--to ...] [--run N] [--force]";
    const char *desc = "Writes a drive log's samples, events, gaze, sensor and clock tables as CSV files with a header row, "
                       "the drive as one MCAP file or an ASAM OSI trace, or its trajectories as an OpenSCENARIO player logs them.";
    size_t n_opts = sizeof opts / sizeof opts[0];
    int npos = 0;
    int rc = sim_cli_parse(usage, desc, opts, n_opts, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos != 1 || (csv != NULL) + (mcap != NULL) + (xosc_csv != NULL) + (osi != NULL) != 1) {
        fprintf(stderr, "simctl export: %s\n", npos != 1 ? "expected one LOG file" : "give one of --csv DIR, --mcap FILE, --osi FILE|DIR and --xosc-csv FILE");
        sim_cli_print_usage(usage, desc, opts, n_opts, stderr);
        return 2;
    }
    sim_error err = {0};
    sim_drivelog_reader *r = NULL;
    sim_drivelog_range range = sim_drivelog_range_all();
    range.run = run;
    int ret = sim_drivelog_reader_open(argv[1], &r, &err);
    bool usage_error = false;
    if (!ret && from) ret = sim_drivelog_parse_bound(r, from, false, run, &range.t_from, &err);
    if (!ret && to) ret = sim_drivelog_parse_bound(r, to, true, run, &range.t_to, &err);
    usage_error = ret != 0 && r != NULL;
    if (osi) {
        struct stat st;
        bool dir = stat(osi, &st) == 0 && S_ISDIR(st.st_mode);
        char written[4200] = "", note[1400] = "";
        size_t frames = 0;
        struct stat in;
        if (!ret && !dir && stat(argv[1], &in) == 0 && stat(osi, &st) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino)
            ret = sim_error_set(&err, SIM_EINVAL, "%s is the drive log being exported; it is never overwritten", osi);
        if (!ret && !dir && !force && access(osi, F_OK) == 0)
            ret = sim_error_set(&err, SIM_EINVAL, "%s exists; give --force to overwrite it", osi);
        if (!ret)
            ret = osi_trace_export(r, range, osi, dir, vehicle, scenario, written, sizeof written, note, sizeof note,
                                   &frames, &err);
        sim_drivelog_reader_close(r);
        if (ret) {
            fprintf(stderr, "simctl export: %s\n", err.msg);
            return usage_error && ret == SIM_EINVAL ? 2 : 1;
        }
        if (note[0]) fprintf(stderr, "simctl export: %s\n", note);
        printf("%s (%zu GroundTruth messages)\n", written, frames);
        return 0;
    }
    const char *file = mcap ? mcap : xosc_csv; /* the one-file exports */
    if (file) {
        size_t n = 0;
        struct stat in, out;
        if (!ret && stat(file, &out) == 0 && stat(argv[1], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            ret = sim_error_set(&err, SIM_EINVAL, "%s is the drive log being exported; it is never overwritten", file);
        if (!ret && !force && access(file, F_OK) == 0)
            ret = sim_error_set(&err, SIM_EINVAL, "%s exists; give --force to overwrite it", file);
        if (!ret)
            ret = mcap ? sim_drivelog_export_mcap(r, range, mcap, !uncompressed, &n, &err) : xosc_csv_export(r, range, xosc_csv, &err);
        sim_drivelog_reader_close(r);
        if (ret) {
            fprintf(stderr, "simctl export: %s\n", err.msg);
            return usage_error && ret == SIM_EINVAL ? 2 : 1;
        }
        if (mcap) printf("%s (%zu messages)\n", mcap, n);
        else printf("%s\n", xosc_csv);
        return 0;
    }
    if (!ret) ret = sim_file_mkdirs(csv, &err);
    if (!ret) ret = export_targets_free(argv[1], csv, force, &err);
    if (!ret) ret = sim_drivelog_export_csv(r, range, csv, &err);
    if (!ret) ret = sim_drivelog_export_instruments_csv(r, range, csv, &err);
    sim_drivelog_reader_close(r);
    if (ret) {
        fprintf(stderr, "simctl export: %s\n", err.msg);
        return usage_error && ret == SIM_EINVAL ? 2 : 1;
    }
    printf("%s/samples.csv\n%s/events.csv\n%s/gaze.csv\n%s/sensor.csv\n%s/clock.csv\n", csv, csv, csv, csv, csv);
    return 0;
}

/* ---- replay ---- */

/* One thing to publish: a logged sample (sent as vehicle.state) or, from a log made
 * with --all, a raw state message sent as it was. */
typedef struct replay_item {
    int64_t run;
    double t;
    double rt; /* replay clock: t made continuous across runs */
    const sim_drivelog_sample *sample;
    char *line;
    size_t len;
} replay_item;

typedef struct replay {
    uv_loop_t *loop;
    sim_bus *bus;
    uv_timer_t timer;
    sim_drivelog_sample *samples;
    replay_item *items;
    size_t n, cap, next; /* items; index of the next one to publish */
    double speed;
    bool started, paused, done;
    double anchor_rt;   /* replay clock at anchor_ms */
    uint64_t anchor_ms; /* loop time when the clock was last anchored */
    uint64_t published;
} replay;

static double replay_clock(const replay *p)
{
    if (p->paused || !p->started) return p->anchor_rt;
    return p->anchor_rt + (double)(uv_now(p->loop) - p->anchor_ms) / 1000.0 * p->speed;
}

static void anchor(replay *p, double rt)
{
    p->anchor_rt = rt;
    p->anchor_ms = uv_now(p->loop);
}

/* A logged sample as vehicle.state (sim_recording_state_of_sample). */
static void publish_sample(replay *p, const sim_drivelog_sample *s)
{
    sim_msg_vehicle_state m;
    sim_recording_state_of_sample(s, &m);
    cJSON *o = sim_msg_vehicle_state_encode(&m);
    if (o && sim_bus_publish(p->bus, SIM_TOPIC_VEHICLE_STATE, s->t, o) == 0) p->published++;
    cJSON_Delete(o);
}

static void publish_item(replay *p, const replay_item *it)
{
    if (it->sample) publish_sample(p, it->sample);
    else if (sim_bus_send_line(p->bus, it->line, it->len) == 0) p->published++;
}

static void finish(replay *p)
{
    if (p->done) return;
    p->done = true;
    uv_timer_stop(&p->timer);
    uv_close((uv_handle_t *)&p->timer, NULL);
    sim_bus_close(p->bus);
}

/* Publishes everything due by the replay clock, then sleeps until the next is due. */
static void on_replay_timer(uv_timer_t *t)
{
    replay *p = t->data;
    if (p->paused || p->done) return;
    double now = replay_clock(p);
    while (p->next < p->n && p->items[p->next].rt <= now + 1e-9) publish_item(p, &p->items[p->next++]);
    if (p->next >= p->n) {
        finish(p);
        return;
    }
    /* At most an hour per wait: a corrupt log's huge time must not overflow the
     * conversion to the timer's uint64_t (undefined behaviour); the loop re-arms. */
    double wait_ms = (p->items[p->next].rt - now) / p->speed * 1000.0;
    if (!(wait_ms <= 3600e3)) wait_ms = 3600e3;
    uv_timer_start(&p->timer, on_replay_timer, wait_ms < 1 ? 1 : (uint64_t)ceil(wait_ms), 0);
}

static void on_replay_state(sim_bus *bus, const cJSON *welcome, void *user)
{
    replay *p = user;
    if (!welcome || p->started || p->done) return;
    p->started = true;
    anchor(p, p->items[0].rt);
    on_replay_timer(&p->timer);
}

/* Operator control through the dispatcher: pause, resume, seek {to}, stop, each
 * validated and acknowledged (control.ack) like in any module. */
static const char *const REPLAY_ACTS_ON[] = {"pause", "resume", "seek", "stop"};

static void on_replay_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line,
                              size_t len, void *user)
{
    replay *p = user;
    if (p->done) return;
    double now = p->next < p->n ? p->items[p->next].t : 0;
    const char *cmd = sim_command_receive(bus, now, "simctl replay", REPLAY_ACTS_ON, 4, msg);
    if (!cmd) return;
    if (strcmp(cmd, "pause") == 0 && !p->paused) {
        anchor(p, replay_clock(p));
        p->paused = true;
        uv_timer_stop(&p->timer);
    } else if (strcmp(cmd, "resume") == 0 && p->paused) {
        p->paused = false;
        anchor(p, p->anchor_rt);
        on_replay_timer(&p->timer);
    } else if (strcmp(cmd, "seek") == 0) {
        /* The target is "to" (validated): the message's own "t" is when it was sent.
         * The first item at or after it, in the run being shown (runs repeat t). */
        double to = cJSON_GetObjectItemCaseSensitive(msg, "to")->valuedouble;
        int64_t run = p->items[p->next < p->n ? p->next : p->n - 1].run;
        size_t i = 0;
        while (i < p->n && (p->items[i].run != run || p->items[i].t < to - 1e-9)) i++;
        if (i == p->n) i = p->n - 1;
        p->next = i;
        anchor(p, p->items[i].rt);
        if (!p->paused) on_replay_timer(&p->timer);
        else publish_item(p, &p->items[i]); /* show where the seek landed */
    }
    sim_command_answer(bus, now, "simctl replay", msg, true, NULL);
    if (strcmp(cmd, "stop") == 0) finish(p);
}

static replay_item *push_item(replay *p)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        replay_item *items = realloc(p->items, cap * sizeof *items);
        if (!items) return NULL;
        p->items = items;
        p->cap = cap;
    }
    replay_item *it = &p->items[p->n++];
    memset(it, 0, sizeof *it);
    return it;
}

/* Collects the raw messages of state topics (names ending in ".state"). */
static int collect_state_message(int64_t run, double t, const char *topic, const char *line,
                                 size_t len, void *user)
{
    replay *p = user;
    size_t tl = strlen(topic);
    if (tl < 6 || strcmp(topic + tl - 6, ".state") != 0) return 0;
    replay_item *it = push_item(p);
    if (!it || !(it->line = malloc(len + 1))) return 1;
    memcpy(it->line, line, len);
    it->line[len] = '\0';
    it->len = len;
    it->run = run;
    it->t = t;
    return 0;
}

static void replay_free(replay *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->items[i].line);
    free(p->items);
    free(p->samples);
}

int simctl_cmd_replay(int argc, char **argv)
{
    const char *from = NULL, *to = NULL, *bus = "127.0.0.1:7700", *token = NULL;
    double speed = 1.0;
    int run = -1;
    bool use_samples = false;
    sim_opt opts[] = {
        {"speed", SIM_OPT_DOUBLE, &speed, "X", "playback speed 0.001..1000, 1 = real time (default)"},
        {"run", SIM_OPT_INT, &run, "N", "only run N; default all runs one after another"},
        {"from", SIM_OPT_STRING, &from, "T|sector:ID|task:ID", "start here"},
        {"to", SIM_OPT_STRING, &to, "T|sector:ID|task:ID", "stop here"},
        {"samples", SIM_OPT_FLAG, &use_samples, NULL,
         "publish the samples as vehicle.state even when the log holds raw messages (--all)"},
        {"bus", SIM_OPT_STRING, &bus, "HOST:PORT", "dispatcher (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "bus token"},
    };
    const char *usage = "simctl replay LOG [--speed X] [--run N] [--from ...] [--to ...] [--samples]";
    const char *desc = "Publishes a drive log's states at their logged times: the raw state messages "
                       "of a log recorded with --all, else the samples as vehicle.state. "
                       "control.pause/resume/seek/stop steer it.";
    size_t n_opts = sizeof opts / sizeof opts[0];
    int npos = 0;
    int rc = sim_cli_parse(usage, desc, opts, n_opts, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos != 1) {
        fprintf(stderr, "simctl replay: expected one LOG file\n");
        sim_cli_print_usage(usage, desc, opts, n_opts, stderr);
        return 2;
    }
    if (!(speed >= 0.001 && speed <= 1000)) {
        fprintf(stderr, "simctl replay: --speed %g: expected 0.001..1000\n", speed);
        sim_cli_print_usage(usage, desc, opts, n_opts, stderr);
        return 2;
    }
    sim_error err = {0};
    char host[256];
    int port;
    if (sim_bus_parse_endpoint(bus, host, sizeof host, &port, &err)) {
        fprintf(stderr, "simctl replay: --bus: %s\n", err.msg);
        return 2;
    }
    replay p = {.speed = speed};
    sim_drivelog_reader *r = NULL;
    sim_drivelog_range range = sim_drivelog_range_all();
    range.run = run;
    int ret = sim_drivelog_reader_open(argv[1], &r, &err);
    if (!ret && from) ret = sim_drivelog_parse_bound(r, from, false, run, &range.t_from, &err);
    if (!ret && to) ret = sim_drivelog_parse_bound(r, to, true, run, &range.t_to, &err);
    bool usage_error = ret != 0 && r != NULL;
    if (!ret && !use_samples)
        ret = sim_drivelog_read_messages(r, range, "", collect_state_message, &p, &err);
    bool raw = p.n > 0;
    size_t n_samples = 0;
    if (!ret && !raw) {
        ret = sim_drivelog_read_samples(r, range, &p.samples, &n_samples, &err);
        for (size_t i = 0; !ret && i < n_samples; i++) {
            replay_item *it = push_item(&p);
            if (!it) ret = sim_error_set(&err, SIM_ENOMEM, "out of memory");
            else {
                it->sample = &p.samples[i];
                it->run = p.samples[i].run;
                it->t = p.samples[i].t;
            }
        }
    }
    sim_drivelog_reader_close(r);
    if (!ret && p.n == 0) ret = sim_error_set(&err, SIM_ENOTFOUND, "%s: nothing to replay in the range", argv[1]);
    if (ret) {
        fprintf(stderr, "simctl replay: %s\n", err.msg);
        replay_free(&p);
        return usage_error && ret == SIM_EINVAL ? 2 : 1;
    }
    /* One clock across runs: within a run the logged t, from one run to the next one
     * sample period. */
    p.items[0].rt = p.items[0].t;
    for (size_t i = 1; i < p.n; i++) {
        double dt = p.items[i].run == p.items[i - 1].run ? p.items[i].t - p.items[i - 1].t : 0.01;
        p.items[i].rt = p.items[i - 1].rt + (dt > 0 ? dt : 0);
    }
    p.loop = uv_default_loop();
    uv_timer_init(p.loop, &p.timer);
    p.timer.data = &p;
    const char *const sub[] = {"control."};
    sim_bus_options bo = {.name = "replay", .host = host, .port = port, .token = token,
                          .subscribe = sub, .n_subscribe = 1, .acts_on = REPLAY_ACTS_ON, .n_acts_on = 4,
                          .on_message = on_replay_message,
                          .on_state = on_replay_state, .user = &p};
    if (sim_bus_open(p.loop, &bo, &p.bus, &err)) {
        fprintf(stderr, "simctl replay: %s\n", err.msg);
        uv_close((uv_handle_t *)&p.timer, NULL);
        uv_run(p.loop, UV_RUN_DEFAULT);
        replay_free(&p);
        return 1;
    }
    fprintf(stderr, "simctl replay: %zu %s from %s at %gx\n", p.n, raw ? "raw state messages" : "samples",
            argv[1], speed);
    uv_run(p.loop, UV_RUN_DEFAULT);
    printf("replayed %llu of %zu\n", (unsigned long long)p.published, p.n);
    replay_free(&p);
    return 0;
}

/* The newest .sqlite file in OUT/logs/STUDY into path ("" when none), for when the
 * recorder never said its file. Newest to the nanosecond, then by name (the names end
 * in their start time): two short headless drives end within one second, and whole
 * seconds once gave the second subject the first one's report. */
void simctl_newest_log(const char *out, const char *study, char *path, size_t size)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/logs/%s", out, study);
    DIR *d = opendir(dir);
    struct timespec best = {0, 0};
    char best_name[256] = "";
    struct dirent *e;
    path[0] = '\0';
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".sqlite") != 0) continue;
        char p[2400];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) != 0) continue;
        struct timespec m = st.st_mtim;
        bool newer = m.tv_sec != best.tv_sec ? m.tv_sec > best.tv_sec
                     : m.tv_nsec != best.tv_nsec ? m.tv_nsec > best.tv_nsec
                                                 : strcmp(e->d_name, best_name) > 0;
        if (newer) {
            best = m;
            snprintf(best_name, sizeof best_name, "%s", e->d_name);
            if (snprintf(path, size, "%s", p) >= (int)size) path[0] = '\0';
        }
    }
    if (d) closedir(d);
}
