/* Unit tests of sim_studydb on a real SQLite file: attempts and their statuses, the
 * runner's death turning running attempts into aborted ones, answers replaced as a
 * whole, and everything still there after closing and reopening. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_studydb.h"

static char dir[64], path[128];

static int64_t one(sim_studydb *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(sim_studydb_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void attempts_answers_and_reopen(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/test_studydb.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/study.db", dir);
    sim_studydb *db;
    sim_error err = {0};
    assert_int_equal(sim_studydb_open(path, &db, &err), 0);
    assert_int_equal(one(db, "PRAGMA journal_mode = WAL") >= 0, 1);
    assert_int_equal(one(db, "PRAGMA synchronous"), 2); /* FULL */
    assert_int_equal(sim_studydb_add_participant(db, "P01", "", &err), 0);
    assert_int_equal(sim_studydb_plan_drive(db, "P01", 1, "a", "condition", "s.json", "", &err), 0);
    int64_t id;
    int attempt;
    assert_int_equal(sim_studydb_attempt_begin(db, "P01", 1, "a", "t0", "v1", "abc", &id, &attempt, &err), 0);
    assert_int_equal(attempt, 1);
    /* The runner died: its running attempt becomes aborted, the next is attempt 2. */
    int n;
    assert_int_equal(sim_studydb_abort_running(db, "P01", "runner stopped", "t1", &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(sim_studydb_attempt_begin(db, "P01", 1, "a", "t2", "v1", "abc", &id, &attempt, &err), 0);
    assert_int_equal(attempt, 2);
    assert_int_equal(sim_studydb_attempt_end(db, id, SIM_ATTEMPT_COMPLETE, "t3", "log.sqlite", "ff", "", &err), 0);
    assert_int_equal(sim_studydb_count(db, "P01", 1, SIM_ATTEMPT_ABORTED, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(sim_studydb_count(db, "P01", 1, SIM_ATTEMPT_COMPLETE, &n, &err), 0);
    assert_int_equal(n, 1);
    const char *items[] = {"kss", "note"};
    double values[] = {5, 0};
    const char *texts[] = {NULL, "fine"};
    assert_int_equal(sim_studydb_answers(db, "P01", 1, "post", "answered", 2, items, values, texts, "t4", "test", &err), 0);
    values[0] = 6; /* answered again: replaces */
    assert_int_equal(sim_studydb_answers(db, "P01", 1, "post", "answered", 2, items, values, texts, "t5", "test", &err), 0);
    assert_int_equal(sim_studydb_flag(db, "P01", 1, "drove off the road", &err), 0);
    assert_int_equal(sim_studydb_flag(db, "P01", 2, "x", &err), SIM_ENOTFOUND);
    assert_int_equal(sim_studydb_note(db, "P01", 1, "t6", "wore glasses", &err), 0);
    sim_studydb_close(db);

    assert_int_equal(sim_studydb_open(path, &db, &err), 0);
    assert_int_equal(one(db, "SELECT COUNT(*) FROM answers"), 2);
    assert_int_equal(one(db, "SELECT value FROM answers WHERE item = 'kss'"), 6);
    assert_int_equal(one(db, "SELECT COUNT(*) FROM attempts WHERE status = 'flagged'"), 1);
    assert_int_equal(one(db, "SELECT COUNT(*) FROM actual_order"), 1);
    assert_int_equal(one(db, "SELECT COUNT(*) FROM notes"), 1);
    bool has;
    assert_int_equal(sim_studydb_has_answers(db, "P01", 1, "post", &has, &err), 0);
    assert_true(has);
    assert_int_equal(sim_studydb_has_answers(db, "P01", 2, "post", &has, &err), 0);
    assert_false(has);
    sim_studydb_close(db);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Issue 45: one runner per participant. A live holder's row refuses a second runner,
 * naming its pid, host and start; a gone holder's row is taken over; unlock frees it. */
static bool all_alive(int64_t pid, const char *host) { (void)pid, (void)host; return true; }
static bool none_alive(int64_t pid, const char *host) { (void)pid, (void)host; return false; }

static void one_runner_per_participant(void **state)
{
    (void)state;
    char d[64], p[128];
    snprintf(d, sizeof d, "/tmp/test_studydb_lock.XXXXXX");
    assert_non_null(mkdtemp(d));
    snprintf(p, sizeof p, "%s/study.db", d);
    sim_studydb *db;
    sim_error err = {0};
    assert_int_equal(sim_studydb_open(p, &db, &err), 0);
    assert_int_equal(sim_studydb_runner_lock(db, "P01", 4242, "lab-pc", "2026-12-02T08:00:00Z", all_alive, &err), 0);
    /* the same runner again: fine; another participant: fine */
    assert_int_equal(sim_studydb_runner_lock(db, "P01", 4242, "lab-pc", "2026-12-02T08:00:01Z", all_alive, &err), 0);
    assert_int_equal(sim_studydb_runner_lock(db, "P02", 4343, "lab-pc", "2026-12-02T08:00:01Z", all_alive, &err), 0);
    assert_int_equal(sim_studydb_runner_lock(db, "P01", 5151, "lab-pc", "2026-12-02T08:01:00Z", all_alive, &err),
                     SIM_EAGAIN);
    assert_non_null(strstr(err.msg, "participant P01 is being run by another runner (pid 4242 on host lab-pc, since "
                                    "2026-12-02T08:00:01Z)"));
    /* its holder gone: taken over */
    assert_int_equal(sim_studydb_runner_lock(db, "P01", 5151, "lab-pc", "2026-12-02T08:02:00Z", none_alive, &err), 0);
    assert_int_equal(sim_studydb_runner_lock(db, "P01", 4242, "lab-pc", "2026-12-02T08:03:00Z", all_alive, &err),
                     SIM_EAGAIN);
    assert_non_null(strstr(err.msg, "pid 5151"));
    assert_int_equal(sim_studydb_runner_unlock(db, "P01", 4242, &err), 0); /* not its row: kept */
    assert_int_equal(sim_studydb_runner_lock(db, "P01", 4242, "lab-pc", "2026-12-02T08:03:00Z", all_alive, &err),
                     SIM_EAGAIN);
    assert_int_equal(sim_studydb_runner_unlock(db, "P01", 5151, &err), 0);
    assert_int_equal(sim_studydb_runner_lock(db, "P01", 4242, "lab-pc", "2026-12-02T08:04:00Z", all_alive, &err), 0);
    sim_studydb_close(db);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(attempts_answers_and_reopen),
                                       cmocka_unit_test(one_runner_per_participant)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
