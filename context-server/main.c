/* context-server: the scenario's context database on the bus (section 3.5 of the
 * platform paper; docs/context.md). Builds or reuses the SQLite database for the
 * scenario, loads study tables, answers context.request with context.reply and
 * publishes context.nearby and context.guidance from vehicle.state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "server.h"
#include "sim_cli.h"
#include "sim_command.h"
#include "sim_msg_vehicle.h"
#include "sim_node.h"
#include "sim_sha256.h"

#define MAX_DATA 32

typedef struct app {
    cs_server s;
    const char *scenario, *db;
    const char *data[MAX_DATA];
    int n_data;
} app;

static void on_stop(sim_node *node, const char *why, void *user)
{
    fprintf(stderr, "context-server: stopping (%s)\n", why);
}

static void on_message(sim_node *node, const sim_envelope *env, const cJSON *msg, void *user)
{
    app *a = user;
    if (strcmp(env->topic, SIM_TOPIC_CONTEXT_REQUEST) == 0) cs_handle_request(&a->s, msg);
    else if (strcmp(env->topic, SIM_TOPIC_VEHICLE_STATE) == 0) cs_on_vehicle_state(&a->s, msg, env->t);
    else if (strcmp(env->topic, SIM_TOPIC_CONTROL_STOP) == 0) sim_node_stop(node, "control.stop");
}

/* --data NAME=FILE may repeat, which the option table cannot say: taken out first. */
static int take_data(int *argc, char **argv, const char **data, int *n_data)
{
    int o = 1;
    for (int i = 1; i < *argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--") == 0) {
            while (i < *argc) argv[o++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--data") == 0) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "context-server: --data expects NAME=FILE.csv\n");
                return -1;
            }
            v = argv[++i];
        } else if (strncmp(argv[i], "--data=", 7) == 0) {
            v = argv[i] + 7;
        }
        if (!v) {
            argv[o++] = argv[i];
            continue;
        }
        if (*n_data == MAX_DATA || !strchr(v, '=') || v[0] == '=') {
            fprintf(stderr, "context-server: --data %s: expected NAME=FILE.csv (at most %d tables)\n", v, MAX_DATA);
            return -1;
        }
        data[(*n_data)++] = v;
    }
    *argc = o;
    argv[o] = NULL;
    return 0;
}

static int load_pois(cs_server *s, sim_error *err)
{
    int rc = sim_context_poi_all(s->db, s->nearby_m, &s->poi_rowid, &s->poi_xyr, &s->n_pois, err);
    if (rc) return rc;
    s->inside = calloc((size_t)s->n_pois + 1, sizeof *s->inside);
    s->inside_list = calloc((size_t)s->n_pois + 1, sizeof *s->inside_list);
    s->seen = calloc((size_t)s->n_pois + 1, sizeof *s->seen);
    for (int i = 0; i < s->n_pois; i++) s->max_radius = fmax(s->max_radius, s->poi_xyr[3 * i + 2]);
    return s->inside && s->inside_list && s->seen ? SIM_OK : sim_error_set(err, SIM_ENOMEM, "out of memory");
}

/* The scenario's content: its file, and the OpenDRIVE file its roads come from when
 * that is another file (a changed .xodr must rebuild the database too). */
static int scenario_hash(const sim_scenario *sc, const char *path, char sha[65], sim_error *err)
{
    int rc = sim_sha256_file(path, sha, err);
    if (rc || !sc->opendrive || strcmp(sc->opendrive, path) == 0) return rc;
    char both[130];
    memcpy(both, sha, 64);
    if ((rc = sim_sha256_file(sc->opendrive, both + 64, err))) return rc;
    sim_sha256_hex(both, 128, sha);
    return SIM_OK;
}

