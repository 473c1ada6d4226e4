/* Unit tests of sim_metrics: trajectories whose metrics are solved by hand.
 *
 * Each test states its trajectory and derives every expected value in a comment; the
 * assertions hold to 1e-9 relative (absolute near zero). Unless said otherwise the ideal
 * path is d_ideal = 0, so e = d. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "sim_metrics.h"

#define MAXN 256

static void near(double got, double want, const char *what)
{
    double tol = 1e-9 * fmax(1.0, fabs(want));
    if (!(fabs(got - want) <= tol)) fail_msg("%s: got %.15g, expected %.15g", what, got, want);
}
#define NEAR(got, want) near((got), (want), #got)

/* A drive built column by column; every column the test does not fill stays NULL. */
typedef struct drive {
    double t[MAXN], s[MAXN], d[MAXN], v[MAXN], lim[MAXN], st[MAXN], br[MAXN], ml[MAXN],
        mr[MAXN];
    sim_metrics_samples smp;
    sim_metrics_task task;
    sim_metrics_point zero;
} drive;

static drive D;

/* Samples from parallel lists of s, d and t; ideal path d = 0; task [s0, s1]. */
static void setup(size_t n, const double *s, const double *d, const double *t, double s0,
                  double s1, double h)
{
    memset(&D, 0, sizeof D);
    memcpy(D.s, s, n * sizeof *s);
    memcpy(D.d, d, n * sizeof *d);
    memcpy(D.t, t, n * sizeof *t);
    D.smp.n = n;
    D.smp.t = D.t;
    D.smp.s = D.s;
    D.smp.d = D.d;
    sim_metrics_task_init(&D.task);
    D.task.s_start = s0;
    D.task.s_end = s1;
    D.task.tube_half_width = h;
    D.task.ideal = &D.zero;
    D.task.n_ideal = 1;
}

static sim_metrics_result compute(void)
{
    sim_metrics_result r;
    sim_error err = {0};
    int rc = sim_metrics_compute(&D.smp, &D.task, &r, &err);
    if (rc) fail_msg("compute failed: %s", err.msg);
    return r;
}

/* Constant offset d = 0.8 m over s = 0..100 m at 10 m/s (t = s / 10), h = 0.5.
 * |e| = 0.8 > h everywhere, so the whole task is one event, open at both ends:
 *   area = 0.8 * 100 = 80 m^2, area over time = 0.8 * 10 s = 8 m*s, MDEV = 80/100 = 0.8,
 *   SDLP = 0 (no spread), max |e| = 0.8, side left.
 * Clipped to the task [10.5, 90.25]: area = 0.8 * 79.75 = 63.8, duration 7.975 s. */
static void constant_offset(void **state)
{
    double s[101], d[101], t[101];
    for (int i = 0; i <= 100; i++) s[i] = i, d[i] = 0.8, t[i] = i / 10.0;
    setup(101, s, d, t, 0, 100, 0.5);
    sim_metrics_result r = compute();
    assert_true(r.started && r.ended);
    assert_int_equal(r.n_tube_events, 1);
    assert_int_equal(r.n_mark_events, 0);
    const sim_metrics_event *ev = &r.events[0];
    assert_true(ev->open_start && ev->open_end);
    assert_int_equal(ev->side, 1);
    NEAR(ev->area, 80.0);
    NEAR(ev->area_time, 8.0);
    NEAR(ev->s_end - ev->s_start, 100.0);
    NEAR(ev->t_end - ev->t_start, 10.0);
    NEAR(ev->max_abs_e, 0.8);
    NEAR(r.area_global, 80.0);
    NEAR(r.mdev, 0.8);
    NEAR(r.sdlp, 0.0);
    NEAR(r.length, 100.0);
    assert_int_equal(r.n_samples, 101);
    sim_metrics_result_free(&r);

    D.task.s_start = 10.5;
    D.task.s_end = 90.25;
    r = compute();
    assert_int_equal(r.n_events, 1);
    NEAR(r.area_global, 63.8);
    NEAR(r.events[0].area_time, 0.8 * 7.975);
    NEAR(r.duration, 7.975);
    NEAR(r.events[0].s_start, 10.5);
    NEAR(r.events[0].s_end, 90.25);
    NEAR(r.mdev, 0.8);
    assert_int_equal(r.n_samples, 80); /* s = 11 .. 90 */
    sim_metrics_result_free(&r);
}

