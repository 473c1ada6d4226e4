/* Unit tests of the per-cab topic names (common/protocol/sim_cab, docs/cabs.md): which
 * topics are per cab, how a cab's module spells them on the wire and reads them back,
 * and which subscriptions it doubles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "sim_cab.h"
#include "sim_modules.h"
#include "sim_topics.h"

static void names(void **state)
{
    (void)state;
    assert_true(sim_cab_name_ok("a"));
    assert_true(sim_cab_name_ok("cab_2-B"));
    assert_true(sim_cab_name_ok("0123456789012345678901234567890x")); /* 32 */
    assert_false(sim_cab_name_ok("0123456789012345678901234567890xy"));
    assert_false(sim_cab_name_ok(""));
    assert_false(sim_cab_name_ok(NULL));
    assert_false(sim_cab_name_ok("a.b"));
    assert_false(sim_cab_name_ok("a b"));
    assert_false(sim_cab_name_ok("a@b"));
}

static void scope(void **state)
{
    (void)state;
    assert_true(sim_cab_topic_per_cab("vehicle.state"));
    assert_true(sim_cab_topic_per_cab("input.controls"));
    assert_true(sim_cab_topic_per_cab("ffb.command"));
    assert_true(sim_cab_topic_per_cab("log.status"));
    /* the session's one clock, its traffic and commands are not */
    assert_false(sim_cab_topic_per_cab("sim.tick"));
    assert_false(sim_cab_topic_per_cab("sim.ack"));
    assert_false(sim_cab_topic_per_cab("traffic.state"));
    assert_false(sim_cab_topic_per_cab("control.stop"));
    assert_false(sim_cab_topic_per_cab("input.other")); /* the input. prefix row */
    assert_false(sim_cab_topic_per_cab("cab.a.vehicle.state"));
    int n = 0;
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) n += sim_topics[i].per_cab;
    assert_int_equal(n, 13);
}

static void wire_and_split(void **state)
{
    (void)state;
    char out[64], cab[SIM_CAB_NAME_MAX + 1];
    const char *rest;
    assert_int_equal(sim_cab_wire("b", "vehicle.state", out, sizeof out), 19);
    assert_string_equal(out, "cab.b.vehicle.state");
    assert_int_equal(sim_cab_wire("b", "sim.ack", out, sizeof out), 7);
    assert_string_equal(out, "sim.ack");
    assert_int_equal(sim_cab_wire("b", "vehicle.state", out, 19), -1); /* no room for the NUL */
    assert_true(sim_cab_split("cab.b.vehicle.state", cab, sizeof cab, &rest));
    assert_string_equal(cab, "b");
    assert_string_equal(rest, "vehicle.state");
    assert_false(sim_cab_split("cab.b.sim.tick", cab, sizeof cab, &rest)); /* not per cab */
    assert_false(sim_cab_split("cab..vehicle.state", cab, sizeof cab, &rest));
    assert_false(sim_cab_split("cab.a b.vehicle.state", cab, sizeof cab, &rest));
    assert_false(sim_cab_split("vehicle.state", cab, sizeof cab, &rest));
    assert_false(sim_cab_split("cab.b", cab, sizeof cab, &rest));
    assert_false(sim_cab_split("cab.b.vehicle.state", cab, 1, &rest)); /* cap too small */
}

static void receive(void **state)
{
    (void)state;
    const char *as;
    assert_int_equal(sim_cab_receive("b", "cab.b.vehicle.state", &as), SIM_CAB_SEEN_OWN);
    assert_string_equal(as, "vehicle.state");
    assert_int_equal(sim_cab_receive("b", "cab.a.vehicle.state", &as), SIM_CAB_SEEN_KEEP);
    assert_string_equal(as, "cab.a.vehicle.state");
    assert_int_equal(sim_cab_receive("b", "sim.tick", &as), SIM_CAB_SEEN_KEEP);
    assert_string_equal(as, "sim.tick");
    /* a forged session topic under a cab's prefix stays what it is: no second clock */
    assert_int_equal(sim_cab_receive("b", "cab.b.sim.tick", &as), SIM_CAB_SEEN_KEEP);
    assert_string_equal(as, "cab.b.sim.tick");
    assert_int_equal(sim_cab_receive("b", "vehicle.state", &as), SIM_CAB_SEEN_DROP);
}

static void prefixes(void **state)
{
    (void)state;
    assert_true(sim_cab_prefix_covers("vehicle.state"));
    assert_true(sim_cab_prefix_covers("vehicle."));
    assert_true(sim_cab_prefix_covers("input."));
    assert_true(sim_cab_prefix_covers(""));
    assert_true(sim_cab_prefix_covers("log."));
    assert_false(sim_cab_prefix_covers("sim.tick"));
    assert_false(sim_cab_prefix_covers("control."));
    assert_false(sim_cab_prefix_covers("traffic.state"));
    assert_false(sim_cab_prefix_covers("cab."));
}

static void module_names(void **state)
{
    (void)state;
    assert_true(sim_module_session_name("physics@b"));
    assert_true(sim_module_session_name("recorder@cab1"));
    assert_true(sim_module_session_name("render-left@b"));
    assert_false(sim_module_session_name("hmi@b"));
    assert_false(sim_module_session_name("physics@"));
    assert_false(sim_module_session_name("physics@a.b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),  cmocka_unit_test(scope),    cmocka_unit_test(wire_and_split),
        cmocka_unit_test(receive), cmocka_unit_test(prefixes), cmocka_unit_test(module_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
