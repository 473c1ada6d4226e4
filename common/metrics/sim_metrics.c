/* sim_metrics: lane-deviation events and areas, MDEV, SDLP, speed, headway and reaction
 * times of one task (see sim_metrics.h and docs/metrics.md for the definitions).
 *
 * The integrals are exact for the piecewise-linear signals: every sample interval is cut
 * at the ideal path's points (where lane keeping may start or stop), then at the zero
 * crossing of e, at e = +h and e = -h, and where the body edges meet the lane marks.
 * On each resulting piece |e| is linear and every "outside" predicate is constant, so
 * a trapezoid gives the exact integral and the midpoint decides the predicate. */
#include "sim_metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two ideal-path points whose d differ by no more than this keep the lane (m). */
#define KEEP_EPS 1e-9

void sim_metrics_task_init(sim_metrics_task *task)
{
    memset(task, 0, sizeof *task);
    task->tube_half_width = 0.5;
    task->vehicle_width = 1.8;
    task->thw_limit = 1.0;
    task->ttc_cap = SIM_METRICS_TTC_CAP;
    task->speed_margin = 3.0 / 3.6;
    task->rt_window = 10.0;
    task->rt_steer = 2.0 * M_PI / 180.0;
    task->rt_pedal = 0.1;
}

/* Index k of the ideal segment [k, k+1] holding s (k = n-1 beyond the end, and the
 * segment "before the first point" is reported as k = n-1 too: both hold d constant). */
static size_t ideal_seek(const sim_metrics_point *p, size_t n, double s, size_t *cursor)
{
    size_t k = *cursor < n ? *cursor : 0;
    if (k > 0 && s < p[k].s) k = 0; /* went backwards: restart */
    while (k + 1 < n && p[k + 1].s <= s) k++;
    *cursor = k;
    return k;
}

double sim_metrics_ideal_at(const sim_metrics_point *p, size_t n, double s, size_t *cursor)
{
    if (n == 0) return 0.0;
    if (s <= p[0].s) return p[0].d;
    size_t k = ideal_seek(p, n, s, cursor);
    if (k + 1 >= n) return p[n - 1].d;
    double ds = p[k + 1].s - p[k].s; /* > 0: p[k].s <= s < p[k+1].s */
    return p[k].d + (p[k + 1].d - p[k].d) * (s - p[k].s) / ds;
}

/* A cursor on the ideal path: the segment [lo, hi) last used, with its line, so that
 * the ascending queries of a pass cost one multiply-add each (the division is paid once
 * per segment). */
typedef struct ideal_cur {
    bool valid, keeps;
    double lo, hi, d0, slope;
    size_t k;
} ideal_cur;

static void ideal_seek_segment(const sim_metrics_point *p, size_t n, double s, ideal_cur *c)
{
    c->valid = true;
    c->slope = 0;
    c->keeps = true;
    if (n < 2 || s < p[0].s) {
        c->lo = -INFINITY;
        c->hi = n < 2 ? INFINITY : p[0].s;
        c->d0 = p[0].d;
        return;
    }
    size_t k = c->k < n && s >= p[c->k].s ? c->k : 0;
    while (k + 1 < n && p[k + 1].s <= s) k++;
    c->k = k;
    if (k + 1 >= n) {
        c->lo = p[n - 1].s;
        c->hi = INFINITY;
        c->d0 = p[n - 1].d;
        return;
    }
    c->lo = p[k].s;
    c->hi = p[k + 1].s;
    c->d0 = p[k].d;
    c->slope = (p[k + 1].d - p[k].d) / (c->hi - c->lo);
    c->keeps = fabs(p[k + 1].d - p[k].d) <= KEEP_EPS;
}

/* d_ideal(s) and whether the ideal path keeps its lane there (constant d on the segment
 * holding s; before the first and after the last point it does). */
static inline double ideal_eval(const sim_metrics_point *p, size_t n, double s, ideal_cur *c,
                                bool *keeps)
{
    if (!(c->valid && s >= c->lo && s < c->hi)) ideal_seek_segment(p, n, s, c);
    *keeps = c->keeps;
    return c->slope == 0 ? c->d0 : c->d0 + c->slope * (s - c->lo);
}

/* ---- growable arrays owned by the result ---- */

