/* cmd_lct: `simctl lct-track [--track N] [--out FILE] [--lc-start M] [--lc-length M]
 * [--legible M]`: writes the scenario of Lane
 * Change Test track N (common/tasks/sim_lct.h, docs/tasks.md) and checks that the world
 * model loads it. scenarios/lct.json is `simctl lct-track --track 1 --out scenarios/lct.json`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd_xodr.h"
#include "sim_cli.h"
#include "sim_lct.h"
#include "sim_scenario.h"

int simctl_cmd_lct_track(int argc, char **argv)
{
    const char *out = NULL;
    int track = 1;
    sim_lct_params p;
    sim_lct_params_init(&p);
    sim_opt opts[] = {
        {"track", SIM_OPT_INT, &track, "N", "which sign order, 1.. (default 1)"},
        {"out", SIM_OPT_STRING, &out, "FILE", "scenario file to write (default: standard output)"},
        {"lc-start", SIM_OPT_DOUBLE, &p.lc_before, "M",
         "normative model: the lane change starts M metres before the sign (default 30)"},
        {"lc-length", SIM_OPT_DOUBLE, &p.lc_length, "M", "normative model: ... and takes M metres (default 20)"},
        {"legible", SIM_OPT_DOUBLE, &p.visibility, "M",
         "boards stay blank until the driver is M metres before them (default 40, ISO 26022; 0: never blank)"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl lct-track [--track N] [--out FILE] [options]",
                           "Writes an ISO 26022 Lane Change Test track as a scenario: three lanes, 60 km/h, "
                           "18 lane changes, signs on both sides, blank until 40 m.", opts, 5, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc || npos) return 2;
    p.track = track;
    sim_lct_track t;
    sim_error err = {0};
    if (sim_lct_track_make(&p, &t, &err)) {
        fprintf(stderr, "simctl lct-track: %s\n", err.msg);
        return 2;
    }
    cJSON *sc = lct_scenario_json(&p, &t);
    char *txt = sc ? cJSON_Print(sc) : NULL;
    cJSON_Delete(sc);
    if (!txt) {
        fprintf(stderr, "simctl lct-track: out of memory\n");
        return 1;
    }
    /* The world model must take what we write. */
    sim_scenario *w;
    sim_diag diag = {0};
    rc = sim_scenario_parse(txt, strlen(txt), out ? out : "lct-track", NULL, &w, &diag);
    if (rc) {
        fprintf(stderr, "simctl lct-track: the track does not load: %s\n", diag.n ? diag.msgs[0] : "?");
        sim_diag_free(&diag);
        free(txt);
        return 1;
    }
    sim_scenario_free(w);
    sim_diag_free(&diag);
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "simctl lct-track: %s: cannot create\n", out);
        free(txt);
        return 1;
    }
    fprintf(f, "%s\n", txt);
    free(txt);
    if (out && fclose(f)) {
        fprintf(stderr, "simctl lct-track: %s: write failed\n", out);
        return 1;
    }
    if (out) fprintf(stderr, "simctl lct-track: track %d -> %s\n", track, out);
    return 0;
}
