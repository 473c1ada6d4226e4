/* simctl export --xosc-csv's rows (simctl/xosc_csv.c) from logged bus lines, to the
 * byte: a traffic.state with an OpenSCENARIO entity (at its pos_ref, the rear axle)
 * and an ambient car (no pos_ref: at its pos), speed from the velocity's length; a
 * traffic.ego at x_ref/y_ref with an empty z; a name with a comma quoted; other
 * topics give no row; a line that is no object is refused naming the topic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simctl.h"
#include "xosc_csv.h"

/* simctl's main.c is not linked into a module unit test: its one symbol the others use */
const char *simctl_bin_dir(void) { return "bin"; }

static char *rows(double t, const char *topic, const char *line, int want)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    sim_error err = {0};
    assert_int_equal(xosc_csv_rows(f, t, topic, line, strlen(line), &err), want);
    fclose(f);
    return buf;
}

static void test_rows(void **state)
{
    (void)state;
    char *s = rows(1.5, "traffic.state",
                   "{\"topic\":\"traffic.state\",\"src\":\"traffic\",\"seq\":3,\"t\":1.5,\"run\":0,\"vehicles\":["
                   "{\"id\":\"Target\",\"model\":\"car\",\"pos\":[101.4,-1.535,0.1],\"heading\":0,\"size\":[5,2,1.5],"
                   "\"velocity\":[3,4,0],\"pos_ref\":[100,-1.535,0.1]},"
                   "{\"id\":\"a1\",\"pos\":[20,5,0],\"heading\":3.1416,\"velocity\":[-10,0,0]}],\"lead\":null}",
                   2);
    assert_string_equal(s, "1.500,Target,100.000,-1.535,0.100,0.0000,5.000\r\n"
                           "1.500,a1,20.000,5.000,0.000,3.1416,10.000\r\n");
    free(s);
    s = rows(2.25, "traffic.ego",
             "{\"topic\":\"traffic.ego\",\"t\":2.25,\"id\":\"Ego, the car\",\"x\":51.4,\"y\":-1.5,\"heading\":0.5,"
             "\"speed\":20,\"x_ref\":50,\"y_ref\":-1.5}",
             1);
    assert_string_equal(s, "2.250,\"Ego, the car\",50.000,-1.500,,0.5000,20.000\r\n");
    free(s);
    s = rows(3, "vehicle.state", "{\"speed\":1}", 0);
    assert_string_equal(s, "");
    free(s);
}

static void test_bad_line(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    sim_error err = {0};
    assert_int_equal(xosc_csv_rows(f, 4, "traffic.ego", "[1,2]", 5, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "traffic.ego"));
    assert_int_equal(xosc_csv_rows(f, 4, "traffic.ego", "{\"id\":\"E\"}", 10, &err), SIM_EINVAL);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_bad_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