/* Triangular excursion: d = 0 up to s = 10, linear to 2 m at s = 20, back to 0 at s = 30,
 * then 0 to s = 40; h = 0.5, v = 20 m/s (t = s / 20).
 * Rising edge e = 0.2 (s - 10) meets h at s = 12.5; falling edge e = 2 - 0.2 (s - 20)
 * meets h at s = 27.5. Event [12.5, 27.5]: length 15 m, duration 0.75 s.
 * Area = triangle (base 20, height 2) = 20, less the two corners below h outside the
 * event, each 0.5 * 2.5 * 0.5 = 0.625: 20 - 1.25 = 18.75 m^2; over time 18.75 / 20 =
 * 0.9375 m*s. MDEV over [0, 40] = 20 / 40 = 0.5.
 * Lane marks at +-1.75 m, car 1.8 m wide: the left edge d + 0.9 is over the mark while
 * d > 0.85: from s = 10 + 0.85/0.2 = 14.25 to s = 20 + 1.15/0.2 = 25.75;
 * area 2 * (0.85 + 2)/2 * 5.75 = 16.3875 m^2, a severe event. */
static const double tri_s[] = {0, 10, 20, 30, 40};
static const double tri_d[] = {0, 0, 2, 0, 0};

static void check_triangle(const sim_metrics_result *r)
{
    assert_int_equal(r->n_tube_events, 1);
    const sim_metrics_event *ev = &r->events[0];
    assert_int_equal(ev->kind, SIM_METRICS_TUBE);
    assert_false(ev->open_start || ev->open_end);
    NEAR(ev->s_start, 12.5);
    NEAR(ev->s_end, 27.5);
    NEAR(ev->area, 18.75);
    NEAR(ev->max_abs_e, 2.0);
    NEAR(ev->s_max, 20.0);
    NEAR(r->area_global, 18.75);
    NEAR(r->mdev, 0.5);
    NEAR(r->abs_e_integral, 20.0);
}

static void triangle_excursion(void **state)
{
    double t[5];
    for (int i = 0; i < 5; i++) t[i] = tri_s[i] / 20.0;
    setup(5, tri_s, tri_d, t, 0, 40, 0.5);
    for (int i = 0; i < 5; i++) D.ml[i] = 1.75, D.mr[i] = -1.75;
    D.smp.mark_left = D.ml;
    D.smp.mark_right = D.mr;
    sim_metrics_result r = compute();
    check_triangle(&r);
    NEAR(r.events[0].area_time, 0.9375);
    NEAR(r.events[0].t_end - r.events[0].t_start, 0.75);
    assert_int_equal(r.n_mark_events, 1);
    const sim_metrics_event *mk = &r.events[1];
    assert_int_equal(mk->kind, SIM_METRICS_MARK);
    NEAR(mk->s_start, 14.25);
    NEAR(mk->s_end, 25.75);
    NEAR(mk->area, 16.3875);
    NEAR(r.area_marks, 16.3875);
    assert_int_equal(mk->side, 1);
    sim_metrics_result_free(&r);
}

/* The same triangle sampled unevenly: extra samples on its straight edges (s = 3, 11.7,
 * 21, 29.2, 33.3) change no line, so every figure of the triangle must come out again.
 * Time is uneven too: t jumps by different amounts per interval; the event's duration is
 * read off the interpolation: s = 12.5 lies in [11.7, 20] at fraction 0.8/8.3 of the
 * interval from t = 2 to t = 2.5, and s = 27.5 in [21, 29.2] at fraction 6.5/8.2 of the
 * interval from t = 3.1 to t = 4. */
