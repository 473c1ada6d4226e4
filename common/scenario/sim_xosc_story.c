/* sim_xosc_story: the Storyboard of an OpenSCENARIO file: Init, the tree of stories,
 * acts, maneuver groups, maneuvers, events and actions, their triggers and conditions
 * (see sim_xosc.h; the model in sim_sb_model.h). */
#include "sim_xosc_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const SHAPES[] = {"step", "linear", "cubic", "sinusoidal", NULL};
static const char *const DIMS[] = {"time", "distance", "rate", NULL};

static sim_sb_action *new_action(xosc_parser *P, const xmlNode *n, int *index)
{
    sim_sb_model *m = &P->x->model;
    sim_sb_action *a = xosc_push(P, n, (void **)&m->actions, &m->n_actions, sizeof *a);
    if (!a) return NULL;
    *index = m->n_actions - 1;
    a->line = (int)xmlGetLineNo(n);
    a->entity = -1;
    a->pos.entity = a->pos2.entity = a->pos.road_index = a->pos2.road_index = -1;
    return a;
}

static int read_dynamics(xosc_parser *P, const xmlNode *d, sim_sb_dynamics *dyn)
{
    int shape, dim;
    if (!d) return SIM_OK;
    if (!xosc_enum(P, d, "dynamicsShape", true, SHAPES, 0, &shape) || !xosc_enum(P, d, "dynamicsDimension", true, DIMS, 0, &dim) ||
        !xosc_num(P, d, "value", true, 0, &dyn->value))
        return P->rc;
    dyn->shape = shape;
    dyn->dim = dim;
    if (dyn->value < 0 && dim != SIM_SB_DIM_RATE)
        return xosc_fail(P, d, SIM_ERANGE, "has value %g, expected >= 0 for dimension %s", dyn->value, DIMS[dim]);
    dyn->value = fabs(dyn->value);
    return SIM_OK;
}

static int read_speed(xosc_parser *P, const xmlNode *sa, sim_sb_action *a)
{
    a->type = SIM_SB_A_SPEED;
    if (read_dynamics(P, xosc_child(sa, "SpeedActionDynamics"), &a->dyn)) return P->rc;
    const xmlNode *t = xosc_first(xosc_child(sa, "SpeedActionTarget"));
    if (xosc_is(t, "AbsoluteTargetSpeed")) return xosc_num(P, t, "value", true, 0, &a->target), P->rc;
    if (xosc_is(t, "RelativeTargetSpeed")) {
        static const char *const kinds[] = {"delta", "factor", NULL};
        int k;
        a->relative = true;
        if (xosc_entity(P, t, "entityRef", &a->entity) && xosc_num(P, t, "value", true, 0, &a->target) &&
            xosc_enum(P, t, "speedTargetValueType", true, kinds, 0, &k) && xosc_bool(P, t, "continuous", true, false, &a->continuous))
            a->rel = k;
        return P->rc;
    }
    return xosc_fail(P, sa, SIM_EINVAL, "has no target, expected <AbsoluteTargetSpeed> or <RelativeTargetSpeed>");
}

