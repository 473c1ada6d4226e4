/* logfile: the recorder's drive-log file: which one (a new one, or the unfinished
 * file of a recorder that died mid-drive), its meta, and the loud failure when it
 * cannot be opened (see recorder.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "recorder.h"
#include "sim_msg_log.h"
#include "sim_file.h"
#include "sim_sha256.h"

/* Newest "<subject>-<scenario>-*.sqlite" in dir that has no end_utc and was written in
 * the last resume_within seconds: the file of a recorder that died mid-drive. */
static bool find_resumable(const options *o, const char *dir, const char *prefix, char *out,
                           size_t size)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    char best[1024] = "";
    struct dirent *e;
    size_t plen = strlen(prefix);
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, plen) != 0 || n < 7 || strcmp(e->d_name + n - 7, ".sqlite") != 0)
            continue;
        if (strcmp(e->d_name, best) > 0) snprintf(best, sizeof best, "%s", e->d_name);
    }
    closedir(d);
    if (!best[0]) return false;
    char path[4096 + 1024 + 2], wal[sizeof path + 4];
    snprintf(path, sizeof path, "%s/%s", dir, best);
    snprintf(wal, sizeof wal, "%s-wal", path);
    struct stat st, sw;
    if (stat(path, &st) != 0) return false;
    time_t mtime = st.st_mtime;
    if (stat(wal, &sw) == 0 && sw.st_mtime > mtime) mtime = sw.st_mtime;
    if (time(NULL) - mtime > o->resume_within) return false;
    sim_drivelog_reader *rd;
    if (sim_drivelog_reader_open(path, &rd, NULL)) return false;
    char end[64];
    bool open_file = sim_drivelog_read_meta(rd, "end_utc", end, sizeof end, NULL) == SIM_ENOTFOUND;
    sim_drivelog_reader_close(rd);
    return open_file && snprintf(out, size, "%s", path) < (int)size;
}

static int file_hash_meta(sim_drivelog_writer *w, const char *key, const char *file,
                          sim_error *err)
{
    char hex[65], k[64];
    int ret = sim_sha256_file(file, hex, err);
    if (ret) return ret;
    snprintf(k, sizeof k, "%s_sha256", key);
    ret = sim_drivelog_set_meta(w, key, file, err);
    return ret ? ret : sim_drivelog_set_meta(w, k, hex, err);
}

/* --meta-file: keys a caller adds (the study runner's study, participant, condition,
 * position), written like the recorder's own; only string values, so that meta stays
 * text. */
static int extra_meta(sim_drivelog_writer *w, const char *file, sim_error *err)
{
    char *text = NULL;
    size_t len;
    int ret = sim_file_read_max(file, 65536, &text, &len, err);
    if (ret) return ret;
    cJSON *o = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return sim_error_set(err, SIM_EINVAL, "%s: expected a JSON object of string values", file);
    }
    for (const cJSON *v = o->child; !ret && v; v = v->next) {
        if (!cJSON_IsString(v))
            ret = sim_error_set(err, SIM_EINVAL, "%s: %s: expected a string value", file, v->string);
        else
            ret = sim_drivelog_set_meta(w, v->string, v->valuestring, err);
    }
    cJSON_Delete(o);
    return ret;
}

static int write_meta(recorder *r, sim_error *err)
{
    const options *o = &r->opt;
    char when[32], buf[64];
    rec_utc_now(when, sizeof when);
    int ret = 0;
    struct {
        const char *k, *v;
    } kv[] = {{"software", "driving-simulator recorder"},
              {"software_version", SIM_VERSION},
              {"study", o->study},
              {"subject", o->subject},
              {"start_utc", when},
              {"sample_period_s", "0.01"},
              {"sample_rate_hz", "100"},
              {"record_all", o->all ? "1" : "0"}};
    for (size_t i = 0; !ret && i < sizeof kv / sizeof kv[0]; i++)
        ret = sim_drivelog_set_meta(r->w, kv[i].k, kv[i].v, err);
    snprintf(buf, sizeof buf, "%d", o->flush_ms);
    if (!ret) ret = sim_drivelog_set_meta(r->w, "flush_ms", buf, err);
    /* The session's seed: --seed, else the scenario's (its traffic seed, 1 unless set). */
    if (!ret && (o->seed >= 0 || r->scenario)) {
        snprintf(buf, sizeof buf, "%lld", o->seed >= 0 ? (long long)o->seed : (long long)r->scenario->traffic_seed);
        ret = sim_drivelog_set_meta(r->w, "seed", buf, err);
    }
    if (!ret && o->meta_file) ret = extra_meta(r->w, o->meta_file, err);
    if (!ret && o->scenario) ret = file_hash_meta(r->w, "scenario_file", o->scenario, err);
    if (!ret && o->params) ret = sim_drivelog_set_meta(r->w, "xosc_params", o->params, err); /* analysis loads with them */
    if (!ret && o->vehicle) ret = file_hash_meta(r->w, "vehicle_file", o->vehicle, err);
    if (!ret && r->gaze_json) ret = sim_drivelog_set_meta(r->w, "gaze_areas", r->gaze_json, err);
    return ret;
}

