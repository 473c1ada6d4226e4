/* Unit tests of the analysis' task computation (analysis/compute.c) without starting
 * bin/analysis: a drive built in memory on a hand-made scenario, with figures solved
 * by hand (a constant offset from the ideal line, a constant speed, a known gap); and
 * what it takes from the log's events: lane marks looked up at the running maximum of
 * s (a roll-back after a lane change is no lane-mark event), the operator's
 * control.speed_limit, and tasks a crash, gap or stall touches reported as
 * "warning". */
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

#include <cjson/cJSON.h>

#include "analysis.h"
#include "ts_assert.h"

/* A straight 1000 m road with three 3.5 m lanes right of the reference line (lane -2's
 * centre at d = -5.25), a 50 km/h limit, and one task T1 from s = 100 to 400, whose
 * tube and ideal path follow. */
#define ROAD_AND_TASK_T1 \
    " \"roads\": [{\"id\": \"main\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0},\n" \
    "   \"segments\": [{\"type\": \"line\", \"length\": 1000}],\n" \
    "   \"lanes\": {\"center_mark\": \"solid\", \"right\": [{\"width\": 3.5, \"mark\": \"dashed\"},\n" \
    "     {\"width\": 3.5, \"mark\": \"dashed\"}, {\"width\": 3.5, \"mark\": \"solid\"}]},\n" \
    "   \"speed_limits\": [{\"s_start\": 0, \"speed_kmh\": 50}]}],\n" \
    " \"tasks\": [{\"id\": \"T1\", \"road\": \"main\", \"s_start\": 100, \"s_end\": 400,\n"

/* T1 on lane -2 all along. */
static const char SCENARIO[] =
    "{\"format\": 1, \"name\": \"compute-test\",\n" ROAD_AND_TASK_T1
    "   \"tube_half_width\": 0.5, \"ideal\": {\"start_lane\": -2, \"lane_changes\": []}}]}\n";

typedef struct fixture {
    char dir[64], path[96];
    an_scenario sc;
} fixture;

