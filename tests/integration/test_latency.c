/* simctl latency end to end (docs/latency.md): a virtual wheel steps past half lock
 * six times, render-node draws offscreen with the photodiode patch, and the patch is
 * read back from the presented frames. The patch's first lit frame never comes before
 * its input (causality), at least four of the six steps are seen, and the delay measured from outside the
 * chain agrees with that frame's own figure (its stamps) within one frame. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "test_support.h"

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void self_test_is_causal_and_agrees(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' latency scenarios/lane-change.json --json --steps 6 --size 640x360",
             ts_root("."), ts_bin("simctl"));
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    static char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    printf("%s", out);
    assert_int_equal(st, 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal((int)num(o, "steps"), 6);
    assert_true(num(o, "measured") >= 4); /* a loaded machine may still be starting the view at the first */
    assert_int_equal((int)num(o, "causality_violations"), 0);
    assert_int_equal((int)num(o, "disagreements"), 0);
    double med = num(o, "median_ms"), own = num(o, "own_median_ms");
    assert_true(med > 0 && med < 1000);
    /* the frame's own figure starts at its newest input sample, never before the step */
    assert_true(own > 0 && own <= med + 1);
    const cJSON *stages = cJSON_GetObjectItemCaseSensitive(o, "stages_ms");
    double sum = 0;
    static const char *const names[] = {"device", "input", "step", "physics", "wait", "draw", "swap"};
    for (int i = 0; i < 7; i++) {
        double v = num(stages, names[i]);
        assert_true(isfinite(v));
        sum += v;
    }
    assert_true(sum > 0);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_test_is_causal_and_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