static int read_lateral(xosc_parser *P, const xmlNode *la, sim_sb_action *a, bool *ignored)
{
    const xmlNode *c = xosc_first(la);
    if (xosc_is(c, "LaneChangeAction")) {
        a->type = SIM_SB_A_LANE_CHANGE;
        if (xosc_num(P, c, "targetLaneOffset", false, 0, &a->pos.offset) &&
            !read_dynamics(P, xosc_child(c, "LaneChangeActionDynamics"), &a->dyn)) {
            const xmlNode *t = xosc_first(xosc_child(c, "LaneChangeTarget"));
            if (xosc_is(t, "RelativeTargetLane")) {
                a->relative = true;
                if (xosc_entity(P, t, "entityRef", &a->entity)) xosc_num(P, t, "value", true, 0, &a->target);
            } else if (xosc_is(t, "AbsoluteTargetLane")) {
                xosc_num(P, t, "value", true, 0, &a->target);
            } else {
                xosc_fail(P, c, SIM_EINVAL, "has no target, expected <RelativeTargetLane> or <AbsoluteTargetLane>");
            }
        }
        return P->rc;
    }
    if (xosc_is(c, "LaneOffsetAction")) {
        a->type = SIM_SB_A_LANE_OFFSET;
        const xmlNode *d = xosc_child(c, "LaneOffsetActionDynamics");
        int shape = SIM_SB_SHAPE_CUBIC;
        a->dyn.dim = SIM_SB_DIM_RATE;
        if (!xosc_bool(P, c, "continuous", true, false, &a->continuous) ||
            (d && (!xosc_enum(P, d, "dynamicsShape", true, SHAPES, 0, &shape) ||
                   !xosc_num(P, d, "maxLateralAcc", false, 0, &a->dyn.value))))
            return P->rc;
        a->dyn.shape = shape;
        const xmlNode *t = xosc_first(xosc_child(c, "LaneOffsetTarget"));
        if (xosc_is(t, "AbsoluteTargetLaneOffset")) {
            xosc_num(P, t, "value", true, 0, &a->target);
        } else if (xosc_is(t, "RelativeTargetLaneOffset")) {
            a->relative = true;
            if (xosc_entity(P, t, "entityRef", &a->entity)) xosc_num(P, t, "value", true, 0, &a->target);
        } else {
            xosc_fail(P, c, SIM_EINVAL, "has no target, expected <AbsoluteTargetLaneOffset> or <RelativeTargetLaneOffset>");
        }
        return P->rc;
    }
    if (xosc_is(c, "LateralDistanceAction")) {
        static const char *const sides[] = {"any", "leftToReferencedEntity", "rightToReferencedEntity", NULL};
        static const char *const systems[] = {"entity", "lane", "road", "trajectory", NULL};
        int side, cs;
        a->type = SIM_SB_A_LAT_DISTANCE;
        if (xosc_entity(P, c, "entityRef", &a->entity) && xosc_num(P, c, "distance", false, NAN, &a->target) &&
            xosc_bool(P, c, "freespace", true, false, &a->freespace) &&
            xosc_bool(P, c, "continuous", true, false, &a->continuous) &&
            xosc_enum(P, c, "displacement", false, sides, 0, &side) &&
            xosc_enum(P, c, "coordinateSystem", false, systems, 0, &cs))
            a->side = side == 1 ? 1 : side == 2 ? -1 : 0;
        if (!P->rc && a->target < 0)
            return xosc_fail(P, c, SIM_ERANGE, "has distance %g, expected >= 0 (the side is displacement's)", a->target);
        if (!P->rc) xosc_read_constraints(P, xosc_child(c, "DynamicConstraints"), &a->lim);
        return P->rc;
    }
    xosc_unsupported(P, c ? c : la);
    *ignored = true;
    return P->rc;
}

static int read_trajectory(xosc_parser *P, const xmlNode *fa, sim_sb_action *a, bool *ignored)
{
    const xmlNode *tr = xosc_child(fa, "Trajectory");
    if (!tr) tr = xosc_child(xosc_child(fa, "TrajectoryRef"), "Trajectory");
    const xmlNode *shape = xosc_first(xosc_child(tr, "Shape"));
    if (xosc_is(shape, "Clothoid")) return xosc_read_clothoid(P, fa, shape, a, ignored);
    if (xosc_is(shape, "Nurbs")) return xosc_read_nurbs(P, fa, shape, a, ignored);
    if (!xosc_is(shape, "Polyline")) {
        xosc_unsupported(P, shape ? shape : fa); /* a catalog trajectory */
        *ignored = true;
        return P->rc;
    }
    a->type = SIM_SB_A_FOLLOW_TRAJECTORY;
    if (xosc_read_timing(P, fa, a)) return P->rc;
    for (const xmlNode *v = shape->children; v && !P->rc; v = v->next) {
        if (!xosc_is(v, "Vertex")) continue;
        double t = NAN;
        const xmlNode *pn = xosc_child(v, "Position");
        if (!pn) return xosc_fail(P, v, SIM_EINVAL, "has no <Position>");
        if (xmlHasProp(v, (const xmlChar *)"time") && !xosc_num(P, v, "time", true, 0, &t)) return P->rc;
        double *pt = realloc(a->pt, (size_t)(a->n_route + 1) * sizeof *pt);
        if (!pt) return xosc_fail(P, v, SIM_ENOMEM, "out of memory");
        a->pt = pt;
        sim_sb_position *pos = xosc_push(P, v, (void **)&a->route, &a->n_route, sizeof *pos);
        if (!pos || xosc_position(P, pn, pos)) return P->rc;
        a->pt[a->n_route - 1] = t;
        if (pos->kind == SIM_SB_POS_NONE) *ignored = true;
    }
    if (a->n_route < 2) return xosc_fail(P, shape, SIM_EINVAL, "has %d vertices, expected at least 2", a->n_route);
    return P->rc;
}

