/* test_objects.c - the roadside object list: copies, kinds by name, ownership. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "sim_objects.h"

static void add_copies_strings_and_outline(void **state)
{
    (void)state;
    sim_object_list list = {0};
    double outline[6] = {0, 0, 4, 0, 4, 3};
    char id[] = "obj7";
    sim_world_object o = {.kind = SIM_OBJ_BUILDING, .id = id, .x = 1, .y = 2,
                          .height = 9, .outline = outline, .n_outline = 3};
    for (int i = 0; i < 40; i++) assert_non_null(sim_object_list_add(&list, &o));
    id[0] = 'X';
    outline[2] = 99;
    assert_int_equal(list.n, 40);
    assert_string_equal(list.items[39].id, "obj7");
    assert_true(list.items[39].outline[2] == 4.0);
    assert_null(list.items[0].model);
    sim_object_list_free(&list);
    assert_int_equal(list.n, 0);
    assert_null(list.items);
}

static void kinds_round_trip_by_name(void **state)
{
    (void)state;
    for (int k = 0; k < SIM_OBJ_KIND_COUNT; k++) {
        const char *name = sim_object_kind_name((sim_object_kind)k);
        assert_non_null(name);
        assert_int_equal(sim_object_kind_parse(name), k);
    }
    assert_int_equal(sim_object_kind_parse("spaceship"), -1);
    assert_int_equal(sim_object_kind_parse(NULL), -1);
    assert_null(sim_object_kind_name(SIM_OBJ_KIND_COUNT));
    assert_string_equal(sim_object_kind_name(SIM_OBJ_GUARD_RAIL), "guard_rail");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_copies_strings_and_outline),
        cmocka_unit_test(kinds_round_trip_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
