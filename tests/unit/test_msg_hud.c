/* Unit tests of sim_msg_hud: hud.text encoded byte for byte, decoded back, and every
 * bad field named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_hud.h"

static void encode_bytes(void **state)
{
    (void)state;
    sim_msg_hud_text m = {.area = SIM_HUD_RIGHT, .has_color = true, .color = {1, 0.5, 0}, .ttl_s = 2.5};
    strcpy(m.text, "Incoming call");
    cJSON *o = sim_msg_hud_text_encode(&m);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"area\":\"right\",\"text\":\"Incoming call\",\"color\":[1,0.5,0],\"ttl_s\":2.5}");
    free(s);
    cJSON_Delete(o);
    sim_msg_hud_text plain = {.area = SIM_HUD_TOP};
    o = sim_msg_hud_text_encode(&plain);
    s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"area\":\"top\",\"text\":\"\"}");
    free(s);
    cJSON_Delete(o);
}

static void round_trip(void **state)
{
    (void)state;
    cJSON *msg = cJSON_Parse("{\"topic\":\"hud.text\",\"src\":\"ivis\",\"seq\":3,\"t\":1.5,"
                             "\"area\":\"center\",\"text\":\"Turn left\",\"color\":[0,1,0.25],\"ttl_s\":4}");
    sim_msg_hud_text m;
    sim_error err = {0};
    assert_int_equal(sim_msg_hud_text_decode(msg, &m, &err), 0);
    assert_int_equal(m.area, SIM_HUD_CENTER);
    assert_string_equal(m.text, "Turn left");
    assert_true(m.has_color && m.color[2] == 0.25 && m.ttl_s == 4);
    cJSON_Delete(msg);
    for (int a = 0; a < SIM_HUD_AREA_COUNT; a++)
        assert_int_equal(sim_hud_area_parse(sim_hud_area_name(a)), a);
}

static void bad_fields_named(void **state)
{
    (void)state;
    static const struct { const char *json, *needle; } cases[] = {
        {"{\"text\":\"x\"}", "\"area\""},
        {"{\"area\":\"middle\",\"text\":\"x\"}", "\"area\""},
        {"{\"area\":\"top\"}", "\"text\""},
        {"{\"area\":\"top\",\"text\":3}", "\"text\""},
        {"{\"area\":\"top\",\"text\":\"x\",\"color\":[1,2,0]}", "\"color\""},
        {"{\"area\":\"top\",\"text\":\"x\",\"color\":[1,0]}", "\"color\""},
        {"{\"area\":\"top\",\"text\":\"x\",\"ttl_s\":-1}", "\"ttl_s\""},
        {"{\"area\":\"top\",\"text\":\"x\",\"ttl_s\":\"soon\"}", "\"ttl_s\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *msg = cJSON_Parse(cases[i].json);
        sim_msg_hud_text m;
        sim_error err = {0};
        assert_int_equal(sim_msg_hud_text_decode(msg, &m, &err), SIM_EINVAL);
        assert_non_null(strstr(err.msg, "hud.text: "));
        assert_non_null(strstr(err.msg, cases[i].needle));
        cJSON_Delete(msg);
    }
    /* over the length limit */
    char *big = malloc(SIM_HUD_TEXT_MAX + 64);
    strcpy(big, "{\"area\":\"top\",\"text\":\"");
    size_t n = strlen(big);
    memset(big + n, 'a', SIM_HUD_TEXT_MAX + 1);
    strcpy(big + n + SIM_HUD_TEXT_MAX + 1, "\"}");
    cJSON *msg = cJSON_Parse(big);
    sim_msg_hud_text m;
    sim_error err = {0};
    assert_int_equal(sim_msg_hud_text_decode(msg, &m, &err), SIM_EINVAL);
    cJSON_Delete(msg);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encode_bytes),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(bad_fields_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
