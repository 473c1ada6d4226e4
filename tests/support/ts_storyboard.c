/* ts_storyboard: see ts_storyboard.h. */
#include "ts_storyboard.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

int ts_sb_load_text(const char *text, sim_scenario **sc, char *msg, size_t size)
{
    char path[] = "/tmp/ts_storyboard_XXXXXX.xosc";
    int fd = mkstemps(path, 5);
    if (fd < 0) return SIM_EIO;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    sim_diag d = {0};
    int rc = sim_scenario_load(path, sc, &d);
    snprintf(msg, size, "%s", d.n ? d.msgs[0] : "");
    sim_diag_free(&d);
    unlink(path);
    return rc;
}

void ts_sb_start(ts_sb_run *r, const char *road, const char *vehicle, const char *init, const char *actor,
                 const char *events, const char *stop)
{
    char path[PATH_MAX], msg[512];
    assert_non_null(realpath(road ? road : TS_SB_STRAIGHT, path));
    if (!vehicle) vehicle = TS_SB_CAR;
    size_t cap = 4096 + strlen(path) + 2 * strlen(vehicle) + strlen(init) + strlen(actor) + strlen(events) +
                 (stop ? strlen(stop) : 0);
    char *text = malloc(cap);
    assert_non_null(text);
    snprintf(text, cap,
             "<?xml version=\"1.0\"?>\n<OpenSCENARIO><FileHeader revMajor=\"1\" revMinor=\"2\"/>\n"
             "<ParameterDeclarations><ParameterDeclaration name=\"Flag\" parameterType=\"double\" value=\"0\"/>"
             "</ParameterDeclarations>\n"
             "<RoadNetwork><LogicFile filepath=\"%s\"/></RoadNetwork>\n"
             "<Entities><ScenarioObject name=\"Ego\">%s</ScenarioObject><ScenarioObject name=\"Target\">%s"
             "</ScenarioObject></Entities>\n<Storyboard><Init><Actions>%s</Actions></Init>\n"
             "<Story name=\"S\"><Act name=\"A\"><ManeuverGroup name=\"G\" maximumExecutionCount=\"1\"><Actors "
             "selectTriggeringEntities=\"false\"><EntityRef entityRef=\"%s\"/></Actors><Maneuver name=\"M\">%s"
             "</Maneuver></ManeuverGroup><StartTrigger/></Act></Story>%s</Storyboard></OpenSCENARIO>\n",
             path, vehicle, vehicle, init, actor, events, stop ? stop : "");
    int rc = ts_sb_load_text(text, &r->sc, msg, sizeof msg);
    free(text);
    if (rc) fprintf(stderr, "%s\n", msg);
    assert_int_equal(rc, SIM_OK);
    sim_error err = {0};
    assert_int_equal(sim_lanegraph_from_roads_merge(&r->g, &r->sc->net, true, &err), SIM_OK);
    assert_int_equal(sim_storyboard_init(&r->sb, &r->sc->xosc->model, &r->g, &err), SIM_OK);
}

void ts_sb_finish(ts_sb_run *r)
{
    sim_storyboard_free(&r->sb);
    sim_lanegraph_free(&r->g);
    sim_scenario_free(r->sc);
}

void ts_sb_until(ts_sb_run *r, double t)
{
    while (r->sb.t < t - TS_SB_DT / 2 && !r->sb.done) sim_storyboard_step(&r->sb, TS_SB_DT);
}
