/* sim_xosc_cond: the OpenSCENARIO reader's triggers, condition groups and conditions
 * (by entity and by value), see sim_xosc.h. */
#include "sim_xosc_util.h"

#include <stdio.h>
#include <string.h>

static const char *const RULES[] = {"greaterThan", "lessThan", "equalTo", "greaterOrEqual", "lessOrEqual", "notEqualTo", NULL};

/* ---- conditions ------------------------------------------------------------------- */

static int read_entity_condition(xosc_parser *P, const xmlNode *ec, sim_sb_condition *c)
{
    const xmlNode *k = xosc_first(ec);
    /* cartesianDistance: OpenSCENARIO 1.0's name of euclidianDistance (deprecated in 1.1, still valid) */
    static const char *const dists[] = {"longitudinal", "lateral", "euclidianDistance", "euclideanDistance",
                                        "cartesianDistance", NULL};
    int rule = 0, dist = 0;
    c->entity = -1;
    c->line = (int)xmlGetLineNo(k ? k : ec);
#define RULE() xosc_enum(P, k, "rule", true, RULES, 0, &rule)
    if (xosc_is(k, "ReachPositionCondition")) {
        c->type = SIM_SB_C_REACH_POSITION;
        if (xosc_num(P, k, "tolerance", true, 0, &c->tolerance) && xosc_child(k, "Position"))
            xosc_position(P, xosc_child(k, "Position"), &c->pos);
    } else if (xosc_is(k, "DistanceCondition")) {
        c->type = SIM_SB_C_DISTANCE;
        if (RULE() && xosc_num(P, k, "value", true, 0, &c->value) && xosc_bool(P, k, "freespace", true, false, &c->freespace) &&
            xosc_enum(P, k, "relativeDistanceType", false, dists, 2, &dist) && xosc_child(k, "Position"))
            xosc_position(P, xosc_child(k, "Position"), &c->pos);
    } else if (xosc_is(k, "RelativeDistanceCondition")) {
        c->type = SIM_SB_C_RELATIVE_DISTANCE;
        if (RULE() && xosc_entity(P, k, "entityRef", &c->entity) && xosc_num(P, k, "value", true, 0, &c->value) &&
            xosc_bool(P, k, "freespace", true, false, &c->freespace))
            xosc_enum(P, k, "relativeDistanceType", true, dists, 0, &dist);
    } else if (xosc_is(k, "TimeHeadwayCondition") || xosc_is(k, "TimeToCollisionCondition")) {
        bool thw = xosc_is(k, "TimeHeadwayCondition");
        c->type = thw ? SIM_SB_C_TIME_HEADWAY : SIM_SB_C_TTC;
        if (RULE() && xosc_num(P, k, "value", true, 0, &c->value) && xosc_bool(P, k, "freespace", true, false, &c->freespace) &&
            xosc_enum(P, k, "relativeDistanceType", false, dists, 0, &dist)) {
            if (thw) {
                xosc_entity(P, k, "entityRef", &c->entity);
            } else {
                const xmlNode *t = xosc_first(xosc_child(k, "TimeToCollisionConditionTarget"));
                if (xosc_is(t, "EntityRef")) xosc_entity(P, t, "entityRef", &c->entity);
                else if (xosc_is(t, "Position")) xosc_position(P, t, &c->pos);
                else xosc_fail(P, k, SIM_EINVAL, "has no target, expected <EntityRef> or <Position>");
            }
        }
    } else if (xosc_is(k, "SpeedCondition") || xosc_is(k, "AccelerationCondition")) {
        c->type = xosc_is(k, "SpeedCondition") ? SIM_SB_C_SPEED : SIM_SB_C_ACCELERATION;
        if (RULE()) xosc_num(P, k, "value", true, 0, &c->value);
    } else if (xosc_is(k, "RelativeSpeedCondition")) {
        c->type = SIM_SB_C_RELATIVE_SPEED;
        if (RULE() && xosc_entity(P, k, "entityRef", &c->entity)) xosc_num(P, k, "value", true, 0, &c->value);
    } else if (xosc_is(k, "StandStillCondition") || xosc_is(k, "EndOfRoadCondition") || xosc_is(k, "OffroadCondition")) {
        c->type = xosc_is(k, "StandStillCondition") ? SIM_SB_C_STANDSTILL
                  : xosc_is(k, "EndOfRoadCondition") ? SIM_SB_C_END_OF_ROAD : SIM_SB_C_OFFROAD;
        xosc_num(P, k, "duration", true, 0, &c->value);
    } else if (xosc_is(k, "TraveledDistanceCondition")) {
        c->type = SIM_SB_C_TRAVELED;
        xosc_num(P, k, "value", true, 0, &c->value);
    } else if (xosc_is(k, "RelativeClearanceCondition")) {
        sim_sb_model *m = &P->x->model;
        c->type = SIM_SB_C_CLEARANCE;
        if (!xosc_num(P, k, "distanceForward", true, 0, &c->value) || !xosc_num(P, k, "distanceBackward", true, 0, &c->dist_back) ||
            !xosc_bool(P, k, "freeSpace", true, false, &c->freespace) || !xosc_bool(P, k, "oppositeLanes", true, false, &c->opposite))
            return P->rc;
        if (c->value < 0 || c->dist_back < 0)
            return xosc_fail(P, k, SIM_ERANGE, "has distanceForward %g and distanceBackward %g, expected both >= 0", c->value, c->dist_back);
        c->ref0 = m->n_trig;
        for (const xmlNode *e = k->children; e && !P->rc; e = e->next) {
            if (xosc_is(e, "EntityRef")) {
                int ent, *slot;
                if (!xosc_entity(P, e, "entityRef", &ent) || !(slot = xosc_push(P, e, (void **)&m->trig, &m->n_trig, sizeof *slot)))
                    return P->rc;
                *slot = ent;
                c->n_ref++;
            } else if (xosc_is(e, "RelativeLaneRange")) {
                if (c->n_ranges == 4) return xosc_fail(P, e, SIM_ETOOBIG, "is the fifth, expected at most 4");
                if (!xosc_int(P, e, "from", false, -100, &c->lane_from[c->n_ranges]) ||
                    !xosc_int(P, e, "to", false, 100, &c->lane_to[c->n_ranges]))
                    return P->rc;
                c->n_ranges++;
            }
        }
    } else if (xosc_is(k, "CollisionCondition")) {
        c->type = SIM_SB_C_COLLISION;
        const xmlNode *t = xosc_first(k);
        if (xosc_is(t, "EntityRef")) xosc_entity(P, t, "entityRef", &c->entity);
        else if (!xosc_is(t, "ByType")) xosc_fail(P, k, SIM_EINVAL, "has no target, expected <EntityRef> or <ByType>");
    } else {
        xosc_unsupported(P, k ? k : ec);
        return 1; /* not taken: the caller drops the condition (its group never holds) */
    }
#undef RULE
    c->rule = rule;
    c->dist = dist >= 2 ? SIM_SB_DIST_EUCLID : dist;
    if (!P->rc && c->pos.kind == SIM_SB_POS_NONE &&
        (c->type == SIM_SB_C_REACH_POSITION || c->type == SIM_SB_C_DISTANCE ||
         (c->type == SIM_SB_C_TTC && c->entity < 0)))
        return 1;
    return P->rc;
}

