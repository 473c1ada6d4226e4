/* Benchmark of OpenSCENARIO: the import of the largest shared file (traffic_lights.xosc:
 * its storyboard, catalogs and roads) beside the import of its roads alone (the
 * OpenDRIVE reader, the baseline); and one storyboard step of 100 entities with 100
 * conditions evaluated every step (events waiting on TimeHeadway, RelativeDistance and
 * Speed conditions that never hold: all drive at 2 m/s, 18 m apart) beside one traffic-core step of 100 agents on the
 * same lane graph. CPU time of this thread; prints each and the ratio.
 * Run from the repository root (it reads ../shared/openscenario). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "sim_lanegraph_road.h"
#include "sim_scenario.h"
#include "sim_storyboard.h"
#include "sim_traffic.h"
#include "sim_xodr.h"
#include "sim_xosc.h"

#define CPU CLOCK_THREAD_CPUTIME_ID
#define N 100

static double import_scenario(const char *path, int reps)
{
    double t0 = bench_clock(CPU);
    for (int i = 0; i < reps; i++) {
        sim_scenario *sc;
        sim_diag d = {0};
        if (sim_scenario_load(path, &sc, &d)) {
            fprintf(stderr, "%s\n", d.n ? d.msgs[0] : "?");
            exit(1);
        }
        sim_scenario_free(sc);
    }
    return (bench_clock(CPU) - t0) / reps;
}

static double import_roads(const char *path, int reps)
{
    double t0 = bench_clock(CPU);
    for (int i = 0; i < reps; i++) {
        sim_roadnet net;
        sim_error err = {0};
        if (sim_xodr_load(path, &net, NULL, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        sim_roadnet_free(&net);
    }
    return (bench_clock(CPU) - t0) / reps;
}

/* 100 cars on the two lanes of the 500 m straight road, 50 a lane 9 m apart, and 100
 * events (one per car) each waiting on one condition. */
static char *write_scenario(void)
{
    static char path[] = "/tmp/bench_xosc_XXXXXX.xosc";
    char road[4096];
    if (!realpath("../shared/openscenario/xodr/straight_500m.xodr", road)) return NULL;
    int fd = mkstemps(path, 5);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) return NULL;
    fprintf(f, "<OpenSCENARIO><FileHeader revMajor=\"1\" revMinor=\"2\"/><RoadNetwork><LogicFile filepath=\"%s\"/>"
               "</RoadNetwork><Entities>\n", road);
    for (int i = 0; i < N; i++)
        fprintf(f, "<ScenarioObject name=\"c%d\"><Vehicle name=\"v\" vehicleCategory=\"car\"><BoundingBox><Center x=\"1.3\" "
                   "y=\"0\" z=\"0.7\"/><Dimensions width=\"1.8\" length=\"4.5\" height=\"1.4\"/></BoundingBox></Vehicle>"
                   "</ScenarioObject>\n", i);
    fprintf(f, "</Entities><Storyboard><Init><Actions>\n");
    for (int i = 0; i < N; i++)
        fprintf(f, "<Private entityRef=\"c%d\"><PrivateAction><TeleportAction><Position><LanePosition roadId=\"1\" "
                   "laneId=\"%d\" s=\"%d\"/></Position></TeleportAction></PrivateAction><PrivateAction><LongitudinalAction>"
                   "<SpeedAction><SpeedActionDynamics dynamicsShape=\"step\" dynamicsDimension=\"time\" value=\"0\"/>"
                   "<SpeedActionTarget><AbsoluteTargetSpeed value=\"%d\"/></SpeedActionTarget></SpeedAction>"
                   "</LongitudinalAction></PrivateAction></Private>\n",
                i, i % 2 ? 1 : -1, 10 + (i / 2) * 9, 2);
    fprintf(f, "</Actions></Init><Story name=\"S\"><Act name=\"A\">\n");
    static const char *const conds[] = {
        "<TimeHeadwayCondition entityRef=\"c%d\" value=\"0.01\" freespace=\"true\" relativeDistanceType=\"longitudinal\" rule=\"lessThan\"/>",
        "<RelativeDistanceCondition entityRef=\"c%d\" value=\"0.5\" freespace=\"true\" relativeDistanceType=\"longitudinal\" rule=\"lessThan\"/>",
        "<SpeedCondition value=\"100\" rule=\"greaterThan\"/><!-- c%d -->"};
    for (int i = 0; i < N; i++) {
        fprintf(f, "<ManeuverGroup name=\"G%d\" maximumExecutionCount=\"1\"><Actors selectTriggeringEntities=\"false\">"
                   "<EntityRef entityRef=\"c%d\"/></Actors><Maneuver name=\"M%d\"><Event name=\"E%d\" priority=\"parallel\">"
                   "<Action name=\"X%d\"><PrivateAction><LongitudinalAction><SpeedAction><SpeedActionDynamics "
                   "dynamicsShape=\"linear\" dynamicsDimension=\"rate\" value=\"3\"/><SpeedActionTarget><AbsoluteTargetSpeed "
                   "value=\"0\"/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction></Action>"
                   "<StartTrigger><ConditionGroup><Condition name=\"C%d\" delay=\"0\" conditionEdge=\"rising\">"
                   "<ByEntityCondition><TriggeringEntities triggeringEntitiesRule=\"any\"><EntityRef entityRef=\"c%d\"/>"
                   "</TriggeringEntities><EntityCondition>", i, i, i, i, i, i, i);
        fprintf(f, conds[i % 3], (i + 2) % N);
        fprintf(f, "</EntityCondition></ByEntityCondition></Condition></ConditionGroup></StartTrigger></Event>"
                   "</Maneuver></ManeuverGroup>\n");
    }
    fprintf(f, "<StartTrigger/></Act></Story></Storyboard></OpenSCENARIO>\n");
    fclose(f);
    return path;
}