/* The fixture with scenario text written to a file and loaded. */
static int setup_with(void **state, const char *text)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/test_analysis_compute.XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%s/s.json", f->dir);
    FILE *fp = fopen(f->path, "w");
    if (!fp) return -1;
    fputs(text, fp);
    fclose(fp);
    an_params p = an_params_default();
    sim_error err = {0};
    if (an_scenario_load(f->path, &p, &f->sc, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    *state = f;
    return 0;
}

static int setup(void **state) { return setup_with(state, SCENARIO); }

static int teardown(void **state)
{
    fixture *f = *state;
    an_scenario_free(&f->sc);
    unlink(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Samples at 10 Hz, 20 m/s from s = 0 to 600 m, d = lane -2's centre + offset; the
 * samples with tick in [skip_from, skip_to) are left out. */
static void drive(an_drive *dr, int runs, double offset, int skip_from, int skip_to)
{
    sim_error err = {0};
    size_t per = 301 - (size_t)(skip_to - skip_from);
    assert_int_equal(an_drive_alloc(dr, per * (size_t)runs, &err), 0);
    size_t i = 0;
    for (int r = 1; r <= runs; r++)
        for (int k = 0; k <= 300; k++) {
            if (k >= skip_from && k < skip_to) continue;
            double t = k * 0.1;
            dr->col[AN_RUN][i] = r;
            dr->col[AN_TICK][i] = k;
            dr->col[AN_T][i] = t;
            dr->col[AN_SPEED][i] = 20;
            dr->col[AN_S][i] = 20 * t;
            dr->col[AN_D][i] = -5.25 + offset;
            i++;
        }
    assert_int_equal(i, dr->n);
}

static const an_task_result *only_task(const an_result *res, int run)
{
    for (size_t k = 0; k < res->n_tasks; k++)
        if (res->tasks[k].run == run) return &res->tasks[k];
    fail_msg("no task result for run %d", run);
    return NULL;
}

static void offset_from_the_ideal_line(void **state)
{
    fixture *f = *state;
    an_drive dr = {0};
    drive(&dr, 1, 0.2, 0, 0);
    an_result res;
    sim_error err = {0};
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    assert_int_equal(res.n_tasks, 1);
    assert_int_equal(res.n_warnings, 0);
    const an_task_result *tr = only_task(&res, 1);
    assert_string_equal(tr->task->id, "T1");
    assert_true(tr->computed);
    assert_true(tr->m.started);
    assert_true(tr->m.ended);
    assert_near(300, tr->m.length, 1e-9);
    assert_near(15, tr->m.duration, 1e-9);      /* 300 m at 20 m/s */
    assert_near(0.2, tr->m.mdev, 1e-9);          /* |e| = 0.2 m all along */
    assert_near(0.2 * 300, tr->m.abs_e_integral, 1e-6);
    assert_near(0.2, tr->m.max_abs_e, 1e-9);
    assert_near(0, tr->m.sdlp, 1e-9);            /* a constant offset has no spread */
    assert_int_equal(tr->m.n_tube_events, 0);    /* inside the 0.5 m tube */
    assert_near(20, tr->m.speed_mean, 1e-12);
    assert_near(0, tr->m.speed_sd, 1e-12);
    /* 20 m/s = 72 km/h over the 50 km/h limit for the whole task. */
    assert_near(15, tr->m.time_over_limit, 1e-9);
    /* The metric table reads the same result. */
    size_t k = 0;
    while (k < an_metric_count() && strcmp(an_metric_name(k), "mdev_m") != 0) k++;
    assert_true(k < an_metric_count());
    assert_near(0.2, an_metric_value(tr, k), 1e-9);
    an_result_free(&res);
    an_drive_free(&dr);
}

static void leaving_the_tube_is_an_event(void **state)
{
    fixture *f = *state;
    an_drive dr = {0};
    drive(&dr, 1, 0.8, 0, 0);
    an_result res;
    sim_error err = {0};
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    const an_task_result *tr = only_task(&res, 1);
    /* Outside the tube from start to end: one event over the whole task whose local
     * area is the integral of |e| over it (docs/metrics.md), 0.8 m * 300 m. */
    assert_int_equal(tr->m.n_tube_events, 1);
    assert_near(0.8, tr->m.mdev, 1e-9);
    assert_near(0.8 * 300, tr->m.area_global, 1e-6);
    an_result_free(&res);
    an_drive_free(&dr);
}

static void runs_and_gaps(void **state)
{
    fixture *f = *state;
    an_drive dr = {0};
    /* Two runs, each missing ticks 100..102 (t = 10.0 .. 10.2 s, inside the task). */
    drive(&dr, 2, 0.2, 100, 103);
    an_result res;
    sim_error err = {0};
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    assert_int_equal(res.n_tasks, 2); /* one per (run, task) */
    assert_int_equal(res.n_warnings, 2);
    assert_string_equal(res.warnings[0],
                        "missing samples: run 1 has 1 gap (3 samples missing), the first between "
                        "t = 9.90 s and t = 10.30 s; metrics interpolate across them");
    assert_non_null(strstr(res.warnings[1], "run 2 has 1 gap (3 samples missing)"));
    /* Interpolation across the gap keeps the figures. */
    for (int run = 1; run <= 2; run++) {
        const an_task_result *tr = only_task(&res, run);
        assert_true(tr->computed);
        assert_near(0.2, tr->m.mdev, 1e-9);
        assert_near(300, tr->m.length, 1e-9);
    }
    an_result_free(&res);
    an_drive_free(&dr);
}

static void a_drive_that_never_reaches_the_task(void **state)
{
    fixture *f = *state;
    an_drive dr = {0};
    drive(&dr, 1, 0, 0, 0);
    for (size_t i = 0; i < dr.n; i++) dr.col[AN_S][i] *= 0.1; /* 0 .. 60 m */
    an_result res;
    sim_error err = {0};
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    const an_task_result *tr = only_task(&res, 1);
    assert_false(tr->computed);
    assert_false(tr->m.started);
    size_t k = 0;
    while (k < an_metric_count() && strcmp(an_metric_name(k), "started") != 0) k++;
    assert_near(0, an_metric_value(tr, k), 0);
    an_result_free(&res);
    an_drive_free(&dr);
}

/* One sensor channel "eda"."scl" (uS) given to a drive: (run, t, value) rows. */
static void add_channel(an_drive *dr, const int *run, const double *t, const double *v, size_t n)
{
    dr->sensors = calloc(1, sizeof *dr->sensors);
    assert_non_null(dr->sensors);
    dr->n_sensors = 1;
    an_sensor_channel *c = &dr->sensors[0];
    snprintf(c->sensor, sizeof c->sensor, "eda");
    snprintf(c->channel, sizeof c->channel, "scl");
    snprintf(c->unit, sizeof c->unit, "uS");
    c->run = malloc(n * sizeof *c->run);
    c->v = malloc(n * sizeof *c->v);
    assert_true(c->run && c->v);
    for (size_t k = 0; k < n; k++) {
        c->run[k] = run[k];
        c->v[k] = (sim_sensor_value){t[k], v[k]};
    }
    c->n = c->cap = n;
}

static double json_number(const struct cJSON *o, const char *channel, const char *key)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, channel);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* T1 (s 100..400 m at 20 m/s) spans t = 5.0 .. 20.0 s in each run: its first and last
 * sample. Run 1's values 100 at 4.9 s and -100 at 20.1 s lie outside; 1, 2, 3 at 5.0,
 * 12 and 20.0 s inside (both ends count): count 3, mean 2, SD 1, min 1, max 3. Run 2
 * has one value inside, 7: mean 7, no SD. A value of run 3 (no samples) counts only
 * for the drive: 100 + 1 + 2 + 3 - 100 + 7 + 50 = 63 over 7 values, mean 9. A drive
 * that never reaches T1 gives the task count 0. */
static void sensor_values_per_task(void **state)
{
    fixture *f = *state;
    an_drive dr = {0};
    drive(&dr, 2, 0.2, 0, 0);
    const int run[] = {1, 1, 1, 1, 1, 2, 3};
    const double t[] = {4.9, 5.0, 12.0, 20.0, 20.1, 10.0, 10.0};
    const double v[] = {100, 1, 2, 3, -100, 7, 50};
    add_channel(&dr, run, t, v, 7);
    an_result res;
    sim_error err = {0};
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    const an_task_result *r1 = only_task(&res, 1), *r2 = only_task(&res, 2);
    assert_near(5.0, dr.col[AN_T][r1->i0], 1e-12);
    assert_near(20.0, dr.col[AN_T][r1->i1 - 1], 1e-12);
    cJSON *j1 = an_sensors_json(&res, r1), *j2 = an_sensors_json(&res, r2), *jd = an_sensors_json(&res, NULL);
    assert_true(j1 && j2 && jd);
    assert_near(3, json_number(j1, "eda.scl", "count"), 0);
    assert_near(2, json_number(j1, "eda.scl", "mean"), 1e-12);
    assert_near(1, json_number(j1, "eda.scl", "sd"), 1e-12);
    assert_near(1, json_number(j1, "eda.scl", "min"), 0);
    assert_near(3, json_number(j1, "eda.scl", "max"), 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j1, "eda.scl"), "unit")->valuestring, "uS");
    assert_near(1, json_number(j2, "eda.scl", "count"), 0);
    assert_near(7, json_number(j2, "eda.scl", "mean"), 0);
    assert_true(isnan(json_number(j2, "eda.scl", "sd"))); /* null in JSON */
    assert_near(7, json_number(jd, "eda.scl", "count"), 0);
    assert_near(9, json_number(jd, "eda.scl", "mean"), 1e-12);
    cJSON_Delete(j1), cJSON_Delete(j2), cJSON_Delete(jd);
    an_result_free(&res);
    an_drive_free(&dr);

    /* never reaching the task: no window, count 0, null figures */
    drive(&dr, 1, 0, 0, 0);
    for (size_t i = 0; i < dr.n; i++) dr.col[AN_S][i] *= 0.1;
    add_channel(&dr, run, t, v, 5);
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    cJSON *j0 = an_sensors_json(&res, only_task(&res, 1));
    assert_near(0, json_number(j0, "eda.scl", "count"), 0);
    assert_true(isnan(json_number(j0, "eda.scl", "mean")));
    cJSON_Delete(j0);
    an_result_free(&res);
    an_drive_free(&dr);
}