static int read_value_condition(xosc_parser *P, const xmlNode *vc, sim_sb_condition *c)
{
    const xmlNode *k = xosc_first(vc);
    int rule = 0;
    c->entity = -1;
    c->line = (int)xmlGetLineNo(k ? k : vc);
    if (xosc_is(k, "SimulationTimeCondition")) {
        c->type = SIM_SB_C_SIM_TIME;
        if (xosc_enum(P, k, "rule", true, RULES, 0, &rule)) xosc_num(P, k, "value", true, 0, &c->value);
    } else if (xosc_is(k, "StoryboardElementStateCondition")) {
        static const char *const types[] = {"story", "act", "maneuverGroup", "maneuver", "event", "action", NULL};
        static const char *const states[] = {"standbyState",   "runningState",   "completeState", "startTransition",
                                             "endTransition",  "stopTransition", "skipTransition", NULL};
        int t, s;
        c->type = SIM_SB_C_ELEMENT_STATE;
        if (xosc_enum(P, k, "storyboardElementType", true, types, 0, &t) &&
            xosc_attr(P, k, "storyboardElementRef", true, c->ref, sizeof c->ref) && xosc_enum(P, k, "state", true, states, 0, &s)) {
            c->ref_type = t;
            c->state = s;
        }
    } else if (xosc_is(k, "ParameterCondition")) {
        char name[SIM_SB_NAME];
        c->type = SIM_SB_C_PARAMETER;
        if (xosc_attr(P, k, "parameterRef", true, name, sizeof name) && xosc_enum(P, k, "rule", true, RULES, 0, &rule) &&
            xosc_attr(P, k, "value", true, c->pvalue, sizeof c->pvalue)) {
            c->param = sim_sb_model_find_param(&P->x->model, name);
            if (c->param < 0)
                return xosc_fail(P, k, SIM_ENOTFOUND, "names parameter \"%s\", which the scenario does not declare", name);
        }
    } else if (xosc_is(k, "TrafficSignalCondition") || xosc_is(k, "TrafficSignalControllerCondition")) {
        if (xosc_read_signal_condition(P, k, c)) return P->rc;
    } else {
        xosc_unsupported(P, k ? k : vc); /* UserDefinedValue, TimeOfDay... */
        return 1;
    }
    c->rule = rule;
    return P->rc;
}

