/* study_common: loading a study for the `simctl study` commands, its database and
 * journal, and a condition's scenario for one drive (see study.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "sim_drivelog.h"
#include "sim_file.h"
#include "sim_msg_study.h"
#include "sim_scenario_rewrite.h"
#include "sim_sha256.h"
#include "session_opts.h"
#include "simctl.h"
#include "study.h"

#ifndef SIM_VERSION
#define SIM_VERSION "0.1.0-dev"
#endif

study_log_state study_log_closed(const char *path)
{
    if (access(path, F_OK) != 0) return STUDY_LOG_MISSING;
    sim_drivelog_reader *rd;
    if (sim_drivelog_reader_open(path, &rd, NULL) != SIM_OK) return STUDY_LOG_UNREAD;
    char end[40] = "";
    bool closed = sim_drivelog_read_meta(rd, "end_utc", end, sizeof end, NULL) == SIM_OK && end[0];
    sim_drivelog_reader_close(rd);
    return closed ? STUDY_LOG_CLOSED : STUDY_LOG_NOT_CLOSED;
}

void study_utc_now(char *buf, size_t size)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char s[32];
    strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, size, "%s.%03dZ", s, (int)(tv.tv_usec / 1000));
}

int study_load(const char *file, const char *out_dir, study_ctx *c)
{
    memset(c, 0, sizeof *c);
    char *text = NULL;
    size_t len;
    sim_error err = {0};
    if (sim_file_read_max(file, 1 << 22, &text, &len, &err) != SIM_OK) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        return 1;
    }
    sim_sha256_hex(text, len, c->sha256);
    int rc = sim_study_parse(text, len, file, &c->s, &err);
    free(text);
    if (rc) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    if (!realpath(file, c->file)) snprintf(c->file, sizeof c->file, "%s", file);
    char *d = sim_file_dirname(c->file);
    snprintf(c->dir, sizeof c->dir, "%s", d ? d : ".");
    free(d);
    if (out_dir) snprintf(c->out, sizeof c->out, "%s", out_dir);
    else snprintf(c->out, sizeof c->out, "out/studies/%s", c->s->name);
    return 0;
}

int study_session_opts(const study_ctx *c, session_opts *o)
{
    session_opts file;
    static run_screens screens; /* only checked here: each drive's simctl run reads the file */
    static char path[PATH_MAX * 2];
    sim_error err = {0};
    session_opts_from_study(&file, &c->s->session, c->dir, path, sizeof path);
    if (session_opts_check(&file, c->file, &screens, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    session_opts_merge(o, &file);
    return 0;
}

int study_open_db(study_ctx *c)
{
    sim_error err = {0};
    char path[PATH_MAX + 16], old[65];
    if (sim_file_mkdirs(c->out, &err) != SIM_OK) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s", c->out, STUDY_DB);
    if (sim_studydb_open(path, &c->db, &err) != SIM_OK ||
        sim_studydb_get_meta(c->db, "study_sha256", old, sizeof old, &err) != SIM_OK) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        return 1;
    }
    if (old[0] && strcmp(old, c->sha256) != 0)
        fprintf(stderr, "simctl study: WARNING: %s changed since this study began (SHA-256 %.12s... then, "
                        "%.12s... now); each drive records the file it ran with\n", c->file, old, c->sha256);
    if (!old[0] && (sim_studydb_set_meta(c->db, "study", c->s->name, &err) ||
                    sim_studydb_set_meta(c->db, "study_file", c->file, &err) ||
                    sim_studydb_set_meta(c->db, "study_sha256", c->sha256, &err) ||
                    sim_studydb_set_meta(c->db, "software_version", SIM_VERSION, &err))) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        return 1;
    }
    return 0;
}

void study_close(study_ctx *c)
{
    sim_studydb_close(c->db);
    sim_study_free(c->s);
    memset(c, 0, sizeof *c);
}

