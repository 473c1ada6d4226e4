/* sim_storyboard: the engine's element states and triggers (see sim_storyboard.h);
 * actions and motion in sim_storyboard_act.c, conditions in sim_storyboard_cond.c. */
#include "sim_storyboard_impl.h"
#include "sim_route.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim_storyboard_free(sim_storyboard *sb)
{
    free(sb->ent);
    free(sb->state);
    free(sb->trans);
    free(sb->trans_step);
    free(sb->exec);
    free(sb->inst0);
    free(sb->inst);
    free(sb->last);
    free(sb->pending);
    free(sb->pvalue);
    free(sb->pnum);
    if (sb->routes) sim_route_graph_free(sb->routes);
    free(sb->routes);
    free(sb->starting);
    free(sb->px);
    free(sb->py);
    free(sb->prof);
    sb_signals_free(sb);
    memset(sb, 0, sizeof *sb);
}

static void emit(sim_storyboard *sb, int e, sim_sb_state tr)
{
    sb->trans[e] = tr;
    sb->trans_step[e] = sb->step;
    if (sb->n_events < SIM_SB_MAX_EVENTS) sb->events[sb->n_events++] = (sim_sb_event){.element = e, .transition = tr};
    else sb->lost_events++;
}

/* The lane graph as common/routing's graph (AssignRoute, AcquirePosition): a node per
 * lane from its first sample to its last, edges to its successors, and for lane changes
 * to its neighbours and their successors (a route may change lanes on the way). */
static int route_graph(sim_route_graph *rg, const sim_lanegraph *g)
{
    int rc = SIM_OK;
    for (int l = 0; l < g->n_lanes && rc >= 0; l++) {
        const sim_lg_lane *a = &g->lanes[l];
        int p0 = a->pt0, p1 = a->pt0 + a->n_pts - 1;
        sim_route_node n = {.length = a->length > 0 ? a->length : 1e-3, .x0 = g->px[p0], .y0 = g->py[p0],
                            .h0 = g->ph[p0], .x1 = g->px[p1], .y1 = g->py[p1], .h1 = g->ph[p1],
                            .junction = a->junction, .road = a->road, .dir = a->forward ? 1 : -1};
        rc = sim_route_graph_add_node(rg, &n);
    }
    for (int l = 0; l < g->n_lanes && rc >= 0; l++) {
        const sim_lg_lane *a = &g->lanes[l];
        for (int k = 0; k < a->n_succ && rc >= 0; k++) rc = sim_route_graph_add_edge(rg, l, a->succ[k]);
        int nb[2] = {a->left, a->right};
        for (int i = 0; i < 2; i++) {
            if (nb[i] < 0) continue;
            if (rc >= 0) rc = sim_route_graph_add_edge(rg, l, nb[i]);
            for (int k = 0; k < g->lanes[nb[i]].n_succ && rc >= 0; k++)
                rc = sim_route_graph_add_edge(rg, l, g->lanes[nb[i]].succ[k]);
        }
    }
    if (rc >= 0) rc = sim_route_graph_finish(rg);
    return rc < 0 ? rc : SIM_OK;
}

/* The conditions' first values, for their edges (see sim_storyboard_init). */
static void prime(sim_storyboard *sb, const sim_sb_trigger *t)
{
    for (int g = t->g0; g < t->g0 + t->n; g++)
        for (int c = sb->m->groups[g].c0; c < sb->m->groups[g].c0 + sb->m->groups[g].n; c++)
            sb->last[c] = sb_condition(sb, c) ? 1 : 0;
}