static int read_condition(xosc_parser *P, const xmlNode *cn)
{
    sim_sb_model *m = &P->x->model;
    sim_sb_condition c = {0};
    static const char *const edges[] = {"none", "rising", "falling", "risingOrFalling", NULL};
    int edge;
    /* names may hold text that is no expression: kept as written when it fails */
    xmlChar *raw = xmlGetProp(cn, (const xmlChar *)"name");
    if (raw) snprintf(c.name, sizeof c.name, "%s", (const char *)raw);
    xmlFree(raw);
    if (!xosc_num(P, cn, "delay", true, 0, &c.delay) || !xosc_enum(P, cn, "conditionEdge", true, edges, 0, &edge)) return P->rc;
    if (c.delay < 0) return xosc_fail(P, cn, SIM_ERANGE, "has delay %g, expected >= 0", c.delay);
    c.edge = edge;
    const xmlNode *k = xosc_first(cn);
    int r;
    if (xosc_is(k, "ByEntityCondition")) {
        const xmlNode *te = xosc_child(k, "TriggeringEntities");
        static const char *const rules[] = {"any", "all", NULL};
        int all;
        if (!te || !xosc_enum(P, te, "triggeringEntitiesRule", true, rules, 0, &all))
            return P->rc ? P->rc : xosc_fail(P, k, SIM_EINVAL, "has no <TriggeringEntities>");
        c.all = all;
        c.trig0 = m->n_trig;
        for (const xmlNode *e = te->children; e && !P->rc; e = e->next) {
            if (!xosc_is(e, "EntityRef")) continue;
            int ent, *slot;
            if (!xosc_entity(P, e, "entityRef", &ent) || !(slot = xosc_push(P, e, (void **)&m->trig, &m->n_trig, sizeof *slot)))
                return P->rc;
            *slot = ent;
            c.n_trig++;
        }
        if (c.n_trig == 0) return xosc_fail(P, te, SIM_EINVAL, "names no entity");
        r = read_entity_condition(P, xosc_child(k, "EntityCondition"), &c);
    } else if (xosc_is(k, "ByValueCondition")) {
        r = read_value_condition(P, k, &c);
    } else {
        return xosc_fail(P, cn, SIM_EINVAL, "expected <ByEntityCondition> or <ByValueCondition>");
    }
    if (r < 0) return r;
    if (r > 0) return 1;
    sim_sb_condition *slot = xosc_push(P, cn, (void **)&m->conds, &m->n_conds, sizeof *slot);
    if (!slot) return P->rc;
    *slot = c;
    return SIM_OK;
}

/* A StartTrigger or StopTrigger: an OR of condition groups, each an AND. A group with
 * a condition not taken never holds (it is dropped, and counted as unsupported). */
int xosc_read_trigger(xosc_parser *P, const xmlNode *tn, sim_sb_trigger *t)
{
    sim_sb_model *m = &P->x->model;
    t->g0 = m->n_groups;
    t->n = 0;
    for (const xmlNode *g = tn ? tn->children : NULL; g && !P->rc; g = g->next) {
        if (!xosc_is(g, "ConditionGroup")) continue;
        int c0 = m->n_conds, n = 0;
        bool dropped = false;
        for (const xmlNode *c = g->children; c && !P->rc; c = c->next) {
            if (!xosc_is(c, "Condition")) continue;
            int r = read_condition(P, c);
            if (r < 0) return r;
            if (r > 0) dropped = true;
            else n++;
        }
        if (dropped) {
            m->n_conds = c0;
            continue;
        }
        sim_sb_group *gr = xosc_push(P, g, (void **)&m->groups, &m->n_groups, sizeof *gr);
        if (!gr) return P->rc;
        gr->c0 = c0;
        gr->n = n;
        t->n++;
    }
    return P->rc;
}

