/* Integration tests of the automation and its take-over requests with the real
 * processes (docs/automation.md): headless lockstep sessions (simctl run: dispatcher,
 * physics, traffic, recorder, input-node with the scripted driver) on
 * scenarios/motorway-tor.json and variants of it, and the analysis of their drive logs:
 *   - the scripted driver reacting 2.5 s after the TOR gives a take-over time of 2.5 s
 *     within one tick, in the automation's event and in the samples (first brake);
 *   - with no reaction the budget runs out: the minimal-risk manoeuvre stops the car in
 *     its lane, with its events;
 *   - the same seed gives byte-identical samples and the same events; another seed
 *     another reaction time;
 *   - lane centring (L2) on scenarios/rural.json keeps SDLP under the documented 0.2 m;
 *   - the operator's control.automation is validated, acted on and acknowledged;
 *   - with a (virtual) wheel the force feedback turns the wheel towards the
 *     automation's steering, and the TOR's cue makes it rumble. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "test_support.h"

#define TICK 0.01

/* ---- sessions ------------------------------------------------------------------------ */

/* A copy of scenario (from the repository) in dir, with `from` replaced by `to` in its
 * text (NULL: as it is), and the files it references copied beside it. */
static void variant(const char *dir, const char *scenario, const char *other_file, const char *from, const char *to,
                    char *out, size_t n)
{
    char cmd[4096];
    snprintf(out, n, "%s/%s", dir, strrchr(scenario, '/') + 1);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", ts_root(scenario), out);
    assert_int_equal(system(cmd), 0);
    if (other_file) {
        snprintf(cmd, sizeof cmd, "cp '%s' '%s/'", ts_root(other_file), dir);
        assert_int_equal(system(cmd), 0);
    }
    if (!from) return;
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    static char text[1 << 17];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    char *at = strstr(text, from);
    if (!at) fail_msg("%s has no \"%s\" to replace", scenario, from);
    f = fopen(out, "w");
    assert_non_null(f);
    fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    fclose(f);
}

/* Runs a headless lockstep session of the scripted driver on scenario until `until`
 * seconds into out/run<k> and writes the one drive log's path to log. */
static void run(const char *scenario, const char *until, const char *out, int k, char *log, size_t n)
{
    char dir[1200], bus[64], control[64];
    snprintf(dir, sizeof dir, "%s/run%d", out, k);
    snprintf(bus, sizeof bus, "127.0.0.1:%d", ts_free_port());
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", ts_free_port());
    char *argv[] = {"simctl", "run", (char *)scenario, "--headless", "--lockstep", "--driver", "script",
                    "--until", (char *)until, "--no-analysis", "--out", dir, "--bus", bus, "--control", control, NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    int st = ts_stop(pid, 0, TS_SESSION_HANG_MS); /* the session ends by itself at --until */
    assert_true(st != -1 && WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char logs[1300];
    snprintf(logs, sizeof logs, "%s/logs/default", dir);
    DIR *d = opendir(logs);
    assert_non_null(d);
    struct dirent *e;
    log[0] = '\0';
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".sqlite") && !strstr(e->d_name, "-wal") && !strstr(e->d_name, "-shm"))
            snprintf(log, n, "%s/%s", logs, e->d_name);
    closedir(d);
    assert_true(log[0] != '\0');
}

static sqlite3 *open_log(const char *path)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return db;
}

/* One number (NAN for no row or NULL). */
static double query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    double v = NAN;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Every row of sql as text, one line each (malloc'd). */
static char *dump(sqlite3 *db, const char *sql, size_t *len)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const unsigned char *v = sqlite3_column_text(st, c);
            size_t need = (v ? strlen((const char *)v) : 4) + 2;
            if (n + need >= cap) {
                cap *= 2;
                buf = realloc(buf, cap);
                assert_non_null(buf);
            }
            n += (size_t)sprintf(buf + n, "%s%c", v ? (const char *)v : "NULL", c + 1 < sqlite3_column_count(st) ? '|' : '\n');
        }
    }
    sqlite3_finalize(st);
    *len = n;
    return buf;
}

