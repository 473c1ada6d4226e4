/* libFuzzer target: the scenario loader on arbitrary bytes. Any input must give
 * either a scenario or diagnostics, never a crash, leak or sanitizer report. Files
 * the input names resolve under a directory that does not exist, so the fuzzer
 * explores the JSON validation rather than the file system. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim_scenario.h"
#include "sim_scenery.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_diag diag = {0};
    sim_scenario *sc = NULL;
    if (sim_scenario_parse((const char *)data, size, "fuzz.json", "/nonexistent-fuzz-dir", &sc,
                           &diag) == 0) {
        /* Exercise the queries on whatever world came out. */
        sim_ground g;
        sim_scenario_ground(sc, 10.0, -2.0, &g);
        for (int i = 0; i < sc->n_tasks; i++) (void)sim_task_ideal_d(&sc->tasks[i], 50.0);
        /* the scenery rules on its roads (a few thousand objects at most) */
        sim_scenery_config cfg;
        sim_scenery_config_init(&cfg);
        if (sc->scenery) {
            cfg.style = sc->scenery->style;
            cfg.seed = sc->scenery->seed;
            for (int r = 0; r < SIM_RULE_COUNT; r++) cfg.rules[r] = sc->scenery->rules[r];
        }
        cfg.max_objects = 2000;
        sim_object_list objs = {0};
        sim_scenery_place(&sc->net, &cfg, &objs);
        sim_object_list_free(&objs);
        sim_scenery_config_free(&cfg);
        char *json = sim_scenario_where_json(sc, 0.0, 0.0);
        free(json);
        sim_scenario_free(sc);
    }
    sim_diag_free(&diag);
    return 0;
}