static int events_push(sim_metrics_result *r, size_t *cap, const sim_metrics_event *ev)
{
    if (r->n_events == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        sim_metrics_event *ne = realloc(r->events, ncap * sizeof *ne);
        if (!ne) return SIM_ENOMEM;
        r->events = ne;
        *cap = ncap;
    }
    r->events[r->n_events++] = *ev;
    return 0;
}

/* ---- event accumulation over pieces ---- */

typedef struct piece {
    double s0, s1, t0, t1, e0, e1;
    double area, area_time; /* integral of |e| over the piece in s and in t */
} piece;

typedef struct ev_acc {
    int kind;
    bool open;
    bool prev_eligible; /* the previous piece could hold an event of this kind */
    double e_max;       /* signed e where |e| was largest */
    sim_metrics_event ev;
} ev_acc;

static int acc_close(ev_acc *a, sim_metrics_result *r, size_t *cap, bool open_end)
{
    a->open = false;
    a->ev.open_end = open_end;
    a->ev.side = a->e_max >= 0 ? 1 : -1;
    return events_push(r, cap, &a->ev);
}

static void acc_extend_max(ev_acc *a, double e, double s)
{
    if (fabs(e) > a->ev.max_abs_e) {
        a->ev.max_abs_e = fabs(e);
        a->e_max = e;
        a->ev.s_max = s;
    }
}

/* Feeds one piece. eligible: this kind of event can exist here (always for the tube;
 * lane-mark events only where the ideal path keeps its lane and the marks are known).
 * outside: the predicate holds on the whole piece. */
static int acc_feed_slow(ev_acc *a, sim_metrics_result *r, size_t *cap, bool eligible,
                         bool outside, const piece *p);

/* The common cases inline: inside with no event open, or outside with one open. */
static inline int acc_feed(ev_acc *a, sim_metrics_result *r, size_t *cap, bool eligible,
                           bool outside, const piece *p)
{
    if (eligible && a->prev_eligible && outside == a->open) {
        if (outside) {
            a->ev.area += p->area;
            a->ev.area_time += p->area_time;
            a->ev.s_end = p->s1;
            a->ev.t_end = p->t1;
            if (fabs(p->e1) > a->ev.max_abs_e) acc_extend_max(a, p->e1, p->s1);
        }
        return 0;
    }
    return acc_feed_slow(a, r, cap, eligible, outside, p);
}

static int acc_feed_slow(ev_acc *a, sim_metrics_result *r, size_t *cap, bool eligible,
                         bool outside, const piece *p)
{
    int rc = 0;
    if (!eligible) {
        if (a->open) rc = acc_close(a, r, cap, true);
        a->prev_eligible = false;
        return rc;
    }
    if (outside) {
        if (!a->open) {
            a->open = true;
            memset(&a->ev, 0, sizeof a->ev);
            a->ev.kind = a->kind;
            a->ev.open_start = !a->prev_eligible;
            a->ev.s_start = p->s0;
            a->ev.t_start = p->t0;
            a->ev.max_abs_e = -1.0;
            acc_extend_max(a, p->e0, p->s0);
        }
        a->ev.area += p->area;
        a->ev.area_time += p->area_time;
        a->ev.s_end = p->s1;
        a->ev.t_end = p->t1;
        acc_extend_max(a, p->e1, p->s1);
    } else if (a->open) {
        rc = acc_close(a, r, cap, false);
    }
    a->prev_eligible = true;
    return rc;
}

/* ---- small helpers on linear functions of lambda ---- */

/* Adds the interior zero of f0 + (f1 - f0) * lam in (la, lb) to cuts. */
static void add_zero(double *cuts, int *nc, double f0, double f1, double la, double lb)
{
    if ((f0 < 0 && f1 > 0) || (f0 > 0 && f1 < 0)) {
        double lam = f0 / (f0 - f1);
        if (lam > la && lam < lb) cuts[(*nc)++] = lam;
    }
}

/* a + (b - a) * lam that returns a and b exactly at 0 and 1 and never leaves [a, b]:
 * a + (b - a) rounds to something else than b when a and b differ in magnitude by more
 * than the precision, which would make pieces overlap. */
static inline double lerp(double a, double b, double lam)
{
    if (lam <= 0) return a;
    if (lam >= 1) return b;
    double v = a + (b - a) * lam;
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return v < lo ? lo : v > hi ? hi : v;
}