/* ---- what the analysis takes from the log beyond the samples: lane marks at the
 * running maximum of s, the operator's speed limit, and the events that make a task
 * "warning" instead of "ok" ---- */

/* The same road; T1 starts in lane -2 (d = -5.25) with a lane change to lane -1
 * (d = -1.75) ramping from s = 200 to 230. */
static const char SCENARIO_LC[] =
    "{\"format\": 1, \"name\": \"flags-test\",\n" ROAD_AND_TASK_T1
    "   \"tube_half_width\": 1.0, \"ideal\": {\"start_lane\": -2,\n"
    "   \"lane_changes\": [{\"s\": 200, \"to_lane\": -1, \"ramp_length\": 30}]}}]}\n";

static int setup_lc(void **state) { return setup_with(state, SCENARIO_LC); }

static double ideal_d(double s)
{
    return s < 200 ? -5.25 : s > 230 ? -1.75 : -5.25 + 3.5 * (s - 200) / 30;
}

/* On SCENARIO_LC at 10 Hz, run 0: 20 m/s on the ideal line from s = 0; with rollback, after s = 240 the
 * car rolls back to s = 205 in lane -1 (1 m per sample) and drives on from there. */
static void drive_lc(an_drive *dr, bool rollback)
{
    double s_path[2000];
    size_t n = 0;
    double s = 0;
    while (s <= 500) {
        s_path[n++] = s;
        if (rollback && s >= 240 && s < 241) {
            for (double b = 239; b >= 205; b -= 1) s_path[n++] = b;
            for (double b = 207; b < 240; b += 2) s_path[n++] = b;
        }
        s += 2;
    }
    sim_error err = {0};
    assert_int_equal(an_drive_alloc(dr, n, &err), 0);
    bool back = false;
    for (size_t i = 0; i < n; i++) {
        dr->col[AN_RUN][i] = 0;
        dr->col[AN_TICK][i] = (double)i * 10;
        dr->col[AN_T][i] = (double)i * 0.1;
        dr->col[AN_SPEED][i] = 20;
        dr->col[AN_S][i] = s_path[i];
        if (i && s_path[i] < s_path[i - 1]) back = true;
        /* in lane -1 once there, also while rolling back */
        dr->col[AN_D][i] = back && s_path[i] < 240 ? -1.75 : ideal_d(s_path[i]);
    }
}

