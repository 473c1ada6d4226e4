/* Integration test of a study end to end with the real processes: `simctl study run`
 * (each drive a headless lockstep `simctl run` session), `simctl study answer` on the
 * bus, the study database, `simctl study rebuild`, and `analysis study`.
 *
 * Three conditions x three participants, 3 s drives on the motorway:
 *   a: start "motorway" (mw_west, s = 200), day, no ambient traffic (the scenario has 6)
 *   b: start "motorway", night, no ambient traffic
 *   c: start "curves" (mw_east, s = 50), dusk, ambient traffic at 15 vehicles/km/lane
 * Williams design for 3 (the doubled square): P01 a b c, P02 b c a, P03 c a b.
 *
 * P01 answers every questionnaire through `simctl study answer` (scripted values);
 * P02's runner is killed in the middle of its second drive: the test joins that
 * session as a lockstep participant and holds the clock at t = 1 s (no sleeps order
 * anything here: the clock waits for the test), then the rerun must finish P02
 * without repeating drive 1 and with the aborted attempt recorded; P03 runs
 * --headless (questionnaires recorded as not asked). The tidy table must have one row
 * per participant x condition x task x measure, equal to the per-drive reports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_drivelog.h"
#include "sim_sha256.h"
#include "test_support.h"

static char dir[64], study[128], out[128], bus[64], ctl[64];

static void new_ports(void)
{
    snprintf(bus, sizeof bus, "127.0.0.1:%d", ts_free_port());
    snprintf(ctl, sizeof ctl, "tcp://127.0.0.1:%d", ts_free_port());
}

static void write_study(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_study.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(study, sizeof study, "%s/s.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    const char *sc = ts_root("scenarios/motorway.json");
    FILE *f = fopen(study, "w");
    assert_non_null(f);
    fprintf(f,
            /* auto_go: the drives start without an operator's go (test_study_day.sh has the go) */
            "{\"name\":\"t3x3\",\"auto_go\":true,\"conditions\":["
            "{\"name\":\"a\",\"scenario\":\"%s\",\"start\":\"motorway\",\"until_s\":3,\"params\":{\"light\":\"day\",\"traffic_density\":0}},"
            "{\"name\":\"b\",\"scenario\":\"%s\",\"start\":\"motorway\",\"until_s\":3,\"params\":{\"light\":\"night\",\"traffic_density\":0}},"
            "{\"name\":\"c\",\"scenario\":\"%s\",\"start\":\"curves\",\"until_s\":3,\"params\":{\"light\":\"dusk\",\"traffic_density\":15,\"traffic_seed\":5}}],"
            "\"participants\":{\"count\":3},\"design\":{\"type\":\"balanced-latin-square\"},"
            "\"questionnaires\":[{\"id\":\"post\",\"when\":\"after_each\",\"instruments\":[\"kss\"],"
            "\"items\":[{\"id\":\"ease\",\"type\":\"likert\",\"text\":\"Easy?\",\"min\":1,\"max\":7},"
            "{\"id\":\"note\",\"type\":\"text\",\"text\":\"Remarks?\"}]},"
            "{\"id\":\"final\",\"when\":\"at_end\",\"instruments\":[\"sus\"]}]}\n",
            sc, sc, sc);
    fclose(f);
}