static void uneven_sampling(void **state)
{
    const double s[] = {0, 3, 10, 11.7, 20, 21, 29.2, 30, 33.3, 40};
    const double t[] = {0, 0.2, 1, 2, 2.5, 3.1, 4, 4.05, 4.5, 6};
    double d[10];
    for (int i = 0; i < 10; i++) {
        double x = s[i];
        d[i] = x <= 10 ? 0 : x <= 20 ? 0.2 * (x - 10) : x <= 30 ? 2 - 0.2 * (x - 20) : 0;
    }
    setup(10, s, d, t, 0, 40, 0.5);
    sim_metrics_result r = compute();
    check_triangle(&r);
    double ta = 2 + 0.5 * 0.8 / 8.3, tb = 3.1 + 0.9 * 6.5 / 8.2;
    NEAR(r.events[0].t_start, ta);
    NEAR(r.events[0].t_end, tb);
    sim_metrics_result_free(&r);

    /* Constant offset 0.8 at uneven speed: s = 0, 10, 30, 60 at t = 0, 1, 2, 5; the task
     * [5, 45] starts at t = 0.5 (half of the first interval) and ends at t = 2 + 3 * 0.5
     * = 3.5 (s = 45 is half way through [30, 60]): duration 3 s, area 0.8 * 40 = 32,
     * over time 0.8 * 3 = 2.4. */
    const double s2[] = {0, 10, 30, 60}, t2[] = {0, 1, 2, 5}, d2[] = {0.8, 0.8, 0.8, 0.8};
    setup(4, s2, d2, t2, 5, 45, 0.5);
    r = compute();
    NEAR(r.t_start, 0.5);
    NEAR(r.t_end, 3.5);
    NEAR(r.area_global, 32.0);
    NEAR(r.area_global_time, 2.4);
    sim_metrics_result_free(&r);

    /* Rolling back: s = 0, 10, 8, 12, 20 (t = 0..4), d = 1. s is read as its running
     * maximum 0, 10, 10, 12, 20, so the road counts once: area 1 * 20 = 20 m^2, while
     * the time integral sees all 4 s: 4 m*s. */
    const double s3[] = {0, 10, 8, 12, 20}, t3[] = {0, 1, 2, 3, 4}, d3[] = {1, 1, 1, 1, 1};
    setup(5, s3, d3, t3, 0, 20, 0.5);
    r = compute();
    NEAR(r.area_global, 20.0);
    NEAR(r.area_global_time, 4.0);
    NEAR(r.length, 20.0);
    sim_metrics_result_free(&r);
}

/* Sinusoid e = A sin(pi s / W) sampled at the nodes s_k = k W / m (m intervals per half
 * wave of length W). On each half wave the piecewise-linear e is a trapezoid sum:
 *   integral |e| ds = (W/m) * A * sum_{k=1}^{m-1} sin(pi k / m) = (W/m) A cot(pi / (2m)),
 * (the sum of sines closed form), so MDEV = A cot(pi / (2m)) / m  (-> 2A/pi as m grows).
 * With m = 4, A = 2, h = 1: node values 0, sqrt2, 2, sqrt2, 0; |e| meets h at fraction
 * 1/sqrt2 of the first and last intervals. With D = W/4 each event's area is
 *   2 * (1 + sqrt2)/2 * D (1 - 1/sqrt2) + 2 * (sqrt2 + 2)/2 * D = D (2 + 3/sqrt2),
 * length 4D - 2D/sqrt2. Over a task of two full waves: 4 events, sides +, -, +, -.
 * SDLP over the 2*2m + 1 nodes (the last repeats the value 0): mean 0, sum of squares
 * 2 * (2m) * A^2 / 2 (the discrete mean of sin^2 over a period is 1/2), so
 * SDLP = A sqrt(2m / (4m + 1)). */
static void sinusoid(void **state)
{
    const double W = 25.0;
    for (int m = 4; m <= 50; m += 46) {
        const double A = 2.0, h = 1.0;
        size_t n = (size_t)(4 * m + 1);
        double s[MAXN], d[MAXN], t[MAXN];
        for (size_t k = 0; k < n; k++) {
            s[k] = (double)k * W / m;
            d[k] = A * sin(M_PI * (double)k / m);
            t[k] = s[k] / 15.0;
        }
        setup(n, s, d, t, 0, 4 * W, h);
        sim_metrics_result r = compute();
        NEAR(r.mdev, A / tan(M_PI / (2.0 * m)) / m);
        NEAR(r.sdlp, A * sqrt(2.0 * m / (4.0 * m + 1)));
        assert_int_equal(r.n_tube_events, 4);
        for (int q = 0; q < 4; q++) assert_int_equal(r.events[q].side, q % 2 ? -1 : 1);
        if (m == 4) {
            double Dd = W / 4;
            for (int q = 0; q < 4; q++) {
                NEAR(r.events[q].area, Dd * (2 + 3 / sqrt(2.0)));
                NEAR(r.events[q].s_end - r.events[q].s_start, 4 * Dd - 2 * Dd / sqrt(2.0));
                NEAR(r.events[q].s_start, q * W + Dd / sqrt(2.0));
            }
            NEAR(r.area_global, 4 * Dd * (2 + 3 / sqrt(2.0)));
        }
        sim_metrics_result_free(&r);
    }
}