static int read_routing(xosc_parser *P, const xmlNode *ra, sim_sb_action *a, bool *ignored)
{
    const xmlNode *c = xosc_first(ra);
    if (xosc_is(c, "AcquirePositionAction")) {
        a->type = SIM_SB_A_ACQUIRE_POSITION;
        const xmlNode *pn = xosc_child(c, "Position");
        if (!pn) return xosc_fail(P, c, SIM_EINVAL, "has no <Position>");
        xosc_position(P, pn, &a->pos);
        if (a->pos.kind == SIM_SB_POS_NONE) *ignored = true;
        return P->rc;
    }
    if (xosc_is(c, "AssignRouteAction")) { /* the route inline or from a route catalog */
        a->type = SIM_SB_A_ASSIGN_ROUTE;
        return xosc_route_waypoints(P, c, &a->route, &a->n_route, ignored);
    }
    if (xosc_is(c, "FollowTrajectoryAction")) return read_trajectory(P, c, a, ignored);
    xosc_unsupported(P, c ? c : ra); /* FollowRouteAction */
    *ignored = true;
    return P->rc;
}

static int read_synchronize(xosc_parser *P, const xmlNode *s, sim_sb_action *a, bool *ignored)
{
    a->type = SIM_SB_A_SYNCHRONIZE;
    const xmlNode *m = xosc_child(xosc_child(s, "TargetPositionMaster"), "Position"), *own;
    if (!m) m = xosc_child(s, "TargetPositionMaster");
    own = xosc_child(s, "TargetPosition");
    if (!xosc_entity(P, s, "masterEntityRef", &a->entity)) return P->rc;
    if (!m || !own) return xosc_fail(P, s, SIM_EINVAL, "needs <TargetPositionMaster> and <TargetPosition>");
    if (xosc_position(P, m, &a->pos2) || xosc_position(P, own, &a->pos)) return P->rc;
    if (a->pos.kind == SIM_SB_POS_NONE || a->pos2.kind == SIM_SB_POS_NONE) *ignored = true;
    a->target = NAN;
    const xmlNode *fs = xosc_first(xosc_child(s, "FinalSpeed"));
    if (xosc_is(fs, "AbsoluteSpeed")) {
        xosc_num(P, fs, "value", true, 0, &a->target);
    } else if (xosc_is(fs, "RelativeSpeedToMaster")) { /* the master's speed plus value, or times it */
        static const char *const kinds[] = {"delta", "factor", NULL};
        int k;
        if (xosc_num(P, fs, "value", true, 0, &a->target) && xosc_enum(P, fs, "speedTargetValueType", true, kinds, 0, &k)) {
            a->relative = true;
            a->rel = k;
        }
    } else if (fs) {
        xosc_unsupported(P, fs);
    }
    const xmlNode *ss = xosc_child(fs, "SteadyState");
    if (!P->rc && ss && (xosc_is(fs, "AbsoluteSpeed") || xosc_is(fs, "RelativeSpeedToMaster")))
        xosc_unsupported(P, ss); /* arriving early and driving on at the final speed */
    return P->rc;
}

