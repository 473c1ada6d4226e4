/* Unit tests of the instruments in the drive log: the time base (wall clock onto
 * simulation time in real time, while paused, in lockstep, past the newest tick),
 * sensor.<name> and gaze.target on the wire (byte-exact, and their errors), and
 * sim_recording's gaze and sensor rows: the time each lands at, a replay stored once,
 * the hit test's target, a sender that stops and comes back. */
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

#include "sim_msg_sensor.h"
#include "sim_recording.h"
#include "sim_timebase.h"

static char dir[64], path[128];

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/test_recording_instr.XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(path, sizeof path, "%s/drive.sqlite", dir);
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void timebase_maps_real_time_pause_and_lockstep(void **state)
{
    static sim_timebase tb;
    sim_timebase_init(&tb, 0.01);
    int64_t run;
    double t;
    bool clamped;
    assert_false(sim_timebase_map(&tb, 1000.0, &run, &t, NULL));
    /* real time: ticks 10 ms apart at wall 1000.00, 1000.01, ... for t 5.00, 5.01 */
    for (int k = 0; k < 5; k++) sim_timebase_add(&tb, 1000.0 + k * 0.01, 0, 5.0 + k * 0.01, false);
    assert_true(sim_timebase_map(&tb, 1000.025, &run, &t, &clamped));
    assert_true(fabs(t - 5.025) < 1e-9 && run == 0 && !clamped);
    /* past the newest tick (wall 1000.04): real time for less than one period */
    assert_true(sim_timebase_map(&tb, 1000.043, &run, &t, NULL));
    assert_true(fabs(t - 5.043) < 1e-9);
    assert_true(sim_timebase_map(&tb, 1001.0, &run, &t, NULL));
    assert_true(t < 5.05 && t > 5.049);
    /* paused at t 5.05 from wall 1000.05 to 1002.05: the whole pause is t 5.05 */
    for (int k = 0; k <= 200; k++) sim_timebase_add(&tb, 1000.05 + k * 0.01, 0, 5.05, true);
    assert_true(sim_timebase_map(&tb, 1001.337, &run, &t, NULL));
    assert_true(t == 5.05);
    /* lockstep: 10 ms of simulation per 1 ms of wall */
    for (int k = 1; k <= 10; k++) sim_timebase_add(&tb, 1002.05 + k * 0.001, 1, k * 0.01, false);
    assert_true(sim_timebase_map(&tb, 1002.0555, &run, &t, NULL));
    assert_true(fabs(t - 0.055) < 1e-9 && run == 1);
    /* older than the ring (1024 points): the oldest noted */
    for (int k = 0; k < 2000; k++) sim_timebase_add(&tb, 1003 + k * 0.01, 1, 1 + k * 0.01, false);
    assert_true(sim_timebase_map(&tb, 1000.0, &run, &t, &clamped));
    assert_true(clamped && fabs(t - (1 + (2000 - 1024) * 0.01)) < 1e-9);
    /* a wall clock stepping back is taken as no time passing */
    sim_timebase_add(&tb, 900, 1, 30, false);
    assert_true(sim_timebase_map(&tb, 1022.99, &run, &t, NULL));
    assert_true(t >= 20.99 - 1e-9 && t <= 30);
}

static void sensor_message_is_byte_exact_and_checked(void **state)
{
    sim_msg_sensor m = {.t_src = 12.5, .wall = NAN, .sim_t = NAN, .n = 2,
                        .ch = {{"ecg", "mV", 0.25}, {"eda", "", 3}}};
    cJSON *o = sim_msg_sensor_encode(&m);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"t_src\":12.5,\"values\":{\"ecg\":0.25,\"eda\":3},\"units\":{\"ecg\":\"mV\"}}");
    sim_msg_sensor back;
    sim_error err = {0};
    assert_int_equal(sim_msg_sensor_decode("sensor.ecg", o, &back, &err), 0);
    assert_string_equal(back.sensor, "ecg");
    assert_int_equal(back.n, 2);
    assert_string_equal(back.ch[0].unit, "mV");
    assert_true(back.ch[1].value == 3 && back.t_src == 12.5 && isnan(back.wall));
    free(s);
    cJSON_Delete(o);
    static const struct {
        const char *topic, *json, *says;
    } bad[] = {
        {"sensor.", "{\"values\":{\"a\":1}}", "expected a topic sensor.NAME"},
        {"sensor.a b", "{\"values\":{\"a\":1}}", "expected a topic sensor.NAME"},
        {"sensor.ecg", "{}", "values"},
        {"sensor.ecg", "{\"values\":{}}", "an object of numeric channels"},
        {"sensor.ecg", "{\"values\":{\"a\":\"1\"}}", "values.a"},
        {"sensor.ecg", "{\"values\":{\"a\":1},\"units\":{\"b\":\"mV\"}}", "units.b"},
        {"sensor.ecg", "{\"values\":{\"a\":1},\"units\":{\"a\":\"a unit far too long\"}}", "at most 15 bytes"},
        {"sensor.ecg", "{\"values\":{\"a\":1},\"wall\":-3}", "wall"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *b = cJSON_Parse(bad[i].json);
        err.msg[0] = '\0';
        assert_int_not_equal(sim_msg_sensor_decode(bad[i].topic, b, &back, &err), 0);
        if (!strstr(err.msg, bad[i].says)) fail_msg("%s %s: %s", bad[i].topic, bad[i].json, err.msg);
        cJSON_Delete(b);
    }
    sim_msg_gaze_target gt = {.source = "pupil", .target = "vehicle:car7", .distance_m = 27.5};
    o = sim_msg_gaze_target_encode(&gt);
    s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"source\":\"pupil\",\"target\":\"vehicle:car7\",\"distance_m\":27.5}");
    free(s);
    cJSON_Delete(o);
}