/* An event straddling the task's end: d = 0 at s = 0 and 10, 2 at s = 20; task [0, 15],
 * h = 0.5, t = s / 10. e = 0.2 (s - 10) meets h at s = 12.5; at the task end e = 1.
 * The event [12.5, 15] is closed there (open_end): area (0.5 + 1)/2 * 2.5 = 1.875,
 * max |e| = 1 at s = 15. MDEV = integral_10^15 0.2 (s - 10) ds / 15 = 2.5 / 15.
 * Cut at s = 12 instead and the samples stop before the task ends at 25: the event
 * [12.5, 20] ends with the samples (ended = false): area (0.5 + 2)/2 * 7.5 = 9.375. */
static void event_straddles_task_end(void **state)
{
    const double s[] = {0, 10, 20}, d[] = {0, 0, 2}, t[] = {0, 1, 2};
    setup(3, s, d, t, 0, 15, 0.5);
    sim_metrics_result r = compute();
    assert_true(r.ended);
    assert_int_equal(r.n_events, 1);
    assert_true(r.events[0].open_end);
    assert_false(r.events[0].open_start);
    NEAR(r.events[0].s_start, 12.5);
    NEAR(r.events[0].s_end, 15.0);
    NEAR(r.events[0].area, 1.875);
    NEAR(r.events[0].max_abs_e, 1.0);
    NEAR(r.events[0].s_max, 15.0);
    NEAR(r.mdev, 2.5 / 15.0);
    sim_metrics_result_free(&r);

    D.task.s_end = 25;
    r = compute();
    assert_false(r.ended);
    assert_true(r.events[0].open_end);
    NEAR(r.events[0].area, 9.375);
    NEAR(r.length, 20.0);
    sim_metrics_result_free(&r);

    /* A task that the samples never reach: nothing covered, not started. */
    D.task.s_start = 30;
    D.task.s_end = 40;
    r = compute();
    assert_false(r.started);
    assert_int_equal(r.n_events, 0);
    assert_int_equal(r.n_samples, 0);
    NEAR(r.length, 0.0);
    sim_metrics_result_free(&r);
}

/* Zero crossings inside one sample interval.
 * (a) d = 1 at s = 0, -3 at s = 10, h = 2: e = 1 - 0.4 s is 0 at s = 2.5 and -2 at s = 7.5.
 *     integral |e| = 0.5*2.5*1 + 0.5*7.5*3 = 1.25 + 11.25 = 12.5 (the naive trapezoid
 *     (1 + 3)/2 * 10 = 20 is wrong), MDEV 1.25; one event [7.5, 10] on the right, open at
 *     the end, area (2 + 3)/2 * 2.5 = 6.25.
 * (b) d = 3 at s = 0, -3 at s = 12, h = 1: e = 3 - 0.5 s leaves the tube's left side at
 *     s = 4 and enters its right side at s = 8: events [0, 4] (open at the start, area
 *     (3 + 1)/2 * 4 = 8) and [8, 12] (area 8); integral |e| = 2 * 0.5 * 6 * 3 = 18. */
static void zero_crossings_inside_interval(void **state)
{
    const double s[] = {0, 10}, d[] = {1, -3}, t[] = {0, 1};
    setup(2, s, d, t, 0, 10, 2.0);
    sim_metrics_result r = compute();
    NEAR(r.abs_e_integral, 12.5);
    NEAR(r.mdev, 1.25);
    assert_int_equal(r.n_events, 1);
    NEAR(r.events[0].s_start, 7.5);
    NEAR(r.events[0].area, 6.25);
    assert_int_equal(r.events[0].side, -1);
    NEAR(r.max_abs_e, 3.0);
    sim_metrics_result_free(&r);

    const double s2[] = {0, 12}, d2[] = {3, -3}, t2[] = {0, 1.2};
    setup(2, s2, d2, t2, 0, 12, 1.0);
    r = compute();
    assert_int_equal(r.n_events, 2);
    assert_true(r.events[0].open_start);
    NEAR(r.events[0].s_end, 4.0);
    NEAR(r.events[0].area, 8.0);
    assert_int_equal(r.events[0].side, 1);
    NEAR(r.events[1].s_start, 8.0);
    NEAR(r.events[1].area, 8.0);
    NEAR(r.events[1].area_time, 0.8);
    assert_int_equal(r.events[1].side, -1);
    NEAR(r.abs_e_integral, 18.0);
    NEAR(r.area_global, 16.0);
    sim_metrics_result_free(&r);
}