static const an_task_result *the_task(const an_result *res)
{
    assert_int_equal(res->n_tasks, 1);
    return &res->tasks[0];
}

/* Rolling back 35 m after the lane change: at the raw s the ideal lane would be lane
 * -2 again and the car, still in lane -1, entirely over its marks (a severe
 * lane-mark event); at the running maximum of s it is where it should be. */
static void rollback_is_measured_at_the_running_maximum(void **state)
{
    fixture *f = *state;
    an_drive dr = {0};
    drive_lc(&dr, true);
    an_result res;
    sim_error err = {0};
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    const an_task_result *tr = the_task(&res);
    assert_true(tr->computed);
    assert_int_equal(tr->m.n_mark_events, 0);
    assert_int_equal(tr->m.n_tube_events, 0);
    /* the marks used while rolling back are lane -1's: 0 and -3.5 */
    for (size_t i = 0; i < tr->i1 - tr->i0; i++) {
        if (dr.col[AN_T][tr->i0 + i] < 12.1) continue; /* from the first step back on */
        if (dr.col[AN_S][tr->i0 + i] > 240) break;
        assert_near(-3.5, tr->mark_right[i], 1e-9);
    }
    assert_string_equal(an_task_status(tr), "ok");
    an_result_free(&res);
    an_drive_free(&dr);
}