/* Measure of lam in [la, lb] where g0 + (g1 - g0) * lam > 0. */
static double positive_measure(double g0, double g1, double la, double lb)
{
    double ga = g0 + (g1 - g0) * la, gb = g0 + (g1 - g0) * lb;
    if (ga <= 0 && gb <= 0) return 0.0;
    if (ga >= 0 && gb >= 0) return lb - la;
    double lz = g0 / (g0 - g1); /* ga and gb of opposite signs: g0 != g1 */
    return ga > 0 ? lz - la : lb - lz;
}

static void sort_small(double *v, int n)
{
    for (int i = 1; i < n; i++) {
        double x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

/* First time after t0 (within t_limit) when x - x0 reaches thr (or, two_sided, when
 * |x - x0| does), linearly interpolated; NAN if never. k: index with t[k] <= t0. */
static double first_reach(const double *t, const double *x, size_t n, size_t k, double t0,
                          double t_limit, double thr, bool two_sided)
{
    if (!x || thr <= 0) return NAN;
    double x0 = x[k];
    if (k + 1 < n && t[k + 1] > t[k] && isfinite(x[k + 1]))
        x0 = x[k] + (x[k + 1] - x[k]) * (t0 - t[k]) / (t[k + 1] - t[k]);
    if (!isfinite(x0)) return NAN;
    double ta = t0, xa = x0;
    for (size_t j = k + 1; j < n && ta <= t_limit; j++) {
        double tb = t[j], xb = x[j];
        if (!isfinite(xb)) return NAN;
        if (tb > ta) {
            double best = INFINITY;
            for (int sgn = 1; sgn >= (two_sided ? -1 : 1); sgn -= 2) {
                double fa = sgn * (xa - x0) - thr, fb = sgn * (xb - x0) - thr;
                if (fa >= 0) best = 0;
                else if (fb >= 0) {
                    double lam = fa / (fa - fb);
                    if (lam < best) best = lam;
                }
            }
            if (best < INFINITY) {
                double tr = ta + (tb - ta) * best;
                return tr <= t_limit ? tr - t0 : NAN;
            }
        }
        ta = tb;
        xa = xb;
    }
    return NAN;
}

static double min_nan(double a, double b)
{
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    return a < b ? a : b;
}

/* ---- validation ---- */

static int check_inputs(const sim_metrics_samples *smp, const sim_metrics_task *task,
                        sim_error *err)
{
    if (!smp || !task) return sim_error_set(err, SIM_EINVAL, "metrics: samples and task required");
    if (smp->n < 2)
        return sim_error_set(err, SIM_EINVAL, "samples: found %zu, expected at least 2", smp->n);
    if (!smp->t || !smp->s || !smp->d)
        return sim_error_set(err, SIM_EINVAL, "samples: columns t, s and d are required");
    if (!(task->s_end > task->s_start))
        return sim_error_set(err, SIM_EINVAL, "task: s-range [%g, %g]: expected s_end > s_start",
                             task->s_start, task->s_end);
    if (!(task->tube_half_width >= 0) || !isfinite(task->tube_half_width))
        return sim_error_set(err, SIM_EINVAL, "task: tube half width %g: expected finite >= 0",
                             task->tube_half_width);
    if (!(task->speed_margin >= 0) || !isfinite(task->speed_margin))
        return sim_error_set(err, SIM_EINVAL, "task: speed margin %g m/s: expected finite >= 0",
                             task->speed_margin);
    if (!(task->vehicle_width >= 0) || !isfinite(task->vehicle_width))
        return sim_error_set(err, SIM_EINVAL, "task: vehicle width %g: expected finite >= 0",
                             task->vehicle_width);
    if (!task->ideal || task->n_ideal == 0)
        return sim_error_set(err, SIM_EINVAL, "task: ideal path: expected at least one point");
    for (size_t k = 0; k < task->n_ideal; k++) {
        const sim_metrics_point *p = &task->ideal[k];
        if (!isfinite(p->s) || !isfinite(p->d))
            return sim_error_set(err, SIM_EINVAL, "task: ideal[%zu] = (%g, %g): expected finite",
                                 k, p->s, p->d);
        if (k > 0 && p->s < task->ideal[k - 1].s)
            return sim_error_set(err, SIM_EINVAL,
                                 "task: ideal[%zu].s = %g after %g: expected ascending s", k,
                                 p->s, task->ideal[k - 1].s);
    }
    if (task->n_stimuli && !task->stimulus_t)
        return sim_error_set(err, SIM_EINVAL, "task: %zu stimuli but no times", task->n_stimuli);
    if (task->n_buttons && !task->button_t)
        return sim_error_set(err, SIM_EINVAL, "task: %zu buttons but no times", task->n_buttons);
    for (size_t i = 0; i < smp->n; i++) {
        if (!isfinite(smp->t[i]) || !isfinite(smp->s[i]) || !isfinite(smp->d[i]))
            return sim_error_set(err, SIM_EINVAL,
                                 "samples[%zu]: t=%g s=%g d=%g: expected finite numbers", i,
                                 smp->t[i], smp->s[i], smp->d[i]);
        if (i > 0 && smp->t[i] < smp->t[i - 1])
            return sim_error_set(err, SIM_EINVAL,
                                 "samples[%zu].t = %.9g after %.9g: expected non-decreasing time",
                                 i, smp->t[i], smp->t[i - 1]);
    }
    return 0;
}

/* ---- per-sample statistics: SDLP, speed, headway ---- */

static void sample_stats(const sim_metrics_samples *smp, const sim_metrics_task *task,
                         sim_metrics_result *r)
{
    const double *s = smp->s, *d = smp->d;
    size_t n = smp->n;
    ideal_cur cur_i = {0};
    double smax = -INFINITY;
    /* Sums shifted by the first value keep the variance accurate (no cancellation). */
    double e_sh = NAN, e_sum = 0, e_sq = 0;
    double v_sh = NAN, v_sum = 0, v_sq = 0;
    size_t n_e = 0, n_v = 0;
    r->speed_min = r->speed_max = NAN;
    r->headway_min = r->thw_min = r->ttc_min = NAN;
    for (size_t i = 0; i < n; i++) {
        if (s[i] > smax) smax = s[i];
        if (smax < task->s_start) continue;
        if (smax > task->s_end) break;
        r->n_samples++;
        bool keeps;
        double e = d[i] - ideal_eval(task->ideal, task->n_ideal, smax, &cur_i, &keeps);
        if (keeps) {
            if (n_e == 0) e_sh = e;
            e_sum += e - e_sh;
            e_sq += (e - e_sh) * (e - e_sh);
            n_e++;
        }
        double v = smp->speed ? smp->speed[i] : NAN;
        if (isfinite(v)) {
            if (n_v == 0) v_sh = v, r->speed_min = r->speed_max = v;
            v_sum += v - v_sh;
            v_sq += (v - v_sh) * (v - v_sh);
            n_v++;
            if (v < r->speed_min) r->speed_min = v;
            if (v > r->speed_max) r->speed_max = v;
        }
        double h = smp->headway ? smp->headway[i] : NAN;
        if (!isfinite(h)) continue;
        /* Boxes that overlap (a collision, counted as its own measure by the analysis)
         * have no gap left: zero, never a negative distance, THW or TTC. */
        if (h < 0) h = 0;
        r->headway_min = min_nan(r->headway_min, h);
        /* Minima compared as products, dividing only for a new minimum. */
        if (isfinite(v) && v > 0 && (isnan(r->thw_min) || h < r->thw_min * v)) r->thw_min = h / v;
        double num, den;
        sim_metrics_closing(smp, i, &num, &den);
        if (isfinite(num) && num > 0 && (isnan(r->ttc_min) || h * den < r->ttc_min * num))
            r->ttc_min = h * den / num;
    }
    /* A minimum TTC at or above the cap is no conflict worth the name (n/a). */
    if (!(r->ttc_min < task->ttc_cap)) r->ttc_min = NAN;
    r->n_lane_keeping = n_e;
    if (n_e) {
        double m = e_sum / (double)n_e;
        double var = e_sq / (double)n_e - m * m;
        r->sdlp = sqrt(var > 0 ? var : 0);
    } else {
        r->sdlp = NAN;
    }
    if (n_v) {
        double m = v_sum / (double)n_v;
        double var = v_sq / (double)n_v - m * m;
        r->speed_mean = v_sh + m;
        r->speed_sd = sqrt(var > 0 ? var : 0);
    } else {
        r->speed_mean = r->speed_sd = NAN;
    }
}

/* ---- reaction times ---- */

static int reactions(const sim_metrics_samples *smp, const sim_metrics_task *task,
                     sim_metrics_result *r)
{
    if (task->n_stimuli == 0) return 0;
    r->reactions = calloc(task->n_stimuli, sizeof *r->reactions);
    if (!r->reactions) return SIM_ENOMEM;
    r->n_reactions = task->n_stimuli;
    const double *t = smp->t;
    size_t n = smp->n;
    for (size_t q = 0; q < task->n_stimuli; q++) {
        sim_metrics_reaction *rx = &r->reactions[q];
        double t0 = task->stimulus_t[q], tl = t0 + task->rt_window;
        rx->t_stimulus = t0;
        rx->rt_steer = rx->rt_brake = rx->rt_button = rx->rt = NAN;
        if (!isfinite(t0) || t0 < t[0] || t0 > t[n - 1]) continue;
        size_t lo = 0, hi = n - 1; /* last k with t[k] <= t0 */
        while (lo < hi) {
            size_t mid = (lo + hi + 1) / 2;
            if (t[mid] <= t0) lo = mid;
            else hi = mid - 1;
        }
        rx->rt_steer = first_reach(t, smp->steer, n, lo, t0, tl, task->rt_steer, true);
        rx->rt_brake = first_reach(t, smp->brake, n, lo, t0, tl, task->rt_pedal, false);
        for (size_t b = 0; b < task->n_buttons; b++) {
            double tb = task->button_t[b];
            if (tb > t0 && tb <= tl) {
                rx->rt_button = tb - t0;
                break;
            }
        }
        rx->rt = min_nan(min_nan(rx->rt_steer, rx->rt_brake), rx->rt_button);
    }
    return 0;
}

/* ---- the interval pass: events, areas, time-based quantities ---- */

typedef struct pass {
    const sim_metrics_samples *smp;
    const sim_metrics_task *task;
    sim_metrics_result *r;
    size_t cap;
    ev_acc tube, mark;
    ideal_cur cur_keep;
    bool any;
} pass;

/* One sub-interval [la, lb] of sample interval i, with no ideal-path point inside. */
static int sub_interval(pass *P, size_t i, double s0, double s1, double e0, double e1,
                        double la, double lb)
{
    const sim_metrics_samples *smp = P->smp;
    const double h = P->task->tube_half_width, hw = 0.5 * P->task->vehicle_width;
    const double t0 = smp->t[i], t1 = smp->t[i + 1], ds = s1 - s0;
    double cuts[8];
    int nc = 0;
    cuts[nc++] = la;
    add_zero(cuts, &nc, e0, e1, la, lb);
    add_zero(cuts, &nc, e0 - h, e1 - h, la, lb);
    add_zero(cuts, &nc, e0 + h, e1 + h, la, lb);

    /* Lane-mark excess: > 0 while the body is over the mark. */
    bool marks = false;
    double fl0 = -1, fl1 = -1, fr0 = -1, fr1 = -1;
    if (smp->mark_left && smp->mark_right) {
        double ml0 = smp->mark_left[i], ml1 = smp->mark_left[i + 1];
        double mr0 = smp->mark_right[i], mr1 = smp->mark_right[i + 1];
        double ds0 = smp->d[i], ds1 = smp->d[i + 1];
        if (isfinite(ml0) && isfinite(ml1)) {
            fl0 = ds0 + hw - ml0, fl1 = ds1 + hw - ml1;
            marks = true;
        }
        if (isfinite(mr0) && isfinite(mr1)) {
            fr0 = mr0 - (ds0 - hw), fr1 = mr1 - (ds1 - hw);
            marks = true;
        }
        add_zero(cuts, &nc, fl0, fl1, la, lb);
        add_zero(cuts, &nc, fr0, fr1, la, lb);
    }
    sort_small(cuts + 1, nc - 1);
    cuts[nc] = lb;

    /* The sub-interval lies within one ideal segment: keeping is constant on it. */
    double sm = s0 + ds * 0.5 * (la + lb);
    bool keeps = false;
    if (marks) ideal_eval(P->task->ideal, P->task->n_ideal, sm, &P->cur_keep, &keeps);
    sim_metrics_result *r = P->r;
    for (int c = 0; c < nc; c++) {
        double lp = cuts[c], lq = cuts[c + 1];
        piece p = {
            .s0 = lerp(s0, s1, lp), .s1 = lerp(s0, s1, lq),
            .t0 = lerp(t0, t1, lp), .t1 = lerp(t0, t1, lq),
            .e0 = lerp(e0, e1, lp), .e1 = lerp(e0, e1, lq),
        };
        double mean_abs = 0.5 * (fabs(p.e0) + fabs(p.e1)), lm = 0.5 * (lp + lq);
        p.area = mean_abs * (p.s1 - p.s0);
        p.area_time = mean_abs * (p.t1 - p.t0);
        r->abs_e_integral += p.area;
        if (fabs(p.e0) > r->max_abs_e) r->max_abs_e = fabs(p.e0);
        if (fabs(p.e1) > r->max_abs_e) r->max_abs_e = fabs(p.e1);
        bool tube_out = fabs(0.5 * (p.e0 + p.e1)) > h;
        bool mark_out = keeps && (fl0 + (fl1 - fl0) * lm > 0 || fr0 + (fr1 - fr0) * lm > 0);
        int rc = acc_feed(&P->tube, r, &P->cap, true, tube_out, &p);
        if (!rc) rc = acc_feed(&P->mark, r, &P->cap, keeps, mark_out, &p);
        if (rc) return rc;
    }
    return 0;
}

static int interval_pass(pass *P)
{
    const sim_metrics_samples *smp = P->smp;
    const sim_metrics_task *task = P->task;
    const sim_metrics_point *ip = task->ideal;
    const size_t ni = task->n_ideal;
    sim_metrics_result *r = P->r;
    const double S0 = task->s_start, S1 = task->s_end;
    size_t k_next = 0;
    ideal_cur cur_i = {0};
    double sa = smp->s[0];
    bool kp;
    double ea = smp->d[0] - ideal_eval(ip, ni, sa, &cur_i, &kp);
    r->started = sa <= S0;
    for (size_t i = 0; i + 1 < smp->n; i++) {
        double sb = smp->s[i + 1] > sa ? smp->s[i + 1] : sa; /* running maximum */
        double eb = smp->d[i + 1] - ideal_eval(ip, ni, sb, &cur_i, &kp);
        double ds = sb - sa;
        double la = 0, lb = 1;
        bool inside;
        if (ds > 0) {
            inside = sb > S0 && sa < S1;
            if (sa < S0) la = (S0 - sa) / ds;
            if (sb > S1) lb = (S1 - sa) / ds;
        } else {
            inside = sa >= S0 && sa < S1;
        }
        if (inside) {
            double dt = smp->t[i + 1] - smp->t[i];
            if (!P->any) {
                P->any = true;
                r->s_start = lerp(sa, sb, la);
                r->t_start = lerp(smp->t[i], smp->t[i + 1], la);
            }
            r->s_end = lerp(sa, sb, lb);
            r->t_end = lerp(smp->t[i], smp->t[i + 1], lb);
            /* Cut at the ideal path's points inside (s(la), s(lb)). */
            double s_lo = lerp(sa, sb, la), s_hi = lerp(sa, sb, lb), lc = la;
            while (k_next < ni && ip[k_next].s <= s_lo) k_next++;
            for (size_t k = k_next; k < ni && ip[k].s < s_hi; k++) {
                double lk = (ip[k].s - sa) / ds;
                if (lk > lc) {
                    int rc = sub_interval(P, i, sa, sb, ea, eb, lc, lk);
                    if (rc) return rc;
                    lc = lk;
                }
            }
            int rc = sub_interval(P, i, sa, sb, ea, eb, lc, lb);
            if (rc) return rc;
            /* Time over the speed limit and under the time-headway limit. */
            if (smp->speed && smp->speed_limit && isfinite(smp->speed_limit[i]) &&
                isfinite(smp->speed[i]) && isfinite(smp->speed[i + 1])) {
                double over0 = smp->speed[i] - smp->speed_limit[i];
                double over1 = smp->speed[i + 1] - smp->speed_limit[i];
                r->time_over_limit += dt * positive_measure(over0, over1, la, lb);
                r->time_over_limit_margin +=
                    dt * positive_measure(over0 - task->speed_margin, over1 - task->speed_margin, la, lb);
            }
            if (smp->speed && smp->headway && isfinite(smp->headway[i]) &&
                isfinite(smp->headway[i + 1]) && isfinite(smp->speed[i]) &&
                isfinite(smp->speed[i + 1])) {
                double tau = task->thw_limit;
                r->time_thw_below +=
                    dt * positive_measure(tau * smp->speed[i] - smp->headway[i],
                                          tau * smp->speed[i + 1] - smp->headway[i + 1], la, lb);
            }
        }
        if (sb >= S1) {
            r->ended = true;
            break;
        }
        sa = sb;
        ea = eb;
    }
    int rc = 0;
    if (P->tube.open) rc = acc_close(&P->tube, r, &P->cap, true);
    if (!rc && P->mark.open) rc = acc_close(&P->mark, r, &P->cap, true);
    return rc;
}

static int event_cmp(const void *a, const void *b)
{
    const sim_metrics_event *x = a, *y = b;
    if (x->s_start != y->s_start) return x->s_start < y->s_start ? -1 : 1;
    if (x->t_start != y->t_start) return x->t_start < y->t_start ? -1 : 1;
    return x->kind - y->kind;
}

void sim_metrics_closing(const sim_metrics_samples *smp, size_t i, double *num, double *den)
{
    *num = NAN, *den = 1;
    if (smp->closing) {
        *num = smp->closing[i];
        return;
    }
    if (!smp->headway) return;
    /* Central difference of the headway, one-sided where a neighbour is missing. */
    const double *hw = smp->headway, *t = smp->t;
    size_t a = (i > 0 && isfinite(hw[i - 1])) ? i - 1 : i;
    size_t b = (i + 1 < smp->n && isfinite(hw[i + 1])) ? i + 1 : i;
    if (b != a && t[b] > t[a]) *num = hw[a] - hw[b], *den = t[b] - t[a];
}

int sim_metrics_compute(const sim_metrics_samples *smp, const sim_metrics_task *task,
                        sim_metrics_result *res, sim_error *err)
{
    memset(res, 0, sizeof *res);
    int rc = check_inputs(smp, task, err);
    if (rc) return rc;
    sim_metrics_result *r = res;
    sample_stats(smp, task, r);
    pass P = {.smp = smp, .task = task, .r = r};
    P.tube.kind = SIM_METRICS_TUBE;
    P.mark.kind = SIM_METRICS_MARK;
    rc = interval_pass(&P);
    if (!rc) rc = reactions(smp, task, r);
    if (rc) {
        sim_metrics_result_free(r);
        return sim_error_set(err, rc, "metrics: out of memory");
    }
    r->started = r->started && P.any;
    if (!P.any) {
        r->s_start = r->s_end = task->s_start;
        r->t_start = r->t_end = NAN;
    }
    r->length = r->s_end - r->s_start;
    r->duration = P.any ? r->t_end - r->t_start : 0;
    r->mdev = r->length > 0 ? r->abs_e_integral / r->length : NAN;
    if (r->n_events > 1) qsort(r->events, r->n_events, sizeof *r->events, event_cmp);
    for (size_t k = 0; k < r->n_events; k++) {
        const sim_metrics_event *ev = &r->events[k];
        if (ev->kind == SIM_METRICS_TUBE) {
            r->n_tube_events++;
            r->area_global += ev->area;
            r->area_global_time += ev->area_time;
        } else {
            r->n_mark_events++;
            r->area_marks += ev->area;
        }
    }
    /* Without any speed (or car ahead) the times are undefined rather than zero. */
    if (!smp->headway || !smp->speed || isnan(r->headway_min)) r->time_thw_below = NAN;
    if (!smp->speed || !smp->speed_limit || isnan(r->speed_min))
        r->time_over_limit = r->time_over_limit_margin = NAN;
    return 0;
}

void sim_metrics_result_free(sim_metrics_result *res)
{
    if (!res) return;
    free(res->events);
    free(res->reactions);
    res->events = NULL;
    res->reactions = NULL;
    res->n_events = res->n_reactions = 0;
}