/* SDLP on a known series, with an ideal lane change in the task.
 * Ideal path (0,0) (10,0) (20,3.5) (40,3.5): lane keeping on [0,10) and [20,40],
 * a lane change on [10,20). Samples every 5 m; at the lane-keeping samples
 * s = 0, 5, 20, 25, 30, 35, 40 the deviations are 0.1, -0.1, 0.2, 0, -0.2, 0.3, -0.3:
 * mean 0, sum of squares 0.28, population variance 0.28 / 7 = 0.04, SDLP = 0.2. The
 * samples at s = 10, 15 (changing lanes, e = 1 and 2) are left out of SDLP, and SDLP is
 * the spread about the ideal lane: the lanes' own offset (0 vs 3.5) does not count.
 * MDEV: the trapezoids of |e| per 5 m interval; where e changes sign from a to b inside
 * an interval of length L the two triangles give (a^2 + b^2) / (2 (|a| + |b|)) * L:
 *   [0,5]: 0.02/0.4*5 = 0.25   [5,10]: 1.01/2.2*5 = 5.05/2.2   [10,15]: (1 + 2)/2*5 = 7.5
 *   [15,20]: (2 + 0.2)/2*5 = 5.5   [20,25]: 0.5   [25,30]: 0.5
 *   [30,35]: 0.13/1.0*5 = 0.65   [35,40]: 0.18/1.2*5 = 0.75
 * total 15.65 + 5.05/2.2, MDEV = total / 40. */
static void sdlp_and_mdev_known_series(void **state)
{
    static const sim_metrics_point ideal[] = {{0, 0}, {10, 0}, {20, 3.5}, {40, 3.5}};
    const double e[] = {0.1, -0.1, 1, 2, 0.2, 0, -0.2, 0.3, -0.3};
    double s[9], d[9], t[9];
    for (int i = 0; i < 9; i++) {
        s[i] = 5.0 * i;
        size_t cur = 0;
        d[i] = e[i] + sim_metrics_ideal_at(ideal, 4, s[i], &cur);
        t[i] = i * 0.25;
    }
    setup(9, s, d, t, 0, 40, 0.5);
    D.task.ideal = ideal;
    D.task.n_ideal = 4;
    sim_metrics_result r = compute();
    assert_int_equal(r.n_lane_keeping, 7);
    NEAR(r.sdlp, 0.2);
    NEAR(r.abs_e_integral, 15.65 + 5.05 / 2.2);
    NEAR(r.mdev, (15.65 + 5.05 / 2.2) / 40);
    sim_metrics_result_free(&r);
}

/* Lane-mark events around an ideal lane change. Ideal (0,0) (50,0) (100,3.5) (200,3.5):
 * the ideal path changes lanes on [50,100). The driver starts early: d = 0 to s = 30,
 * then rising 0.07 per m to 3.5 at s = 80, then 3.5 (samples at 0,30,50,80,100,200).
 * Marks of the ideal lane: +-1.75 up to s = 50, then 1.75 / 5.25. Car width 1.8.
 * Mark event: the left edge d + 0.9 passes 1.75 at d = 0.85, s = 30 + 85/7; it is cut at
 * s = 50 where the ideal lane change begins (open_end): area (0.85 + 1.4)/2 * (20 - 85/7)
 * = 1.125 * 55/7. Inside the lane change the body crosses the mark without an event.
 * Tube (h = 0.5): e = 0.07 (s - 30) until 50 (e = 1.4), then d and the ideal path rise
 * alike (e = 1.4 to s = 80), then e falls linearly to 0 at s = 100. |e| > h from
 * s = 30 + 50/7 to s = 80 + 90/7; area 2 * (0.5 + 1.4)/2 * 90/7 + 1.4 * 30 = 465/7. */
static void lane_mark_events(void **state)
{
    static const sim_metrics_point ideal[] = {{0, 0}, {50, 0}, {100, 3.5}, {200, 3.5}};
    const double s[] = {0, 30, 50, 80, 100, 200}, d[] = {0, 0, 1.4, 3.5, 3.5, 3.5};
    const double t[] = {0, 1.5, 2.5, 4, 5, 10};
    setup(6, s, d, t, 0, 200, 0.5);
    D.task.ideal = ideal;
    D.task.n_ideal = 4;
    for (int i = 0; i < 6; i++) {
        D.ml[i] = s[i] <= 50 ? 1.75 : 5.25;
        D.mr[i] = s[i] <= 50 ? -1.75 : 1.75;
    }
    D.smp.mark_left = D.ml;
    D.smp.mark_right = D.mr;
    sim_metrics_result r = compute();
    assert_int_equal(r.n_mark_events, 1);
    assert_int_equal(r.n_tube_events, 1);
    const sim_metrics_event *tube = &r.events[0], *mk = &r.events[1];
    assert_int_equal(tube->kind, SIM_METRICS_TUBE);
    NEAR(tube->s_start, 30 + 50.0 / 7);
    NEAR(tube->s_end, 80 + 90.0 / 7);
    NEAR(tube->area, 465.0 / 7);
    assert_int_equal(mk->kind, SIM_METRICS_MARK);
    NEAR(mk->s_start, 30 + 85.0 / 7);
    NEAR(mk->s_end, 50.0);
    assert_true(mk->open_end);
    NEAR(mk->area, 1.125 * 55.0 / 7);
    sim_metrics_result_free(&r);
}

