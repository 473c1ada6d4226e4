/* sumo_persons: SUMO's pedestrians (sumo_persons.h). */
#include "sumo_persons.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sumo.h"

static const uint8_t vars[] = {SIM_TRACI_VAR_POSITION3D, SIM_TRACI_VAR_ANGLE, SIM_TRACI_VAR_SPEED,
                               SIM_TRACI_VAR_LENGTH,     SIM_TRACI_VAR_WIDTH, SIM_TRACI_VAR_HEIGHT};
enum { P_POS, P_ANGLE, P_SPEED, P_LENGTH, P_WIDTH, P_HEIGHT, N_VARS };

static bool on(const tn_sumo *s) { return s->sc->sumo.pedestrian_period_s > 0; }

/* The map with the sidewalks for pedestrians, and no lane type discarded but kept
 * closed to all: netconvert lays the lanes it keeps side by side, so a discarded
 * shoulder or parking lane would move the sidewalk beyond it onto the road's edge. */
const char *tn_sumo_persons_typemap(const tn_sumo *s, const char *typemap, char **owned)
{
    *owned = NULL;
    if (!on(s)) return typemap;
    static const char was[] = "<type id=\"sidewalk\" priority=\"0\" speed=\"1.39\" width=\"2.0\" disallow=\"all\" "
                              "discard=\"true\"/>";
    static const char now[] = "<type id=\"sidewalk\" priority=\"0\" speed=\"1.39\" width=\"2.0\" allow=\"pedestrian\"/>";
    static const char discard[] = " discard=\"true\"";
    if (!(*owned = malloc(strlen(typemap) + sizeof now))) return NULL;
    char *o = *owned;
    for (const char *p = typemap; *p;) {
        if (strncmp(p, was, strlen(was)) == 0) {
            o += sprintf(o, "%s", now);
            p += strlen(was);
        } else if (strncmp(p, discard, strlen(discard)) == 0) {
            p += strlen(discard);
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
    return *owned;
}

void tn_sumo_persons_netconvert(const tn_sumo *s, char **argv, int *k)
{
    if (!on(s)) return;
    argv[(*k)++] = "--crossings.guess";
    argv[(*k)++] = "true";
}

void tn_sumo_persons_sumo_options(const tn_sumo *s, char **argv, int *k)
{
    if (!on(s)) return;
    argv[(*k)++] = "--ignore-route-errors";
    argv[(*k)++] = "true";
}

int tn_sumo_persons_make(tn_sumo *s, const char *python, const char *random_trips, sim_error *err)
{
    const sim_sumo_config *c = &s->sc->sumo;
    if (!on(s)) return SIM_OK;
    char walks[1100], trips[1100], seed[24], end[32], period[32];
    snprintf(walks, sizeof walks, "%s/persons.rou.xml", s->dir);
    snprintf(trips, sizeof trips, "%s/persons.trips.xml", s->dir);
    /* a seed of their own, so that the vehicles' trips stay those of the same scenario
     * without pedestrians */
    snprintf(seed, sizeof seed, "%u", (unsigned)s->sc->traffic_seed + 1);
    snprintf(end, sizeof end, "%.17g", c->end_s);
    snprintf(period, sizeof period, "%.17g", c->pedestrian_period_s);
    char *argv[] = {(char *)python, (char *)random_trips, "--net-file", s->net, "--pedestrians", "--prefix", "p",
                    "--output-trip-file", trips, "--route-file", walks, "--seed", seed, "--begin", "0", "--end", end,
                    "--period", period, "--validate", NULL};
    int rc = tn_sumo_run_tool(s, argv, "randomTrips-persons.log", err);
    if (rc) return rc;
    size_t used = strlen(s->routes);
    if (used + strlen(walks) + 2 > sizeof s->routes) return sim_error_set(err, SIM_ETOOBIG, "SUMO's route files: too long");
    snprintf(s->routes + used, sizeof s->routes - used, ",%s", walks);
    return SIM_OK;
}

void tn_sumo_persons_subscribe(tn_sumo *s, sim_traci_buf *b)
{
    sim_traci_cmd_subscribe_context(b, SIM_TRACI_CMD_SUBSCRIBE_VEHICLE_CONTEXT, "ego", SIM_TRACI_CMD_GET_PERSON_VARIABLE,
                                    0, 1e9, s->radius, vars, N_VARS);
}

int tn_sumo_persons_read_subscribed(tn_sumo *s, sim_traci_reader *r, sim_error *err)
{
    (void)s;
    sim_error e = {0};
    int rc = sim_traci_read_status(r, SIM_TRACI_CMD_SUBSCRIBE_VEHICLE_CONTEXT, &e);
    if (rc && strncmp(e.msg, "SUMO refused", 12) == 0) return SIM_OK; /* as the vehicles': again next tick */
    if (rc) {
        *err = e;
        return rc;
    }
    return sim_traci_read_subscription(r, NULL, NULL, err);
}

bool tn_sumo_persons_on_object(tn_sumo *s, const sim_traci_object *o)
{
    if (o->domain != SIM_TRACI_CMD_GET_PERSON_VARIABLE) return false;
    if (o->n_vars != N_VARS || s->n_vehicles >= SIM_MSG_TRAFFIC_MAX_VEHICLES) return true;
    for (int i = 0; i < N_VARS; i++)
        if (!o->ok[i] || o->var[i] != vars[i]) return true;
    sim_msg_traffic_vehicle v;
    memset(&v, 0, sizeof v);
    size_t n = (size_t)o->id_len < sizeof v.id - 1 ? (size_t)o->id_len : sizeof v.id - 1;
    memcpy(v.id, o->id, n);
    snprintf(v.model, sizeof v.model, "pedestrian");
    /* SUMO's angle: degrees clockwise from north; a person's position is its centre */
    double h = remainder((90.0 - o->value[P_ANGLE].d) * M_PI / 180.0, 2 * M_PI), speed = o->value[P_SPEED].d;
    v.heading = round(h * 1e4) / 1e4;
    v.pos[0] = round((o->value[P_POS].pos[0] - s->off_x) * 1000) / 1000;
    v.pos[1] = round((o->value[P_POS].pos[1] - s->off_y) * 1000) / 1000;
    v.size[0] = o->value[P_LENGTH].d;
    v.size[1] = o->value[P_WIDTH].d;
    v.size[2] = o->value[P_HEIGHT].d;
    v.velocity[0] = speed * cos(h);
    v.velocity[1] = speed * sin(h);
    tn_sumo_list(s, &v, false); /* any lane: sidewalks, crossings */
    return true;
}