static int feed(sim_recording *rec, sim_drivelog_writer *w, double wall, const char *line)
{
    cJSON *msg = cJSON_Parse(line);
    assert_non_null(msg);
    sim_recording_set_wall(rec, wall);
    sim_error err = {0};
    int rc = sim_recording_feed(rec, w, cJSON_GetObjectItem(msg, "topic")->valuestring, msg, line, strlen(line),
                                &err);
    cJSON_Delete(msg);
    return rc;
}

typedef struct rows {
    sim_drivelog_gaze g[16];
    size_t ng;
    sim_drivelog_sensor s[16];
    char unit[16][16];
    size_t ns;
} rows;

static int take_gaze(const sim_drivelog_gaze *g, void *user)
{
    rows *r = user;
    if (r->ng < 16) r->g[r->ng++] = *g;
    return 0;
}

static int take_sensor(const sim_drivelog_sensor *s, const char *unit, void *user)
{
    rows *r = user;
    if (r->ns < 16) {
        snprintf(r->unit[r->ns], 16, "%s", unit);
        r->s[r->ns++] = *s;
    }
    return 0;
}

static void samples_land_on_simulation_time(void **state)
{
    sim_error err = {0};
    sim_drivelog_writer *w;
    assert_int_equal(sim_drivelog_writer_open(path, NULL, &w, &err), 0);
    static sim_recording rec;
    sim_recording_init(&rec, false, -1);
    /* the car's areas and eye: the road window, the left mirror */
    static const sim_gaze_area areas[] = {{"road", -15, 15, -4, 12, true}, {"mirror_left", 30, 60, -15, 5, false}};
    const double eye[3] = {0, 0, 1.2};
    sim_recording_set_gaze(&rec, areas, 2, eye);
    char line[512];
    /* ticks at wall 2000 + t, t = 0 .. 0.05; the car at the origin facing +x; a car
     * 20 m ahead */
    for (int k = 0; k <= 5; k++) {
        snprintf(line, sizeof line, "{\"topic\":\"sim.tick\",\"t\":%.2f,\"n\":%d,\"run\":0,\"paused\":false}", k * 0.01, k);
        assert_int_equal(feed(&rec, w, 2000 + k * 0.01, line), 0);
        snprintf(line, sizeof line, "{\"topic\":\"vehicle.state\",\"t\":%.2f,\"pos\":[0,0,0],\"heading\":0,\"speed\":0}",
                 k * 0.01);
        assert_int_equal(feed(&rec, w, 2000 + k * 0.01, line), 0);
    }
    assert_int_equal(feed(&rec, w, 2000.05, "{\"topic\":\"traffic.state\",\"t\":0.05,\"run\":0,\"vehicles\":["
                                            "{\"id\":\"car7\",\"pos\":[20,0,0],\"heading\":0,\"size\":[4.5,1.8,1.5]}],"
                                            "\"lead\":null}"), 0);
    /* gaze: taken at wall 2000.023 (t 0.023), arriving at 2000.05; straight at car7 */
    const char *g1 = "{\"topic\":\"gaze.sample\",\"src\":\"pupil\",\"t\":0,\"valid\":true,\"yaw_deg\":0,"
                     "\"pitch_deg\":-1,\"t_src\":77.023,\"wall\":2000.023,\"confidence\":0.9}";
    assert_int_equal(feed(&rec, w, 2000.05, g1), 0);
    assert_true(rec.hit_new);
    assert_string_equal(rec.hit.name, "vehicle:car7");
    assert_int_equal(feed(&rec, w, 2000.06, g1), 0); /* a replay: stored once */
    /* at the left mirror, known exactly (sim_t), with a point on a tracked surface */
    assert_int_equal(feed(&rec, w, 2000.05, "{\"topic\":\"gaze.sample\",\"src\":\"pupil\",\"t\":0,\"valid\":true,"
                                            "\"yaw_deg\":45,\"pitch_deg\":-5,\"t_src\":77.031,\"sim_t\":0.031,"
                                            "\"surface_x\":0.25,\"surface_y\":0.875}"), 0);
    /* a sensor on the envelope's t only; one stamped with its arrival (no stamp at all) */
    assert_int_equal(feed(&rec, w, 2000.05, "{\"topic\":\"sensor.ecg\",\"src\":\"b\",\"t\":0.04,"
                                            "\"values\":{\"ecg\":0.5},\"units\":{\"ecg\":\"mV\"}}"), 0);
    assert_int_equal(feed(&rec, w, 2000.045, "{\"topic\":\"sensor.hr\",\"src\":\"b\",\"wall\":2000.045,"
                                             "\"values\":{\"hr\":61}}"), 0);
    /* stamped after the newest tick (it overtook the ticks of its moment): held until
     * the tick of wall 2000.07 (t 0.07) comes, then between 0.06 and 0.07 */
    assert_int_equal(feed(&rec, w, 2000.05, "{\"topic\":\"sensor.eda\",\"src\":\"b\",\"wall\":2000.064,"
                                            "\"values\":{\"eda\":2}}"), 0);
    assert_int_equal(rec.n_held_sensor, 1);
    for (int k = 6; k <= 7; k++) {
        snprintf(line, sizeof line, "{\"topic\":\"sim.tick\",\"t\":%.2f,\"n\":%d,\"run\":0,\"wall\":%.3f}",
                 k * 0.01, k, 2000 + k * 0.01);
        assert_int_equal(feed(&rec, w, 2000.09, line), 0); /* arriving late: the stamp counts */
        assert_int_equal(rec.n_held_sensor, k == 6 ? 1 : 0);
    }
    /* a bad one: said, nothing kept */
    assert_int_equal(feed(&rec, w, 2000.05, "{\"topic\":\"sensor.ecg\",\"values\":{\"ecg\":\"x\"}}"), SIM_EINVAL);
    /* silence: 1.5 s later the senders count as stopped; then ecg comes back */
    sim_recording_set_wall(&rec, 2001.6);
    assert_int_equal(sim_recording_check_sources(&rec, w, &err), 0);
    assert_int_equal(sim_recording_check_sources(&rec, w, &err), 0); /* said once */
    assert_int_equal(feed(&rec, w, 2001.7, "{\"topic\":\"sensor.ecg\",\"src\":\"b\",\"t\":0.05,"
                                           "\"values\":{\"ecg\":0.7}}"), 0);
    assert_int_equal(sim_drivelog_writer_close(w, &err), 0);

    sim_drivelog_reader *r;
    assert_int_equal(sim_drivelog_reader_open(path, &r, &err), 0);
    assert_int_equal(sim_drivelog_schema_version(r), SIM_DRIVELOG_SCHEMA_VERSION);
    static rows got;
    assert_int_equal(sim_drivelog_each_gaze(r, sim_drivelog_range_all(), take_gaze, &got, &err), 0);
    assert_int_equal(got.ng, 2);
    assert_true(fabs(got.g[0].t - 0.023) < 1e-9);
    assert_true(got.g[0].src_t == 77.023 && got.g[0].wall == 2000.023 && got.g[0].confidence == 0.9);
    assert_string_equal(got.g[0].source, "pupil");
    assert_string_equal(got.g[0].target, "vehicle:car7");
    assert_true(isnan(got.g[0].surface_x) && isnan(got.g[0].surface_y)); /* none given */
    assert_true(got.g[1].t == 0.031);
    assert_string_equal(got.g[1].target, "mirror_left");
    assert_true(got.g[1].surface_x == 0.25 && got.g[1].surface_y == 0.875);
    assert_int_equal(sim_drivelog_each_sensor(r, sim_drivelog_range_all(), NULL, take_sensor, &got, &err), 0);
    assert_int_equal(got.ns, 4);
    assert_true(got.s[0].t == 0.04 && got.s[0].value == 0.5); /* the envelope's t */
    assert_string_equal(got.unit[0], "mV");
    assert_true(fabs(got.s[1].t - 0.045) < 1e-9 && got.s[1].value == 61); /* its wall, mapped */
    assert_string_equal(got.s[1].sensor, "hr");
    assert_string_equal(got.unit[1], "");
    assert_string_equal(got.s[3].sensor, "eda"); /* read in t order: after ecg at 0.05 */
    assert_true(fabs(got.s[3].t - 0.064) < 1e-9);
    sim_drivelog_event *ev;
    size_t ne;
    assert_int_equal(sim_drivelog_read_events(r, sim_drivelog_range_all(), &ev, &ne, &err), 0);
    int stopped = 0, resumed = 0;
    for (size_t i = 0; i < ne; i++) {
        if (strcmp(ev[i].kind, "sensor")) continue;
        if (!strcmp(ev[i].name, "stopped")) stopped++;
        if (!strcmp(ev[i].name, "resumed")) {
            resumed++;
            assert_non_null(strstr(ev[i].json, "\"source\":\"sensor.ecg\""));
        }
    }
    assert_int_equal(stopped, 4); /* pupil, sensor.ecg, sensor.hr, sensor.eda */
    assert_int_equal(resumed, 1);
    sim_drivelog_events_free(ev, ne);
    sim_drivelog_reader_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timebase_maps_real_time_pause_and_lockstep),
        cmocka_unit_test(sensor_message_is_byte_exact_and_checked),
        cmocka_unit_test_setup_teardown(samples_land_on_simulation_time, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