int xosc_read_private_action(xosc_parser *P, const xmlNode *pa, int *index)
{
    sim_sb_action *a = new_action(P, pa, index);
    if (!a) return P->rc;
    const xmlNode *c = xosc_first(pa);
    bool ignored = false;
    if (xosc_is(c, "LongitudinalAction")) {
        const xmlNode *l = xosc_first(c);
        if (xosc_is(l, "SpeedAction")) {
            read_speed(P, l, a);
        } else if (xosc_is(l, "LongitudinalDistanceAction")) {
            a->type = SIM_SB_A_LONG_DISTANCE;
            a->by_time = xmlHasProp(l, (const xmlChar *)"timeGap") != NULL;
            if (xosc_entity(P, l, "entityRef", &a->entity) &&
                xosc_num(P, l, a->by_time ? "timeGap" : "distance", true, 0, &a->target) &&
                xosc_bool(P, l, "freespace", true, false, &a->freespace))
                xosc_bool(P, l, "continuous", true, false, &a->continuous);
            if (!P->rc) xosc_read_constraints(P, xosc_child(l, "DynamicConstraints"), &a->lim);
        } else if (xosc_is(l, "SpeedProfileAction")) {
            xosc_read_speed_profile(P, l, a);
        } else {
            xosc_unsupported(P, l ? l : c);
            ignored = true;
        }
    } else if (xosc_is(c, "LateralAction")) {
        read_lateral(P, c, a, &ignored);
    } else if (xosc_is(c, "TeleportAction")) {
        a->type = SIM_SB_A_TELEPORT;
        const xmlNode *pn = xosc_child(c, "Position");
        if (!pn) return xosc_fail(P, c, SIM_EINVAL, "has no <Position>");
        xosc_position(P, pn, &a->pos);
        if (a->pos.kind == SIM_SB_POS_NONE) ignored = true;
    } else if (xosc_is(c, "RoutingAction")) {
        read_routing(P, c, a, &ignored);
    } else if (xosc_is(c, "SynchronizeAction")) {
        read_synchronize(P, c, a, &ignored);
    } else {
        /* ActivateControllerAction, ControllerAction, VisibilityAction, AppearanceAction... */
        xosc_unsupported(P, c ? c : pa);
        ignored = true;
    }
    if (ignored) P->x->model.actions[*index].type = SIM_SB_A_IGNORED;
    return P->rc;
}

static int read_environment(xosc_parser *P, const xmlNode *env)
{
    sim_xosc_env *e = &P->x->env;
    e->given = true;
    for (const xmlNode *c = env ? env->children : NULL; c && !P->rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (xosc_is(c, "TimeOfDay")) {
            char dt[64];
            int h = 12, mi = 0;
            if (xosc_attr(P, c, "dateTime", true, dt, sizeof dt)) {
                const char *tpos = strchr(dt, 'T');
                if (!tpos || sscanf(tpos + 1, "%d:%d", &h, &mi) != 2 || h < 0 || h > 24 || mi < 0 || mi > 59)
                    return xosc_fail(P, c, SIM_EINVAL, "has dateTime \"%s\", expected YYYY-MM-DDThh:mm:ss", dt);
                e->time_of_day = h + mi / 60.0;
            }
        } else if (xosc_is(c, "Weather")) {
            for (const xmlNode *w = c->children; w && !P->rc; w = w->next) {
                if (xosc_is(w, "Fog")) {
                    xosc_num(P, w, "visualRange", true, 0, &e->visibility);
                } else if (xosc_is(w, "Precipitation")) {
                    static const char *const types[] = {"dry", "rain", "snow", NULL};
                    int t;
                    if (xosc_enum(P, w, "precipitationType", true, types, 0, &t)) {
                        e->rain = t == 1;
                        e->snow = t == 2;
                    }
                } else if (w->type == XML_ELEMENT_NODE) {
                    xosc_unsupported(P, w); /* Sun, Wind, DomeImage */
                }
            }
        } else {
            xosc_unsupported(P, c); /* RoadCondition */
        }
    }
    return P->rc;
}

