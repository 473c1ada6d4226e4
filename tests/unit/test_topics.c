/* Unit tests of the topic table (common/protocol/sim_topics.def): its rows are well
 * formed, lookups pick the exact row over a prefix, and the recorder subscribes to the
 * same topics as when it listed them by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "sim_msg_sim.h"
#include "sim_topics.h"

static void rows_are_well_formed(void **state)
{
    (void)state;
    assert_true(SIM_TOPIC_COUNT > 50);
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) {
        const sim_topic *r = &sim_topics[i];
        assert_int_equal(r->id, i);
        size_t n = strlen(r->name);
        assert_true(n > 1);
        /* a prefix row covers "name*": it ends at a '.', an exact row does not */
        if ((r->name[n - 1] == '.') != r->prefix) fail_msg("row %s: a prefix ends in '.'", r->name);
        if ((r->keep == SIM_TOPIC_KEEP_EVENT || r->keep == SIM_TOPIC_KEEP_MARK) && !r->event_kind)
            fail_msg("row %s: an event needs its kind", r->name);
        if (r->keep == SIM_TOPIC_KEEP_MARK && !r->prefix) fail_msg("row %s: a mark is a prefix row", r->name);
        if (r->event_field && strcmp(r->event_field, "@topic") != 0 && !r->event_default)
            fail_msg("row %s: a name field needs its default", r->name);
        assert_non_null(r->owner);
        for (size_t j = 0; j < i; j++)
            if (strcmp(sim_topics[j].name, r->name) == 0) fail_msg("%s has two rows", r->name);
    }
    assert_string_equal(SIM_TOPIC_SIM_TICK, "sim.tick");
    assert_int_equal(sizeof SIM_TOPIC_SIM_TICK, sizeof "sim.tick");
    assert_string_equal(sim_topics[SIM_TOPIC_ID_CONTROL_STOP].name, SIM_TOPIC_CONTROL_STOP);
}

static void find_prefers_the_exact_row(void **state)
{
    (void)state;
    assert_int_equal(sim_topic_find("gaze.sample")->id, SIM_TOPIC_ID_GAZE_SAMPLE);
    assert_int_equal(sim_topic_find("gaze.fixation")->id, SIM_TOPIC_ID_GAZE_PREFIX);
    assert_int_equal(sim_topic_find("control.stop")->id, SIM_TOPIC_ID_CONTROL_STOP);
    assert_int_equal(sim_topic_find("control.stopped")->id, SIM_TOPIC_ID_CONTROL_PREFIX);
    assert_int_equal(sim_topic_find("control.")->id, SIM_TOPIC_ID_CONTROL_PREFIX);
    assert_int_equal(sim_topic_find("sim.tick")->id, SIM_TOPIC_ID_SIM_TICK);
    assert_null(sim_topic_find("vehicle.stat"));
    assert_null(sim_topic_find("odometer.state"));
    assert_null(sim_topic_find(""));
    assert_int_equal(sim_topic_find("hmi.touch")->keep, SIM_TOPIC_KEEP_EVENT);
    assert_int_equal(sim_topic_find("sector.start")->keep, SIM_TOPIC_KEEP_MARK);
    assert_int_equal(sim_topic_find("sensor.eda")->keep, SIM_TOPIC_KEEP_TABLE);
}

/* recorder/main.c's list before the table (its order is not kept: a set of prefixes),
 * and what was added since: render.latency, vehicle.collision (issue 38), motion.state
 * (issue 44: kept by recorder --all) */
static const char *const OLD_SUBSCRIBE[] = {
    "sim.tick", "vehicle.state", "input.", "control.", "dispatcher.joined", "dispatcher.left", "dispatcher.refused",
    "traffic.event", "traffic.state", "storyboard.event", "traffic.collision", "signal.", "traffic.engine",
    "trigger.", "sector.", "task.", "log.mark", "session.", "drt.", "surt.", "gaze.", "hmi.", "sensor.",
    "automation.event", "render.latency", "vehicle.collision", "motion.state"};

static void recorder_subscribes_as_before(void **state)
{
    (void)state;
    const char *subs[SIM_TOPIC_COUNT];
    size_t n = sim_topics_recorded(subs, SIM_TOPIC_COUNT);
    size_t n_old = sizeof OLD_SUBSCRIBE / sizeof *OLD_SUBSCRIBE;
    assert_int_equal(n, n_old);
    for (size_t i = 0; i < n_old; i++) {
        bool found = false;
        for (size_t j = 0; j < n; j++) found |= strcmp(subs[j], OLD_SUBSCRIBE[i]) == 0;
        if (!found) fail_msg("the recorder no longer subscribes to %s", OLD_SUBSCRIBE[i]);
    }
    const char *few[3];
    assert_int_equal(sim_topics_recorded(few, 3), n); /* counts past cap, fills only cap */
    assert_string_equal(few[0], subs[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_are_well_formed),
        cmocka_unit_test(find_prefers_the_exact_row),
        cmocka_unit_test(recorder_subscribes_as_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