/* Opens (or resumes) the log file and sets r->rec up to go on where it left off. */
int rec_open_log(recorder *r, bool *resumed, sim_error *err)
{
    const options *o = &r->opt;
    char path[4096], dir[4096], prefix[512];
    int ret = sim_drivelog_make_path(path, sizeof path, o->out, o->study, o->subject, o->scenario,
                                     (int64_t)time(NULL), err);
    if (ret) return ret;
    /* dir and the "<subject>-<scenario>-" prefix, as make_path spelled them */
    char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    const char *base = slash + 1;
    const char *stamp = strrchr(base, '-');
    snprintf(prefix, sizeof prefix, "%.*s", (int)(stamp - base + 1), base);
    if ((ret = sim_file_mkdirs(dir, err))) return ret;
    char old[4096];
    *resumed = o->resume_within > 0 && find_resumable(o, dir, prefix, old, sizeof old);
    if (*resumed) snprintf(path, sizeof path, "%s", old);
    sim_drivelog_sample last;
    bool have_last = false;
    if (*resumed) {
        sim_drivelog_reader *rd;
        if (sim_drivelog_reader_open(path, &rd, NULL) == 0) {
            have_last = sim_drivelog_read_last(rd, &last, NULL) == 0;
            sim_drivelog_reader_close(rd);
        }
    }
    sim_drivelog_write_options wo = {.flush_ms = o->flush_ms, .fsync_each = o->fsync};
    if ((ret = sim_drivelog_writer_open(path, &wo, &r->w, err))) return ret;
    sim_recording_init(&r->rec, o->all, -1);
    const char *cab = getenv("SIM_CAB"); /* a cab's log (docs/cabs.md) */
    if (cab) snprintf(r->rec.cab, sizeof r->rec.cab, "%s", cab);
    sim_recording_set_scenario(&r->rec, r->scenario);
    sim_recording_set_gaze(&r->rec, r->gaze_areas, r->n_gaze_areas, r->eye);
    if (have_last) sim_recording_resume(&r->rec, &last);
    if (*resumed) {
        char when[32];
        rec_utc_now(when, sizeof when);
        ret = sim_drivelog_set_meta(r->w, "resumed_utc", when, err);
    } else {
        ret = write_meta(r, err);
    }
    if (!ret) rec_event(r, *resumed ? "resumed" : "started");
    if (!ret) ret = sim_drivelog_flush(r->w, err);
    return ret;
}

/* The log could not be opened: say so on the bus (briefly joining as recorder-error,
 * so the durable name's backlog is left alone) as well as on stderr. */
typedef struct fatal {
    const char *msg;
    sim_bus *bus;
    uv_timer_t timer;
} fatal;

static void fatal_done(fatal *f)
{
    sim_bus_close(f->bus);
    f->bus = NULL;
    if (!uv_is_closing((uv_handle_t *)&f->timer)) uv_close((uv_handle_t *)&f->timer, NULL);
}

static void on_error_welcome(sim_bus *bus, const cJSON *welcome, void *user)
{
    fatal *f = user;
    if (!welcome || !f->bus) return;
    /* pending 0: nothing could be accepted without a file */
    static sim_msg_log_error m;
    snprintf(m.error, sizeof m.error, "%s", f->msg);
    cJSON *p = sim_msg_log_error_encode(&m);
    if (p) sim_bus_publish(bus, SIM_TOPIC_LOG_ERROR, 0, p);
    cJSON_Delete(p);
    fatal_done(f);
}

static void on_error_timeout(uv_timer_t *t)
{
    fatal *f = t->data;
    if (f->bus) fatal_done(f);
}

/* Gives up after 2 s when no dispatcher answers. */
void rec_announce_fatal(const options *o, const char *host, int port, const char *msg)
{
    uv_loop_t loop;
    if (uv_loop_init(&loop)) return;
    fatal f = {.msg = msg};
    sim_bus_options bo = {.name = "recorder-error", .host = host, .port = port, .token = o->token,
                          .subscribe_none = true, .on_state = on_error_welcome, .user = &f};
    uv_timer_init(&loop, &f.timer);
    f.timer.data = &f;
    if (sim_bus_open(&loop, &bo, &f.bus, NULL) == 0) uv_timer_start(&f.timer, on_error_timeout, 2000, 0);
    else uv_close((uv_handle_t *)&f.timer, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
}