static void remove_tree(const char *dir)
{
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Field k (0-based) of line `row` (1: the first after the header) of a CSV file. */
static double csv_field(const char *path, int row, const char *name)
{
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("%s: missing", path);
    char line[4096];
    int col = -1, r = 0;
    double v = NAN;
    while (fgets(line, sizeof line, f)) {
        int k = 0;
        for (char *tok = line, *end; tok; tok = end ? end + 1 : NULL, k++) {
            end = strchr(tok, ',');
            if (end) *end = '\0';
            tok[strcspn(tok, "\n")] = '\0';
            if (r == 0 && strcmp(tok, name) == 0) col = k;
            if (r == row && k == col) v = *tok ? atof(tok) : NAN;
        }
        if (r++ == row) break;
    }
    fclose(f);
    if (col < 0) fail_msg("%s: no column %s", path, name);
    return v;
}

static void analyse(const char *log, const char *out)
{
    char dir[1300], text[8192];
    snprintf(dir, sizeof dir, "%s/report", out);
    const char *args[] = {"report", log, "--out", dir, NULL};
    int rc = ts_run("analysis", args, text, sizeof text);
    if (rc != 0) fail_msg("analysis: %s", text);
}

/* ---- tests ----------------------------------------------------------------------------- */

/* motorway-tor: L3 from the start; the markings end at the roadworks (mw_works, x =
 * 1500 m) and the TOR comes 10 s ahead; the scripted driver brakes 2.5 s after it. */
static void scripted_reaction_gives_the_takeover_time(void **state)
{
    (void)state;
    char out[] = "/tmp/test_automation_XXXXXX", log[2048];
    assert_non_null(mkdtemp(out));
    run(ts_root("scenarios/motorway-tor.json"), "45", out, 0, log, sizeof log);
    sqlite3 *db = open_log(log);
    double t_tor = query(db, "SELECT t FROM events WHERE kind = 'automation' AND name = 'tor'");
    double t_ho = query(db, "SELECT t FROM events WHERE kind = 'automation' AND name = 'handover'");
    double tt = query(db, "SELECT json_extract(json, '$.takeover_s') FROM events WHERE kind = 'automation' AND name = 'handover'");
    double reason = query(db, "SELECT count(*) FROM events WHERE kind = 'automation' AND name = 'tor' "
                              "AND json_extract(json, '$.reason') = 'end_of_markings'");
    double cues = query(db, "SELECT count(*) FROM events WHERE kind = 'automation' AND name = 'cue' "
                            "AND json_extract(json, '$.cues') = 'hud,chime,vibration'");
    /* In the samples: the brake the scripted driver applies (the automation did not
     * brake before: it cruised at 110 km/h). */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT min(t) FROM samples WHERE t >= %.17g AND brake > 0.1", t_tor);
    double t_brake = query(db, sql);
    double x_tor = query(db, "SELECT x FROM samples WHERE t <= (SELECT t FROM events WHERE name = 'tor') ORDER BY t DESC LIMIT 1");
    double v_tor = query(db, "SELECT speed FROM samples WHERE t <= (SELECT t FROM events WHERE name = 'tor') ORDER BY t DESC LIMIT 1");
    sqlite3_close(db);
    printf("# TOR at %.2f s (x %.1f m), hand-over at %.2f s (takeover_s %.3f), first brake sample %.2f s\n",
           t_tor, x_tor, t_ho, tt, t_brake);
    assert_true(reason == 1 && cues == 1);
    /* 10 s ahead of the markings' end at x = 1500 m (306 m at 110 km/h), within the
     * route's 1 m points, the rear axle's 1.35 m and a tick. */
    assert_true(fabs(x_tor + 10 * v_tor - 1500) < 3);
    assert_true(fabs(tt - 2.5) <= TICK + 1e-9);
    assert_true(fabs(t_ho - t_tor - 2.5) <= TICK + 1e-9);
    assert_true(fabs(t_brake - t_tor - 2.5) <= TICK + 1e-9);
    /* The analysis' measures: the same, from the log. */
    analyse(log, out);
    char csv[1400];
    snprintf(csv, sizeof csv, "%s/report/tor.csv", out);
    double m_tt = csv_field(csv, 1, "takeover_time_s"), m_brake = csv_field(csv, 1, "brake_time_s");
    printf("# tor.csv: take-over time %.3f s, brake manoeuvre %.3f s\n", m_tt, m_brake);
    assert_true(fabs(m_tt - 2.5) <= TICK + 1e-9);
    assert_true(fabs(m_brake - 2.5) <= TICK + 1e-9);
    assert_int_equal(csv_field(csv, 1, "mrm"), 0);
    remove_tree(out);
}

/* Nobody reacts: 8 s after the TOR the minimal-risk manoeuvre brakes the car to a stop
 * at 3 m/s^2 in its lane, logged as mrm and mrm_stopped. */
static void no_reaction_ends_in_the_minimal_risk_stop(void **state)
{
    (void)state;
    char out[] = "/tmp/test_automation_XXXXXX", log[2048], scen[1300];
    assert_non_null(mkdtemp(out));
    variant(out, "scenarios/motorway-tor.json", NULL, "\"dist\": \"fixed\"", "\"dist\": \"none\"", scen, sizeof scen);
    run(scen, "60", out, 0, log, sizeof log);
    sqlite3 *db = open_log(log);
    double t_tor = query(db, "SELECT t FROM events WHERE kind = 'automation' AND name = 'tor'");
    double t_mrm = query(db, "SELECT t FROM events WHERE kind = 'automation' AND name = 'mrm'");
    double t_stop = query(db, "SELECT t FROM events WHERE kind = 'automation' AND name = 'mrm_stopped'");
    double handovers = query(db, "SELECT count(*) FROM events WHERE name = 'handover'");
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT speed FROM samples WHERE t <= %.17g ORDER BY t DESC LIMIT 1", t_mrm);
    double v_mrm = query(db, sql);
    double v_end = query(db, "SELECT speed FROM samples ORDER BY t DESC LIMIT 1");
    double lanes = query(db, "SELECT count(DISTINCT lane) FROM samples WHERE t > 30");
    double y_spread = query(db, "SELECT max(y) - min(y) FROM samples WHERE t > 30");
    sqlite3_close(db);
    printf("# TOR %.2f s, MRM %.2f s from %.1f km/h, stopped %.2f s (%.2f m/s^2), end speed %.3f m/s\n", t_tor,
           t_mrm, v_mrm * 3.6, t_stop, v_mrm / (t_stop - t_mrm), v_end);
    assert_true(fabs(t_mrm - t_tor - 8.0) <= TICK + 1e-9);
    assert_false(isnan(t_stop));
    assert_true(fabs(v_mrm / (t_stop - t_mrm) - 3.0) < 0.4);
    assert_true(fabs(v_end) < 0.3);
    assert_int_equal(handovers, 0);
    assert_int_equal(lanes, 1);   /* in its lane: -3 throughout */
    assert_true(y_spread < 0.3);  /* the road runs along x */
    analyse(log, out);
    char csv[1400];
    snprintf(csv, sizeof csv, "%s/report/tor.csv", out);
    assert_int_equal(csv_field(csv, 1, "mrm"), 1);
    assert_int_equal(csv_field(csv, 1, "mrm_stopped"), 1);
    assert_true(isnan(csv_field(csv, 1, "takeover_time_s")));
    remove_tree(out);
}

/* A lognormal reaction time: the same seed twice gives the same samples byte for byte
 * and the same events; another seed another hand-over. */
static void same_seed_same_log(void **state)
{
    (void)state;
    char out[] = "/tmp/test_automation_XXXXXX", scen[1300], scen8[1300], log[3][2048];
    assert_non_null(mkdtemp(out));
    const char *lognormal = "\"dist\": \"lognormal\", \"mean_s\": 2.5, \"sd_s\": 1.0, \"min_s\": 0.5, \"max_s\": 7";
    variant(out, "scenarios/motorway-tor.json", NULL, "\"dist\": \"fixed\", \"mean_s\": 2.5", lognormal, scen, sizeof scen);
    char sub[1300];
    snprintf(sub, sizeof sub, "%s/seed8", out);
    assert_int_equal(mkdir(sub, 0700), 0);
    variant(sub, "scenarios/motorway-tor.json", NULL, "\"dist\": \"fixed\", \"mean_s\": 2.5", lognormal, scen8, sizeof scen8);
    /* the seed: 26 -> 8 in the copy */
    char cmd[1500];
    snprintf(cmd, sizeof cmd, "sed -i 's/\"seed\": 26, \"brake\"/\"seed\": 8, \"brake\"/' '%s'", scen8);
    assert_int_equal(system(cmd), 0);
    for (int k = 0; k < 3; k++) run(k < 2 ? scen : scen8, "45", out, k, log[k], sizeof log[k]);
    size_t len[3], elen[3];
    char *smp[3], *ev[3];
    for (int k = 0; k < 3; k++) {
        sqlite3 *db = open_log(log[k]);
        smp[k] = dump(db, "SELECT * FROM samples ORDER BY run, tick", &len[k]);
        /* The drive's events after its start: input-node's first automation.state
         * ("engaged" at t = 0) lands before or after the clock's first tick (run -1 or
         * run 0) as the processes happen to start, which the seed does not decide (under
         * ASan the two runs differed in that one row). */
        ev[k] = dump(db, "SELECT run, t, kind, name FROM events WHERE kind IN ('automation', 'traffic', 'button') "
                         "AND t > 0 ORDER BY id", &elen[k]);
        sqlite3_close(db);
    }
    printf("# samples: %zu bytes; events:\n%s", len[0], ev[0]);
    assert_true(len[0] > 100000);
    assert_true(len[0] == len[1] && memcmp(smp[0], smp[1], len[0]) == 0);
    assert_true(elen[0] == elen[1] && memcmp(ev[0], ev[1], elen[0]) == 0);
    assert_non_null(strstr(ev[0], "|automation|handover"));
    /* seed 8 draws another reaction time: the hand-over (and what follows) differ */
    assert_false(elen[0] == elen[2] && memcmp(ev[0], ev[2], elen[0]) == 0);
    for (int k = 0; k < 3; k++) free(smp[k]), free(ev[k]);
    remove_tree(out);
}

/* L2 on the rural road's winding task (200..1200 m): SDLP below the documented 0.2 m
 * (docs/automation.md; measured 0.14 m). */
static void lane_centring_sdlp_on_the_rural_road(void **state)
{
    (void)state;
    char out[] = "/tmp/test_automation_XXXXXX", scen[1300], log[2048];
    assert_non_null(mkdtemp(out));
    variant(out, "scenarios/rural.json", "scenarios/rural-terrain.pgm", "\"tasks\": [",
            "\"automation\": {\"mode\": \"l2\", \"set_speed_kmh\": 80},\n  \"tasks\": [", scen, sizeof scen);
    run(scen, "62", out, 0, log, sizeof log);
    sqlite3 *db = open_log(log);
    double engaged = query(db, "SELECT count(*) FROM events WHERE kind = 'automation' AND name = 'engaged' "
                               "AND json_extract(json, '$.mode') = 'l2'");
    double off = query(db, "SELECT count(*) FROM events WHERE kind = 'automation' AND name IN ('override', 'tor', 'disengaged')");
    sqlite3_close(db);
    assert_int_equal(engaged, 1);
    assert_int_equal(off, 0);
    analyse(log, out);
    char csv[1400];
    snprintf(csv, sizeof csv, "%s/report/tasks.csv", out);
    double sdlp = csv_field(csv, 1, "sdlp_m");
    printf("# L2 on rural.json keep_lane_winding: SDLP %.3f m\n", sdlp);
    assert_true(sdlp > 0 && sdlp < 0.2);
    remove_tree(out);
}

/* control.automation through the operator's endpoint: validated by the dispatcher,
 * acted on by input-node and acknowledged; a TOR while manual is refused with why. */
static void operator_command_is_acknowledged(void **state)
{
    (void)state;
    ts_dispatcher d;
    static const char *const wait[] = {"--ack-wait-ms", "2000", NULL};
    assert_true(ts_dispatcher_start(&d, wait));
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    ts_conn *obs = ts_join(d.port, "observer", "[\"automation.event\",\"dispatcher.joined\"]", NULL);
    assert_non_null(obs);
    char *argv[] = {"input-node", "--bus", bus, "--driver", "script", "--scenario",
                    (char *)ts_root("scenarios/motorway-tor.json"), NULL};
    pid_t in = ts_spawn(argv, false);
    assert_true(in > 0);
    for (;;) {
        cJSON *j = ts_expect_topic(obs, "dispatcher.joined", 5000, NULL, 0);
        assert_non_null(j);
        const cJSON *name = cJSON_GetObjectItem(j, "name");
        bool input = cJSON_IsString(name) && strcmp(name->valuestring, "input") == 0;
        cJSON_Delete(j);
        if (input) break;
    }
    char out[4096];
    const char *tor[] = {"automation", "tor", "--control", d.control_url, NULL};
    assert_int_equal(ts_run("simctl", tor, out, sizeof out), 1);
    assert_non_null(strstr(out, "REFUSED by input"));
    assert_non_null(strstr(out, "no TOR in manual mode"));
    const char *l3[] = {"automation", "l3", "--control", d.control_url, NULL};
    assert_int_equal(ts_run("simctl", l3, out, sizeof out), 0);
    assert_non_null(strstr(out, "automation: done by input"));
    cJSON *e = ts_expect_topic(obs, "automation.event", 3000, NULL, 0);
    assert_non_null(e);
    assert_string_equal(cJSON_GetObjectItem(e, "event")->valuestring, "engaged");
    assert_string_equal(cJSON_GetObjectItem(e, "mode")->valuestring, "l3");
    assert_string_equal(cJSON_GetObjectItem(e, "reason")->valuestring, "operator");
    cJSON_Delete(e);
    assert_int_equal(ts_run("simctl", tor, out, sizeof out), 0);
    e = ts_expect_topic(obs, "automation.event", 3000, NULL, 0);
    assert_non_null(e);
    assert_string_equal(cJSON_GetObjectItem(e, "event")->valuestring, "tor");
    assert_string_equal(cJSON_GetObjectItem(e, "reason")->valuestring, "operator");
    cJSON_Delete(e);
    const char *bad[] = {"automation", "set", "100", "0.2", "--control", d.control_url, NULL};
    assert_true(ts_run("simctl", bad, out, sizeof out) != 0);
    assert_non_null(strstr(out, "\"gap_s\" must be a number from 0.8 to 3.0"));
    ts_stop(in, SIGTERM, 5000);
    ts_close(obs);
    ts_dispatcher_stop(&d);
}

/* The "command" lines of input-node's --ffb-log: how many, and the last one's torque
 * and rumble. */
static int commands(const char *log, double *torque, double *rumble)
{
    FILE *f = fopen(log, "r");
    if (!f) return 0;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, "\"event\":\"command\"") || !strchr(line, '\n')) continue;
        cJSON *m = cJSON_Parse(line);
        const cJSON *tq = cJSON_GetObjectItem(m, "torque"), *rb = cJSON_GetObjectItem(m, "rumble");
        if (cJSON_IsNumber(tq)) *torque = tq->valuedouble, *rumble = cJSON_IsNumber(rb) ? rb->valuedouble : 0, n++;
        cJSON_Delete(m);
    }
    fclose(f);
    return n;
}