/* A GlobalAction: environment and parameter actions are taken, the rest counted. */
static int read_global_action(xosc_parser *P, const xmlNode *ga, int *index)
{
    sim_sb_action *a = new_action(P, ga, index);
    if (!a) return P->rc;
    a->type = SIM_SB_A_IGNORED;
    const xmlNode *c = xosc_first(ga);
    if (xosc_is(c, "EnvironmentAction")) {
        a->type = SIM_SB_A_ENVIRONMENT;
        const xmlNode *env = xosc_child(c, "Environment");
        if (env) return read_environment(P, env);
        xosc_unsupported(P, c); /* an environment from a catalog */
        return P->rc;
    }
    const xmlNode *pa = xosc_is(c, "ParameterAction") ? c : NULL;
    if (pa) {
        const xmlNode *k = xosc_first(pa);
        const xmlNode *rule = xosc_first(xosc_first(k));
        bool ok = xosc_attr(P, pa, "parameterRef", true, a->param, sizeof a->param);
        if (ok && sim_sb_model_find_param(&P->x->model, a->param) < 0)
            return xosc_fail(P, pa, SIM_ENOTFOUND, "names parameter \"%s\", which the scenario does not declare", a->param);
        if (ok && xosc_is(k, "SetAction")) {
            a->type = SIM_SB_A_PARAM_SET;
            xosc_attr(P, k, "value", true, a->value, sizeof a->value);
        } else if (ok && xosc_is(k, "ModifyAction") && xosc_is(rule, "AddValue")) {
            a->type = SIM_SB_A_PARAM_ADD;
            xosc_num(P, rule, "value", true, 0, &a->target);
        } else if (ok && xosc_is(k, "ModifyAction") && xosc_is(rule, "MultiplyByValue")) {
            a->type = SIM_SB_A_PARAM_MULTIPLY;
            xosc_num(P, rule, "value", true, 0, &a->target);
        } else if (ok) {
            return xosc_fail(P, pa, SIM_EINVAL, "expected <SetAction> or <ModifyAction> with <AddValue> or <MultiplyByValue>");
        }
        return P->rc;
    }
    if (xosc_is(c, "InfrastructureAction")) return xosc_read_signal_action(P, c, a);
    xosc_unsupported(P, c ? c : ga); /* EntityAction, TrafficAction */
    return P->rc;
}

static int read_init(xosc_parser *P, const xmlNode *init)
{
    const xmlNode *acts = xosc_child(init, "Actions");
    sim_sb_model *m = &P->x->model;
    for (const xmlNode *c = acts ? acts->children : NULL; c && !P->rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (xosc_is(c, "GlobalAction")) {
            int ai;
            if (read_global_action(P, c, &ai)) return P->rc;
            if (m->actions[ai].type != SIM_SB_A_SIGNAL_STATE) continue;
            sim_sb_init *in = xosc_push(P, c, (void **)&m->init, &m->n_init, sizeof *in);
            if (!in) return P->rc;
            in->entity = -1; /* a signal's state at the start (the storyboard's sig_req) */
            in->action = ai;
        } else if (xosc_is(c, "Private")) {
            int ent;
            if (!xosc_entity(P, c, "entityRef", &ent)) return P->rc;
            for (const xmlNode *pa = c->children; pa && !P->rc; pa = pa->next) {
                if (!xosc_is(pa, "PrivateAction")) continue;
                int ai;
                if (xosc_read_private_action(P, pa, &ai)) return P->rc;
                sim_sb_init *in = xosc_push(P, pa, (void **)&m->init, &m->n_init, sizeof *in);
                if (!in) return P->rc;
                in->entity = ent;
                in->action = ai;
            }
        } else {
            xosc_unsupported(P, c); /* UserDefinedAction */
        }
    }
    return P->rc;
}

/* ---- the storyboard tree ---------------------------------------------------------- */

static const char *const CHILD_OF[] = {
    [SIM_SB_E_STORY] = "Act", [SIM_SB_E_ACT] = "ManeuverGroup", [SIM_SB_E_GROUP] = "Maneuver",
    [SIM_SB_E_MANEUVER] = "Event", [SIM_SB_E_EVENT] = "Action", [SIM_SB_E_ACTION] = NULL};

