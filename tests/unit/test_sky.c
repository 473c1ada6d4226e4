/* Unit tests of the light and weather table (common/base/sim_sky.def): the values keep
 * the order the scenario's enums had, the names the five old copies spelled, and the
 * words the refusals used. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim_sky.h"

static void names_and_values(void **state)
{
    (void)state;
    static const char *const lights[] = {"day", "dawn", "dusk", "night", NULL};
    static const char *const weathers[] = {"clear", "cloudy", "rain", "fog", "snow", NULL};
    for (int i = 0; i < 5; i++) {
        if (i < 4) assert_string_equal(sim_light_names[i], lights[i]);
        assert_string_equal(sim_weather_names[i], weathers[i]);
    }
    assert_null(sim_light_names[SIM_LIGHTS]);
    assert_null(sim_weather_names[SIM_WEATHERS]);
    assert_int_equal(SIM_LIGHTS, 4);
    assert_int_equal(SIM_WEATHERS, 5);
    assert_int_equal(SIM_LIGHT_DUSK, 2);
    assert_int_equal(SIM_WEATHER_SNOW, 4);
    assert_int_equal(sim_light_find("night", false), SIM_LIGHT_NIGHT);
    assert_int_equal(sim_light_find("dawn", false), SIM_LIGHT_DAWN);
    assert_int_equal(sim_light_find("dawn", true), -1); /* not the operator's */
    assert_int_equal(sim_light_find("dusk", true), SIM_LIGHT_DUSK);
    assert_int_equal(sim_light_find("Night", false), -1);
    assert_int_equal(sim_light_find(NULL, false), -1);
    assert_int_equal(sim_weather_find("fog"), SIM_WEATHER_FOG);
    assert_int_equal(sim_weather_find("hail"), -1);
}

static void words_for_refusals(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(sim_light_operator_words(true, buf, sizeof buf), "\"day\", \"dusk\" or \"night\"");
    assert_string_equal(sim_light_operator_words(false, buf, sizeof buf), "day, dusk or night");
    assert_string_equal(sim_weather_words(buf, sizeof buf), "clear, cloudy, rain, fog or snow");
    char small[8];
    assert_string_equal(sim_weather_words(small, sizeof small), "clear, "); /* cut, never overrun */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_and_values),
        cmocka_unit_test(words_for_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