/* Sends a vehicle.state at y (x 1000 m on mw_a, heading along +x, 110 km/h), waits
 * for the automation's step on it, sends an ffb.command with no torque and returns the
 * torque and rumble the node logs for it. */
static void state_then_ffb(ts_conn *phys, const char *log, int *seq, int *seen, double t, double y, double *torque,
                           double *rumble)
{
    char msg[512];
    double tq, rb;
    *seen = commands(log, &tq, &rb);
    snprintf(msg, sizeof msg,
             "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%d,\"t\":%.2f,\"speed\":30.5,"
             "\"pos\":[%.2f,%.3f,0],\"heading\":0,\"yaw_rate\":0,\"gear\":5,\"rpm\":3000}",
             ++*seq, t, 1000 + 30.5 * t, y);
    assert_true(ts_send_line(phys, msg));
    for (;;) { /* its automation.state for this t */
        cJSON *s = ts_expect_topic(phys, "automation.state", 5000, NULL, 0);
        assert_non_null(s);
        bool now = fabs(cJSON_GetObjectItem(s, "t")->valuedouble - t) < 1e-6;
        cJSON_Delete(s);
        if (now) break;
    }
    snprintf(msg, sizeof msg, "{\"topic\":\"ffb.command\",\"src\":\"physics\",\"seq\":%d,\"t\":%.2f,\"torque\":0}",
             ++*seq, t);
    assert_true(ts_send_line(phys, msg));
    double deadline = ts_now_ms() + 5000;
    while (ts_now_ms() < deadline) {
        if (commands(log, torque, rumble) > *seen) {
            (*seen)++;
            return;
        }
        ts_sleep_ms(10); /* polling the node's log file for its line, not ordering events */
    }
    fail_msg("no ffb.command in %s", log);
}