/* Headway on a constructed approach: ego at 30 m/s, lead at 20 m/s, gap 100 - 10 t for
 * t = 0..8 (samples every 0.5 s, s = 30 t). Closing speed 10 m/s (derived from the
 * headway: linear, so the differences are exact).
 *   min distance 20 m (t = 8); min THW = 20/30 s; min TTC = 20/10 = 2 s;
 *   THW < 1 s  <=>  gap < 30 m  <=>  t > 7: 1 s.
 * Then the lead pulls away at 40 m/s for 2 s (gap 20 + 10 (t - 8)), closing speed given
 * as a column (+10 up to t = 8, -10 after): no TTC while opening, THW < 1 s while
 * gap < 30, i.e. until t = 9: 2 s in all. */
static void headway_and_ttc(void **state)
{
    double s[21], d[21], t[21], v[21], hw[21], cl[21];
    for (int i = 0; i < 21; i++) {
        t[i] = 0.5 * i, s[i] = 30 * t[i], d[i] = 0, v[i] = 30;
        hw[i] = t[i] <= 8 ? 100 - 10 * t[i] : 20 + 10 * (t[i] - 8);
        cl[i] = t[i] <= 8 ? 10 : -10;
    }
    setup(17, s, d, t, 0, 240, 0.5);
    D.smp.speed = v;
    D.smp.headway = hw;
    sim_metrics_result r = compute();
    NEAR(r.headway_min, 20.0);
    NEAR(r.thw_min, 20.0 / 30.0);
    NEAR(r.ttc_min, 2.0);
    NEAR(r.time_thw_below, 1.0);
    sim_metrics_result_free(&r);

    setup(21, s, d, t, 0, 300, 0.5);
    D.smp.speed = v;
    D.smp.headway = hw;
    D.smp.closing = cl;
    r = compute();
    NEAR(r.ttc_min, 2.0);
    NEAR(r.time_thw_below, 2.0);
    NEAR(r.headway_min, 20.0);
    sim_metrics_result_free(&r);
}

/* A collision: the gap closes at 5 m/s from 10 m and the boxes overlap by up to
 * 0.5 m (gap -0.5; traffic's lead gap is bumper to bumper and goes negative while
 * they overlap), ego at 5 m/s, samples every 0.5 s for 3 s. Overlap is no gap: the
 * minimum distance, THW and TTC are 0, never negative. Before it (t <= 2) the minimum
 * TTC is 10 / 5 = 2 s. A slow approach (gap 60 - 2 t for 3 s, TTC >= 54 / 2 = 27 s)
 * is above the 10 s cap: n/a (NAN), while the THW stays. */
static void overlap_is_zero_and_ttc_capped(void **state)
{
    double s[7], d[7], t[7], v[7], hw[7];
    for (int i = 0; i < 7; i++) {
        t[i] = 0.5 * i, s[i] = 5 * t[i], d[i] = 0, v[i] = 5;
        hw[i] = 10 - 5 * t[i];
    }
    setup(7, s, d, t, 0, 15, 0.5);
    D.smp.speed = v;
    D.smp.headway = hw;
    sim_metrics_result r = compute();
    assert_true(r.headway_min == 0.0);
    assert_true(r.thw_min == 0.0);
    assert_true(r.ttc_min == 0.0);
    sim_metrics_result_free(&r);

    for (int i = 0; i < 7; i++) hw[i] = 60 - 2 * t[i], v[i] = 5;
    r = compute();
    assert_true(isnan(r.ttc_min));
    NEAR(r.thw_min, 54.0 / 5.0);
    sim_metrics_result_free(&r);
    D.task.ttc_cap = 100;
    r = compute();
    NEAR(r.ttc_min, 27.0);
    sim_metrics_result_free(&r);
}

