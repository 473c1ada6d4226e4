/* study: what the `simctl study ...` commands share (docs/study.md): the loaded study
 * file with its SHA-256 and folders, the study's output folder and database, the
 * journal (answers.jsonl) every change is also written to, and a condition's scenario
 * made for one drive. */
#ifndef SIMCTL_STUDY_H
#define SIMCTL_STUDY_H

#include <limits.h>
#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_study.h"
#include "sim_studydb.h"

#define STUDY_JOURNAL "answers.jsonl"
#define STUDY_DB "study.db"

typedef struct study_ctx {
    sim_study *s;
    char file[PATH_MAX];      /* the study file, absolute */
    char dir[PATH_MAX];       /* its folder: conditions' files are relative to it */
    char sha256[65];
    char out[PATH_MAX];       /* out/studies/<name>/ unless --out */
    sim_studydb *db;          /* NULL until study_open_db */
} study_ctx;

/* Reads, hashes and validates the study file; out_dir NULL means the default. Prints
 * the error (naming file and path) and returns nonzero when it cannot be used. */
int study_load(const char *file, const char *out_dir, study_ctx *c);
/* Opens (creating the folder) the study database and records the study's meta. */
int study_open_db(study_ctx *c);
void study_close(study_ctx *c);

/* The participant named id (index), or -1 after printing the ids there are. */
int study_participant(const study_ctx *c, const char *id);
const char *study_group(const study_ctx *c, int p); /* "" none */

/* Scenario and vehicle paths of condition k, resolved against the study's folder. */
void study_condition_paths(const study_ctx *c, int k, char *scenario, size_t ss, char *vehicle, size_t vs);
/* The condition's scenario as JSON text (new, caller frees) as its drives get it
 * (sim_scenario_rewrite: the overlay applied, file names absolute, so it loads the
 * same from the drive's folder), or NULL with the error in err. */
char *study_condition_scenario(const study_ctx *c, int k, sim_error *err);

struct session_opts;
/* The study file's "session" section checked (errors name FILE: session.FIELD, printed)
 * and filled into what o (the command line, already checked) leaves unset; 0 or 1. */
int study_session_opts(const study_ctx *c, struct session_opts *o);

/* Appends one entry to the journal and syncs it to disk before returning. */
int study_journal(const study_ctx *c, const cJSON *entry, sim_error *err);

/* What a drive log's file says of its end (docs/drivelog.md: a log without end_utc
 * was never closed and may lack its tail): an attempt is complete only when its log is
 * closed. */
typedef enum {
    STUDY_LOG_CLOSED,     /* a drive log with end_utc */
    STUDY_LOG_NOT_CLOSED, /* a drive log without end_utc */
    STUDY_LOG_MISSING,    /* no such file */
    STUDY_LOG_UNREAD,     /* there, but no SQLite drive log (a CSV folder, a broken file) */
} study_log_state;
study_log_state study_log_closed(const char *path);

struct sim_msg_study_state;
/* What the day of state s waits on, for the operator (study.state's waiting_on, the
 * console, `simctl study go`): "waiting for the experimenter to start drive 2 of 3",
 * "waiting for the test person's answers to post", ... */
void study_waiting_on(const struct sim_msg_study_state *s, char *out, size_t size);

/* "2026-11-27T10:45:08.123Z" */
void study_utc_now(char *buf, size_t size);

int study_cmd_run(int argc, char **argv);
int study_cmd_answer(int argc, char **argv);
int study_cmd_go(int argc, char **argv);
int study_cmd_rebuild(int argc, char **argv);

#endif
