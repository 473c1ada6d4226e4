/* Unit tests of the lab file's reader (common/protocol/sim_lab.c): a full file read
 * field by field, defaults, and every error naming its field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_lab.h"

static int parse(const char *text, sim_lab *lab, sim_error *err)
{
    return sim_lab_parse(text, strlen(text), "lab.json", lab, err);
}

static void three_hosts(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    sim_error err = {0};
    assert_int_equal(sim_file_read("tests/data/lab-3-hosts.json", &text, &len, &err), SIM_OK);
    static sim_lab lab;
    int rc = sim_lab_parse(text, len, "lab-3-hosts.json", &lab, &err);
    if (rc) fail_msg("%s", err.msg);
    assert_int_equal(lab.n_hosts, 3);
    assert_string_equal(lab.hosts[1].name, "sim");
    assert_string_equal(lab.hosts[1].address, "10.77.40.2");
    assert_string_equal(lab.hosts[1].user, "root");
    assert_int_equal(lab.hosts[1].port, 22);
    assert_string_equal(lab.hosts[1].dir, "");
    assert_int_equal(lab.dispatcher_host, 0);
    assert_int_equal(lab.bus_port, 7700);
    assert_int_equal(lab.module_host[SIM_MODULE_ID_PHYSICS], 1);
    assert_int_equal(lab.module_host[SIM_MODULE_ID_RECORDER], 1);
    assert_int_equal(lab.module_host[SIM_MODULE_ID_INPUT], 2);
    /* not named: the dispatcher's host */
    assert_int_equal(lab.module_host[SIM_MODULE_ID_TASK], 0);
    assert_int_equal(lab.n_channels, 2);
    assert_string_equal(lab.channels[1].name, "render-left");
    assert_string_equal(lab.channels[1].view, "left");
    assert_int_equal(lab.channels[1].host, 0);
    assert_int_equal(lab.channels[1].display, 0);
    assert_int_equal(lab.channels[1].viewport[0], 640);
    assert_int_equal(lab.channels[1].viewport[3], 360);
    assert_int_equal(lab.channels[0].display, -1);
    free(text);
}

static void defaults(void **state)
{
    (void)state;
    static sim_lab lab;
    sim_error err = {0};
    assert_int_equal(parse("{\"hosts\":[{\"name\":\"a\",\"address\":\"h1\"}],\"dispatcher\":{\"host\":\"a\"}}", &lab, &err),
                     SIM_OK);
    assert_int_equal(lab.bus_port, 7700);
    assert_int_equal(lab.hosts[0].port, 22);
    assert_string_equal(lab.hosts[0].user, "");
    assert_int_equal(lab.n_channels, 0);
    for (int m = 0; m < SIM_MODULE_COUNT; m++) assert_int_equal(lab.module_host[m], 0);
}

/* Each broken file with the words its error must hold. */
static void errors_name_the_field(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"[]", "an object"},
        {"{\"dispatcher\":{\"host\":\"a\"}}", "hosts: missing"},
        {"{\"hosts\":[],\"dispatcher\":{\"host\":\"a\"}}", "1 to 16 hosts"},
        {"{\"hosts\":[{\"address\":\"h\"}],\"dispatcher\":{\"host\":\"a\"}}", "hosts[0].name: missing"},
        {"{\"hosts\":[{\"name\":\"-oProxyCommand=x\",\"address\":\"h\"}],\"dispatcher\":{}}", "hosts[0].name: found"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h h\"}],\"dispatcher\":{}}", "hosts[0].address"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\",\"port\":70000}],\"dispatcher\":{}}", "hosts[0].port"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\",\"dir\":\"rel\"}],\"dispatcher\":{}}", "hosts[0].dir"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\"},{\"name\":\"a\",\"address\":\"g\"}],\"dispatcher\":{}}",
         "hosts[1].name: a second host"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\"}]}", "dispatcher: missing"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\"}],\"dispatcher\":{\"host\":\"b\"}}", "dispatcher.host: found \"b\""},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\"}],\"dispatcher\":{\"host\":\"a\"},\"modules\":{\"physics\":\"a\"}}",
         "modules.physics: no module"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\"}],\"dispatcher\":{\"host\":\"a\"},\"modules\":{\"recorder\":\"z\"}}",
         "modules.recorder: found \"z\""},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\"}],\"dispatcher\":{\"host\":\"a\"},"
         "\"channels\":[{\"name\":\"render\",\"host\":\"a\",\"viewport\":[0,0,640]}]}",
         "channels[0].viewport: found an array of 3"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\"}],\"dispatcher\":{\"host\":\"a\"},"
         "\"channels\":[{\"name\":\"render\",\"host\":\"a\",\"view\":\"up\"}]}",
         "channels[0].view"},
        {"{\"hosts\":[{\"name\":\"a\",\"address\":\"h\"}],\"dispatcher\":{\"host\":\"a\"},\"extra\":1}", "extra"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static sim_lab lab;
        sim_error err = {0};
        if (parse(cases[i][0], &lab, &err) >= 0) fail_msg("case %zu parsed", i);
        if (!strstr(err.msg, cases[i][1])) fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i][1]);
        if (strncmp(err.msg, "lab.json: ", 10) != 0) fail_msg("case %zu: '%s' does not name the file", i, err.msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_hosts),
        cmocka_unit_test(defaults),
        cmocka_unit_test(errors_name_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