int sim_storyboard_init(sim_storyboard *sb, const sim_sb_model *m, const sim_lanegraph *g, sim_error *err)
{
    memset(sb, 0, sizeof *sb);
    sb->m = m;
    sb->g = g;
    int ne = m->n_elements + 1, n_inst = 0;
    for (int i = 0; i < m->n_elements; i++) {
        const sim_sb_element *el = &m->elements[i];
        if (el->type != SIM_SB_E_ACTION) continue;
        int gi = el->parent; /* event -> maneuver -> group */
        while (gi >= 0 && m->elements[gi].type != SIM_SB_E_GROUP) gi = m->elements[gi].parent;
        int actors = gi >= 0 ? m->elements[gi].n_actors : 0;
        n_inst += actors > 0 ? actors : 1;
    }
    n_inst += m->n_init;
    sb->ent = calloc((size_t)m->n_entities + 1, sizeof *sb->ent);
    sb->state = calloc((size_t)ne, sizeof *sb->state);
    sb->trans = calloc((size_t)ne, sizeof *sb->trans);
    sb->trans_step = calloc((size_t)ne, sizeof *sb->trans_step);
    sb->exec = calloc((size_t)ne, sizeof *sb->exec);
    sb->inst0 = calloc((size_t)ne, sizeof *sb->inst0);
    sb->inst = calloc((size_t)n_inst + 1, sizeof *sb->inst);
    sb->last = calloc((size_t)m->n_conds + 1, sizeof *sb->last);
    sb->pending = calloc((size_t)m->n_conds + 1, sizeof *sb->pending);
    sb->pvalue = calloc((size_t)m->n_params + 1, sizeof *sb->pvalue);
    sb->pnum = calloc((size_t)m->n_params + 1, sizeof *sb->pnum);
    sb->routes = malloc(sizeof *sb->routes);
    if (sb->routes) sim_route_graph_init(sb->routes);
    sb->starting = calloc((size_t)n_inst + 1, sizeof *sb->starting);
    int n_pool = 0;
    for (int i = 0; i < m->n_elements; i++) {
        const sim_sb_element *el = &m->elements[i];
        if (el->type == SIM_SB_E_ACTION && m->actions[el->action].type == SIM_SB_A_FOLLOW_TRAJECTORY)
            n_pool += m->actions[el->action].n_route * (m->n_actors + 1);
    }
    for (int i = 0; i < m->n_init; i++)
        if (m->actions[m->init[i].action].type == SIM_SB_A_FOLLOW_TRAJECTORY) n_pool += m->actions[m->init[i].action].n_route;
    sb->n_pool = n_pool;
    sb->px = calloc((size_t)n_pool + 1, sizeof *sb->px);
    sb->py = calloc((size_t)n_pool + 1, sizeof *sb->py);
    int src = sb_signals_init(sb);
    if (src || !sb->ent || !sb->state || !sb->trans || !sb->trans_step || !sb->exec || !sb->inst0 || !sb->inst || !sb->last ||
        !sb->pending || !sb->pvalue || !sb->pnum || !sb->routes || !sb->starting || !sb->px || !sb->py) {
        sim_storyboard_free(sb);
        return sim_error_set(err, SIM_ENOMEM, "storyboard: out of memory");
    }
    int grc = route_graph(sb->routes, g);
    if (grc) {
        sim_storyboard_free(sb);
        return sim_error_set(err, grc, "storyboard: out of memory");
    }
    for (int i = 0; i < ne; i++) sb->trans_step[i] = -10;
    for (int i = 0; i < m->n_conds; i++) {
        sb->pending[i] = NAN;
        sb->last[i] = -1;
        sb->track_offroad |= m->conds[i].type == SIM_SB_C_OFFROAD;
    }
    for (int i = 0; i < m->n_params; i++) {
        memcpy(sb->pvalue[i], m->params[i].value, SIM_SB_NAME);
        sb->pnum[i] = NAN;
    }
    for (int i = 0; i < m->n_entities; i++)
        sb->ent[i] = (sim_sb_state_ent){.long_inst = -1, .lat_inst = -1, .path_inst = -1, .goal_lane = -1, .lane = -1};
    /* instances: Init's first (one per Init action), then per action element and actor */
    for (int i = 0; i < m->n_init; i++)
        sb->inst[sb->n_inst++] = (sim_sb_inst){.action = m->init[i].action, .element = -1, .entity = m->init[i].entity};
    for (int i = 0; i < m->n_elements; i++) {
        const sim_sb_element *el = &m->elements[i];
        if (el->type != SIM_SB_E_ACTION) continue;
        int gi = el->parent;
        while (gi >= 0 && m->elements[gi].type != SIM_SB_E_GROUP) gi = m->elements[gi].parent;
        sb->inst0[i] = sb->n_inst;
        int actors = gi >= 0 ? m->elements[gi].n_actors : 0;
        for (int k = 0; k < (actors > 0 ? actors : 1); k++)
            sb->inst[sb->n_inst++] = (sim_sb_inst){.action = el->action, .element = i,
                                                   .entity = actors > 0 ? m->actors[m->elements[gi].actor0 + k] : -1};
    }
    int pool = 0, prof = 0;
    for (int i = 0; i < sb->n_inst; i++) {
        const sim_sb_action *a = &m->actions[sb->inst[i].action];
        sb->inst[i].pool0 = pool;
        sb->inst[i].prof0 = prof;
        if (a->type == SIM_SB_A_FOLLOW_TRAJECTORY) pool += a->n_route;
        if (a->type == SIM_SB_A_SPEED_PROFILE) prof += SIM_SB_PROFILE_CAP(a->n_prof);
    }
    sb->n_prof = prof;
    sb->prof = calloc((size_t)prof + 1, sizeof *sb->prof);
    if (!sb->prof) {
        sim_storyboard_free(sb);
        return sim_error_set(err, SIM_ENOMEM, "storyboard: out of memory");
    }
    /* Init: teleports first (relative positions may name entities placed later in the
     * file), then the rest */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < m->n_init; i++) {
            const sim_sb_action *a = &m->actions[m->init[i].action];
            if ((a->type == SIM_SB_A_TELEPORT) != (pass == 0)) continue;
            if (pass == 0 && !sb_place(sb, m->init[i].entity, &a->pos)) {
                int rc = sim_error_set(err, SIM_EINVAL, "line %d: <TeleportAction> of %s: the position is on no lane "
                                       "and no road of the network", a->line, m->entities[m->init[i].entity].name);
                sim_storyboard_free(sb);
                return rc;
            }
            if (pass == 1) sb_action_start(sb, i);
        }
    /* the stories start with the simulation */
    for (int i = 0; i < m->n_elements; i++)
        if (m->elements[i].type == SIM_SB_E_STORY) {
            sb->state[i] = SIM_SB_ST_RUNNING;
            emit(sb, i, SIM_SB_TR_START);
        }
    /* esmini evaluates the acts' start triggers and the stop trigger a first time at
     * t = 0, with the Init applied: their edges start from those values (an act on
     * `SimulationTime > 0, rising` starts at the first step) */
    for (int i = 0; i < m->n_elements; i++)
        if (m->elements[i].type == SIM_SB_E_ACT) prime(sb, &m->elements[i].start);
    prime(sb, &m->stop);
    return SIM_OK;
}