static int setup(cs_server *s, const char *scenario, const char *db, const char **data, int n_data, sim_error *err)
{
    char sha[65];
    bool rebuilt;
    int rc;
    if ((rc = sim_scenario_load_err(scenario, &s->sc, err)) || (rc = scenario_hash(s->sc, scenario, sha, err)) ||
        (rc = sim_context_open(db, &s->db, err)) || (rc = sim_context_load_scenario(s->db, s->sc, sha, &rebuilt, err)))
        return rc;
    fprintf(stderr, "context-server: %s %s from %s\n", db, rebuilt ? "built" : "reused (same scenario sha256)", scenario);
    for (int i = 0; i < n_data; i++) {
        char name[SIM_CTX_NAME_MAX];
        const char *eq = strchr(data[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - data[i]), data[i]);
        bool reloaded;
        if ((rc = sim_context_load_csv(s->db, name, eq + 1, &reloaded, err))) return rc;
        fprintf(stderr, "context-server: table %s %s from %s\n", name, reloaded ? "loaded" : "unchanged", eq + 1);
    }
    if ((rc = sim_route_map_build(&s->map, &s->sc->net, err))) return rc;
    return load_pois(s, err);
}

static void teardown(cs_server *s)
{
    sim_throttle_flush(&s->bad_output, stderr, "context-server");
    cs_guidance_end(s);
    sim_route_map_free(&s->map);
    sim_context_close(s->db);
    sim_scenario_free(s->sc);
    free(s->poi_rowid);
    free(s->poi_xyr);
    free(s->inside);
    free(s->inside_list);
    free(s->seen);
}

static int setup_node(sim_node *node, void *user, sim_error *err)
{
    app *a = user;
    if (!a->scenario) return sim_error_set(err, SIM_EINVAL, "--scenario is required"), 2;
    if (!(a->s.nearby_m > 0 && a->s.nearby_m <= 10000))
        return sim_error_set(err, SIM_EINVAL, "--nearby-m %g: expected a number in (0, 10000]", a->s.nearby_m), 2;
    if (setup(&a->s, a->scenario, a->db, a->data, a->n_data, err)) {
        teardown(&a->s);
        return 1;
    }
    return 0;
}

static int start(sim_node *node, void *user, sim_error *err)
{
    app *a = user;
    a->s.bus = sim_node_bus(node);
    fprintf(stderr, "context-server: %d POIs, %d route nodes, on %s\n", a->s.n_pois, a->s.map.g.n_nodes,
            sim_node_endpoint(node));
    return 0;
}

static int end(sim_node *node, void *user)
{
    teardown(&((app *)user)->s);
    return 0;
}

int main(int argc, char **argv)
{
    static app a = {.db = "context.db", .s.nearby_m = 50};
    if (take_data(&argc, argv, a.data, &a.n_data)) return 2;
    const char *unused = NULL;
    const sim_opt opts[] = {
        {"scenario", SIM_OPT_STRING, &a.scenario, "FILE", "scenario whose POIs, roads and signs the database holds (required)"},
        {"db", SIM_OPT_STRING, &a.db, "PATH", "database file (default context.db); rebuilt when the scenario changes"},
        {"data", SIM_OPT_STRING, &unused, "NAME=FILE.csv", "study table NAME from a CSV file (repeatable)"},
        {"nearby-m", SIM_OPT_DOUBLE, &a.s.nearby_m, "M", "radius of a POI for context.nearby unless its attributes.radius_m says (default 50)"},
    };
    static const char *const subscribe[] = {SIM_TOPIC_CONTEXT_REQUEST, SIM_TOPIC_VEHICLE_STATE, SIM_TOPIC_CONTROL_STOP};
    const sim_node_desc desc = {
        .prog = "context-server", .usage = "context-server --scenario FILE [--db PATH] [--data NAME=FILE.csv]...",
        .about = "Answers context.request (POIs, routes, messages, key-values, study tables) from the scenario's database.",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        .bus = {.name = "context", .subscribe = subscribe, .n_subscribe = sizeof subscribe / sizeof subscribe[0]},
        .setup = setup_node, .start = start, .on_message = on_message, .on_stop = on_stop, .teardown = end,
        .user = &a};
    return sim_node_run(&desc, argc, argv);
}
