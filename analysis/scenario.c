/* scenario: what the analysis needs from a scenario, read through the world model.
 *
 * sim_scenario_load validates the file (errors name the file, the JSON path, what was
 * found and what was expected); this adapter turns its tasks into sim_metrics form and
 * answers the two questions the metrics ask of the road: which marks bound the lane
 * that holds d, and which speed limit holds at s. */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether a trigger is something the driver reacts to (not a silent log mark) and its
 * zone lies on the task's stretch of road. */
static bool task_has_stimuli(const sim_scenario *w, const sim_task *t)
{
    for (int k = 0; k < w->n_triggers; k++) {
        const sim_trigger *tg = &w->triggers[k];
        if (tg->road == t->road && tg->action != SIM_ACTION_LOG_MARK && tg->s_end >= t->s_start &&
            tg->s_start <= t->s_end)
            return true;
    }
    return false;
}

an_params an_params_default(void)
{
    return (an_params){.vehicle_width = 1.8, .speed_margin = 3.0 / 3.6};
}

int an_scenario_load(const char *path, const an_params *p, an_scenario *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(p->vehicle_width >= 0) || !isfinite(p->vehicle_width))
        return sim_error_set(err, SIM_EINVAL, "vehicle width %g: expected a finite number >= 0",
                             p->vehicle_width);
    if (!(p->speed_margin >= 0) || !isfinite(p->speed_margin))
        return sim_error_set(err, SIM_EINVAL, "speed margin %g km/h: expected a finite number >= 0",
                             p->speed_margin * 3.6);
    int rc = sim_scenario_load_params(path, p->xosc_params, &out->world, err);
    if (rc) return rc;
    const sim_scenario *w = out->world;
    out->name = w->name && w->name[0] ? w->name : w->path;
    out->vehicle_width = p->vehicle_width;
    out->speed_margin = p->speed_margin;
    if (w->n_tasks == 0) {
        an_scenario_free(out);
        return sim_error_set(err, SIM_EINVAL, "%s: tasks: found none, expected at least one task to analyse",
                             path);
    }
    out->tasks = calloc((size_t)w->n_tasks, sizeof *out->tasks);
    if (!out->tasks) {
        an_scenario_free(out);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    out->n_tasks = (size_t)w->n_tasks;
    for (int k = 0; k < w->n_tasks; k++) {
        const sim_task *t = &w->tasks[k];
        an_task *a = &out->tasks[k];
        a->id = t->id;
        a->road = t->road;
        a->s_start = t->s_start;
        a->s_end = t->s_end;
        a->tube_half_width = t->tube_half_width;
        a->reactions = task_has_stimuli(w, t);
        a->ideal = malloc((size_t)(t->n_ideal > 0 ? t->n_ideal : 1) * sizeof *a->ideal);
        if (!a->ideal) {
            an_scenario_free(out);
            return sim_error_set(err, SIM_ENOMEM, "out of memory");
        }
        for (int q = 0; q < t->n_ideal; q++) a->ideal[q] = (sim_metrics_point){t->ideal_s[q], t->ideal_d[q]};
        a->n_ideal = (size_t)t->n_ideal;
    }
    return 0;
}

void an_scenario_free(an_scenario *sc)
{
    if (!sc) return;
    for (size_t k = 0; k < sc->n_tasks; k++) free(sc->tasks[k].ideal);
    free(sc->tasks);
    sim_scenario_free(sc->world);
    free(sc->lct_profile);
    memset(sc, 0, sizeof *sc);
}

static const sim_road *road_of(const an_scenario *sc, int road)
{
    if (!sc->world || road < 0 || road >= sc->world->net.n_roads) return NULL;
    return &sc->world->net.roads[road];
}

void an_scenario_marks(const an_scenario *sc, int road, double s, double d, double *left, double *right)
{
    *left = *right = NAN;
    const sim_road *r = road_of(sc, road);
    sim_lane_info li;
    if (!r || !sim_road_lane_at(r, s, d, &li)) return;
    if (li.left_mark != SIM_MARK_NONE) *left = li.left_d;
    if (li.right_mark != SIM_MARK_NONE) *right = li.right_d;
}

double an_scenario_limit(const an_scenario *sc, int road, double s)
{
    const sim_road *r = road_of(sc, road);
    double v = r ? sim_road_speed_limit(r, s) : 0;
    return v > 0 ? v : NAN;
}

size_t an_scenario_borders(const an_scenario *sc, int road, double s, double *d, bool *solid, size_t max)
{
    const sim_road *r = road_of(sc, road);
    int si = r ? sim_road_section_at(r, s) : -1;
    if (si < 0) return 0;
    const sim_lane_section *ls = &r->sections[si];
    size_t n = 0;
    /* Right lanes outermost first, the centre line, then the left lanes outwards. */
    for (int id = -ls->n_right; id <= ls->n_left && n < max; id++) {
        const sim_lane *l = sim_road_lane(r, si, id);
        sim_mark_type m = sim_lane_mark_type(l, s - ls->s0);
        double inner, outer;
        if (m == SIM_MARK_NONE || !sim_road_lane_borders(r, s, id, &inner, &outer)) continue;
        d[n] = outer, solid[n++] = m == SIM_MARK_SOLID;
    }
    return n;
}

bool an_scenario_multi_section(const an_scenario *sc, int road)
{
    const sim_road *r = road_of(sc, road);
    return r && r->n_sections > 1;
}