void sim_storyboard_set_external_mode(sim_storyboard *sb, int e, bool external)
{
    if (e >= 0 && e < sb->m->n_entities) sb->ent[e].external = external;
}

void sim_storyboard_set_external(sim_storyboard *sb, int e, double x, double y, double heading, double speed)
{
    if (e < 0 || e >= sb->m->n_entities) return;
    sim_sb_state_ent *s = &sb->ent[e];
    s->x = x;
    s->y = y;
    s->heading = heading;
    s->placed = true;
    s->v = speed;
    sim_lg_pos p;
    s->on_lane = sim_lanegraph_locate(sb->g, x, y, s->on_lane ? s->lane : -1, 1.0, &p);
    s->reverse = false;
    if (s->on_lane) {
        s->lane = p.lane;
        s->s = p.s;
        s->lat = p.lat;
    }
}


/* ---- triggers --------------------------------------------------------------------- */

/* A condition with its edge and delay. */
static bool condition(sim_storyboard *sb, int c)
{
    const sim_sb_condition *cd = &sb->m->conds[c];
    bool raw = sb_condition(sb, c), v;
    /* There is no edge without a value before: a condition already true when first
     * evaluated does not rise (esmini; traffic_lights' DriveOnGreen waits for the
     * real green instead of firing on the first step and never again). */
    bool seen = sb->last[c] >= 0, last = sb->last[c] > 0;
    switch (cd->edge) {
    case SIM_SB_EDGE_RISING: v = seen && raw && !last; break;
    case SIM_SB_EDGE_FALLING: v = seen && !raw && last; break;
    case SIM_SB_EDGE_BOTH: v = seen && raw != last; break;
    default: v = raw; break;
    }
    sb->last[c] = raw ? 1 : 0;
    if (cd->delay <= 0) return v;
    if (v && isnan(sb->pending[c])) sb->pending[c] = sb->t + cd->delay;
    if (!isnan(sb->pending[c]) && sb->t >= sb->pending[c] - 1e-9) {
        sb->pending[c] = NAN;
        return true;
    }
    return false;
}