/* Speed: 20, 21, ..., 30 m/s at t = 0..10 s (s integrated exactly: s = 20 t + t^2/2),
 * limit 25 m/s. Mean 25, population SD sqrt(sum (k-5)^2 / 11) = sqrt(110/11) = sqrt(10),
 * min 20, max 30; speed > 25 for t in (5, 10]: 5 s over the limit. With the default
 * margin of 3 km/h (5/6 m/s) speed > 25 + 5/6 for t > 5 + 5/6: 25/6 s; with a margin of
 * 2.5 m/s, 2.5 s; a margin of 6 m/s is never exceeded: 0 s. */
static void speed_statistics(void **state)
{
    double s[11], d[11], t[11];
    for (int i = 0; i < 11; i++) t[i] = i, s[i] = 20.0 * i + 0.5 * i * i, d[i] = 0;
    setup(11, s, d, t, 0, s[10], 0.5);
    for (int i = 0; i < 11; i++) D.v[i] = 20 + i, D.lim[i] = 25;
    D.smp.speed = D.v;
    D.smp.speed_limit = D.lim;
    sim_metrics_result r = compute();
    NEAR(r.speed_mean, 25.0);
    NEAR(r.speed_sd, sqrt(10.0));
    NEAR(r.speed_min, 20.0);
    NEAR(r.speed_max, 30.0);
    NEAR(r.time_over_limit, 5.0);
    NEAR(r.time_over_limit_margin, 25.0 / 6.0);
    assert_true(isnan(r.headway_min));
    sim_metrics_result_free(&r);
    D.task.speed_margin = 2.5;
    r = compute();
    NEAR(r.time_over_limit, 5.0);
    NEAR(r.time_over_limit_margin, 2.5);
    sim_metrics_result_free(&r);
    D.task.speed_margin = 6.0;
    r = compute();
    assert_true(r.time_over_limit_margin == 0.0);
    sim_metrics_result_free(&r);
    D.task.speed_margin = -1.0;
    sim_error err = {0};
    assert_int_equal(sim_metrics_compute(&D.smp, &D.task, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "speed margin"));
}

/* Reaction times. Samples every 0.1 s for 3 s. Steering 0 until 1.5 s, then 0.2 rad/s;
 * brake 0 until 2.0 s and 0.5 from 2.1 s; a button at 1.3 s. Thresholds: 2 degrees =
 * pi/90 rad, pedal 0.1.
 * Stimulus at 1.0 s: steering reaches pi/90 at 1.5 + (pi/90)/0.2 = 1.5 + pi/18 s ->
 * rt_steer = 0.5 + pi/18; the brake rises 0.5 per 0.1 s and reaches 0.1 at 2.02 s ->
 * rt_brake = 1.02; button rt 0.3; rt = 0.3.
 * Stimulus at 2.5 s: steering (already moving) changes by pi/90 after pi/18 s; the brake
 * stays at 0.5 (no rise) and no button follows: rt = rt_steer = pi/18. */
static void reaction_times(void **state)
{
    double s[31], d[31], t[31];
    for (int i = 0; i < 31; i++) t[i] = 0.1 * i, s[i] = 10.0 * i, d[i] = 0;
    setup(31, s, d, t, 0, 300, 0.5);
    for (int i = 0; i < 31; i++) {
        D.st[i] = t[i] <= 1.5 ? 0 : 0.2 * (t[i] - 1.5);
        D.br[i] = i <= 20 ? 0 : 0.5;
    }
    D.smp.steer = D.st;
    D.smp.brake = D.br;
    const double stim[] = {1.0, 2.5}, button[] = {1.3};
    D.task.stimulus_t = stim;
    D.task.n_stimuli = 2;
    D.task.button_t = button;
    D.task.n_buttons = 1;
    sim_metrics_result r = compute();
    assert_int_equal(r.n_reactions, 2);
    NEAR(r.reactions[0].rt_steer, 0.5 + M_PI / 18);
    NEAR(r.reactions[0].rt_brake, 1.02);
    NEAR(r.reactions[0].rt_button, 0.3);
    NEAR(r.reactions[0].rt, 0.3);
    NEAR(r.reactions[1].rt_steer, M_PI / 18);
    assert_true(isnan(r.reactions[1].rt_brake));
    assert_true(isnan(r.reactions[1].rt_button));
    NEAR(r.reactions[1].rt, M_PI / 18);
    sim_metrics_result_free(&r);
}

/* |e| touching h without crossing it does not split an event: e = 0.8, 0.5, 0.8 at
 * s = 0, 10, 20 (h = 0.5) is one event over [0, 20] with area 2 * (0.8 + 0.5)/2 * 10 = 13. */
