/* XML inputs bounded: an OpenSCENARIO or OpenDRIVE file that declares an entity is
 * refused at the declaration, naming file and line, before any expansion (a 100 KB file
 * repeating an internal entity in attributes used to take a minute and 500 MB), and an
 * external entity (XXE) is refused the same way; files without entities still load. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_xodr.h"
#include "sim_xosc.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A document of about 100 KB: a 1 KB internal entity referenced in many attributes. */
static char *entity_bomb(const char *root, size_t *len)
{
    size_t cap = 200 * 1024;
    char *s = malloc(cap);
    assert_non_null(s);
    size_t n = (size_t)snprintf(s, cap, "<?xml version=\"1.0\"?>\n<!DOCTYPE %s [\n<!ENTITY e \"", root);
    for (int i = 0; i < 1000; i++) s[n++] = 'x';
    n += (size_t)snprintf(s + n, cap - n, "\">\n]>\n<%s>\n", root);
    while (n < 100 * 1024)
        n += (size_t)snprintf(s + n, cap - n, "<p a=\"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\"/>\n");
    n += (size_t)snprintf(s + n, cap - n, "</%s>\n", root);
    *len = n;
    return s;
}

static void test_xosc_entity_refused_fast(void **state)
{
    (void)state;
    size_t len;
    char *buf = entity_bomb("OpenSCENARIO", &len);
    assert_true(len >= 100 * 1024);
    sim_xosc x;
    sim_error err = {0};
    double t0 = now_s();
    int rc = sim_xosc_parse(buf, len, "bomb.xosc", ".", NULL, 0, &x, NULL, &err);
    double dt = now_s() - t0;
    assert_int_equal(rc, SIM_EINVAL);
    assert_true(dt < 1.0);
    assert_string_equal(err.msg, "bomb.xosc: 3: declares the entity \"e\"; OpenSCENARIO and OpenDRIVE "
                                 "files need no entities, and they are refused");
    free(buf);
}

static void test_xodr_entity_refused_fast(void **state)
{
    (void)state;
    size_t len;
    char *buf = entity_bomb("OpenDRIVE", &len);
    sim_roadnet net;
    sim_error err = {0};
    double t0 = now_s();
    int rc = sim_xodr_parse(buf, len, "bomb.xodr", &net, NULL, &err);
    double dt = now_s() - t0;
    assert_int_equal(rc, SIM_EINVAL);
    assert_true(dt < 1.0);
    assert_string_equal(err.msg, "bomb.xodr: 3: declares the entity \"e\"; OpenSCENARIO and OpenDRIVE "
                                 "files need no entities, and they are refused");
    free(buf);
}

static void test_external_entity_refused(void **state)
{
    (void)state;
    const char *doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE OpenDRIVE [\n"
                      "<!ENTITY x SYSTEM \"file:///etc/passwd\">\n]>\n<OpenDRIVE><header name=\"&x;\"/></OpenDRIVE>\n";
    sim_roadnet net;
    sim_error err = {0};
    assert_int_equal(sim_xodr_parse(doc, strlen(doc), "xxe.xodr", &net, NULL, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "xxe.xodr: 3: declares the entity \"x\""));
}

/* A DOCTYPE without entities is harmless and still read (the error is about the roads). */
static void test_plain_doctype_still_read(void **state)
{
    (void)state;
    const char *doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE OpenDRIVE>\n<OpenDRIVE></OpenDRIVE>\n";
    sim_roadnet net;
    sim_error err = {0};
    int rc = sim_xodr_parse(doc, strlen(doc), "plain.xodr", &net, NULL, &err);
    if (rc == SIM_OK) sim_roadnet_free(&net);
    assert_null(strstr(err.msg, "entity"));
    assert_null(strstr(err.msg, "well-formed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xosc_entity_refused_fast),
        cmocka_unit_test(test_xodr_entity_refused_fast),
        cmocka_unit_test(test_external_entity_refused),
        cmocka_unit_test(test_plain_doctype_still_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