/* Every condition is evaluated (edges need their last value), groups are ANDs, the
 * trigger their OR. n == 0: no trigger (true); n < 0: nothing left to fire it. */
static bool trigger(sim_storyboard *sb, const sim_sb_trigger *t, bool none)
{
    if (t->n == 0) return none;
    if (t->n < 0) return false;
    bool any = false;
    for (int g = t->g0; g < t->g0 + t->n; g++) {
        const sim_sb_group *gr = &sb->m->groups[g];
        bool all = true;
        for (int c = gr->c0; c < gr->c0 + gr->n; c++) all &= condition(sb, c);
        any |= all;
    }
    return any;
}

/* ---- element states --------------------------------------------------------------- */

static const int *kids(const sim_storyboard *sb, int e) { return sb->m->kids + sb->m->elements[e].child0; }

static void set_state(sim_storyboard *sb, int e, sim_sb_state st, sim_sb_state tr)
{
    sb->state[e] = st;
    emit(sb, e, tr);
}

/* Ends element e and everything running below it (stopTransition, or endTransition
 * for e itself when `end`). */
static void stop(sim_storyboard *sb, int e, bool end)
{
    const sim_sb_element *el = &sb->m->elements[e];
    if (sb->state[e] == SIM_SB_ST_COMPLETE) return;
    for (int k = 0; k < el->n_children; k++) stop(sb, kids(sb, e)[k], false);
    if (el->type == SIM_SB_E_ACTION) {
        for (int i = sb->inst0[e]; i < sb->n_inst && sb->inst[i].element == e; i++) sb_action_end(sb, i);
    }
    if (sb->state[e] == SIM_SB_ST_STANDBY && !end) {
        sb->state[e] = SIM_SB_ST_COMPLETE; /* never started: no transition to report */
        return;
    }
    set_state(sb, e, SIM_SB_ST_COMPLETE, end ? SIM_SB_TR_END : SIM_SB_TR_STOP);
}

static void start(sim_storyboard *sb, int e);

/* A maneuver group's maneuvers run, their events wait for their triggers. */
static void arm(sim_storyboard *sb, int e)
{
    const sim_sb_element *el = &sb->m->elements[e];
    for (int k = 0; k < el->n_children; k++) {
        int c = kids(sb, e)[k];
        if (el->type == SIM_SB_E_MANEUVER) {
            sb->state[c] = SIM_SB_ST_STANDBY; /* events */
            for (int a = 0; a < sb->m->elements[c].n_children; a++) sb->state[kids(sb, c)[a]] = SIM_SB_ST_STANDBY;
        } else {
            start(sb, c);
        }
    }
}

static void start(sim_storyboard *sb, int e)
{
    const sim_sb_element *el = &sb->m->elements[e];
    set_state(sb, e, SIM_SB_ST_RUNNING, SIM_SB_TR_START);
    if (el->type == SIM_SB_E_EVENT) {
        for (int k = 0; k < el->n_children; k++) {
            int a = kids(sb, e)[k];
            set_state(sb, a, SIM_SB_ST_RUNNING, SIM_SB_TR_START);
            for (int i = sb->inst0[a]; i < sb->n_inst && sb->inst[i].element == a; i++) {
                sb->inst[i].running = true; /* started after this step's triggers */
                sb->starting[sb->n_starting++] = i;
            }
        }
    } else if (el->type != SIM_SB_E_ACTION) {
        arm(sb, e);
    }
}

static bool all_complete(const sim_storyboard *sb, int e)
{
    const sim_sb_element *el = &sb->m->elements[e];
    for (int k = 0; k < el->n_children; k++)
        if (sb->state[kids(sb, e)[k]] != SIM_SB_ST_COMPLETE) return false;
    return true;
}

/* An event that ended counts one execution; below its maximumExecutionCount it waits
 * for its trigger again. */
static void rearm_event(sim_storyboard *sb, int e)
{
    const sim_sb_element *el = &sb->m->elements[e];
    if (++sb->exec[e] >= el->max_exec) return;
    sb->state[e] = SIM_SB_ST_STANDBY;
    for (int k = 0; k < el->n_children; k++) sb->state[kids(sb, e)[k]] = SIM_SB_ST_STANDBY;
}