int main(void)
{
    const char *big = "../shared/openscenario/xosc/traffic_lights.xosc";
    const char *roads = "../shared/openscenario/xodr/fabriksgatan_traffic_lights.xodr";
    double a = import_roads(roads, 20), b = import_scenario(big, 20);
    printf("import %s: %.2f ms; its roads alone (OpenDRIVE reader, baseline): %.2f ms; ratio %.2f\n", big, b * 1e3,
           a * 1e3, b / a);

    char *path = write_scenario();
    sim_scenario *sc;
    sim_diag d = {0};
    if (!path || sim_scenario_load(path, &sc, &d)) {
        fprintf(stderr, "bench_xosc: %s\n", d.n ? d.msgs[0] : "cannot write the scenario");
        return 1;
    }
    unlink(path);
    sim_lanegraph g = {0};
    sim_storyboard sb;
    sim_error err = {0};
    if (sim_lanegraph_from_roads_merge(&g, &sc->net, true, &err) || sim_storyboard_init(&sb, &sc->xosc->model, &g, &err)) {
        fprintf(stderr, "bench_xosc: %s\n", err.msg);
        return 1;
    }
    /* the traffic core with 100 agents where the storyboard's are */
    sim_traffic t;
    sim_traffic_params p;
    sim_traffic_params_default(&p);
    p.max_agents = N;
    if (sim_traffic_init(&t, &g, &p, &err)) return 1;
    for (int i = 0; i < N; i++) {
        sim_traffic_spec sp = {.lane = sb.ent[i].lane, .s = sb.ent[i].s, .speed = sb.ent[i].v};
        sp.b = (sim_traffic_behaviour){.desired_speed = sb.ent[i].v, .headway = 1.5, .max_accel = 1.5, .max_decel = 3,
                                       .min_gap = 2, .politeness = 0.3, .lane_changes = false};
        if (sim_traffic_add_agent(&t, &sp, false, &err) < 0) return 1;
    }
    const int steps = 1000; /* 10 s: nobody reaches the road's end, no condition holds */
    double t0 = bench_clock(CPU);
    for (int i = 0; i < steps; i++) sim_traffic_step(&t, 0.01);
    double traffic = (bench_clock(CPU) - t0) / steps;
    t0 = bench_clock(CPU);
    for (int i = 0; i < steps; i++) sim_storyboard_step(&sb, 0.01);
    double story = (bench_clock(CPU) - t0) / steps;
    int waiting = 0;
    for (int i = 0; i < sc->xosc->model.n_elements; i++)
        waiting += sc->xosc->model.elements[i].type == SIM_SB_E_EVENT && sb.state[i] == SIM_SB_ST_STANDBY;
    printf("storyboard step, %d entities, %d conditions (%d still waiting at the end): %.1f us; traffic step of %d "
           "agents (baseline): %.1f us; ratio %.2f\n", N, sc->xosc->model.n_conds, waiting, story * 1e6, N, traffic * 1e6,
           story / traffic);
    sim_traffic_free(&t);
    sim_storyboard_free(&sb);
    sim_lanegraph_free(&g);
    sim_scenario_free(sc);
    return 0;
}
