/* Unit tests of the drive-log CSV export: byte-exact files for a small log, time and
 * sector bounds, bad bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_drivelog.h"

typedef struct fixture {
    char dir[64];
    char path[128];
    sim_drivelog_reader *r;
} fixture;

/* Three samples of run 1 and one of run 2; the second has every nullable field NULL,
 * ids carry a comma and a quote; two events whose JSON needs quoting. */
static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_drivelog_csv.XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%s/drive.sqlite", f->dir);
    sim_drivelog_writer *w;
    if (sim_drivelog_writer_open(f->path, NULL, &w, NULL)) return -1;
    sim_drivelog_sample s;
    for (int i = 0; i < 4; i++) {
        sim_drivelog_sample_init(&s);
        s.run = i < 3 ? 1 : 2;
        s.tick = i < 3 ? i : 0;
        s.t = i < 3 ? i * 0.01 : 0.0;
        if (i != 1) {
            s.speed = 16.5 + i;
            s.accel = -0.1;
            s.headway_dist = 30.25;
            s.headway_time = 30.25 / s.speed;
            s.lat_dev = 0.1;
            s.lane = -1;
            s.s = 1e6;
            s.d = -1.75;
            s.x = 123456.789;
            s.y = -0.000125;
            s.z = 2.0;
            s.heading = M_PI;
            s.yaw_rate = 0.0;
            s.steer_wheel = -0.5;
            s.wheel_angle = 1.0 / 30.0;
            s.throttle = 0.3;
            s.brake = 0.0;
            s.clutch = 1.0;
            s.gear = 3;
            s.rpm = 3000.0;
            snprintf(s.sector, sizeof s.sector, i == 0 ? "S1" : "lane \"2\", left");
            snprintf(s.task, sizeof s.task, i == 2 ? "T1" : "");
            snprintf(s.road, sizeof s.road, i == 0 ? "" : "r,1");
        }
        if (sim_drivelog_append_sample(w, &s, NULL)) return -1;
    }
    if (sim_drivelog_append_event(w, 1, 0.01, "button", "horn",
                                  "{\"role\":\"horn\",\"pressed\":true}", NULL) ||
        sim_drivelog_append_event(w, 1, 0.02, "control", "hud", "{\"text\":\"two\\nlines\"}\n",
                                  NULL) ||
        sim_drivelog_writer_close(w, NULL))
        return -1;
    if (sim_drivelog_reader_open(f->path, &f->r, NULL)) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sim_drivelog_reader_close(f->r);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static char *slurp(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static const char HEADER[] =
    "run,tick,t,speed,accel,headway_dist,headway_time,lat_dev,lane,s,d,x,y,z,heading,"
    "yaw_rate,steer_wheel,wheel_angle,throttle,brake,clutch,gear,rpm,sector,task,road\r\n";

static void exports_byte_exact(void **state)
{
    fixture *f = *state;
    sim_error err = {0};
    assert_int_equal(sim_drivelog_export_csv(f->r, sim_drivelog_range_all(), f->dir, &err), 0);
    char want[4096];
    snprintf(want, sizeof want, "%s%s", HEADER,
             /* shortest round-trip digits, as Python's repr() gives them */
             "1,0,0,16.5,-0.1,30.25,1.8333333333333333,0.1,-1,1000000,-1.75,123456.789,-0.000125,2,"
             "3.141592653589793,0,-0.5,0.03333333333333333,0.3,0,1,3,3000,S1,,\r\n"
             "1,1,0.01,,,,,,,,,,,,,,,,,,,,,,,\r\n"
             "1,2,0.02,18.5,-0.1,30.25,1.635135135135135,0.1,-1,1000000,-1.75,123456.789,-0.000125,2,"
             "3.141592653589793,0,-0.5,0.03333333333333333,0.3,0,1,3,3000,\"lane \"\"2\"\", left\",T1,\"r,1\"\r\n"
             "2,0,0,19.5,-0.1,30.25,1.5512820512820513,0.1,-1,1000000,-1.75,123456.789,-0.000125,2,"
             "3.141592653589793,0,-0.5,0.03333333333333333,0.3,0,1,3,3000,\"lane \"\"2\"\", left\",,\"r,1\"\r\n");
    assert_string_equal(slurp(f->dir, "samples.csv"), want);
    assert_string_equal(slurp(f->dir, "events.csv"),
                        "run,t,kind,name,json\r\n"
                        "1,0.01,button,horn,\"{\"\"role\"\":\"\"horn\"\",\"\"pressed\"\":true}\"\r\n"
                        "1,0.02,control,hud,\"{\"\"text\"\":\"\"two\\nlines\"\"}\n\"\r\n");
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s/samples.csv.tmp", f->dir);
    assert_int_equal(access(tmp, F_OK), -1);
}

static void bounds_by_time_and_sector(void **state)
{
    fixture *f = *state;
    sim_error err = {0};
    double from, to;
    assert_int_equal(sim_drivelog_parse_bound(f->r, "sector:S1", false, 1, &from, &err), 0);
    assert_int_equal(sim_drivelog_parse_bound(f->r, "task:T1", true, 1, &to, &err), 0);
    assert_true(from == 0.0 && to == 0.02);
    assert_int_equal(sim_drivelog_parse_bound(f->r, "lane \"2\", left", false, 1, &from, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "--from"));
    assert_int_equal(sim_drivelog_parse_bound(f->r, "0.015", false, 1, &from, &err), 0);
    assert_true(from == 0.015);
    assert_int_equal(sim_drivelog_parse_bound(f->r, "sector:", true, 1, &to, &err), SIM_EINVAL);
    assert_int_equal(sim_drivelog_parse_bound(f->r, "sector:nope", true, 1, &to, &err), SIM_ENOTFOUND);
    assert_int_equal(sim_drivelog_parse_bound(f->r, "12s", true, 1, &to, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "'12s'"));

    sim_drivelog_range range = {.run = 1, .t_from = 0.015, .t_to = 0.02};
    assert_int_equal(sim_drivelog_export_csv(f->r, range, f->dir, &err), 0);
    const char *s = slurp(f->dir, "samples.csv");
    assert_int_equal(strncmp(s, HEADER, strlen(HEADER)), 0);
    s += strlen(HEADER);
    assert_int_equal(strncmp(s, "1,2,0.02,", 9), 0);
    assert_non_null(strstr(s, "T1,\"r,1\"\r\n"));
    assert_null(strstr(s + 1, "\r\n1,")); /* one row only */
    const char *e = slurp(f->dir, "events.csv");
    assert_string_equal(e, "run,t,kind,name,json\r\n"
                           "1,0.02,control,hud,\"{\"\"text\"\":\"\"two\\nlines\"\"}\n\"\r\n");
}

static void unwritable_directory(void **state)
{
    fixture *f = *state;
    sim_error err = {0};
    char dir[128];
    snprintf(dir, sizeof dir, "%s/missing", f->dir);
    assert_int_equal(sim_drivelog_export_csv(f->r, sim_drivelog_range_all(), dir, &err), SIM_EIO);
    assert_non_null(strstr(err.msg, "missing/samples.csv.tmp"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(exports_byte_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(bounds_by_time_and_sector, setup, teardown),
        cmocka_unit_test_setup_teardown(unwritable_directory, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
