/* Unit tests of the study topics: byte-exact encodings (the console and other clients
 * rely on the field names and order of docs/protocol.md), round trips, and decode
 * errors that name the field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "sim_msg_study.h"

static void encoded(cJSON *o, const char *want)
{
    assert_non_null(o);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, want);
    free(s);
    cJSON_Delete(o);
}

static sim_msg_study_state state;

static void state_bytes_and_round_trip(void **st)
{
    memset(&state, 0, sizeof state);
    strcpy(state.study, "example");
    strcpy(state.participant, "P02");
    strcpy(state.phase, "questionnaire");
    state.drive = 2;
    state.drives = 3;
    strcpy(state.condition, "night");
    strcpy(state.kind, "condition");
    strcpy(state.params, "{\"light\":\"night\"}");
    strcpy(state.questionnaire, "post");
    strcpy(state.waiting_on, "waiting for the test person's answers to post");
    state.n_items = 2;
    sim_msg_study_item *a = &state.items[0], *b = &state.items[1];
    strcpy(a->id, "kss");
    strcpy(a->instrument, "kss");
    strcpy(a->text, "Sleepy?");
    a->min = 1, a->max = 9, a->step = 1;
    strcpy(a->low, "alert");
    strcpy(a->high, "sleepy");
    a->n_labels = 3;
    strcpy(a->labels[0], "alert");
    strcpy(a->labels[2], "fine");
    strcpy(b->id, "note");
    strcpy(b->instrument, "post");
    strcpy(b->text, "Anything else?");
    b->is_text = true;
    cJSON *o = sim_msg_study_state_encode(&state);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"study\":\"example\",\"participant\":\"P02\",\"phase\":\"questionnaire\",\"drive\":2,"
                           "\"drives\":3,\"condition\":\"night\",\"kind\":\"condition\",\"questionnaire\":\"post\","
                           "\"waiting_on\":\"waiting for the test person's answers to post\","
                           "\"params\":{\"light\":\"night\"},\"items\":[{\"id\":\"kss\",\"instrument\":\"kss\","
                           "\"text\":\"Sleepy?\",\"type\":\"scale\",\"min\":1,\"max\":9,\"step\":1,\"low\":\"alert\","
                           "\"high\":\"sleepy\",\"labels\":[\"alert\",\"\",\"fine\"]},{\"id\":\"note\",\"instrument\":\"post\",\"text\":\"Anything else?\","
                           "\"type\":\"text\"}]}");
    free(s);
    static sim_msg_study_state back;
    sim_error err;
    assert_int_equal(sim_msg_study_state_decode(o, &back, &err), 0);
    cJSON_Delete(o);
    assert_memory_equal(&back, &state, sizeof state);
}

static void answer_bytes_and_errors(void **st)
{
    static sim_msg_study_answer m, back;
    memset(&m, 0, sizeof m);
    strcpy(m.participant, "P02");
    strcpy(m.questionnaire, "post");
    strcpy(m.source, "console");
    m.drive = 2;
    m.n = 3;
    strcpy(m.item[0], "kss");
    m.value[0] = 7;
    strcpy(m.item[1], "note");
    m.is_text[1] = true;
    strcpy(m.text[1], "ok");
    strcpy(m.item[2], "ease");
    m.value[2] = NAN; /* skipped: null on the bus, never a number */
    cJSON *o = sim_msg_study_answer_encode(&m);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"participant\":\"P02\",\"drive\":2,\"questionnaire\":\"post\",\"source\":\"console\","
                           "\"answers\":{\"kss\":7,\"note\":\"ok\",\"ease\":null}}");
    free(s);
    sim_error err;
    assert_int_equal(sim_msg_study_answer_decode(o, &back, &err), 0);
    cJSON_Delete(o);
    assert_int_equal(back.n, 3);
    assert_true(isnan(back.value[2]) && !back.is_text[2]);
    assert_true(back.is_text[1]);
    assert_string_equal(back.text[1], "ok");
    assert_true(back.value[0] == 7);

    cJSON *bad = cJSON_Parse("{\"participant\":\"P02\",\"drive\":2,\"questionnaire\":\"post\",\"answers\":{\"kss\":true}}");
    assert_int_equal(sim_msg_study_answer_decode(bad, &back, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "study.answer: answers.kss: found true, expected a number (scale item), a string (text item) or null (skipped)");
    cJSON_Delete(bad);
    bad = cJSON_Parse("{\"participant\":\"P02\",\"drive\":2,\"answers\":{}}");
    assert_int_equal(sim_msg_study_answer_decode(bad, &back, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "study.answer: questionnaire: missing, expected a value");
    cJSON_Delete(bad);
}

static void answered_bytes(void **st)
{
    sim_msg_study_answered m = {.drive = 2, .ok = false};
    strcpy(m.study, "example");
    strcpy(m.participant, "P02");
    strcpy(m.questionnaire, "post");
    strcpy(m.error, "kss: found 10, expected 1..9 in steps of 1");
    encoded(sim_msg_study_answered_encode(&m),
            "{\"study\":\"example\",\"participant\":\"P02\",\"drive\":2,\"questionnaire\":\"post\",\"ok\":false,"
            "\"error\":\"kss: found 10, expected 1..9 in steps of 1\"}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(state_bytes_and_round_trip),
        cmocka_unit_test(answer_bytes_and_errors),
        cmocka_unit_test(answered_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