int study_participant(const study_ctx *c, const char *id)
{
    int p = sim_study_participant_find(c->s, id);
    if (p >= 0) return p;
    fprintf(stderr, "simctl study: %s: no participant '%s' (the study has %s", c->file, id ? id : "",
            c->s->participants[0]);
    for (int i = 1; i < c->s->n_participants && i < 8; i++) fprintf(stderr, ", %s", c->s->participants[i]);
    fprintf(stderr, "%s)\n", c->s->n_participants > 8 ? ", ..." : "");
    return -1;
}

const char *study_group(const study_ctx *c, int p)
{
    return c->s->group_of[p] >= 0 ? c->s->groups[c->s->group_of[p]] : "";
}

static void resolve(const char *dir, const char *rel, char *out, size_t size)
{
    if (rel[0] == '/') snprintf(out, size, "%s", rel);
    else snprintf(out, size, "%s/%s", dir, rel);
}

/* simctl run's default vehicle, found also when the runner is started outside the
 * project's folder (it was "cannot open" from any other folder): in the project folder
 * above the executables (bin/, or build/asan/bin/ for the sanitized ones). */
static void default_vehicle(char *vehicle, size_t vs)
{
    static const char rel[] = "vehicles/bmw-318i.json";
    snprintf(vehicle, vs, "%s", rel);
    if (access(rel, R_OK) == 0) return;
    char up[16] = "";
    for (int levels = 1; levels <= 3; levels++) {
        size_t used = strlen(up);
        snprintf(up + used, sizeof up - used, "../");
        char candidate[4200];
        snprintf(candidate, sizeof candidate, "%s/%s%s", simctl_bin_dir(), up, rel);
        if (access(candidate, R_OK) == 0) {
            snprintf(vehicle, vs, "%s", candidate);
            return;
        }
    }
}

void study_condition_paths(const study_ctx *c, int k, char *scenario, size_t ss, char *vehicle, size_t vs)
{
    const sim_study_condition *cond = &c->s->conditions[k];
    resolve(c->dir, cond->scenario, scenario, ss);
    if (cond->vehicle[0]) resolve(c->dir, cond->vehicle, vehicle, vs);
    else default_vehicle(vehicle, vs);
}

char *study_condition_scenario(const study_ctx *c, int k, sim_error *err)
{
    char path[PATH_MAX * 2], vehicle[PATH_MAX * 2];
    study_condition_paths(c, k, path, sizeof path, vehicle, sizeof vehicle);
    char *text = NULL;
    return sim_scenario_rewrite(path, &c->s->conditions[k], &text, err) ? NULL : text;
}

int study_journal(const study_ctx *c, const cJSON *entry, sim_error *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", c->out, STUDY_JOURNAL);
    char *line = cJSON_PrintUnformatted(entry);
    if (!line) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    size_t n = strlen(line);
    line[n] = '\n'; /* the terminator's byte: cJSON's buffer holds it */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int rc = SIM_OK;
    if (fd < 0 || write(fd, line, n + 1) != (ssize_t)(n + 1) || fsync(fd) != 0)
        rc = sim_error_set(err, SIM_EIO, "%s: cannot append: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    cJSON_free(line);
    return rc;
}

void study_waiting_on(const sim_msg_study_state *s, char *out, size_t size)
{
    const char *p = s->phase;
    if (!strcmp(p, "waiting") || !strcmp(p, "ready"))
        snprintf(out, size, "waiting for the experimenter to start drive %d of %d (the console's Go, or simctl study go)",
                 s->drive, s->drives);
    else if (!strcmp(p, "instructions"))
        snprintf(out, size, "waiting for drive %d of %d (%s) to start", s->drive, s->drives, s->condition);
    else if (!strcmp(p, "driving"))
        snprintf(out, size, "waiting for drive %d of %d (%s) to end", s->drive, s->drives, s->condition);
    else if (!strcmp(p, "questionnaire"))
        snprintf(out, size, "waiting for the test person's answers to %s (after drive %d of %d)", s->questionnaire,
                 s->drive, s->drives);
    else if (!strcmp(p, "done"))
        snprintf(out, size, "nothing: the study day is over");
    else
        snprintf(out, size, "phase %s", p);
}
