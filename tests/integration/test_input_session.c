/* Integration test: the scripted driver drives the real physics node. A headless
 * simctl session (dispatcher, physics-node, recorder, input-node in lockstep) on
 * scenarios/lane-change.json for 40 s of simulated time; the drive log must show the
 * car pulling away, shifting up, holding the 60 km/h limit and following the ideal
 * lane through the first two lane changes inside the driving tube. */
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
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "test_support.h"

/* One number from the drive log. */
static double query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_type(st, 0) == SQLITE_NULL, 0);
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void scripted_driver_drives_physics(void **state)
{
    char out[] = "/tmp/test_input_session_XXXXXX";
    assert_non_null(mkdtemp(out));
    char bus[64], control[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", ts_free_port());
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", ts_free_port());
    char scen[1024];
    snprintf(scen, sizeof scen, "%s", ts_root("scenarios/lane-change.json"));
    char *argv[] = {"simctl", "run", scen, "--headless", "--driver", "script", "--until", "40",
                    "--no-analysis", "--out", out, "--bus", bus, "--control", control, NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    int st = -1;
    double end = ts_now_ms() + 60000;
    while (waitpid(pid, &st, WNOHANG) == 0 && ts_now_ms() < end) ts_sleep_ms(20);
    if (ts_now_ms() >= end) ts_stop(pid, SIGKILL, 1000);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);

    /* The one drive log under OUT/logs/default. */
    char dir[1200], path[2400] = "";
    snprintf(dir, sizeof dir, "%s/logs/default", out);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".sqlite") && !strstr(e->d_name, "-wal") && !strstr(e->d_name, "-shm"))
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    closedir(d);
    assert_true(path[0] != '\0');
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    double tmax = query(db, "SELECT max(t) FROM samples");
    double v_end = query(db, "SELECT speed FROM samples ORDER BY t DESC LIMIT 1");
    double gear = query(db, "SELECT gear FROM samples ORDER BY t DESC LIMIT 1");
    double v_hold = query(db, "SELECT max(abs(speed - 60 / 3.6)) FROM samples WHERE t > 15");
    double dev = query(db, "SELECT max(abs(lat_dev)) FROM samples WHERE task IS NOT NULL");
    double s_end = query(db, "SELECT s FROM samples ORDER BY t DESC LIMIT 1");
    printf("# 40 s: s %.1f m, speed %.2f m/s (max error after 15 s %.2f), gear %.0f, "
           "max |lat_dev| %.3f m\n", s_end, v_end, v_hold, gear, dev);
    sqlite3_close(db);
    assert_true(tmax > 39.9);
    /* From standstill at s = 20 m: about 600 m in 40 s at up to 60 km/h. */
    assert_true(s_end > 500 && s_end < 20 + 40 * 60 / 3.6);
    assert_true(v_hold < 0.5);
    assert_true(gear >= 2);
    /* Task T1 (from s = 100) has lane changes at 250 and 420: inside its 1 m tube. */
    assert_true(dev < 1.0);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scripted_driver_drives_physics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