static int read_element(xosc_parser *P, const xmlNode *n, sim_sb_elem_type type, int parent, int *out);

static int read_children(xosc_parser *P, const xmlNode *n, int self)
{
    sim_sb_model *m = &P->x->model;
    sim_sb_elem_type type = m->elements[self].type;
    const char *child = CHILD_OF[type];
    /* a maneuver group's maneuvers may come from a ManeuverCatalog */
    bool by_ref = type == SIM_SB_E_GROUP;
    int count = 0;
    for (const xmlNode *c = n->children; c; c = c->next) count += xosc_is(c, child) || (by_ref && xosc_is(c, "CatalogReference"));
    int *k = realloc(m->kids, (size_t)(m->n_kids + count + 1) * sizeof *k);
    if (!k) return xosc_fail(P, n, SIM_ENOMEM, "out of memory");
    m->kids = k;
    int base = m->n_kids;
    m->n_kids += count;
    m->elements[self].child0 = base;
    m->elements[self].n_children = count;
    int i = 0;
    for (const xmlNode *c = n->children; c && !P->rc; c = c->next) {
        if (xosc_is(c, child)) {
            int e;
            if (read_element(P, c, type + 1, self, &e)) return P->rc;
            m->kids[base + i++] = e;
        } else if (by_ref && xosc_is(c, "CatalogReference")) { /* with its parameters in scope */
            int mark, e;
            const xmlNode *mn = xosc_catalog_entry(P, c, &mark);
            if (mn && !xosc_is(mn, "Maneuver"))
                xosc_fail(P, c, SIM_EINVAL, "names a <%s>, expected a <Maneuver>", (const char *)mn->name);
            else if (mn && !read_element(P, mn, SIM_SB_E_MANEUVER, self, &e))
                m->kids[base + i++] = e;
            P->n_params = mark;
            P->depth--;
            if (P->rc) return P->rc;
        }
    }
    return P->rc;
}

static int read_element(xosc_parser *P, const xmlNode *n, sim_sb_elem_type type, int parent, int *out)
{
    sim_sb_model *m = &P->x->model;
    sim_sb_element *e = xosc_push(P, n, (void **)&m->elements, &m->n_elements, sizeof *e);
    if (!e) return P->rc;
    int self = *out = m->n_elements - 1;
    e->type = type;
    e->parent = parent;
    e->line = (int)xmlGetLineNo(n);
    e->max_exec = 1;
    e->action = -1;
    if (!xosc_attr(P, n, "name", true, e->name, sizeof e->name)) return P->rc;
    if (type == SIM_SB_E_STORY) xosc_declare(P, xosc_child(n, "ParameterDeclarations"), false);
    if (type == SIM_SB_E_GROUP || type == SIM_SB_E_EVENT) {
        if (!xosc_int(P, n, "maximumExecutionCount", false, 1, &e->max_exec)) return P->rc;
        if (e->max_exec < 1) return xosc_fail(P, n, SIM_ERANGE, "has maximumExecutionCount %d, expected >= 1", e->max_exec);
    }
    if (type == SIM_SB_E_GROUP) {
        const xmlNode *actors = xosc_child(n, "Actors");
        if (!actors) return xosc_fail(P, n, SIM_EINVAL, "has no <Actors>");
        m->elements[self].actor0 = m->n_actors;
        for (const xmlNode *a = actors->children; a && !P->rc; a = a->next) {
            if (!xosc_is(a, "EntityRef")) continue;
            int ent, *slot;
            if (!xosc_entity(P, a, "entityRef", &ent) || !(slot = xosc_push(P, a, (void **)&m->actors, &m->n_actors, sizeof *slot)))
                return P->rc;
            *slot = ent;
            m->elements[self].n_actors++;
        }
    }
    if (type == SIM_SB_E_EVENT) {
        static const char *const prios[] = {"overwrite", "skip", "parallel", "override", NULL};
        int p;
        if (!xosc_enum(P, n, "priority", true, prios, 0, &p)) return P->rc;
        m->elements[self].priority = p == 3 ? SIM_SB_PRIO_OVERWRITE : p;
    }
    if (type == SIM_SB_E_ACT || type == SIM_SB_E_EVENT) {
        const xmlNode *st = xosc_child(n, "StartTrigger");
        if (type == SIM_SB_E_ACT && !st) return xosc_fail(P, n, SIM_EINVAL, "has no <StartTrigger>");
        sim_sb_trigger t = {0}, s = {0};
        if (st && xosc_read_trigger(P, st, &t)) return P->rc;
        if (type == SIM_SB_E_ACT && xosc_read_trigger(P, xosc_child(n, "StopTrigger"), &s)) return P->rc;
        m->elements[self].start = t;
        m->elements[self].stop = s;
        /* a trigger whose every group was dropped never fires: kept as one empty group */
        if (st && t.n == 0 && xosc_child(st, "ConditionGroup")) m->elements[self].start.n = -1;
    }
    if (type == SIM_SB_E_ACTION) {
        const xmlNode *c = xosc_first(n);
        int ai = -1;
        if (xosc_is(c, "PrivateAction")) xosc_read_private_action(P, c, &ai);
        else if (xosc_is(c, "GlobalAction")) read_global_action(P, c, &ai);
        else {
            sim_sb_action *a = new_action(P, n, &ai);
            if (a) a->type = SIM_SB_A_IGNORED;
            xosc_unsupported(P, c ? c : n); /* UserDefinedAction */
        }
        m->elements[self].action = ai;
        return P->rc;
    }
    return read_children(P, n, self);
}