static pid_t runner(const char *participant, bool headless)
{
    char *argv[] = {"simctl", "study", "run", study, "--participant", (char *)participant, "--out", out,
                    "--bus", bus, "--control", ctl, headless ? "--headless" : NULL, NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    return pid;
}

static int answer(const char *participant, const char *drive, const char *q, const char *const *pairs)
{
    const char *args[24] = {"study", "answer", study, "--participant", participant, "--drive", drive,
                            "--questionnaire", q, "--bus", bus, "--timeout", "120"};
    int n = 13;
    for (int i = 0; pairs[i]; i++) args[n++] = pairs[i];
    args[n] = NULL;
    char buf[4096];
    int rc = ts_run("simctl", args, buf, sizeof buf);
    if (rc != 0) fprintf(stderr, "simctl study answer: %s\n", buf);
    return rc;
}

static sqlite3 *db_open(void)
{
    char path[200];
    snprintf(path, sizeof path, "%s/study.db", out);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return db;
}

static double q1(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    double v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_double(st, 0) : NAN;
    sqlite3_finalize(st);
    return v;
}

static void p01_answers_on_the_bus(void)
{
    new_ports();
    pid_t r = runner("P01", false);
    /* P01 drives a, b, c: after each, kss = 3 + k and ease = k, a note. */
    const char *d1[] = {"kss=4", "ease=1", "note=fine", NULL};
    const char *d2[] = {"kss=5", "ease=2", "note=dark", NULL};
    const char *d3[] = {"kss=6", "ease=3", "note=traffic, busy", NULL};
    /* A value out of range is refused by the runner (after which it still waits). */
    const char *bad[] = {"kss=10", "ease=1", NULL};
    assert_int_equal(answer("P01", "1", "post", bad), 1);
    /* ease neither answered nor skipped: refused before anything is sent, as the page. */
    const char *half[] = {"kss=4", "note=fine", NULL};
    assert_int_equal(answer("P01", "1", "post", half), 2);
    assert_int_equal(answer("P01", "1", "post", d1), 0);
    assert_int_equal(answer("P01", "2", "post", d2), 0);
    assert_int_equal(answer("P01", "3", "post", d3), 0);
    /* SUS 4 2 4 1 5 2 4 2 5 1: 85 (worked in test_study.c). */
    const char *sus[] = {"sus1=4", "sus2=2", "sus3=4", "sus4=1", "sus5=5", "sus6=2", "sus7=4", "sus8=2", "sus9=5",
                         "sus10=1", NULL};
    assert_int_equal(answer("P01", "3", "final", sus), 0);
    assert_int_equal(ts_stop(r, 0, 120000), 0);
}

/* Joins P02's sessions as a lockstep participant; returns once the runner has been
 * killed in the middle of drive 2 (clock held at t >= 1 s). ambient[k] gets the most
 * ambient vehicles seen in drive k. */
static void p02_killed_in_drive_2(pid_t r, int ambient[4])
{
    bool killed = false;
    while (!killed) {
        ts_conn *c = NULL;
        while (!(c = ts_join(atoi(strchr(bus, ':') + 1), "holder", "[\"sim.tick\",\"study.state\",\"traffic.state\"]",
                             "\"lockstep\":true,\"secret\":\"test-study-secret-0123456789\"")))
            ts_sleep_ms(5); /* polling for the next session's dispatcher to listen */
        int drive = 0, seq = 0;
        double held = -1; /* tick n waiting for study.state */
        char line[1 << 16];
        for (;;) {
            int n = ts_read_line(c, line, sizeof line, 60000);
            assert_true(n != 0); /* a session that stops talking for 60 s is a failure */
            if (n < 0) break;    /* the session ended */
            cJSON *m = cJSON_Parse(line);
            const char *topic = cJSON_GetObjectItem(m, "topic")->valuestring;
            if (!strcmp(topic, "study.state")) {
                drive = cJSON_GetObjectItem(m, "drive")->valueint;
                assert_string_equal(cJSON_GetObjectItem(m, "participant")->valuestring, "P02");
                /* In a session: its instructions while it starts, then driving. */
                const char *phase = cJSON_GetObjectItem(m, "phase")->valuestring;
                assert_true(!strcmp(phase, "instructions") || !strcmp(phase, "driving"));
            } else if (!strcmp(topic, "traffic.state") && drive >= 1 && drive <= 3) {
                int a = cJSON_GetObjectItem(m, "ambient")->valueint;
                if (a > ambient[drive]) ambient[drive] = a;
            }
            bool tick = !strcmp(topic, "sim.tick");
            double t = tick ? cJSON_GetObjectItem(m, "t")->valuedouble : 0;
            if (tick) held = cJSON_GetObjectItem(m, "n")->valuedouble;
            cJSON_Delete(m);
            if (held < 0 || drive == 0) continue; /* the clock waits until we know the drive */
            if (drive == 2 && t >= 1.0) {
                /* Mid-drive, clock held by us: the runner dies. Its session gets SIGTERM. */
                pid_t session = ts_child_of(r, "simctl");
                assert_true(session > 0);
                assert_int_equal(kill(r, SIGKILL), 0);
                assert_true(WIFSIGNALED(ts_stop(r, 0, 10000)));
                /* The session (now ours as subreaper) shuts down in order. */
                assert_int_not_equal(ts_stop(session, 0, TS_SESSION_HANG_MS), -1);
                killed = true;
                break;
            }
            char ack[160];
            snprintf(ack, sizeof ack, "{\"topic\":\"sim.ack\",\"src\":\"holder\",\"seq\":%d,\"n\":%.0f}", ++seq, held);
            assert_true(ts_send_line(c, ack));
            held = -1;
        }
        ts_close(c);
    }
}

static void check_log_meta(sqlite3 *db, const char *participant, int position, const char *cond, double s0)
{
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT log_path FROM attempts WHERE participant = '%s' AND position = %d AND status = 'complete'",
             participant, position);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    char log[512];
    snprintf(log, sizeof log, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sim_drivelog_reader *rd;
    assert_int_equal(sim_drivelog_reader_open(log, &rd, NULL), 0);
    char v[128], pos[16], sha[65];
    snprintf(pos, sizeof pos, "%d", position);
    assert_int_equal(sim_drivelog_read_meta(rd, "study", v, sizeof v, NULL), 0);
    assert_string_equal(v, "t3x3");
    assert_int_equal(sim_drivelog_read_meta(rd, "participant", v, sizeof v, NULL), 0);
    assert_string_equal(v, participant);
    assert_int_equal(sim_drivelog_read_meta(rd, "condition", v, sizeof v, NULL), 0);
    assert_string_equal(v, cond);
    assert_int_equal(sim_drivelog_read_meta(rd, "position", v, sizeof v, NULL), 0);
    assert_string_equal(v, pos);
    assert_int_equal(sim_sha256_file(study, sha, NULL), 0);
    assert_int_equal(sim_drivelog_read_meta(rd, "study_sha256", v, sizeof v, NULL), 0);
    assert_string_equal(v, sha);
    sim_drivelog_reader_close(rd);
    /* The condition's start point acted: the first sample is there (motorway: s = 200,
     * curves: s = 50). */
    sqlite3 *lg;
    assert_int_equal(sqlite3_open_v2(log, &lg, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_true(fabs(q1(lg, "SELECT s FROM samples ORDER BY run, tick LIMIT 1") - s0) < 0.5);
    sqlite3_close(lg);
}

/* Every row of tidy.csv against the drive's own report (tasks.csv of `simctl run`). */
static void tidy_equals_reports(sqlite3 *db)
{
    char path[256], line[8192];
    snprintf(path, sizeof path, "%s/an/tidy.csv", out);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "participant,group,condition,position,task,measure,value,status,reason\n");
    int rows = 0, checked = 0;
    static char seen[4096][256];
    while (fgets(line, sizeof line, f)) {
        char p[16], g[16], cond[16], task[32], measure[64], value[64], status[16];
        int pos;
        line[strcspn(line, "\n")] = '\0';
        assert_int_equal(sscanf(line, "%15[^,],%15[^,]", p, g), 1); /* group is empty */
        assert_int_equal(sscanf(line, "%15[^,],,%15[^,],%d,%31[^,],%63[^,],%63[^,],%15[^,]", p, cond, &pos, task, measure,
                                value, status), 7);
        /* One row per participant x condition x task x measure. */
        char key[256];
        snprintf(key, sizeof key, "%s/%s/%s/%s", p, cond, task, measure);
        for (int i = 0; i < rows; i++) assert_string_not_equal(seen[i], key);
        assert_true(rows < 4096);
        snprintf(seen[rows++], sizeof seen[0], "%s", key);
        /* The drive's report: <drive>/report/tasks.csv, column `measure`, row `task`. */
        char sql[300];
        snprintf(sql, sizeof sql, "SELECT log_path FROM attempts WHERE participant = '%s' AND position = %d AND status = 'complete'", p, pos);
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        char rep[600];
        snprintf(rep, sizeof rep, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        char *logs = strstr(rep, "/logs/");
        assert_non_null(logs);
        snprintf(logs, sizeof rep - (size_t)(logs - rep), "/report/tasks.csv");
        FILE *t = fopen(rep, "r");
        assert_non_null(t);
        char head[8192], row[8192];
        assert_non_null(fgets(head, sizeof head, t));
        head[strcspn(head, "\n")] = '\0';
        int col = -1, stcol = -1, k = 0;
        for (char *c = strtok(head, ","); c; c = strtok(NULL, ","), k++) {
            if (!strcmp(c, measure)) col = k;
            if (!strcmp(c, "status")) stcol = k;
        }
        assert_true(col >= 0 && stcol >= 0);
        bool found = false;
        while (fgets(row, sizeof row, t)) {
            row[strcspn(row, "\n")] = '\0';
            char *fields[256]; /* every metric column (analysis adds the secondary-task measures) */
            int nf = 0;
            for (char *c = row; nf < 256;) { /* split keeping empty cells; the message column is last */
                fields[nf++] = c;
                char *comma = strchr(c, ',');
                if (!comma || *c == '"') break;
                *comma = '\0';
                c = comma + 1;
            }
            if (strcmp(fields[0], task) || col >= nf) continue;
            const char *want = fields[col][0] ? fields[col] : "NA";
            assert_string_equal(value, want);
            /* The report's task status: ok stays ok, anything else (warning, a task never
             * started) is a warning in tidy.csv. */
            assert_true(stcol < nf);
            assert_string_equal(status, strcmp(fields[stcol], "ok") ? "warning" : "ok");
            found = true;
            checked++;
        }
        fclose(t);
        assert_true(found);
    }
    fclose(f);
    /* 9 drives, each with the track's 2 tasks, every metric. */
    assert_true(rows > 0);
    assert_int_equal(rows % 18, 0);
    assert_int_equal(checked, rows);
}

static void study_end_to_end(void **state)
{
    /* Sessions must be headless whatever the caller's terminal has. */
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    /* The sessions' secret, given to the runner's drives (simctl run takes it from the
     * environment): a lockstep participant needs it (issue 45). */
    setenv("SIM_BUS_SECRET", "test-study-secret-0123456789", 1);
    /* Orphaned sessions of a killed runner become our children, so we can wait for them. */
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    write_study();
    char buf[8192];
    const char *check[] = {"study", "check", study, NULL};
    assert_int_equal(ts_run("simctl", check, buf, sizeof buf), 0);
    const char *plan[] = {"study", "plan", study, NULL};
    assert_int_equal(ts_run("simctl", plan, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "P02,1,b,"));
    assert_non_null(strstr(buf, "P02,2,c,"));
    assert_non_null(strstr(buf, "P02,3,a,"));

    p01_answers_on_the_bus();

    new_ports();
    pid_t r = runner("P02", true);
    int ambient[4] = {0};
    p02_killed_in_drive_2(r, ambient);
    /* Drive 1 (b, no traffic) had none; drive 2 (c, 15 per km per lane) had some. */
    assert_int_equal(ambient[1], 0);
    assert_true(ambient[2] > 0);
    new_ports();
    r = runner("P02", true);
    assert_int_equal(ts_stop(r, 0, 120000), 0);

    new_ports();
    r = runner("P03", true);
    assert_int_equal(ts_stop(r, 0, 120000), 0);

    sqlite3 *db = db_open();
    /* P02: drive 1 once, drive 2 aborted then complete, drive 3 complete. */
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM attempts WHERE participant = 'P02' AND position = 1"), 1);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM attempts WHERE participant = 'P02' AND position = 2 AND attempt = 1 AND status = 'aborted'"), 1);
    /* The killed runner's attempt keeps the log its session closed. */
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM attempts WHERE participant = 'P02' AND position = 2 AND attempt = 1"
                            " AND log_path LIKE '%/drives/P02-02-c-a1/%' AND length(log_sha256) = 64"), 1);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM attempts WHERE participant = 'P02' AND position = 2 AND attempt = 2 AND status = 'complete'"), 1);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM attempts WHERE status = 'complete'"), 9);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM actual_order WHERE participant = 'P02'"), 3);
    /* Answers: P01's, stored as given; P02 and P03 not asked (headless). */
    assert_int_equal(q1(db, "SELECT value FROM answers WHERE participant = 'P01' AND position = 2 AND item = 'kss'"), 5);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM answers WHERE participant = 'P01' AND item = 'note' AND text = 'traffic, busy'"), 1);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM answers WHERE participant = 'P03' AND status = 'not_asked'"), 4);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM answers WHERE participant = 'P02' AND status = 'not_asked'"), 4);
    check_log_meta(db, "P02", 1, "b", 200);
    check_log_meta(db, "P02", 2, "c", 50);
    check_log_meta(db, "P03", 2, "a", 200);

    /* The analysis: everything complete, so exit 0. */
    char an[200];
    snprintf(an, sizeof an, "%s/an", out);
    const char *analysis[] = {"study", study, "--study-dir", out, "--out", an, NULL};
    int rc = ts_run("analysis", analysis, buf, sizeof buf);
    if (rc) fprintf(stderr, "%s\n", buf);
    assert_int_equal(rc, 0);
    tidy_equals_reports(db);
    /* Questionnaire scores: P01's kss after drive 2 (condition b) is 5, ease 2, SUS 85. */
    char path[256];
    snprintf(path, sizeof path, "%s/questionnaires.csv", an);
    char *text = NULL;
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    text = calloc(1, 1 << 16);
    assert_true(fread(text, 1, (1 << 16) - 1, f) > 0);
    fclose(f);
    assert_non_null(strstr(text, "P01,,b,2,post,kss,5\n"));
    assert_non_null(strstr(text, "P01,,b,2,post,ease,2\n"));
    assert_non_null(strstr(text, "P01,,(end),3,final,sus,85\n"));
    assert_null(strstr(text, "P03,"));
    free(text);
    sqlite3_close(db);

    /* The database made anew from the journal and the logs says the same. */
    const char *rebuild[] = {"study", "rebuild", study, "--out", out, NULL};
    rc = ts_run("simctl", rebuild, buf, sizeof buf);
    if (rc) fprintf(stderr, "%s\n", buf);
    assert_int_equal(rc, 0);
    db = db_open();
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM attempts WHERE status = 'complete'"), 9);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM attempts WHERE status = 'aborted'"), 1);
    assert_int_equal(q1(db, "SELECT value FROM answers WHERE participant = 'P01' AND position = 2 AND item = 'kss'"), 5);
    assert_int_equal(q1(db, "SELECT COUNT(*) FROM answers"), 3 * 3 + 10 + 8);
    sqlite3_close(db);

    const char *status[] = {"study", "status", study, "--out", out, NULL};
    assert_int_equal(ts_run("simctl", status, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "P02          -          3/3    1 "));
    snprintf(buf, sizeof buf, "rm -rf %s", dir);
    assert_int_equal(system(buf), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(study_end_to_end)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
