/* A drive into a tree, with the real modules: `simctl run` headless on
 * tests/data/tree_on_the_lane.json (an oak standing in the start lane at s = 150; the
 * scripted driver does not steer round static objects). The car must stop at the
 * tree, never through it; the drive log must hold one `collision` event naming the
 * oak (from physics' vehicle.collision) with the approach speed, and the analysis must
 * count one collision in the task. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"
#include "ts_drive.h"

static void drive_into_a_tree(void **state)
{
    (void)state;
    char out[] = "/tmp/test_static_collision_XXXXXX";
    assert_non_null(mkdtemp(out));
    char bus[64], control[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", ts_free_port());
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", ts_free_port());
    char *argv[] = {"simctl", "run", (char *)ts_root("tests/data/tree_on_the_lane.json"), "--headless", "--until",
                    "16", "--no-analysis", "--out", out, "--bus", bus, "--control", control, NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    int st = ts_stop(pid, 0, 120000);
    assert_true(st != -1 && WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char dir[1200], path[2400];
    snprintf(dir, sizeof dir, "%s/logs/default", out);
    ts_drive_find_log(dir, path, sizeof path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal((int)ts_drive_query(db, "SELECT count(*) FROM events WHERE kind = 'collision'"), 1);
    assert_int_equal((int)ts_drive_query(db, "SELECT count(*) FROM events WHERE kind = 'collision' AND name = 'oak'"), 1);
    double speed = ts_drive_query(db, "SELECT json_extract(json, '$.speed') FROM events WHERE kind = 'collision'");
    double t_hit = ts_drive_query(db, "SELECT t FROM events WHERE kind = 'collision'");
    /* the scripted driver holds 50 km/h; it met the tree at about that speed */
    printf("collision with the oak at t %.2f s, %.2f m/s\n", t_hit, speed);
    assert_true(speed > 12.0 && speed < 14.5);
    /* never through: the body's front (centre + 2.1 m) stays short of the trunk's far side */
    double max_x = ts_drive_query(db, "SELECT max(x) FROM samples");
    double last_speed = ts_drive_query(db, "SELECT abs(speed) FROM samples ORDER BY t DESC LIMIT 1");
    printf("the car's centre at most at x %.2f m, last speed %.2f m/s\n", max_x, last_speed);
    assert_true(max_x < 150.0 - 2.0);
    assert_true(last_speed < 0.1);
    sqlite3_close(db);

    char report[1200];
    snprintf(report, sizeof report, "%s/report", out);
    const char *args[] = {"report", path, "--out", report, NULL};
    static char text[65536];
    assert_int_equal(ts_run("analysis", args, text, sizeof text), 0);
    char csv[1300], v[64];
    snprintf(csv, sizeof csv, "%s/tasks.csv", report);
    ts_drive_csv_field(csv, "task", v, sizeof v);
    assert_string_equal(v, "keep_lane");
    ts_drive_csv_field(csv, "collisions", v, sizeof v);
    assert_string_equal(v, "1");
    if (getenv("KEEP")) return;
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(drive_into_a_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
