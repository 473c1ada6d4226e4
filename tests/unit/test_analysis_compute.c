/* Unit tests of the analysis' task computation (analysis/compute.c) without starting
 * bin/analysis: a drive built in memory on a hand-made scenario, with figures solved
 * by hand (a constant offset from the ideal line, a constant speed, a known gap). */
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

#include "analysis.h"
#include "ts_assert.h"

/* A straight 1000 m road with three 3.5 m lanes right of the reference line (lane -2's
 * centre at d = -5.25), a 50 km/h limit, and one task on lane -2 from s = 100 to 400. */
static const char SCENARIO[] =
    "{\"format\": 1, \"name\": \"compute-test\",\n"
    " \"roads\": [{\"id\": \"main\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0},\n"
    "   \"segments\": [{\"type\": \"line\", \"length\": 1000}],\n"
    "   \"lanes\": {\"center_mark\": \"solid\", \"right\": [{\"width\": 3.5, \"mark\": \"dashed\"},\n"
    "     {\"width\": 3.5, \"mark\": \"dashed\"}, {\"width\": 3.5, \"mark\": \"solid\"}]},\n"
    "   \"speed_limits\": [{\"s_start\": 0, \"speed_kmh\": 50}]}],\n"
    " \"tasks\": [{\"id\": \"T1\", \"road\": \"main\", \"s_start\": 100, \"s_end\": 400,\n"
    "   \"tube_half_width\": 0.5, \"ideal\": {\"start_lane\": -2, \"lane_changes\": []}}]}\n";

typedef struct fixture {
    char dir[64], path[96];
    an_scenario sc;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/test_analysis_compute.XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%s/s.json", f->dir);
    FILE *fp = fopen(f->path, "w");
    if (!fp) return -1;
    fputs(SCENARIO, fp);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offset_from_the_ideal_line),
        cmocka_unit_test(leaving_the_tube_is_an_event),
        cmocka_unit_test(runs_and_gaps),
        cmocka_unit_test(a_drive_that_never_reaches_the_task),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
