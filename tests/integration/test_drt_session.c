/* A headless Detection Response Task session (scenarios/drt.json, docs/tasks.md):
 * `simctl run` in lockstep starts task-node, whose seeded schedule puts a stimulus on
 * the bus every 3-5 s of simulation time; the scripted driver answers each after the
 * scenario's 450 +- 50 ms latency; the recorder logs both; the analysis matches them.
 * Checked: every onset is where the schedule puts it (within one tick), every stimulus
 * is answered and switched off by its response, each response time is its drawn
 * latency rounded up to the next tick, and the analysis' mean response time equals
 * the drawn latencies' mean within one tick (10 ms), itself within three standard
 * errors of 450 ms. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_drt.h"
#include "sim_scenario.h"
#include "test_support.h"

#define TICK 0.01
#define MAXS 64

static char dir[] = "/tmp/sim-drt-XXXXXX";

/* The value of column col of the row of tasks.csv for task "DRT" (NAN when empty). */
static double csv_value(const char *path, const char *col)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char head[16384], row[16384];
    assert_non_null(fgets(head, sizeof head, f));
    assert_non_null(fgets(row, sizeof row, f));
    fclose(f);
    int idx = -1, k = 0;
    for (char *p = strtok(head, ",\n"); p; p = strtok(NULL, ",\n"), k++)
        if (!strcmp(p, col)) idx = k;
    assert_true(idx >= 0);
    k = 0;
    char *p = row;
    while (k < idx && (p = strchr(p, ','))) p++, k++;
    assert_non_null(p);
    return *p == ',' || *p == '\n' ? NAN : strtod(p, NULL);
}

static void drt_session_scripted_responses(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    const char *scen = ts_root("scenarios/drt.json");
    sim_scenario *sc;
    sim_error err = {0};
    if (sim_scenario_load_err(scen, &sc, &err)) fail_msg("%s", err.msg);
    assert_non_null(sc->drt);
    sim_drt_config cfg = *sc->drt;
    sim_scenario_free(sc);
    assert_true(fabs(cfg.latency_mean - 0.45) < 1e-12 && fabs(cfg.latency_sd - 0.05) < 1e-12);

    int port = ts_free_port(), cport = ts_free_port();
    char bus[64], control[64], out_dir[300];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", cport);
    snprintf(out_dir, sizeof out_dir, "%s/run", dir);
    char *argv[] = {"simctl", "run", (char *)scen, "--headless", "--lockstep", "--driver", "script",
                    "--until", "60", "--no-analysis", "--bus", bus, "--control", control, "--out", out_dir, NULL};
    int st = ts_stop(ts_spawn(argv, false), 0, 120000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char cmd[2400], log[1024];
    snprintf(cmd, sizeof cmd, "ls %s/logs/default/*.sqlite", out_dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(fgets(log, sizeof log, p));
    pclose(p);
    log[strcspn(log, "\n")] = '\0';

    /* The log's stimuli and responses, in time order. */
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(log, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT t, name, json_extract(json, '$.id'), "
                                        "json_extract(json, '$.on') FROM events WHERE kind = 'drt' "
                                        "ORDER BY t, name DESC", -1, &q, NULL), SQLITE_OK);
    double on_t[MAXS], off_t[MAXS], resp[MAXS];
    int n_on = 0, n_off = 0, n_resp = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        double t = sqlite3_column_double(q, 0);
        const char *name = (const char *)sqlite3_column_text(q, 1);
        if (!strcmp(name, "response")) {
            assert_true(n_resp < MAXS);
            resp[n_resp++] = t;
            continue;
        }
        int id = sqlite3_column_int(q, 2), on = sqlite3_column_int(q, 3);
        if (on) {
            assert_int_equal(id, n_on + 1);
            on_t[n_on++] = t;
        } else {
            assert_int_equal(id, n_off + 1);
            off_t[n_off++] = t;
        }
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    /* 60 s from a first onset after 5 + 3..5 s at 3..5 s apart: 11 to 18 stimuli. */
    assert_in_range(n_on, 11, 18);

    double onset = cfg.start_s, sum_lat = 0, sum_rt = 0;
    int answered = 0;
    for (int k = 1; k <= n_on; k++) {
        onset += sim_drt_interval(&cfg, k);
        /* the first tick at or after the scheduled onset */
        if (!(on_t[k - 1] >= onset - 1e-9 && on_t[k - 1] < onset + TICK + 1e-9))
            fail_msg("stimulus %d at %.3f s, scheduled %.3f s", k, on_t[k - 1], onset);
        double lat;
        assert_true(sim_drt_script_latency(&cfg, k, &lat)); /* miss_share 0 */
        if (k > n_resp) break; /* the session ended before the last answer */
        double rt = resp[k - 1] - on_t[k - 1];
        if (!(rt >= lat - 1e-9 && rt < lat + TICK + 1e-9))
            fail_msg("stimulus %d: response after %.3f s, drawn latency %.4f s", k, rt, lat);
        assert_true(k <= n_off && fabs(off_t[k - 1] - resp[k - 1]) < 1e-9); /* ended by it */
        sum_lat += lat;
        sum_rt += rt;
        answered++;
    }
    assert_true(answered >= n_on - 1);
    double mean_lat = sum_lat / answered;
    /* 450 ms +- 3 standard errors of the mean of `answered` draws of SD 50 ms */
    assert_true(fabs(mean_lat - 0.45) < 3 * 0.05 / sqrt(answered));

    /* The analysis of the log finds the same. */
    char out_rep[400];
    snprintf(out_rep, sizeof out_rep, "%s/report", dir);
    snprintf(cmd, sizeof cmd, "'%s' report '%s' --out '%s' --no-plots > /dev/null 2>&1", ts_bin("analysis"), log,
             out_rep);
    int rc = system(cmd);
    /* 0, or 1 when it reports the task as not ended within the minute */
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) <= 1);
    char csv[500];
    snprintf(csv, sizeof csv, "%s/tasks.csv", out_rep);
    double stimuli = csv_value(csv, "drt_stimuli"), hits = csv_value(csv, "drt_hits");
    double mean = csv_value(csv, "drt_rt_mean_s");
    assert_true(stimuli >= answered && hits >= answered && hits == stimuli - (n_on - answered));
    /* The task starts at s = 60 m, a few seconds in: the analysis sees the stimuli after. */
    printf("DRT session: %d stimuli, %d answered, drawn latency mean %.4f s, measured %.4f s "
           "(analysis %.4f s over %g hits)\n", n_on, answered, mean_lat, sum_rt / answered, mean, hits);
    assert_true(fabs(sum_rt / answered - mean_lat) <= TICK);
    assert_true(fabs(mean - mean_lat) <= TICK);
    assert_true(csv_value(csv, "drt_misses") == 0 || n_on > answered);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(drt_session_scripted_responses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
