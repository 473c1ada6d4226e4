/* Unit tests of sim_recording with a scenario: sector, task and the lateral deviation
 * from the task's ideal lane, located from the sample's position (hand-solved cases). */
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

#include "sim_recording.h"

/* A straight 500 m road along +x with two right lanes (centres d = -1.75 and -5.25);
 * sector S1 over s 100..300, task T1 over s 120..280 whose ideal line keeps lane -1
 * up to s 200 and ramps to lane -2 by s 220. */
static const char SCENARIO[] =
    "{\"format\":1,\"name\":\"recording test\","
    "\"roads\":[{\"id\":\"r\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},"
    "\"segments\":[{\"type\":\"line\",\"length\":500}],"
    "\"lanes\":{\"right\":[{\"width\":3.5},{\"width\":3.5}]}}],"
    "\"start_points\":[{\"name\":\"start\",\"road\":\"r\",\"s\":10,\"lane\":-1}],"
    "\"sectors\":[{\"id\":\"S1\",\"road\":\"r\",\"s_start\":100,\"s_end\":300}],"
    "\"tasks\":[{\"id\":\"T1\",\"sector\":\"S1\",\"s_start\":120,\"s_end\":280,\"tube_half_width\":1,"
    "\"ideal\":{\"points\":[[120,-1.75],[200,-1.75],[220,-5.25],[280,-5.25]]}}]}";

static void locate_heading(const sim_scenario *sc, double x, double y, double heading,
                           sim_drivelog_sample *s)
{
    sim_drivelog_sample_init(s);
    s->x = x;
    s->y = y;
    s->z = 0;
    s->heading = heading;
    sim_recording_locate(sc, s);
}

static void locate(const sim_scenario *sc, double x, double y, sim_drivelog_sample *s)
{
    locate_heading(sc, x, y, NAN, s);
}

/* The scenario in text, its diagnostics printed; fails the test when it does not load. */
static sim_scenario *parse(const char *text)
{
    sim_diag diag = {0};
    sim_scenario *sc = NULL;
    int rc = sim_scenario_parse(text, strlen(text), "test", NULL, &sc, &diag);
    for (int i = 0; i < diag.n; i++) print_message("%s\n", diag.msgs[i]);
    sim_diag_free(&diag);
    assert_int_equal(rc, 0);
    return sc;
}

static void sector_task_and_deviation(void **state)
{
    sim_scenario *sc = parse(SCENARIO);
    sim_drivelog_sample s;

    locate(sc, 150, -2.0, &s); /* in T1 on the flat part: -2.0 - (-1.75) */
    assert_string_equal(s.sector, "S1");
    assert_string_equal(s.task, "T1");
    assert_true(fabs(s.lat_dev - (-0.25)) < 1e-9);
    assert_true(fabs(s.s - 150) < 1e-9 && fabs(s.d - (-2.0)) < 1e-9);
    assert_int_equal(s.lane, -1);

    locate(sc, 210, -3.0, &s); /* mid-ramp the ideal d is -3.5: 0.5 to the left of it */
    assert_string_equal(s.task, "T1");
    assert_true(fabs(s.lat_dev - 0.5) < 1e-9);
    assert_int_equal(s.lane, -1);

    locate(sc, 290, -6.0, &s); /* in the sector, after the task */
    assert_string_equal(s.sector, "S1");
    assert_string_equal(s.task, "");
    assert_true(isnan(s.lat_dev));
    assert_int_equal(s.lane, -2);

    locate(sc, 50, -1.0, &s); /* before everything, still on the road */
    assert_string_equal(s.sector, "");
    assert_string_equal(s.road, "r");
    assert_true(isnan(s.lat_dev));

    sim_drivelog_sample_init(&s); /* no position: nothing located */
    snprintf(s.sector, sizeof s.sector, "X");
    sim_recording_locate(sc, &s);
    assert_string_equal(s.sector, "X");
    assert_string_equal(s.road, "");
    sim_scenario_free(sc);
}

static void feed(sim_recording *rec, sim_drivelog_writer *w, const char *line)
{
    cJSON *m = cJSON_Parse(line);
    assert_non_null(m);
    sim_error err = {0};
    assert_int_equal(sim_recording_feed(rec, w, cJSON_GetObjectItem(m, "topic")->valuestring, m,
                                        line, strlen(line), &err), 0);
    cJSON_Delete(m);
}

