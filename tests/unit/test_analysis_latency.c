/* The drive's wheel-to-picture figures from the drive log's latency windows
 * (analysis/latency.c): frame-weighted median and p95, the report's line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis.h"

static void weighted_by_frames(void **state)
{
    (void)state;
    /* 3 windows of 6 frames near 30 ms and one of 2 frames at 200 ms: the median is
     * 31 ms; of 20 frames the 19th by p95 is in a window of 6 at 40 ms */
    an_latency_row rows[] = {
        {.run = 0, .t = 1.0, .frames = 6, .median_ms = 30, .p95_ms = 35, .max_ms = 36, .stage_ms = {1, 1, 5, 3, 0, 12, 8}},
        {.run = 0, .t = 1.1, .frames = 6, .median_ms = 31, .p95_ms = 40, .max_ms = 41, .stage_ms = {1, 1, 6, 3, 0, 12, 8}},
        {.run = 0, .t = 1.2, .frames = 6, .median_ms = 32, .p95_ms = 38, .max_ms = 39, .stage_ms = {1, 1, 4, 3, 0, 13, 8}},
        {.run = 0, .t = 1.3, .frames = 2, .median_ms = 200, .p95_ms = 210, .max_ms = 210, .stage_ms = {1, 1, 5, 3, 0, 180, 8}},
    };
    an_latency_summary s;
    an_latency_summarise(rows, 4, &s);
    assert_int_equal(s.frames, 20);
    assert_int_equal(s.windows, 4);
    assert_true(s.median_ms == 31);
    assert_true(s.p95_ms == 210); /* rank ceil(0.95 * 20) = 19: past the 18 frames at <= 40 ms */
    assert_true(s.max_ms == 210);
    assert_true(s.stage_ms[5] == 12 && s.stage_ms[2] == 5);
    char line[160];
    an_latency_line(&s, line, sizeof line);
    assert_string_equal(line, "wheel to picture: median 31.0 ms, p95 210.0 ms");
    an_latency_summarise(rows, 0, &s);
    assert_true(isnan(s.median_ms));
    an_latency_line(&s, line, sizeof line);
    assert_non_null(strstr(line, "no figure"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weighted_by_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