/* The operator's limit replaces the road's from its event on, until one with 0. */
static void operator_speed_limit_is_the_limit(void **state)
{
    fixture *f = *state;
    an_drive dr = {0};
    drive_lc(&dr, false);
    sim_error err = {0};
    an_result res;
    /* road: 50 km/h, the car drives 72 km/h: over the limit in the whole task (15 s) */
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    assert_near(15, the_task(&res)->m.time_over_limit, 1e-9);
    an_result_free(&res);
    /* 100 km/h from t = 0, back to the road's at t = 10 s (task: t = 5 .. 20 s) */
    assert_int_equal(an_drive_add_event(&dr, 0, 0, "control", "speed_limit",
                                        "{\"topic\":\"control.speed_limit\",\"kmh\":100,\"id\":1}", &err), 0);
    assert_int_equal(an_drive_add_event(&dr, 0, 10, "control", "speed_limit",
                                        "{\"topic\":\"control.speed_limit\",\"kmh\":0,\"id\":2}", &err), 0);
    assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
    assert_near(10, the_task(&res)->m.time_over_limit, 1e-9);
    assert_near(100 / 3.6, the_task(&res)->limit[0], 1e-12);
    an_result_free(&res);
    an_drive_free(&dr);
}

/* Which events make the task "warning": a crash of physics before it in the run (the
 * car drove on from another state) or a gap inside it; not a gap before it, not a
 * stall's end, not an event of another run. A recorder's crash counts where its
 * successor's rows were rebuilt: from its "resumed" event to the crash's stamp. */
static void crashes_gaps_and_stalls_flag_the_task(void **state)
{
    fixture *f = *state;
    static const struct {
        int run;
        double t;
        const char *kind, *name, *json;
        const char *want;
    } cases[] = {
        {0, 1.0, "session", "crashed", "{\"module\":\"physics-node\",\"what\":\"crashed\"}", "warning"},
        {0, 1.0, "session", "crashed", "{\"module\":\"recorder\",\"what\":\"crashed\"}", "ok"},
        {0, 12.0, "session", "crashed", "{\"module\":\"recorder\",\"what\":\"crashed\"}", "warning"},
        {0, 1.0, "gap", "samples", "{\"from_t\":0.9,\"to_t\":1.0,\"missing\":9}", "ok"},
        {0, 12.0, "gap", "samples", "{\"from_t\":11.9,\"to_t\":12.0,\"missing\":9}", "warning"},
        {0, 3.0, "stall", "controls", "{\"since_t\":2.4,\"t\":3.0}", "warning"},
        {0, 12.0, "stall", "controls_end", "{}", "ok"},
        {0, 2.0, "recorder", "bus_lost", "{}", "warning"},
        {1, 12.0, "session", "crashed", "{\"module\":\"input-node\"}", "ok"},
        {0, 40.0, "stall", "ticks", "{}", "ok"}, /* after the task */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        an_drive dr = {0};
        drive_lc(&dr, false);
        sim_error err = {0};
        assert_int_equal(an_drive_add_event(&dr, cases[c].run, cases[c].t, cases[c].kind, cases[c].name,
                                            cases[c].json, &err), 0);
        an_result res;
        assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
        const an_task_result *tr = the_task(&res);
        if (strcmp(an_task_status(tr), cases[c].want) != 0)
            fail_msg("case %zu (%s %s at %.1f s): %s, expected %s", c, cases[c].kind, cases[c].name, cases[c].t,
                     an_task_status(tr), cases[c].want);
        if (!strcmp(cases[c].want, "warning")) {
            assert_non_null(strstr(tr->message, cases[c].kind));
            assert_non_null(strstr(tr->message, "may differ from an uninterrupted drive"));
        }
        an_result_free(&res);
        an_drive_free(&dr);
    }
}

/* A recorder killed inside a task and noticed by simctl only after it (a loaded
 * machine: the lockstep goes on without the recorder): the successor's "resumed" event
 * says where the rebuilt rows begin, and every task from there to the crash's stamp is
 * "warning". The task runs from t 5 to 20 here. */
