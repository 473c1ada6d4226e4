/* libFuzzer target: the OpenSCENARIO reader on arbitrary bytes (catalogs looked up in
 * fuzz/corpus/fuzz_xosc/Catalogs when the input names them). Any input must give either
 * a storyboard or an error naming file, line and element, never a crash, leak or
 * sanitizer report; what loads is then run for 200 steps on a straight two-lane test
 * road (positions on roads of no network fail the Init, which must fail cleanly too),
 * and its RoadNetwork's signal controllers are placed in a lights model of heads 1, 2
 * and 3 (accepted or refused naming the line, never a crash). */
#include <stddef.h>
#include <stdint.h>

#include "sim_lights.h"
#include "sim_storyboard.h"
#include "sim_xosc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_xosc x;
    sim_xosc_report rep;
    sim_error err = {0};
    sim_xosc_override ov[2];
    int n_ov = sim_xosc_parse_overrides("Speed=20", ov, 2, &err);
    if (sim_xosc_parse((const char *)data, size, "fuzz.xosc", "fuzz/corpus/fuzz_xosc", NULL, 0, &x, &rep, &err) != SIM_OK)
        return 0;
    char buf[512];
    sim_xosc_unsupported_text(&rep, buf, sizeof buf);
    sim_lanegraph g = {0};
    sim_storyboard sb;
    if (sim_lanegraph_straight(&g, 500, 2, 3.5, 30, &err) == SIM_OK &&
        sim_storyboard_init(&sb, &x.model, &g, &err) == SIM_OK) {
        for (int i = 0; i < 200 && !sb.done; i++) sim_storyboard_step(&sb, 0.05);
        sim_storyboard_free(&sb);
    }
    sim_lanegraph_free(&g);
    sim_lights L = {0};
    static const char *const ids[] = {"1", "2", "3"};
    for (int i = 0; i < 3; i++) {
        sim_light_head h = {.id = (char *)ids[i], .road = -1};
        sim_lights_add_head(&L, &h, &err);
    }
    sim_xosc_lights(&x, &L, &err);
    sim_lights_free(&L);
    sim_xosc_free(&x);
    (void)n_ov;
    return 0;
}
