/* lights: the scripted driver and traffic lights (lights.h). */
#include "lights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_lights.h"
#include "sim_scenario.h"

static int cmp_stop(const void *a, const void *b)
{
    double x = ((const in_light_stop *)a)->s, y = ((const in_light_stop *)b)->s;
    return (x > y) - (x < y);
}

/* Lane ids of road r at s that a head with this orientation and lane range controls. */
static int head_lanes(const sim_road *r, const sim_light_head *h, int *out, int max)
{
    const sim_lane_section *sec = &r->sections[sim_road_section_at(r, h->stop_s)];
    int n = 0;
    for (int side = 0; side < 2; side++) {
        int nl = side ? sec->n_left : sec->n_right;
        for (int k = 0; k < nl && n < max; k++) {
            int id = side ? k + 1 : -(k + 1);
            const sim_lane *l = side ? &sec->left[k] : &sec->right[k];
            if (!sim_lane_type_drivable(l->type)) continue;
            if (h->orientation != 0 && sim_road_lane_forward(r, id) != (h->orientation > 0)) continue;
            if ((h->lane_from || h->lane_to) && (id < h->lane_from || id > h->lane_to)) continue;
            out[n++] = id;
        }
    }
    return n;
}

int in_lights_open(in_lights *L, const char *scenario, const sim_driver_path *path, sim_error *err)
{
    memset(L, 0, sizeof *L);
    sim_scenario *sc;
    int rc = sim_scenario_load_err(scenario, &sc, err);
    if (rc) return rc;
    const sim_lights *lights = &sc->net.lights;
    int nh = lights->n_heads;
    L->ids = calloc((size_t)nh + 1, sizeof *L->ids);
    L->stop = calloc((size_t)nh + 1, sizeof *L->stop);
    L->stops = calloc((size_t)nh * 16 + 1, sizeof *L->stops);
    L->decided = calloc((size_t)nh * 16 + 1, sizeof *L->decided);
    if (!L->ids || !L->stop || !L->stops || !L->decided) {
        sim_scenario_free(sc);
        in_lights_close(L);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    L->n_heads = nh;
    for (int h = 0; h < nh; h++) {
        const sim_light_head *hd = &lights->heads[h];
        snprintf(L->ids[h], sizeof L->ids[h], "%s", hd->id);
        if (hd->kind != SIM_HEAD_VEHICLE || hd->road < 0) continue;
        int lanes[16];
        int n = head_lanes(&sc->net.roads[hd->road], hd, lanes, 16);
        for (int k = 0; k < n; k++) {
            sim_road_pose p;
            if (sim_road_lane_pose(&sc->net, hd->road, hd->stop_s, lanes[k], 0, &p) != SIM_OK) continue;
            double d, s = sim_driver_path_project(path, p.x, p.y, NULL, &d);
            if (fabs(d) > IN_LIGHT_ON_PATH_M || s <= 0 || s >= sim_driver_path_length(path)) continue;
            L->stops[L->n_stops++] = (in_light_stop){s, h};
            break; /* one lane of the head is on the path at most */
        }
    }
    qsort(L->stops, (size_t)L->n_stops, sizeof *L->stops, cmp_stop);
    sim_scenario_free(sc);
    return SIM_OK;
}

void in_lights_close(in_lights *L)
{
    free(L->ids);
    free(L->stop);
    free(L->stops);
    free(L->decided);
    memset(L, 0, sizeof *L);
}

void in_lights_set(in_lights *L, const char *id, const char *state)
{
    int s = sim_light_state_parse(state);
    for (int h = 0; h < L->n_heads; h++)
        if (strcmp(L->ids[h], id) == 0) L->stop[h] = s >= 0 && sim_light_state_stops((sim_light_state)s);
}

double in_lights_speed_cap(in_lights *L, double front_s, double speed)
{
    for (int i = 0; i < L->n_stops; i++) {
        if (!L->stop[L->stops[i].head]) L->decided[i] = 0;
    }
    for (int i = 0; i < L->n_stops; i++) {
        double dist = L->stops[i].s - front_s;
        if (dist < -0.5) continue;   /* behind it */
        if (!L->stop[L->stops[i].head]) return INFINITY; /* the next line lets it through */
        double room = dist - IN_LIGHT_MARGIN_M;
        if (L->decided[i] == 0)
            L->decided[i] = speed > 1.0 && speed * speed > 2 * IN_LIGHT_DECEL_MAX * fmax(room, 0.05) ? -1 : 1;
        if (L->decided[i] < 0) return INFINITY;
        return room > 0 ? sqrt(2 * IN_LIGHT_DECEL * room) : 0.0;
    }
    return INFINITY;
}
