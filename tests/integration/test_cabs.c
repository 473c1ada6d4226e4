/* Several cabs in one session (docs/cabs.md), with real processes: simctl run of a
 * scenario with two cabs, headless in lockstep. Each cab has its own physics-node
 * (the second following the first's clock), input-node with the scripted driver and
 * recorder; each log's ego is its own car from its own start point, and two runs give
 * the same samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sqlite3.h>
#include "test_support.h"

#define SCENARIO "tests/data/two_cabs.json"

/* simctl run of the two cabs for `until` s into out_dir; exit status 0. */
static void run_cabs(const char *out_dir, const char *until)
{
    int port = ts_free_port(), cport = ts_free_port();
    char bus[64], control[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", cport);
    char *argv[] = {"simctl", "run", (char *)ts_root(SCENARIO), "--headless", "--until", (char *)until, "--record-all",
                    "--bus", bus, "--control", control, "--out", (char *)out_dir, NULL};
    int st = ts_stop(ts_spawn(argv, false), 0, TS_SESSION_HANG_MS);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The drive log of cab `cab` in out_dir (subject s01-CAB), into path. */
static void cab_log(const char *out_dir, const char *cab, char *path, size_t size)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls %s/logs/default/s01-%s-*.sqlite", out_dir, cab);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(path, (int)size, p));
    assert_null(fgets(cmd, sizeof cmd, p)); /* exactly one */
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
}

static double query(const char *log, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(log, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Every sample of a log as text, in order. */
static char *dump_samples(const char *log)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(log, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT * FROM samples ORDER BY run, tick", -1, &st, NULL), SQLITE_OK);
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            size_t n = strlen(v ? v : "") + 2;
            if (len + n + 2 > cap) out = realloc(out, cap *= 2);
            len += (size_t)snprintf(out + len, cap - len, "%s|", v ? v : "");
        }
        out[len++] = '\n';
        out[len] = '\0';
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

static void two_cabs_in_lockstep(void **state)
{
    (void)state;
    char d1[] = "/tmp/cabs-1-XXXXXX", d2[] = "/tmp/cabs-2-XXXXXX";
    assert_non_null(mkdtemp(d1));
    assert_non_null(mkdtemp(d2));
    run_cabs(d1, "5");
    char a[1024], b[1024];
    cab_log(d1, "a", a, sizeof a);
    cab_log(d1, "b", b, sizeof b);
    /* one clock: both logs have ticks 0..500, every 10 ms, and end at --until */
    assert_int_equal((int)query(a, "SELECT COUNT(*) FROM samples"), 501);
    assert_int_equal((int)query(b, "SELECT COUNT(*) FROM samples"), 501);
    assert_true(query(a, "SELECT MAX(t) FROM samples") == 5.0);
    assert_true(query(b, "SELECT MAX(t) FROM samples") == 5.0);
    /* each log's ego is its own car from its own start point: a at s = 20 in lane -1
     * (y = -1.75) from standstill, b at s = 80 in the same lane at 30 km/h */
    assert_true(query(a, "SELECT x FROM samples WHERE tick = 0") == 20.0);
    assert_true(query(a, "SELECT y FROM samples WHERE tick = 0") == -1.75);
    assert_true(query(a, "SELECT speed FROM samples WHERE tick = 0") == 0.0);
    assert_true(query(b, "SELECT x FROM samples WHERE tick = 0") == 80.0);
    assert_true(query(b, "SELECT y FROM samples WHERE tick = 0") == -1.75);
    assert_true(fabs(query(b, "SELECT speed FROM samples WHERE tick = 0") - 30 / 3.6) < 1e-9);
    /* ... and its scripted driver drives it: each stays in its lane (b is not pushed
     * off by its own car among the agents) and goes on at up to the 50 km/h limit (a
     * from 0, b from 30 km/h: b's run is the longer) */
    assert_true(query(a, "SELECT MAX(ABS(y + 1.75)) FROM samples") < 0.2);
    assert_true(query(b, "SELECT MAX(ABS(y + 1.75)) FROM samples") < 0.2);
    double xa = query(a, "SELECT x FROM samples WHERE tick = 500"), xb = query(b, "SELECT x FROM samples WHERE tick = 500");
    assert_true(xa > 20 + 25 && xa < 20 + 5 * 50 / 3.6);
    assert_true(xb - 80 > xa - 20 + 10 && xb < 80 + 5 * 50 / 3.6 + 1);
    assert_true(query(a, "SELECT MAX(speed) FROM samples") < 50 / 3.6 + 0.5);
    assert_true(query(a, "SELECT speed FROM samples WHERE tick = 500") > 10.0);
    /* one world: b's car is a vehicle of the traffic, so it is a's lead. a's headway
     * at tick n is the gap of tick n - 1 (traffic.state comes after the tick's step):
     * b's x less a's less the two half lengths (4.5 m cars), to the 1 mm it is sent
     * with, from the first traffic.state on. b has nobody ahead: no headway. */
    char sql[1400];
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM samples s JOIN samples pa ON pa.tick = s.tick - 1 "
             "JOIN (SELECT * FROM other.samples) pb ON pb.tick = s.tick - 1 "
             "WHERE s.headway_dist IS NOT NULL AND ABS(s.headway_dist - (pb.x - pa.x - 4.5)) < 0.001");
    sqlite3 *db;
    sqlite3_stmt *st;
    char attach[1200];
    assert_int_equal(sqlite3_open_v2(a, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    snprintf(attach, sizeof attach, "ATTACH '%s' AS other", b);
    assert_int_equal(sqlite3_exec(db, attach, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int matching = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_true(matching >= 490);
    assert_int_equal((int)query(a, "SELECT COUNT(*) FROM samples WHERE headway_dist IS NOT NULL"), matching);
    assert_int_equal((int)query(b, "SELECT COUNT(*) FROM samples WHERE headway_dist IS NOT NULL"), 0);
    /* a's log keeps the traffic (--record-all): at t = 1 b's car is "cab.b" where b's
     * log has it at tick 100, the lead of the state whose ego is cab a */
    double xb100 = query(b, "SELECT x FROM samples WHERE tick = 100");
    const char *at1 = "FROM messages WHERE topic = 'traffic.state' AND t = 1.0";
    snprintf(sql, sizeof sql, "SELECT COUNT(*) %s AND json_extract(line, '$.vehicles[0].id') = 'cab.b' AND "
             "json_extract(line, '$.lead.id') = 'cab.b' AND json_extract(line, '$.cab') = 'a'", at1);
    assert_int_equal((int)query(a, sql), 1);
    snprintf(sql, sizeof sql, "SELECT json_extract(line, '$.vehicles[0].pos[0]') %s", at1);
    assert_true(fabs(query(a, sql) - xb100) < 0.001);
    /* the same again: the same samples in both cabs' logs */
    run_cabs(d2, "5");
    char a2[1024], b2[1024];
    cab_log(d2, "a", a2, sizeof a2);
    cab_log(d2, "b", b2, sizeof b2);
    char *s1 = dump_samples(a), *s2 = dump_samples(a2);
    assert_true(strlen(s1) > 10000);
    assert_string_equal(s1, s2);
    free(s1);
    free(s2);
    s1 = dump_samples(b), s2 = dump_samples(b2);
    assert_string_equal(s1, s2);
    free(s1);
    free(s2);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", d1, d2);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_cabs_in_lockstep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