/* Driving along the road from s = 95 to 305 at 1 m per sample: sector S1 starts at
 * s = 100 and ends after 300, task T1 spans 120..280; each change is one event. */
static void sector_and_task_events(void **state)
{
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_parse(SCENARIO, strlen(SCENARIO), "test", NULL, &sc, NULL), 0);
    char dir[] = "/tmp/test_recording_world.XXXXXX", path[64], cmd[80];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/log.sqlite", dir);
    sim_drivelog_writer *w;
    assert_int_equal(sim_drivelog_writer_open(path, NULL, &w, NULL), 0);
    sim_recording rec;
    sim_recording_init(&rec, false, -1);
    sim_recording_set_scenario(&rec, sc);
    for (int k = 0; k <= 210; k++) {
        char line[256];
        snprintf(line, sizeof line, "{\"topic\":\"sim.tick\",\"t\":%.2f,\"run\":0}", k * 0.01);
        feed(&rec, w, line);
        snprintf(line, sizeof line, "{\"topic\":\"vehicle.state\",\"t\":%.2f,\"pos\":[%d,-1.75,0]}",
                 k * 0.01, 95 + k);
        feed(&rec, w, line);
    }
    assert_int_equal(sim_drivelog_writer_close(w, NULL), 0);
    sim_drivelog_reader *r;
    assert_int_equal(sim_drivelog_reader_open(path, &r, NULL), 0);
    sim_drivelog_event *e;
    size_t n;
    assert_int_equal(sim_drivelog_read_events(r, sim_drivelog_range_all(), &e, &n, NULL), 0);
    const char *want[][3] = {{"run", "start", NULL},
                             {"sector", "start", "{\"id\":\"S1\",\"s\":100,\"located\":true}"},
                             {"task", "start", "{\"id\":\"T1\",\"s\":120,\"located\":true}"},
                             {"task", "end", "{\"id\":\"T1\",\"s\":281,\"located\":true}"},
                             {"sector", "end", "{\"id\":\"S1\",\"s\":301,\"located\":true}"}};
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(e[i].kind, want[i][0]);
        assert_string_equal(e[i].name, want[i][1]);
        if (want[i][2]) assert_string_equal(e[i].json, want[i][2]);
    }
    assert_true(fabs(e[1].t - 0.05) < 1e-9); /* s = 100 at tick 5 */
    sim_drivelog_events_free(e, n);
    sim_drivelog_reader_close(r);
    sim_scenario_free(sc);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Two roads crossing at right angles (a junction without its connecting roads): "a"
 * along +x on y = 0, "b" along +y on x = 50, each with one 3.5 m right lane. The point
 * (50.5, -1.5) lies in both: on "a" at s 50.5, t -1.5; on "b" at s 48.5, t -0.5. By
 * |t| alone "b" wins; a car heading along +x drives on "a", one heading along +y on
 * "b", and the log must say so. */
static const char CROSSING[] =
    "{\"format\":1,\"name\":\"crossing\","
    "\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},"
    "\"segments\":[{\"type\":\"line\",\"length\":100}],\"lanes\":{\"right\":[{\"width\":3.5}]}},"
    "{\"id\":\"b\",\"start\":{\"x\":50,\"y\":-50,\"heading_deg\":90},"
    "\"segments\":[{\"type\":\"line\",\"length\":100}],\"lanes\":{\"right\":[{\"width\":3.5}]}}],"
    "\"start_points\":[{\"name\":\"start\",\"road\":\"a\",\"s\":10,\"lane\":-1}]}";

static void heading_picks_overlapping_road(void **state)
{
    sim_scenario *sc = parse(CROSSING);
    sim_drivelog_sample s;

    locate_heading(sc, 50.5, -1.5, 0.1, &s); /* heading +x (a little off): road a */
    assert_string_equal(s.road, "a");
    assert_true(fabs(s.s - 50.5) < 1e-9 && fabs(s.d - (-1.5)) < 1e-9);
    assert_int_equal(s.lane, -1);

    locate_heading(sc, 50.5, -1.5, M_PI / 2 - 0.1, &s); /* heading +y: road b */
    assert_string_equal(s.road, "b");
    assert_true(fabs(s.s - 48.5) < 1e-9 && fabs(s.d - (-0.5)) < 1e-9);

    locate(sc, 50.5, -1.5, &s); /* no heading: the smallest |t| still decides */
    assert_string_equal(s.road, "b");
    sim_scenario_free(sc);
}