static void wheel_follows_the_automation(void **state)
{
    (void)state;
    char vt[] = "/tmp/test_automation_vt_XXXXXX", log[] = "/tmp/test_automation_ffb_XXXXXX";
    int fd = mkstemp(vt);
    assert_true(fd >= 0);
    /* the default mapping: pedals released at +32767 */
    const char *script = "wheel axes 4 buttons 12 hats 1\n0.00 axis 1 32767\n0.00 axis 2 32767\n0.00 axis 3 32767\n";
    assert_int_equal(write(fd, script, strlen(script)), (ssize_t)strlen(script));
    close(fd);
    fd = mkstemp(log);
    assert_true(fd >= 0);
    close(fd);
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    ts_conn *phys = ts_join(d.port, "physics", "[\"automation.\",\"input.controls\"]", NULL);
    assert_non_null(phys);
    char *argv[] = {"input-node", "--bus", bus, "--driver", "wheel", "--mapping-dir", "/nonexistent",
                    "--virtual-test-script", vt, "--ffb-log", log, "--scenario",
                    (char *)ts_root("scenarios/motorway-tor.json"), NULL};
    pid_t in = ts_spawn(argv, false);
    assert_true(in > 0);
    /* The wheel as the node reads it, pedals released, before the car moves (else the
     * half-pressed brake of the axes' start would disengage the automation at once). */
    for (;;) {
        cJSON *j = ts_expect_topic(phys, "input.controls", 30000, NULL, 0);
        assert_non_null(j);
        bool released = cJSON_GetObjectItem(j, "brake")->valuedouble == 0;
        cJSON_Delete(j);
        if (released) break;
    }
    int seq = 0, seen = 0;
    double left = 0, right = 0, rumble = 0;
    /* The scenario engages L3 at the first state. Lane -3's centre: y = -6.625. The
     * car 0.8 m left of it: the automation steers right, the wheel is pulled right
     * (negative torque); 0.8 m right: left. */
    state_then_ffb(phys, log, &seq, &seen, 0.01, -6.625 + 0.8, &left, &rumble);
    state_then_ffb(phys, log, &seq, &seen, 0.02, -6.625 - 0.8, &right, &rumble);
    printf("# wheel torque: car left of the lane %.3f, right of it %.3f\n", left, right);
    assert_true(left < -0.05);
    assert_true(right > 0.05);
    assert_true(rumble == 0);
    /* An operator's TOR: the cue's rumble. */
    char out[4096];
    const char *tor[] = {"automation", "tor", "--control", d.control_url, NULL};
    assert_int_equal(ts_run("simctl", tor, out, sizeof out), 0);
    double tq;
    state_then_ffb(phys, log, &seq, &seen, 0.03, -6.625, &tq, &rumble);
    assert_true(rumble >= 0.5);
    ts_stop(in, SIGTERM, 5000);
    ts_close(phys);
    ts_dispatcher_stop(&d);
    unlink(vt);
    unlink(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scripted_reaction_gives_the_takeover_time),
        cmocka_unit_test(no_reaction_ends_in_the_minimal_risk_stop),
        cmocka_unit_test(same_seed_same_log),
        cmocka_unit_test(lane_centring_sdlp_on_the_rural_road),
        cmocka_unit_test(operator_command_is_acknowledged),
        cmocka_unit_test(wheel_follows_the_automation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
