/* sim_studydb: the study database (docs/study.md, "The study database"): one SQLite
 * file per study, in WAL mode with synchronous=FULL, so that every function that
 * writes has committed to disk when it returns: an answer acknowledged to the console
 * survives a crash of the runner or of the machine.
 *
 * The database is a cache of what the study's journal (answers.jsonl, written by the
 * runner beside it) and the drive logs hold: `simctl study rebuild` makes it anew
 * from those. The handle is the caller's (sim_studydb_close). */
#ifndef SIM_STUDYDB_H
#define SIM_STUDYDB_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_error.h"

typedef struct sim_studydb sim_studydb;

typedef enum {
    SIM_ATTEMPT_RUNNING,
    SIM_ATTEMPT_COMPLETE,
    SIM_ATTEMPT_ABORTED,
    SIM_ATTEMPT_FLAGGED,
} sim_attempt_status;
extern const char *const sim_attempt_status_names[]; /* "running", "complete", ... */

/* Opens or creates path with its schema. */
int sim_studydb_open(const char *path, sim_studydb **out, sim_error *err);
void sim_studydb_close(sim_studydb *db);

int sim_studydb_set_meta(sim_studydb *db, const char *key, const char *value, sim_error *err);
/* value "" when missing. */
int sim_studydb_get_meta(sim_studydb *db, const char *key, char *value, size_t size, sim_error *err);

/* The participant and their planned order (replaces an earlier plan of theirs). */
int sim_studydb_add_participant(sim_studydb *db, const char *id, const char *group, sim_error *err);
int sim_studydb_plan_drive(sim_studydb *db, const char *participant, int position, const char *condition,
                           const char *kind, const char *scenario, const char *start, sim_error *err);

/* A new attempt at a drive, status running; *attempt its number for this drive (1, 2,
 * ...) and *id its row. */
int sim_studydb_attempt_begin(sim_studydb *db, const char *participant, int position, const char *condition,
                              const char *started_utc, const char *software_version,
                              const char *study_sha256, int64_t *id, int *attempt, sim_error *err);
/* Ends an attempt; log and sha256 may be NULL (unknown), reason "" or why. */
int sim_studydb_attempt_end(sim_studydb *db, int64_t id, sim_attempt_status status, const char *ended_utc,
                            const char *log, const char *sha256, const char *reason, sim_error *err);
/* Attempts of participant still marked running (the runner died): made aborted with
 * reason; *n how many. */
int sim_studydb_abort_running(sim_studydb *db, const char *participant, const char *reason,
                              const char *utc, int *n, sim_error *err);
/* Flags the participant's completed drive at position (status flagged, reason). */
int sim_studydb_flag(sim_studydb *db, const char *participant, int position, const char *reason,
                     sim_error *err);
/* How many attempts of participant's drive at position have status st. */
int sim_studydb_count(sim_studydb *db, const char *participant, int position, sim_attempt_status st,
                      int *n, sim_error *err);

/* One questionnaire's answers, in one transaction. status "answered" or "not_asked"
 * (then n is 0). text[i] non-NULL for a text item, else value[i]; a NAN value (an
 * item the test person skipped) is stored as NULL. */
int sim_studydb_answers(sim_studydb *db, const char *participant, int position, const char *questionnaire,
                        const char *status, int n, const char *const *items, const double *value,
                        const char *const *text, const char *utc, const char *source, sim_error *err);
/* Whether participant's questionnaire after position has a row (answered or not asked). */
int sim_studydb_has_answers(sim_studydb *db, const char *participant, int position,
                            const char *questionnaire, bool *has, sim_error *err);

int sim_studydb_note(sim_studydb *db, const char *participant, int position, const char *utc,
                     const char *text, sim_error *err);

/* The underlying handle, for the read-only queries of reports (status, analysis). */
struct sqlite3 *sim_studydb_sqlite(sim_studydb *db);

/* One runner per participant: records (participant, pid, host, since) in the table
 * runners, or, when a row names another runner that alive() says is still running (NULL:
 * any row counts), fails with SIM_EAGAIN and an error naming its pid, host and start.
 * The row of a runner that is gone is taken over. */
int sim_studydb_runner_lock(sim_studydb *db, const char *participant, int64_t pid, const char *host,
                            const char *utc, bool (*alive)(int64_t pid, const char *host), sim_error *err);
/* Gives the row back (only if it is pid's). */
int sim_studydb_runner_unlock(sim_studydb *db, const char *participant, int64_t pid, sim_error *err);

#endif
