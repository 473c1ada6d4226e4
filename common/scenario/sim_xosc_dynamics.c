/* sim_xosc_dynamics: the OpenSCENARIO reader's motion details shared by actions:
 * DynamicConstraints, SpeedProfileAction, a trajectory's TimeReference and Clothoid
 * shape (see sim_xosc.h; the model in sim_sb_model.h). */
#include "sim_xosc_util.h"
#include "sim_sb_nurbs.h"

#include <math.h>
#include <stdlib.h>

/* DynamicConstraints' five limits (NAN: not given). */
int xosc_read_constraints(xosc_parser *P, const xmlNode *dc, sim_sb_limits *lim)
{
    *lim = (sim_sb_limits){NAN, NAN, NAN, NAN, NAN};
    if (dc && xosc_num(P, dc, "maxSpeed", false, NAN, &lim->max_speed) &&
        xosc_num(P, dc, "maxAcceleration", false, NAN, &lim->max_acc) &&
        xosc_num(P, dc, "maxDeceleration", false, NAN, &lim->max_dec) &&
        xosc_num(P, dc, "maxAccelerationRate", false, NAN, &lim->max_acc_rate))
        xosc_num(P, dc, "maxDecelerationRate", false, NAN, &lim->max_dec_rate);
    return P->rc;
}

/* SpeedProfileAction (1.2): followingMode, entityRef (speeds relative to its speed
 * when the action starts), DynamicConstraints, SpeedProfileEntry speed and time. */
int xosc_read_speed_profile(xosc_parser *P, const xmlNode *sp, sim_sb_action *a)
{
    static const char *const modes[] = {"position", "follow", NULL};
    int mode;
    a->type = SIM_SB_A_SPEED_PROFILE;
    if (!xosc_enum(P, sp, "followingMode", true, modes, 0, &mode)) return P->rc;
    a->follow = mode == 1;
    if (xmlHasProp(sp, (const xmlChar *)"entityRef")) {
        a->relative = true;
        if (!xosc_entity(P, sp, "entityRef", &a->entity)) return P->rc;
    }
    if (xosc_read_constraints(P, xosc_child(sp, "DynamicConstraints"), &a->lim)) return P->rc;
    for (const xmlNode *e = sp->children; e && !P->rc; e = e->next) {
        if (!xosc_is(e, "SpeedProfileEntry")) continue;
        double t = NAN, v;
        if (!xosc_num(P, e, "speed", true, 0, &v) || !xosc_num(P, e, "time", false, NAN, &t)) return P->rc;
        if (t < 0) return xosc_fail(P, e, SIM_ERANGE, "has time %g, expected >= 0 (s after the entry before)", t);
        double *pt = realloc(a->pt, (size_t)(a->n_prof + 1) * sizeof *pt);
        if (pt) a->pt = pt;
        double *pv = pt ? realloc(a->pv, (size_t)(a->n_prof + 1) * sizeof *pv) : NULL;
        if (!pv) return xosc_fail(P, e, SIM_ENOMEM, "out of memory");
        a->pv = pv;
        a->pt[a->n_prof] = t;
        a->pv[a->n_prof++] = v;
    }
    if (a->n_prof == 0) return xosc_fail(P, sp, SIM_EINVAL, "has no <SpeedProfileEntry>");
    return P->rc;
}

/* A FollowTrajectoryAction's TimeReference (Timing: times relative or absolute,
 * scale, offset). */
int xosc_read_timing(xosc_parser *P, const xmlNode *fa, sim_sb_action *a)
{
    const xmlNode *tref = xosc_first(xosc_child(fa, "TimeReference"));
    a->timed = xosc_is(tref, "Timing");
    if (a->timed) {
        static const char *const domains[] = {"absolute", "relative", NULL};
        int dom;
        double scale, offset;
        if (!xosc_enum(P, tref, "domainAbsoluteRelative", true, domains, 0, &dom) ||
            !xosc_num(P, tref, "scale", true, 1, &scale) || !xosc_num(P, tref, "offset", true, 0, &offset))
            return P->rc;
        a->continuous = dom == 1; /* times relative to the action's start */
        a->dyn.value = scale;
        a->target = offset;
    }
    return P->rc;
}

/* A Clothoid (curvature, curvaturePrime or 1.0's curvatureDot, length, startTime,
 * stopTime, its start Position or the entity's): followed through
 * SIM_SB_CLOTHOID_PTS vertices placed when the action starts, their times spread
 * evenly over startTime .. stopTime (none given: at the entity's speed). */