static void touching_the_tube_is_one_event(void **state)
{
    const double s[] = {0, 10, 20}, d[] = {0.8, 0.5, 0.8}, t[] = {0, 1, 2};
    setup(3, s, d, t, 0, 20, 0.5);
    sim_metrics_result r = compute();
    assert_int_equal(r.n_events, 1);
    NEAR(r.events[0].area, 13.0);
    NEAR(r.events[0].s_end, 20.0);
    sim_metrics_result_free(&r);
}

/* A lane-mark event under way when the ideal lane change ends starts there (open_start).
 * Ideal (0,0) (10,0) (20,-3.5) (100,-3.5): the ideal path changes lanes on [10,20) and
 * then keeps lane -2 (marks at -1.75 and -5.25). The driver is late: d = -1 at s = 20,
 * -3.5 at s = 40, so d = -1 - 0.125 (s - 20) and e = 2.5 - 0.125 (s - 20). The body's
 * left edge d + 0.9 is over the mark at -1.75 until d = -2.65, s = 20 + 1.65/0.125 = 33.2.
 * Event [20, 33.2], open at its start, area (2.5 + 0.85)/2 * 13.2 = 22.11, left side. */
static void lane_mark_event_open_after_lane_change(void **state)
{
    static const sim_metrics_point ideal[] = {{0, 0}, {10, 0}, {20, -3.5}, {100, -3.5}};
    const double s[] = {0, 10, 20, 40, 100}, d[] = {0, 0, -1, -3.5, -3.5}, t[] = {0, 1, 2, 4, 10};
    setup(5, s, d, t, 0, 100, 0.5);
    D.task.ideal = ideal;
    D.task.n_ideal = 4;
    for (int i = 0; i < 5; i++) {
        D.ml[i] = s[i] <= 10 ? 1.75 : -1.75;
        D.mr[i] = s[i] <= 10 ? -1.75 : -5.25;
    }
    D.smp.mark_left = D.ml;
    D.smp.mark_right = D.mr;
    sim_metrics_result r = compute();
    assert_int_equal(r.n_mark_events, 1);
    const sim_metrics_event *mk = NULL;
    for (size_t k = 0; k < r.n_events; k++)
        if (r.events[k].kind == SIM_METRICS_MARK) mk = &r.events[k];
    assert_non_null(mk);
    assert_true(mk->open_start);
    assert_false(mk->open_end);
    NEAR(mk->s_start, 20.0);
    NEAR(mk->s_end, 33.2);
    NEAR(mk->area, (2.5 + 0.85) / 2 * 13.2);
    assert_int_equal(mk->side, 1);
    sim_metrics_result_free(&r);
}

/* Bad input is refused with a message naming the sample and field. */
static void rejects_bad_input(void **state)
{
    const double s[] = {0, 1, 2, 3}, d[] = {0, 0, NAN, 0}, t[] = {0, 1, 2, 3};
    setup(4, s, d, t, 0, 3, 0.5);
    sim_metrics_result r;
    sim_error err = {0};
    assert_int_equal(sim_metrics_compute(&D.smp, &D.task, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "samples[2]"));
    assert_null(r.events);

    const double d2[] = {0, 0, 0, 0}, t2[] = {0, 2, 1, 3};
    setup(4, s, d2, t2, 0, 3, 0.5);
    assert_int_equal(sim_metrics_compute(&D.smp, &D.task, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "samples[2].t"));

    setup(4, s, d2, t, 3, 3, 0.5);
    assert_int_equal(sim_metrics_compute(&D.smp, &D.task, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "s_end > s_start"));

    setup(4, s, d2, t, 0, 3, -1);
    assert_int_equal(sim_metrics_compute(&D.smp, &D.task, &r, &err), SIM_EINVAL);
    setup(1, s, d2, t, 0, 3, 0.5);
    assert_int_equal(sim_metrics_compute(&D.smp, &D.task, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "at least 2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constant_offset),
        cmocka_unit_test(triangle_excursion),
        cmocka_unit_test(uneven_sampling),
        cmocka_unit_test(sinusoid),
        cmocka_unit_test(event_straddles_task_end),
        cmocka_unit_test(zero_crossings_inside_interval),
        cmocka_unit_test(sdlp_and_mdev_known_series),
        cmocka_unit_test(lane_mark_events),
        cmocka_unit_test(headway_and_ttc),
        cmocka_unit_test(overlap_is_zero_and_ttc_capped),
        cmocka_unit_test(speed_statistics),
        cmocka_unit_test(reaction_times),
        cmocka_unit_test(touching_the_tube_is_one_event),
        cmocka_unit_test(lane_mark_event_open_after_lane_change),
        cmocka_unit_test(rejects_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