/* An event's start: its priority decides about the others running in its maneuver. */
static void fire_event(sim_storyboard *sb, int e)
{
    const sim_sb_element *el = &sb->m->elements[e];
    int man = el->parent;
    bool other = false;
    for (int k = 0; k < sb->m->elements[man].n_children; k++) {
        int o = kids(sb, man)[k];
        if (o != e && sb->state[o] == SIM_SB_ST_RUNNING) other = true;
    }
    if (other && el->priority == SIM_SB_PRIO_SKIP) {
        emit(sb, e, SIM_SB_TR_SKIP);
        return;
    }
    if (other && el->priority == SIM_SB_PRIO_OVERWRITE)
        for (int k = 0; k < sb->m->elements[man].n_children; k++) {
            int o = kids(sb, man)[k];
            if (o != e && sb->state[o] == SIM_SB_ST_RUNNING) {
                stop(sb, o, false);
                rearm_event(sb, o); /* an execution of it: it may run again */
            }
        }
    start(sb, e);
}

static void update_action(sim_storyboard *sb, int a)
{
    if (sb->state[a] != SIM_SB_ST_RUNNING) return;
    for (int i = sb->inst0[a]; i < sb->n_inst && sb->inst[i].element == a; i++)
        if (sb->inst[i].running) return;
    set_state(sb, a, SIM_SB_ST_COMPLETE, SIM_SB_TR_END);
}

static void update_event(sim_storyboard *sb, int e)
{
    const sim_sb_element *el = &sb->m->elements[e];
    if (sb->state[e] == SIM_SB_ST_STANDBY) {
        if (trigger(sb, &el->start, true)) fire_event(sb, e);
    }
    if (sb->state[e] != SIM_SB_ST_RUNNING) return;
    for (int k = 0; k < el->n_children; k++) update_action(sb, kids(sb, e)[k]);
    if (!all_complete(sb, e)) return;
    set_state(sb, e, SIM_SB_ST_COMPLETE, SIM_SB_TR_END);
    rearm_event(sb, e);
}

static void update_container(sim_storyboard *sb, int e)
{
    const sim_sb_element *el = &sb->m->elements[e];
    if (el->type == SIM_SB_E_ACT) {
        if (sb->state[e] == SIM_SB_ST_STANDBY && trigger(sb, &el->start, true)) start(sb, e); /* an empty StartTrigger: at once */
        if (sb->state[e] == SIM_SB_ST_RUNNING && el->stop.n && trigger(sb, &el->stop, false)) {
            stop(sb, e, false);
            return;
        }
    }
    if (sb->state[e] != SIM_SB_ST_RUNNING) return;
    for (int k = 0; k < el->n_children; k++) {
        int c = kids(sb, e)[k];
        if (el->type == SIM_SB_E_MANEUVER) update_event(sb, c);
        else update_container(sb, c);
    }
    if (!all_complete(sb, e)) return;
    set_state(sb, e, SIM_SB_ST_COMPLETE, SIM_SB_TR_END);
    if (el->type == SIM_SB_E_GROUP && ++sb->exec[e] < el->max_exec) {
        set_state(sb, e, SIM_SB_ST_RUNNING, SIM_SB_TR_START);
        arm(sb, e);
    }
}

void sim_storyboard_step(sim_storyboard *sb, double dt)
{
    sb->n_events = 0;
    sb_signals_clear_requests(sb);
    if (sb->done || !(dt > 0)) return;
    sb_move(sb, dt);
    sb->step++;
    sb->t += dt;
    const sim_sb_model *m = sb->m;
    sb->n_starting = 0;
    for (int i = 0; i < m->n_elements; i++)
        if (m->elements[i].parent < 0) update_container(sb, i);
    for (int k = 0; k < sb->n_starting; k++)
        if (sb->inst[sb->starting[k]].running) sb_action_start(sb, sb->starting[k]);
    if (m->stop.n && trigger(sb, &m->stop, false)) {
        for (int i = 0; i < m->n_elements; i++)
            if (m->elements[i].parent < 0) stop(sb, i, false);
        sb->done = true;
    }
}