int xosc_read_clothoid(xosc_parser *P, const xmlNode *fa, const xmlNode *c, sim_sb_action *a, bool *ignored)
{
    double t0 = NAN, t1 = NAN;
    a->type = SIM_SB_A_FOLLOW_TRAJECTORY;
    a->clothoid = true;
    if (!xosc_num(P, c, "curvature", true, 0, &a->clo_k) || !xosc_num(P, c, "length", true, 0, &a->clo_len) ||
        !xosc_num(P, c, xmlHasProp(c, (const xmlChar *)"curvaturePrime") ? "curvaturePrime" : "curvatureDot", false, 0,
                  &a->clo_dk) ||
        !xosc_num(P, c, "startTime", false, NAN, &t0) || !xosc_num(P, c, "stopTime", false, NAN, &t1))
        return P->rc;
    if (!(a->clo_len > 0)) return xosc_fail(P, c, SIM_ERANGE, "has length %g, expected > 0", a->clo_len);
    if (!isnan(t0) && !isnan(t1) && !(t1 > t0))
        return xosc_fail(P, c, SIM_ERANGE, "has stopTime %g, expected after startTime %g", t1, t0);
    const xmlNode *pn = xosc_child(c, "Position");
    if (pn && xosc_position(P, pn, &a->pos)) return P->rc;
    if (pn && a->pos.kind == SIM_SB_POS_NONE) *ignored = true;
    int n = SIM_SB_CLOTHOID_PTS;
    a->pt = malloc((size_t)n * sizeof *a->pt);
    a->route = calloc((size_t)n, sizeof *a->route); /* unused (kind none): the vertices are computed */
    if (!a->pt || !a->route) return xosc_fail(P, c, SIM_ENOMEM, "out of memory");
    a->n_route = n;
    for (int k = 0; k < n; k++) {
        a->route[k].entity = a->route[k].road_index = -1;
        a->pt[k] = isnan(t0) || isnan(t1) ? NAN : t0 + (t1 - t0) * k / (n - 1);
    }
    return xosc_read_timing(P, fa, a);
}


/* A Nurbs (order, ControlPoint time, weight and Position, Knot values): followed through
 * SIM_SB_CLOTHOID_PTS vertices at evenly spaced parameters over its knots' range, each
 * at the time the curve's own basis gives from the control points' times (esmini's
 * reading); the control points are placed when the action starts. */
int xosc_read_nurbs(xosc_parser *P, const xmlNode *fa, const xmlNode *c, sim_sb_action *a, bool *ignored)
{
    a->type = SIM_SB_A_FOLLOW_TRAJECTORY;
    a->nurbs = true;
    double *ct = NULL;
    int n_ct = 0;
    if (!xosc_int(P, c, "order", true, 2, &a->order)) return P->rc;
    for (const xmlNode *k = c->children; k && !P->rc; k = k->next) {
        if (xosc_is(k, "ControlPoint")) {
            const xmlNode *pn = xosc_child(k, "Position");
            if (!pn) return free(ct), xosc_fail(P, k, SIM_EINVAL, "has no <Position>");
            double t = NAN, w = 1;
            if (!xosc_num(P, k, "time", false, NAN, &t) || !xosc_num(P, k, "weight", false, 1, &w)) return free(ct), P->rc;
            double *nt = realloc(ct, (size_t)(n_ct + 1) * sizeof *nt), *nw = nt ? realloc(a->cw, (size_t)(n_ct + 1) * sizeof *nw) : NULL;
            if (nt) ct = nt;
            if (nw) a->cw = nw;
            if (!nt || !nw) return free(ct), xosc_fail(P, k, SIM_ENOMEM, "out of memory");
            ct[n_ct] = t;
            a->cw[n_ct++] = w;
            sim_sb_position *pos = xosc_push(P, k, (void **)&a->ctrl, &a->n_ctrl, sizeof *pos);
            if (!pos || xosc_position(P, pn, pos)) return free(ct), P->rc;
            if (pos->kind == SIM_SB_POS_NONE) *ignored = true;
        } else if (xosc_is(k, "Knot")) {
            double v, *nk = realloc(a->kn, (size_t)(a->n_route + 1) * sizeof *nk);
            if (!nk) return free(ct), xosc_fail(P, k, SIM_ENOMEM, "out of memory");
            a->kn = nk;
            if (!xosc_num(P, k, "value", true, 0, &v)) return free(ct), P->rc;
            if (a->n_route > 0 && v < a->kn[a->n_route - 1])
                return free(ct), xosc_fail(P, k, SIM_EINVAL, "has value %g, below the knot before (%g): knots never decrease", v,
                                           a->kn[a->n_route - 1]);
            a->kn[a->n_route++] = v; /* counted in n_route until the vertices replace them */
        }
    }
    int n_kn = a->n_route;
    a->n_route = 0;
    if (a->order < 2 || a->n_ctrl < a->order || a->n_ctrl > SIM_SB_NURBS_MAX || n_kn != a->n_ctrl + a->order ||
        !(a->kn[a->n_ctrl] > a->kn[a->order - 1])) {
        free(ct);
        return xosc_fail(P, c, SIM_EINVAL, "has order %d, %d control points and %d knots, expected order >= 2, %d to %d "
                         "control points and knots as many as both, rising over the curve",
                         a->order, a->n_ctrl, n_kn, a->order, SIM_SB_NURBS_MAX);
    }
    int n = SIM_SB_CLOTHOID_PTS;
    bool timed = true;
    for (int i = 0; i < a->n_ctrl; i++) timed &= !isnan(ct[i]);
    a->pt = malloc((size_t)n * sizeof *a->pt);
    a->route = calloc((size_t)n, sizeof *a->route); /* unused (kind none): the vertices are computed */
    if (!a->pt || !a->route) return free(ct), xosc_fail(P, c, SIM_ENOMEM, "out of memory");
    a->n_route = n;
    double u0 = a->kn[a->order - 1], u1 = a->kn[a->n_ctrl];
    for (int k = 0; k < n; k++) {
        a->route[k].entity = a->route[k].road_index = -1;
        a->pt[k] = timed ? sim_sb_nurbs_value(a->kn, a->order, a->cw, ct, a->n_ctrl, u0 + (u1 - u0) * k / (n - 1)) : NAN;
    }
    free(ct);
    return xosc_read_timing(P, fa, a);
}
