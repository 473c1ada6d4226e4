/* cmd_xodr: `simctl import-xodr` (see cmd_xodr.h): the report on stdout, the starter
 * scenario (sim_xodr_starter) written to --out, naming the road file by a path
 * relative to the scenario's folder, and loaded back as a check before it is kept. */
#include "cmd_xodr.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_world.h"
#include "sim_cli.h"
#include "sim_file.h"
#include "sim_scenario.h"
#include "sim_xodr.h"

#define MAX_STARTS 8

/* Path of `target` relative to directory `dir` (both absolute, no . or .. parts). */
static void relative_path(const char *dir, const char *target, char *out, size_t size)
{
    size_t common = 0, i = 0;
    /* The longest common prefix ending at a '/' boundary. */
    while (dir[i] && target[i] && dir[i] == target[i]) {
        i++;
        if (dir[i] == '\0' && (target[i] == '/' || target[i] == '\0')) common = i;
        else if (dir[i] == '/' && target[i] == '/') common = i;
    }
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = dir + common; *p && n < size; p++)
        if (*p == '/') n += (size_t)snprintf(out + n, size - n, "../");
    if (n < size) snprintf(out + n, size - n, "%s", target[common] == '/' ? target + common + 1 : target + common);
}

/* The <controller>s and the default program each runs when nothing else runs its
 * heads (sim_lights_group_defaults). */
static void report_controllers(const sim_roadnet *net, const sim_xodr_report *rep)
{
    const sim_lights *L = &net->lights;
    printf("controllers: %d grouping %d traffic-light heads", rep->n_controllers, rep->n_controlled_heads);
    if (rep->n_controls_not_heads) printf(" (%d <control>s name no traffic-light head)", rep->n_controls_not_heads);
    if (rep->n_controllers)
        printf("; %d run the default fixed-time program (green %g s, amber %g s, all red %g s, docs/scenario.md) "
               "unless a scenario or OpenSCENARIO controller runs their heads", rep->n_controllers_running,
               SIM_LIGHTS_DEFAULT_GREEN, SIM_LIGHTS_DEFAULT_AMBER, SIM_LIGHTS_DEFAULT_ALL_RED);
    printf("\n");
    for (int g = 0; g < L->n_groups; g++) {
        const sim_light_group *G = &L->groups[g];
        printf("  controller %s", G->id);
        if (G->junction >= 0) printf(" (junction %s, sequence %d)", net->junctions[G->junction].id, G->sequence);
        printf(": heads");
        for (int i = 0; i < G->n_heads; i++) printf("%s %s", i ? "," : "", L->heads[G->heads[i]].id);
        if (!G->n_heads) printf(" none");
        if (G->controller >= 0)
            printf("; cycle %g s, green from %g s\n", sim_lights_cycle(L, G->controller), L->ctls[G->controller].offset);
        else
            printf("; runs nothing\n");
    }
}

static void report(const char *file, const sim_roadnet *net, const sim_xodr_report *rep)
{
    int in_junctions = 0;
    for (int i = 0; i < net->n_roads; i++) in_junctions += net->roads[i].junction >= 0;
    printf("%s: OpenDRIVE %d.%d\n", file, rep->rev_major, rep->rev_minor);
    printf("roads: %d (%d connecting roads in junctions), junctions: %d (%d connections)\n", rep->n_roads,
           in_junctions, rep->n_junctions, rep->n_connections);
    printf("lane sections: %d, lanes: %d, lane offsets: %d\n", rep->n_sections, rep->n_lanes, rep->n_lane_offset);
    printf("geometry: %d line, %d arc, %d spiral, %d poly3, %d paramPoly3\n", rep->n_geoms[SIM_GEOM_LINE],
           rep->n_geoms[SIM_GEOM_ARC], rep->n_geoms[SIM_GEOM_CLOTHOID], rep->n_geoms[SIM_GEOM_POLY3],
           rep->n_geoms[SIM_GEOM_PARAMPOLY3]);
    printf("elevation records: %d, superelevation records: %d\n", rep->n_elevation, rep->n_superelevation);
    printf("objects: %d in %d <objects> (%d placed, repeats expanded", rep->n_objects, rep->n_object_containers,
           rep->n_objects_placed);
    for (int k = 0; k < SIM_OBJ_KIND_COUNT; k++)
        if (rep->n_by_kind[k]) printf(", %d %s", rep->n_by_kind[k], sim_object_kind_name((sim_object_kind)k));
    printf(")\n");
    printf("signals: %d in %d <signals>: %d speed-limit signs (lane limits and signs), %d stop/yield/priority signs, "
           "%d traffic-light heads\n", rep->n_signals, rep->n_signal_containers, rep->n_speed_signs, rep->n_rule_signs,
           rep->n_light_heads);
    report_controllers(net, rep);
    char unsup[2048];
    sim_xodr_unsupported_text(rep, unsup, sizeof unsup);
    printf("unsupported elements (ignored): %s\n", unsup[0] ? unsup : "none");
}