/* The samples of a log written from lines (one drive, run 0); n: how many. */
static sim_drivelog_sample *record(const sim_scenario *sc, const char *const *lines, size_t n_lines, size_t *n)
{
    char dir[] = "/tmp/test_recording_world.XXXXXX", path[64], cmd[80];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/log.sqlite", dir);
    sim_drivelog_writer *w;
    assert_int_equal(sim_drivelog_writer_open(path, NULL, &w, NULL), 0);
    sim_recording rec;
    sim_recording_init(&rec, false, -1);
    sim_recording_set_scenario(&rec, sc);
    for (size_t i = 0; i < n_lines; i++) feed(&rec, w, lines[i]);
    assert_int_equal(sim_drivelog_writer_close(w, NULL), 0);
    sim_drivelog_reader *r;
    sim_drivelog_sample *samples;
    assert_int_equal(sim_drivelog_reader_open(path, &r, NULL), 0);
    assert_int_equal(sim_drivelog_read_samples(r, sim_drivelog_range_all(), &samples, n, NULL), 0);
    sim_drivelog_reader_close(r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    return samples;
}

/* Where physics says the car is, is where the log says it is: the recorder does not
 * locate it again (from x, y alone it would pick road b at the crossing). Its
 * acceleration is physics' too, not a difference of speeds. */
static void physics_place_and_accel_are_logged(void **state)
{
    sim_scenario *sc = parse(CROSSING);
    static const char *const lines[] = {
        "{\"topic\":\"sim.tick\",\"t\":0,\"n\":0,\"run\":0}",
        "{\"topic\":\"vehicle.state\",\"t\":0,\"pos\":[50.5,-1.5,0],\"speed\":10,\"accel\":1.5,"
        "\"road\":\"a\",\"s\":50.5,\"d\":-1.5,\"lane\":-1,\"tick\":0,\"run\":0}",
    };
    size_t n;
    sim_drivelog_sample *s = record(sc, lines, 2, &n);
    assert_int_equal(n, 1);
    assert_string_equal(s[0].road, "a");
    assert_true(fabs(s[0].s - 50.5) < 1e-9);
    assert_int_equal(s[0].lane, -1);
    assert_true(s[0].accel == 1.5);
    free(s);
    sim_scenario_free(sc);
}

/* A state belongs to the tick whose number it carries, whatever its time looks like
 * after a trip through text; a state of another tick is not paired with this one. */
static void pairs_by_tick_number(void **state)
{
    sim_scenario *sc = parse(SCENARIO);
    static const char *const lines[] = {
        "{\"topic\":\"sim.tick\",\"t\":0.03,\"n\":3,\"run\":0}",
        "{\"topic\":\"vehicle.state\",\"t\":0.030002,\"pos\":[150,-1.75,0],\"speed\":10,\"tick\":3,\"run\":0}",
        "{\"topic\":\"sim.tick\",\"t\":0.04,\"n\":4,\"run\":0}",
        "{\"topic\":\"vehicle.state\",\"t\":0.04,\"pos\":[151,-1.75,0],\"speed\":10,\"tick\":5,\"run\":0}",
        "{\"topic\":\"vehicle.state\",\"t\":0.04,\"pos\":[151,-1.75,0],\"speed\":10,\"tick\":4,\"run\":1}",
    };
    size_t n;
    sim_drivelog_sample *s = record(sc, lines, 5, &n);
    assert_int_equal(n, 1); /* tick 3 only: tick 4's states belong to tick 5 and to run 1 */
    assert_int_equal(s[0].tick, 3);
    assert_true(fabs(s[0].x - 150) < 1e-9);
    free(s);
    sim_scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sector_task_and_deviation),
        cmocka_unit_test(sector_and_task_events),
        cmocka_unit_test(heading_picks_overlapping_road),
        cmocka_unit_test(physics_place_and_accel_are_logged),
        cmocka_unit_test(pairs_by_tick_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
