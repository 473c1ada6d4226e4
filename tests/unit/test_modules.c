/* Unit tests of the module table (common/protocol/sim_modules.def): rows well formed,
 * the start order simctl run had, and the bus names reserved to a session's modules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim_modules.h"

static void rows_in_start_order(void **state)
{
    (void)state;
    /* simctl/cmd_run.c's modules[] before the table, in its order, and motion-node
     * (issue 44), osi-node (issue 43) */
    static const char *const old[][2] = {{"recorder", "recorder"}, {"physics-node", "physics"},
                                         {"traffic-node", "traffic"}, {"input-node", "input"},
                                         {"context-server", "context"}, {"render-node", "render"},
                                         {"sound-node", "sound"}, {"task-node", "task"},
                                         {"motion-node", "motion"}, {"osi-node", "osi"}};
    assert_int_equal(SIM_MODULE_COUNT, sizeof old / sizeof *old);
    for (size_t i = 0; i < SIM_MODULE_COUNT; i++) {
        const sim_module *m = &sim_modules[i];
        assert_int_equal(m->id, i);
        assert_string_equal(m->exe, old[i][0]);
        assert_string_equal(m->bus_name, old[i][1]);
        assert_non_null(m->acts_on);
    }
    /* what the strcmp chain gave each */
    assert_true(sim_modules[SIM_MODULE_ID_PHYSICS].takes & SIM_MODULE_LOCKSTEP);
    assert_false(sim_modules[SIM_MODULE_ID_RECORDER].takes & SIM_MODULE_LOCKSTEP);
    assert_false(sim_modules[SIM_MODULE_ID_CONTEXT].takes & SIM_MODULE_LOCKSTEP);
    assert_false(sim_modules[SIM_MODULE_ID_PHYSICS].clock_waits);
    assert_false(sim_modules[SIM_MODULE_ID_SOUND].clock_waits);
    assert_int_equal(sim_modules[SIM_MODULE_ID_SOUND].when, SIM_MODULE_SOUND);
    assert_int_equal(sim_modules[SIM_MODULE_ID_RENDER].when, SIM_MODULE_VIEW);
    assert_int_equal(sim_modules[SIM_MODULE_ID_TASK].when, SIM_MODULE_TASK);
    assert_int_equal(sim_modules[SIM_MODULE_ID_MOTION].when, SIM_MODULE_MOTION);
    assert_int_equal(sim_modules[SIM_MODULE_ID_OSI].when, SIM_MODULE_OSI);
    assert_true(sim_modules[SIM_MODULE_ID_OSI].clock_waits);
    assert_int_equal(sim_modules[SIM_MODULE_ID_INPUT].takes,
                     SIM_MODULE_LOCKSTEP | SIM_MODULE_START | SIM_MODULE_PER_CAB);
    /* every cab's own (docs/cabs.md): recorder, physics, input, render; the rest once */
    for (size_t i = 0; i < SIM_MODULE_COUNT; i++) {
        bool own = i == SIM_MODULE_ID_RECORDER || i == SIM_MODULE_ID_PHYSICS || i == SIM_MODULE_ID_INPUT ||
                   i == SIM_MODULE_ID_RENDER;
        assert_int_equal(!!(sim_modules[i].takes & SIM_MODULE_PER_CAB), own);
    }
}

static void session_names(void **state)
{
    (void)state;
    static const char *const reserved[] = {"recorder", "physics", "traffic", "input", "sound", "task",
                                           "context", "render", "simctl", "render-left", "render-"};
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (!sim_module_session_name(reserved[i])) fail_msg("%s is not reserved", reserved[i]);
    static const char *const free_names[] = {"observer", "odometer", "physics-node", "render2", "recorders", "",
                                             "Recorder"};
    for (size_t i = 0; i < sizeof free_names / sizeof *free_names; i++)
        if (sim_module_session_name(free_names[i])) fail_msg("%s is reserved", free_names[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_in_start_order),
        cmocka_unit_test(session_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