static int write_starter(const char *file, const sim_roadnet *net, const char *out)
{
    char xabs[PATH_MAX], dabs[PATH_MAX], rel[PATH_MAX];
    char *odir = sim_file_dirname(out);
    if (!odir || !realpath(file, xabs) || !realpath(odir, dabs)) {
        fprintf(stderr, "simctl import-xodr: %s: cannot resolve the folder of the output (does it exist?)\n", out);
        free(odir);
        return 1;
    }
    free(odir);
    relative_path(dabs, xabs, rel, sizeof rel);
    const char *base = strrchr(file, '/');
    int task_road;
    cJSON *sc = sim_xodr_starter(net, base ? base + 1 : file, rel, MAX_STARTS, &task_road);
    if (!sc) {
        fprintf(stderr, "simctl import-xodr: %s: no road outside junctions has a driving lane to start on\n", file);
        return 1;
    }
    char *text = cJSON_Print(sc);
    int n_starts = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sc, "start_points"));
    cJSON_Delete(sc);
    FILE *f = text ? fopen(out, "w") : NULL;
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) ok = false;
    free(text);
    if (!ok) {
        fprintf(stderr, "simctl import-xodr: %s: cannot write the scenario\n", out);
        return 1;
    }
    /* Loaded back: a starter that does not load is not kept. */
    sim_diag d = {0};
    sim_scenario *check;
    if (sim_scenario_load(out, &check, &d) != 0) {
        simctl_print_diag(&d);
        sim_diag_free(&d);
        unlink(out);
        fprintf(stderr, "simctl import-xodr: the starter scenario did not load; nothing written\n");
        return 1;
    }
    sim_scenario_free(check);
    printf("wrote %s: roads from %s, %d start points", out, rel, n_starts);
    if (task_road >= 0) printf(", task keep_lane along road %s (%.1f m)", net->roads[task_road].id, net->roads[task_road].length);
    printf("\n");
    return 0;
}

int simctl_cmd_import_xodr(int argc, char **argv)
{
    static const char usage[] = "simctl import-xodr FILE.xodr [--out SCENARIO.json]";
    const char *out = NULL;
    sim_opt opts[] = {{"out", SIM_OPT_STRING, &out, "FILE", "write a starter scenario naming the road file"}};
    int npos = 0;
    int rc = sim_cli_parse(usage, "Read an OpenDRIVE file, report its roads, junctions, geometry and the elements "
                           "ignored, and with --out write a starter scenario (start points on driving lanes, one "
                           "task along the longest road).", opts, 1, argc, argv, 1, &npos);
    if (rc != SIM_CLI_OK) return rc == SIM_CLI_HELP ? 0 : 2;
    if (npos != 1) {
        fprintf(stderr, "simctl import-xodr: expected one FILE.xodr\n");
        sim_cli_print_usage(usage, NULL, opts, 1, stderr);
        return 2;
    }
    sim_roadnet net;
    sim_xodr_report rep;
    sim_error err = {0};
    if (sim_xodr_load(argv[1], &net, &rep, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    report(argv[1], &net, &rep);
    int status = out ? write_starter(argv[1], &net, out) : 0;
    sim_roadnet_free(&net);
    return status;
}
