/* A headless Detection Response Task session (scenarios/drt.json, docs/tasks.md):
 * `simctl run` in lockstep starts task-node, whose seeded schedule puts a stimulus on
 * the bus every 3-5 s of simulation time; the scripted driver answers each after the
 * scenario's 450 +- 50 ms latency; the recorder logs both; the analysis matches them.
 * Checked: every onset is where the schedule puts it (within one tick), every stimulus
 * is answered and switched off by its response, each response time is its drawn
 * latency rounded up to the next tick, and the analysis' mean response time equals
 * the drawn latencies' mean within one tick (10 ms), itself within three standard
 * errors of 450 ms.
 * A test client publishes synthetic gaze at 30 Hz of simulation time (gaze_at): the
 * analysis finds its glances (each with its 0.1 s transition) within the sampling. */
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

/* The gaze script: the road ahead, but the centre display for 3 s from 15 s, the left
 * mirror for 0.8 s from 30 s, the cluster 1.2 s from 42 s, the centre display 1 s from
 * 50 s, each after a 0.1 s transition (a direction between the areas), and a blink
 * (invalid) of 0.15 s at 25 s. Expected glances (transition included): centre display
 * 3.1 and 1.1 s, mirror 0.9 s, cluster 1.3 s: 4 off road, 6.4 s eyes off road, one over
 * 2 s; 85th percentile of [0.9, 1.1, 1.3, 3.1] = 1.3 + 0.55 * 1.8 = 2.29 s > 2: the
 * NHTSA check fails. Samples come every 1/30 s or a tick later: durations hold to 0.05 s. */
static const struct { double a, b; const char *area; } GAZE[] = {
    {15, 18, "center_display"}, {30, 30.8, "mirror_left"}, {42, 43.2, "cluster"}, {50, 51, "center_display"}};

static void gaze_at(double t, char *out, size_t n, int *seq)
{
    const char *body = "\"valid\":true,\"area\":\"road\"";
    char buf[96];
    if (t >= 25 && t < 25.15) body = "\"valid\":false";
    for (size_t k = 0; k < sizeof GAZE / sizeof *GAZE; k++) {
        if (t >= GAZE[k].a - 0.1 && t < GAZE[k].a) body = "\"valid\":true,\"yaw_deg\":-20,\"pitch_deg\":0";
        if (t >= GAZE[k].a && t < GAZE[k].b) {
            snprintf(buf, sizeof buf, "\"valid\":true,\"area\":\"%s\"", GAZE[k].area);
            body = buf;
        }
    }
    snprintf(out, n, "{\"topic\":\"gaze.sample\",\"src\":\"gaze\",\"seq\":%d,\"t\":%.6f,%s}", ++*seq, t, body);
}

/* Joins the session's bus as "gaze" and publishes gaze_at for every 1/30 s of
 * simulation time it sees in sim.tick, until the session ends. */
static void publish_gaze(int port, pid_t session)
{
    ts_conn *c = NULL;
    for (int i = 0; i < 600 && !c; i++) {
        if (ts_wait_port(port, 100)) c = ts_join(port, "gaze", "[\"sim.tick\"]", NULL);
        if (!c) ts_sleep_ms(50);
    }
    assert_non_null(c);
    double last = -1;
    int seq = 0, n = 0;
    static char line[4096];
    (void)session;
    int quiet = 0;
    /* Until the session closes the bus (its end), or 60 s without a message. */
    for (;;) {
        int len = ts_read_line(c, line, sizeof line, 200);
        if (len < 0 || (len == 0 && ++quiet > 300)) break;
        if (len == 0) continue;
        quiet = 0;
        cJSON *m = cJSON_Parse(line);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "t");
        if (cJSON_IsNumber(t) && t->valuedouble - last >= 1.0 / 30 - 1e-9) {
            char out[256];
            gaze_at(t->valuedouble, out, sizeof out, &seq);
            assert_true(ts_send_line(c, out));
            last = t->valuedouble;
            n++;
        }
        cJSON_Delete(m);
    }
    ts_close(c);
    assert_true(n > 1000); /* about 30 a second for a minute */
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
    pid_t session = ts_spawn(argv, false);
    publish_gaze(port, session);
    int st = ts_stop(session, 0, TS_SESSION_HANG_MS);
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

    /* The glances of the synthetic gaze */
    double tol = 0.05;
    printf("glances: %g off road, %.3f s off road, centre display %g / %.3f s, mirror %.3f s, cluster %.3f s, "
           "p85 %.3f s\n", csv_value(csv, "glances_off_road"), csv_value(csv, "eyes_off_road_s"),
           csv_value(csv, "glances_center_display_n"), csv_value(csv, "glances_center_display_s"),
           csv_value(csv, "glances_mirror_left_s"), csv_value(csv, "glances_cluster_s"),
           csv_value(csv, "glance_off_road_p85_s"));
    assert_true(csv_value(csv, "glances_off_road") == 4);
    assert_true(csv_value(csv, "glances_center_display_n") == 2);
    assert_true(fabs(csv_value(csv, "glances_center_display_s") - 4.2) <= 2 * tol);
    assert_true(fabs(csv_value(csv, "glances_mirror_left_s") - 0.9) <= tol);
    assert_true(fabs(csv_value(csv, "glances_cluster_s") - 1.3) <= tol);
    assert_true(fabs(csv_value(csv, "eyes_off_road_s") - 6.4) <= 4 * tol);
    assert_true(csv_value(csv, "glances_over_2s") == 1);
    assert_true(fabs(csv_value(csv, "glance_off_road_p85_s") - 2.29) <= 2 * tol);
    assert_true(csv_value(csv, "nhtsa_glance_pass") == 0);
    assert_true(csv_value(csv, "gaze_lost_s") == 0); /* the blink is bridged */
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
