/* cmd_world: `simctl validate FILE...` and `simctl where FILE X Y`, thin wrappers
 * over sim_scenario_validate and sim_scenario_where_json (see cmd_world.h). */
#include "cmd_world.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim_cli.h"
#include "sim_scenario.h"

void simctl_print_diag(const sim_diag *d)
{
    for (int i = 0; i < d->n; i++) fprintf(stderr, "%s\n", d->msgs[i]);
    if (d->dropped) fprintf(stderr, "(%d more errors not shown)\n", d->dropped);
}

int simctl_session_scenario(const char *path, sim_scenario **out, sim_diag *d)
{
    sim_scenario *sc = NULL;
    int rc = sim_scenario_load(path, &sc, d);
    if (rc == 0 && sc->n_starts == 0) {
        sim_diag_add(d, "%s: start_points: none, expected at least one (a session starts the car there)", path);
        rc = SIM_EINVAL;
    }
    if (rc == 0 && out) *out = sc;
    else sim_scenario_free(sc);
    return rc;
}

int simctl_cmd_validate(int argc, char **argv)
{
    static const char usage[] = "simctl validate FILE...";
    int npos = 0;
    int rc = sim_cli_parse(usage, "Load and check scenario files as a session would use them; every "
                           "error names the file, the JSON path, what was found and what was expected.",
                           NULL, 0, argc, argv, 1, &npos);
    if (rc != SIM_CLI_OK) return rc == SIM_CLI_HELP ? 0 : 2;
    if (npos < 1) {
        fprintf(stderr, "simctl validate: expected at least one FILE\n");
        sim_cli_print_usage(usage, NULL, NULL, 0, stderr);
        return 2;
    }
    int status = 0;
    for (int i = 1; i <= npos; i++) {
        sim_diag d = {0};
        sim_scenario *sc = NULL;
        if (simctl_session_scenario(argv[i], &sc, &d) == 0) {
            /* What an OpenDRIVE file held that the model does not take, once. */
            if (sc->roads_warning) printf("%s: ok (ignored from %s: %s)\n", argv[i], sc->opendrive, sc->roads_warning);
            else printf("%s: ok\n", argv[i]);
            /* What an OpenSCENARIO file held that is not taken, once (docs/openscenario.md). */
            if (sc->xosc_warning) printf("%s: not taken from the scenario: %s\n", argv[i], sc->xosc_warning);
            sim_scenario_free(sc);
        } else {
            simctl_print_diag(&d);
            printf("%s: %d error(s)\n", argv[i], d.n + d.dropped);
            status = 1;
        }
        sim_diag_free(&d);
    }
    return status;
}

int simctl_cmd_where(int argc, char **argv)
{
    static const char usage[] = "simctl where FILE X Y";
    int npos = 0;
    int rc = sim_cli_parse(usage, "Print, as JSON, the road, s, d, lane and ground height at "
                           "world point (X, Y) in metres.", NULL, 0, argc, argv, 1, &npos);
    if (rc != SIM_CLI_OK) return rc == SIM_CLI_HELP ? 0 : 2;
    double x, y;
    if (npos != 3 || !sim_cli_number(argv[2], &x) || !sim_cli_number(argv[3], &y)) {
        fprintf(stderr, "simctl where: expected FILE X Y with X and Y numbers in metres\n");
        sim_cli_print_usage(usage, NULL, NULL, 0, stderr);
        return 2;
    }
    sim_diag d = {0};
    sim_scenario *sc;
    if (sim_scenario_load(argv[1], &sc, &d) != 0) {
        simctl_print_diag(&d);
        sim_diag_free(&d);
        return 1;
    }
    char *json = sim_scenario_where_json(sc, x, y);
    if (json) printf("%s\n", json);
    free(json);
    sim_scenario_free(sc);
    return json ? 0 : 1;
}