/* Does element k answer to ref: its name, or (OpenSCENARIO 1.1) its name prefixed
 * with those of its parents, nearest last, as far up as the writer chose
 * ("CutInEvent::CutInAction", "Story::Act::Group::Maneuver::Event")? */
static bool element_named(const sim_sb_model *m, int k, const char *ref)
{
    if (strcmp(m->elements[k].name, ref) == 0) return true;
    size_t end = strlen(ref);
    while (k >= 0) {
        size_t start = end;
        while (start >= 2 && !(ref[start - 1] == ':' && ref[start - 2] == ':')) start--;
        if (start < 2) start = 0; /* the first part */
        const char *name = m->elements[k].name;
        if (strlen(name) != end - start || strncmp(name, ref + start, end - start) != 0) return false;
        if (start == 0) return true;
        end = start - 2;
        k = m->elements[k].parent;
    }
    return false;
}

static int resolve_element_refs(xosc_parser *P, const xmlNode *sb)
{
    sim_sb_model *m = &P->x->model;
    for (int i = 0; i < m->n_conds; i++) {
        sim_sb_condition *c = &m->conds[i];
        if (c->type != SIM_SB_C_ELEMENT_STATE) continue;
        c->element = -1;
        for (int k = 0; k < m->n_elements && c->element < 0; k++)
            if (m->elements[k].type == c->ref_type && element_named(m, k, c->ref)) c->element = k;
        if (c->element < 0) {
            P->rc = SIM_ENOTFOUND;
            return sim_error_set(P->err, SIM_ENOTFOUND, "%s: %d: <StoryboardElementStateCondition> names %s \"%s\", "
                                 "which the storyboard does not have", P->name, c->line, sim_sb_elem_type_name(c->ref_type),
                                 c->ref);
        }
    }
    (void)sb;
    return SIM_OK;
}

int xosc_read_storyboard(xosc_parser *P, const xmlNode *sb)
{
    sim_sb_model *m = &P->x->model;
    const xmlNode *init = xosc_child(sb, "Init");
    if (init && read_init(P, init)) return P->rc;
    for (const xmlNode *c = sb->children; c && !P->rc; c = c->next) {
        int e;
        if (xosc_is(c, "Story")) read_element(P, c, SIM_SB_E_STORY, -1, &e);
        else if (xosc_is(c, "StopTrigger")) xosc_read_trigger(P, c, &m->stop);
        else if (c->type == XML_ELEMENT_NODE && !xosc_is(c, "Init")) xosc_unsupported(P, c);
    }
    if (P->rc) return P->rc;
    return resolve_element_refs(P, sb);
}
