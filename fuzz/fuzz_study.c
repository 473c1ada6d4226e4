/* libFuzzer target: study files (sim_study_parse) on arbitrary bytes; a study that
 * parses must plan every participant (each plan holding the design's conditions once
 * each) and overlay a scenario without a crash, leak or sanitizer report. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim_study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_study *s = NULL;
    sim_error err;
    if (sim_study_parse((const char *)data, size, "fuzz.json", &s, &err) != SIM_OK) return 0;
    for (int p = 0; p < s->n_participants && p < 64; p++) {
        sim_plan plan;
        if (sim_study_plan(s, p, &plan) != SIM_OK) __builtin_trap();
        int seen[SIM_STUDY_CONDITIONS_MAX] = {0};
        for (int i = 0; i < plan.n; i++)
            if (plan.drives[i].kind == SIM_DRIVE_CONDITION && seen[plan.drives[i].condition]++) __builtin_trap();
    }
    cJSON *sc = cJSON_Parse("{\"terrain\":{\"heightmap\":\"h.pgm\"},\"start_points\":[{\"name\":\"start\"}]}");
    for (int c = 0; sc && c < s->n_conditions; c++) (void)sim_study_scenario_overlay(sc, &s->conditions[c], &err);
    cJSON_Delete(sc);
    sim_study_free(s);
    return 0;
}
