/* Unit test of the measures per coded episode (analysis/codes.c) against a case solved
 * by hand: run 1 drives 10 m/s before t = 5 s and 20 m/s from then, lat_dev 5 m outside
 * the episode and +-0.2 m alternating inside it (ten samples without lat_dev at its
 * start); run 2 drives 100 m/s over the same times. The episode [4, 6) of run 1 has 200
 * samples: mean speed (100 * 10 + 100 * 20) / 200 = 15 m/s = 54 km/h; the 190 lat_dev
 * values are 95 of +0.2 and 95 of -0.2: mean 0, population SD 0.2 m. Of the DRT events
 * (stimulus on at 4.5, off at 4.9, response 5.0, a response at 3.99, a stimulus at 6.0)
 * one stimulus and one response lie in [4, 6). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis.h"

static void hand_solved(void **state)
{
    (void)state;
    an_drive dr;
    sim_error err = {0};
    assert_int_equal(an_drive_alloc(&dr, 2000, &err), 0);
    for (size_t i = 0; i < 2000; i++) {
        int run = i < 1000 ? 1 : 2;
        size_t tick = i % 1000;
        double t = tick * 0.01;
        dr.col[AN_RUN][i] = run;
        dr.col[AN_TICK][i] = (double)tick;
        dr.col[AN_T][i] = t;
        dr.col[AN_SPEED][i] = run == 2 ? 100 : tick < 500 ? 10 : 20;
        dr.col[AN_LAT_DEV][i] = tick < 400 || tick >= 600 ? 5.0 : tick < 410 ? NAN : tick % 2 ? -0.2 : 0.2;
    }
    assert_int_equal(an_drive_add_event(&dr, 1, 3.99, "drt", "response", "{\"source\":\"button\"}", &err), 0);
    assert_int_equal(an_drive_add_event(&dr, 1, 4.5, "drt", "stimulus", "{\"id\":1,\"modality\":\"visual\",\"on\": true}", &err), 0);
    assert_int_equal(an_drive_add_event(&dr, 1, 4.9, "drt", "stimulus", "{\"id\":1,\"on\":false}", &err), 0);
    assert_int_equal(an_drive_add_event(&dr, 1, 5.0, "drt", "response", "{\"source\":\"button\"}", &err), 0);
    assert_int_equal(an_drive_add_event(&dr, 1, 6.0, "drt", "stimulus", "{\"id\":2,\"on\":true}", &err), 0);
    assert_int_equal(an_drive_add_event(&dr, 2, 4.5, "drt", "stimulus", "{\"id\":9,\"on\":true}", &err), 0);
    sim_drivelog_code c = {.run = 1, .t_start = 4.0, .t_end = 6.0, .tier = "secondary", .code = "phone"};
    an_code_episode ep;
    an_code_measure(&dr, &c, &ep);
    assert_int_equal(ep.samples, 200);
    assert_int_equal(ep.n_lat, 190);
    assert_true(fabs(ep.mean_speed - 15.0) < 1e-12);
    assert_true(fabs(ep.sdlp - 0.2) < 1e-12);
    assert_int_equal(ep.drt_stimuli, 1);
    assert_int_equal(ep.drt_responses, 1);
    assert_string_equal(ep.code.code, "phone");
    /* an episode with no samples of its run: no speed, no SDLP */
    c.run = 3;
    an_code_measure(&dr, &c, &ep);
    assert_int_equal(ep.samples, 0);
    assert_true(isnan(ep.mean_speed) && isnan(ep.sdlp));
    char buf[512] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    c.run = 1;
    an_code_measure(&dr, &c, &ep);
    an_code_episodes_csv(f, &ep, 1);
    fclose(f);
    assert_non_null(strstr(buf, "\n1,secondary,phone,4.000,6.000,2.000,200,54.000,0.2000,190,1,1,,\n"));
    an_drive_free(&dr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(hand_solved)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