static void a_recorder_crash_counts_from_where_its_successor_resumed(void **state)
{
    fixture *f = *state;
    static const struct {
        double resumed_t, crash_t; /* resumed_t < 0: no resumed event */
        const char *want;
    } cases[] = {
        {12.0, 40.0, "warning"}, /* rows rebuilt from inside the task; noticed after it */
        {1.0, 40.0, "warning"},  /* rebuilt from before it to after it */
        {30.0, 40.0, "ok"},      /* rebuilt after the task */
        {-1, 40.0, "ok"},        /* nothing says where: the stamp, after the task */
        {1.0, 2.0, "ok"},        /* all before the task */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        an_drive dr = {0};
        drive_lc(&dr, false);
        sim_error err = {0};
        if (cases[c].resumed_t >= 0)
            assert_int_equal(an_drive_add_event(&dr, 0, cases[c].resumed_t, "recorder", "resumed", "{}", &err), 0);
        assert_int_equal(an_drive_add_event(&dr, 0, cases[c].crash_t, "session", "crashed",
                                            "{\"module\":\"recorder\",\"what\":\"crashed\"}", &err), 0);
        an_result res;
        assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
        const an_task_result *tr = the_task(&res);
        if (strcmp(an_task_status(tr), cases[c].want) != 0)
            fail_msg("case %zu (resumed at %.1f s, crash stamped at %.1f s): %s, expected %s", c, cases[c].resumed_t,
                     cases[c].crash_t, an_task_status(tr), cases[c].want);
        if (c == 0) assert_non_null(strstr(tr->message, "rows from t = 12.00 s on were rebuilt"));
        an_result_free(&res);
        an_drive_free(&dr);
    }
}

/* A sensor that went silent (docs/instruments.md): the task is "warning" when the
 * silence, from "sensor" "stopped" to its source's "resumed" (or the end), overlaps it. */
static void a_silent_sensor_flags_the_tasks_it_overlaps(void **state)
{
    fixture *f = *state;
    static const struct {
        double stop_t, resume_t; /* resume_t < 0: never */
        const char *resumed_source;
        const char *want;
    } cases[] = {
        {0.5, 0.8, "pupil", "ok"},          /* before the task, back before it */
        {0.5, -1, "pupil", "warning"},      /* never back */
        {0.5, 12.0, "pupil", "warning"},    /* back inside the task */
        {12.0, 13.0, "pupil", "warning"},   /* inside */
        {0.5, 0.8, "sensor.ecg", "warning"}, /* another source came back, not this one */
        {40.0, -1, "pupil", "ok"},          /* after the task */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        an_drive dr = {0};
        drive_lc(&dr, false);
        sim_error err = {0};
        assert_int_equal(an_drive_add_event(&dr, 0, cases[c].stop_t, "sensor", "stopped",
                                            "{\"source\":\"pupil\",\"last_t\":0.5,\"samples\":100}", &err), 0);
        if (cases[c].resume_t >= 0) {
            char json[96];
            snprintf(json, sizeof json, "{\"source\":\"%s\",\"gap_s\":1.5}", cases[c].resumed_source);
            assert_int_equal(an_drive_add_event(&dr, 0, cases[c].resume_t, "sensor", "resumed", json, &err), 0);
        }
        an_result res;
        assert_int_equal(an_compute(&dr, &f->sc, &res, &err), 0);
        const an_task_result *tr = the_task(&res);
        if (strcmp(an_task_status(tr), cases[c].want) != 0)
            fail_msg("case %zu (stopped at %.1f s, %s back at %.1f s): %s, expected %s", c, cases[c].stop_t,
                     cases[c].resumed_source, cases[c].resume_t, an_task_status(tr), cases[c].want);
        if (!strcmp(cases[c].want, "warning")) assert_non_null(strstr(tr->message, "sensor stopped"));
        an_result_free(&res);
        an_drive_free(&dr);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rollback_is_measured_at_the_running_maximum, setup_lc, teardown),
        cmocka_unit_test_setup_teardown(operator_speed_limit_is_the_limit, setup_lc, teardown),
        cmocka_unit_test_setup_teardown(crashes_gaps_and_stalls_flag_the_task, setup_lc, teardown),

        cmocka_unit_test_setup_teardown(a_recorder_crash_counts_from_where_its_successor_resumed, setup_lc, teardown),
        cmocka_unit_test_setup_teardown(a_silent_sensor_flags_the_tasks_it_overlaps, setup_lc, teardown),
        cmocka_unit_test(offset_from_the_ideal_line),
        cmocka_unit_test(leaving_the_tube_is_an_event),
        cmocka_unit_test(runs_and_gaps),
        cmocka_unit_test(a_drive_that_never_reaches_the_task),
        cmocka_unit_test_setup_teardown(sensor_values_per_task, setup, teardown),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
