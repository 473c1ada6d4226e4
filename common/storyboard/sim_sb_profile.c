/* sim_sb_profile: a SpeedProfileAction's plan (see sim_sb_profile.h). */
#include "sim_sb_profile.h"

#include <math.h>

#define EPS 1e-9

/* A corner of the polyline: time, speed, the slope k of the line leaving it and that
 * line's constant m (v = k tau + m), kept in a segment's t, v, k, j. */
static void set_slope(sim_sb_seg *c, double k)
{
    c->k = k;
    c->j = c->v - k * c->t;
}

/* The corners: an entry's time after the one before (not given, or asking for more
 * than the limits: as long as its speed change takes at the limit). An entry taking
 * no time steps the speed (it replaces the corner it starts from). */
static int corners(const double *time, const double *speed, int n, bool follow, double v_now, double offset,
                   const sim_sb_limits *lim, sim_sb_seg *c)
{
    int nc = 0, i = 0;
    double t = 0;
    if (isnan(time[0]) || time[0] > EPS) {
        c[nc++] = (sim_sb_seg){0, v_now, 0, v_now};
    } else if (follow) { /* follow: the first entry at time 0 is where the entity is now */
        c[nc++] = (sim_sb_seg){0, v_now, 0, v_now};
        i = 1;
    } else { /* position: its speed, at once */
        c[nc++] = (sim_sb_seg){0, speed[0] + offset, 0, speed[0] + offset};
    }
    for (; i < n; i++) {
        sim_sb_seg *b = &c[nc - 1];
        double target = speed[i] + offset, dv = target - b->v, dt = time[i], t_prev = t;
        double k = dv / dt; /* NAN when dt is not given or 0 / 0 */
        if (isnan(dt) || k < -lim->max_dec || k > lim->max_acc) {
            if (fabs(dv) < EPS) continue; /* no change: nothing to reach */
            if (isnan(dt)) k = dv < 0 ? -lim->max_dec : lim->max_acc;
            else k = k < 0 ? fmax(k, -lim->max_dec) : fmin(k, lim->max_acc);
            t += dv / k;
        } else {
            t += dt;
        }
        if (!(t - t_prev > EPS)) { /* no time: a step from the corner it starts at */
            *b = (sim_sb_seg){t_prev, target, 0, target};
            continue;
        }
        set_slope(b, k);
        c[nc++] = (sim_sb_seg){t, target, 0, target};
    }
    return nc;
}

typedef struct plan {
    sim_sb_seg *out;
    int n;
    bool follow;
    const sim_sb_limits *lim;
} plan;

/* A segment; in follow mode one outside the limits turns the rest into position mode. */
static void add(plan *p, double t, double v, double k, double j)
{
    const sim_sb_limits *l = p->lim;
    if (p->follow && (fabs(v) > l->max_speed + EPS || k > l->max_acc + EPS || k < -l->max_dec - EPS ||
                      j > l->max_acc_rate + EPS || j < -l->max_dec_rate - EPS))
        p->follow = false;
    p->out[p->n++] = (sim_sb_seg){t, v, k, j};
}

int sim_sb_profile_plan(const double *time, const double *speed, int n, bool follow, double v_now, double a_now,
                        double offset, const sim_sb_limits *lim, sim_sb_seg *out)
{
    sim_sb_seg *c = out + 2 * n + 4; /* the corners, after room for the segments */
    int nc = corners(time, speed, n, follow, v_now, offset, lim, c);
    plan p = {out, 0, follow, lim};
    if (nc == 1 || !follow) {
        for (int i = 0; i < nc; i++) add(&p, c[i].t, c[i].v, c[i].k, 0);
        return p.n;
    }
    /* follow: from the entity's acceleration onto the first slope at the jerk limit
     * (a line parallel to the first one, later), then from each line onto the next
     * where a jerk phase joins them: line 0 (v = k0 tau + m0) left at t1, line 1
     * (k1, m1) reached at t3 = t1 + (k1 - k0) / j, solving
     * k0 t1 + m0 + k0 (t3 - t1) + j (t3 - t1)^2 / 2 = k1 t3 + m1. */
    double k0 = a_now, t3 = c[0].t, v3 = c[0].v, j = 0;
    if (fabs(c[0].k) > EPS) {
        j = c[0].k - k0 < 0 ? -lim->max_dec_rate : lim->max_acc_rate;
        if (isfinite(j)) {
            add(&p, c[0].t, c[0].v, k0, j);
            t3 = c[0].t + (c[0].k - k0) / j;
            v3 = c[0].v + k0 * (t3 - c[0].t) + 0.5 * j * (t3 - c[0].t) * (t3 - c[0].t);
        }
    }
    double k1 = c[0].k, m1 = v3 - k1 * t3;
    add(&p, t3, v3, k1, 0);
    for (int i = 0; i < nc; i++) {
        if (!p.follow) { /* given up: the corners as they are */
            add(&p, c[i].t, c[i].v, c[i].k, 0);
            continue;
        }
        if (i == nc - 1) break;
        k0 = k1;
        double t0 = t3, v0 = v3, m0 = m1;
        k1 = c[i + 1].k;
        m1 = c[i + 1].j;
        if (fabs(k0 - k1) >= EPS) {
            j = k1 - k0 < 0 ? -lim->max_dec_rate : lim->max_acc_rate;
            double t1 = isfinite(j) ? ((k0 - k1) * (k0 - k1) - 2 * j * (m0 - m1)) / (2 * j * (k0 - k1))
                                    : (m1 - m0) / (k0 - k1); /* no jerk limit: where the lines meet */
            if (t1 < t0) { /* the lines meet too early to join them: position from here */
                p.follow = false;
                continue;
            }
            double v1 = v0 + k0 * (t1 - t0);
            t3 = t1;
            v3 = v1;
            if (isfinite(j)) {
                t3 = t1 + (k1 - k0) / j;
                v3 = v1 + k0 * (t3 - t1) + 0.5 * j * (t3 - t1) * (t3 - t1);
                add(&p, t1, v1, k0, j);
            }
        }
        add(&p, t3, v3, k1, 0);
    }
    return p.n;
}

double sim_sb_profile_speed(const sim_sb_seg *seg, int n, int *cur, double tau)
{
    while (*cur < n - 1 && tau > seg[*cur + 1].t - EPS) (*cur)++;
    const sim_sb_seg *s = &seg[*cur];
    double d = tau - s->t, v = s->v + s->k * d + 0.5 * s->j * d * d;
    return fabs(v) < EPS ? 0 : v;
}
