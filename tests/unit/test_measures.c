/* Unit tests of the secondary-task measures (sim_measures.h): DRT, steering reversal
 * rate, time to line crossing, glances, SuRT. Every expected value is solved by hand in
 * the comment above its test (docs/metrics.md holds the definitions); the reversal rate
 * is also checked against a plain implementation of the published algorithm written
 * here, with the published filter coefficients. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_measures.h"

static void near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol * fmax(1.0, fabs(want))))
        fail_msg("%s: got %.15g, expected %.15g", what, got, want);
}
#define NEAR(got, want) near((got), (want), 1e-9, #got)

/* ---- statistics ---- */

/* [3, 1, 2, 4] sorted [1, 2, 3, 4]: median at rank 1.5 = 2.5; 85th at rank 2.55 =
 * 3 + 0.55 = 3.55; NAN values are left out. */
static void percentiles(void **state)
{
    (void)state;
    double v[] = {3, 1, NAN, 2, 4};
    NEAR(sim_stats_percentile(v, 5, 50), 2.5);
    NEAR(sim_stats_percentile(v, 5, 85), 3.55);
    NEAR(sim_stats_percentile(v, 5, 0), 1);
    NEAR(sim_stats_percentile(v, 5, 100), 4);
    NEAR(sim_stats_mean(v, 5), 2.5);
    assert_true(isnan(sim_stats_percentile(v, 0, 50)));
}

/* ---- sensor channels per task ---- */

/* The textbook set {2, 4, 4, 4, 5, 5, 7, 9} at t = 1.0, 1.5, ..., 4.5 s inside the task
 * [1, 4.5] (both ends count), 100 at 0.5 s and -100 at 5 s outside it, a NAN at 2.2 s
 * (a dropped value, not counted). Task: count 8, mean 40 / 8 = 5, squared deviations
 * 9+1+1+1+0+0+4+16 = 32, sample SD sqrt(32 / 7), min 2, max 9. Whole drive: 10 values,
 * sum 40, mean 4, squared deviations from 4: 4+0+0+0+1+1+9+25 + 96^2 + 104^2 = 20072,
 * SD sqrt(20072 / 9), min -100, max 100. A task at [6, 7] has no value: count 0, all
 * NAN. A window holding one value: its mean, min, max, no SD. The same set shifted by
 * 1e9 keeps its SD (a naive sum of squares loses it). */
static void sensor_stats_by_hand(void **state)
{
    (void)state;
    sim_sensor_value v[] = {{0.5, 100}, {1.0, 2}, {1.5, 4}, {2.0, 4}, {2.2, NAN}, {2.5, 4},
                            {3.0, 5}, {3.5, 5}, {4.0, 7}, {4.5, 9}, {5.0, -100}};
    size_t n = sizeof v / sizeof *v;
    sim_sensor_stats s;
    sim_sensor_stats_window(v, n, 1.0, 4.5, &s);
    assert_int_equal(s.count, 8);
    NEAR(s.mean, 5);
    NEAR(s.sd, sqrt(32.0 / 7));
    NEAR(s.min, 2);
    NEAR(s.max, 9);
    sim_sensor_stats_window(v, n, -INFINITY, INFINITY, &s);
    assert_int_equal(s.count, 10);
    NEAR(s.mean, 4);
    NEAR(s.sd, sqrt(20072.0 / 9));
    NEAR(s.min, -100);
    NEAR(s.max, 100);
    sim_sensor_stats_window(v, n, 6, 7, &s);
    assert_int_equal(s.count, 0);
    assert_true(isnan(s.mean) && isnan(s.sd) && isnan(s.min) && isnan(s.max));
    sim_sensor_stats_window(v, n, 4.25, 4.75, &s);
    assert_int_equal(s.count, 1);
    NEAR(s.mean, 9);
    assert_true(isnan(s.sd));
    NEAR(s.min, 9);
    sim_sensor_stats_window(NULL, 0, -INFINITY, INFINITY, &s);
    assert_int_equal(s.count, 0);
    for (size_t i = 0; i < n; i++) v[i].value += 1e9;
    sim_sensor_stats_window(v, n, 1.0, 4.5, &s);
    near(s.sd, sqrt(32.0 / 7), 1e-6, "sd with an offset of 1e9");
    NEAR(s.mean, 1e9 + 5);
}

/* ---- DRT ---- */

/* Stimuli at 1 (visual), 5 (visual), 9 (tactile), 13 (auditory), 17 (tactile) s.
 * Responses:  0.5     before any stimulus: extra
 *             1.0625  0.0625 s after 1: early (< 0.1 s)
 *             1.5     0.5 s after 1: hit, RT 0.5
 *             1.75    second response to 1: extra
 *             5.125   hit of 5, RT 0.125
 *             11.5    hit of 9, RT 2.5 (the window's end counts)
 *             15.75   2.75 s after 13: extra; 13 is a miss; 17 gets nothing: miss.
 * All: 5 stimuli, 3 hits, 2 misses, 1 early, 3 extra, hit rate 0.6, RT mean
 * (0.5 + 0.125 + 2.5) / 3 = 1.0416..., median 0.5.
 * Visual: 2 stimuli, 2 hits, RT mean 0.3125 = median, 1 early, 1 extra.
 * Tactile: 2 stimuli, 1 hit (2.5), 1 miss. Auditory: 1 stimulus, a miss, 1 extra,
 * hit rate 0, no RT. */
static void drt_hits_misses_early(void **state)
{
    (void)state;
    sim_drt_stimulus st[] = {{1, SIM_DRT_VISUAL}, {5, SIM_DRT_VISUAL}, {9, SIM_DRT_TACTILE},
                             {13, SIM_DRT_AUDITORY}, {17, SIM_DRT_TACTILE}};
    double resp[] = {0.5, 1.0625, 1.5, 1.75, 5.125, 11.5, 15.75};
    sim_drt_params p;
    sim_drt_params_init(&p);
    sim_drt_result r;
    sim_error err = {0};
    assert_int_equal(sim_drt_compute(st, 5, resp, 7, &p, &r, &err), 0);
    assert_int_equal(r.all.stimuli, 5);
    assert_int_equal(r.all.hits, 3);
    assert_int_equal(r.all.misses, 2);
    assert_int_equal(r.all.early, 1);
    assert_int_equal(r.all.extra, 3);
    NEAR(r.all.hit_rate, 0.6);
    NEAR(r.all.rt_mean, 3.125 / 3);
    NEAR(r.all.rt_median, 0.5);
    int want_outcome[] = {SIM_DRT_HIT, SIM_DRT_HIT, SIM_DRT_HIT, SIM_DRT_MISS, SIM_DRT_MISS};
    double want_rt[] = {0.5, 0.125, 2.5};
    for (int i = 0; i < 5; i++) assert_int_equal(r.outcome[i], want_outcome[i]);
    for (int i = 0; i < 3; i++) NEAR(r.rt[i], want_rt[i]);
    assert_true(isnan(r.rt[3]));

    const sim_drt_summary *v = &r.by_modality[SIM_DRT_VISUAL];
    assert_int_equal(v->stimuli, 2);
    assert_int_equal(v->hits, 2);
    assert_int_equal(v->early, 1);
    assert_int_equal(v->extra, 1);
    NEAR(v->rt_mean, 0.3125);
    NEAR(v->rt_median, 0.3125);
    const sim_drt_summary *t = &r.by_modality[SIM_DRT_TACTILE];
    assert_int_equal(t->stimuli, 2);
    assert_int_equal(t->hits, 1);
    assert_int_equal(t->misses, 1);
    NEAR(t->rt_mean, 2.5);
    const sim_drt_summary *a = &r.by_modality[SIM_DRT_AUDITORY];
    assert_int_equal(a->stimuli, 1);
    assert_int_equal(a->misses, 1);
    assert_int_equal(a->extra, 1);
    NEAR(a->hit_rate, 0.0);
    assert_true(isnan(a->rt_mean));
    sim_drt_result_free(&r);
}

/* An early response does not use the stimulus up: 0.05 s early, then 0.4 s hits. A
 * response at 2.5 + 1/1024 s is too late: a miss and an extra. */
static void drt_early_then_hit_and_late(void **state)
{
    (void)state;
    sim_drt_stimulus st[] = {{10, SIM_DRT_AUDITORY}, {20, SIM_DRT_AUDITORY}};
    double resp[] = {10.0625, 10.4, 22.5 + 1.0 / 1024};
    sim_drt_params p;
    sim_drt_params_init(&p);
    sim_drt_result r;
    sim_error err = {0};
    assert_int_equal(sim_drt_compute(st, 2, resp, 3, &p, &r, &err), 0);
    assert_int_equal(r.all.hits, 1);
    assert_int_equal(r.all.early, 1);
    assert_int_equal(r.all.misses, 1);
    assert_int_equal(r.all.extra, 1);
    near(r.rt[0], 0.4, 1e-12, "rt");
    sim_drt_result_free(&r);
}

static void drt_rejects_bad_input(void **state)
{
    (void)state;
    sim_drt_stimulus st[] = {{5, SIM_DRT_VISUAL}, {1, SIM_DRT_VISUAL}};
    double resp[] = {2, 1};
    sim_drt_params p;
    sim_drt_params_init(&p);
    sim_drt_result r;
    sim_error err = {0};
    assert_int_equal(sim_drt_compute(st, 2, NULL, 0, &p, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "stimulus 1"));
    assert_int_equal(sim_drt_compute(st, 1, resp, 2, &p, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "response 1"));
    st[0].modality = 7;
    assert_int_equal(sim_drt_compute(st, 1, NULL, 0, &p, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "modality"));
    assert_int_equal(sim_drt_modality_parse("tactile"), SIM_DRT_TACTILE);
    assert_int_equal(sim_drt_modality_parse("smell"), -1);
}

/* ---- steering wheel reversal rate ---- */

/* The filter against the coefficients the authors published for 30 Hz
 * (GetButterworthFilter.m): 0.6 Hz and 2 Hz. */
static void srr_butterworth_matches_published(void **state)
{
    (void)state;
    double b[3], a[3];
    sim_error err = {0};
    assert_int_equal(sim_srr_butter2(30, 0.6, b, a, &err), 0);
    near(b[0], 0.00362168151493, 1e-13, "b0");
    near(b[1], 0.00724336302986, 1e-13, "b1");
    near(a[1], -1.82269492519631, 1e-13, "a1");
    near(a[2], 0.83718165125602, 1e-13, "a2");
    assert_int_equal(sim_srr_butter2(30, 2, b, a, &err), 0);
    near(b[0], 0.03357180936764, 1e-13, "b0");
    near(a[1], -1.41898265221812, 1e-13, "a1");
    near(a[2], 0.55326988968868, 1e-13, "a2");
    assert_int_equal(sim_srr_butter2(30, 15, b, a, &err), SIM_EINVAL);
}

/* 5 s at 0, then A sin(2 pi 0.2 (t - 5)) for K = 4 periods (20 s), then 5 s at 0; 100 Hz,
 * 30 s. Well below either cut-off the filter keeps the shape (gain 0.988 at 0.2 Hz for
 * 0.6 Hz, twice over), so the stationary points are: the flat start, 4 peaks and 4
 * troughs alternating, the flat end (and ripples far below any gap).
 * Upward: start -> peak 1 (1), trough -> peak 2..4 (3), trough 4 -> flat end (1): K + 1 = 5.
 * Downward: peak -> trough, 4 times: K = 4. Total 2K + 1 = 9 in 30 s: 18 per minute.
 * A = 10 deg: 9 for both 0.6 Hz / 3 deg and 2 Hz / 0.1 deg. A = 1 deg (2 deg from peak to
 * trough): none for the 3 deg gap, still 9 for 0.1 deg.
 * A 3 Hz sine of 2 deg is filtered at 0.6 Hz to 2 / (1 + 5^4) = 0.003 deg: no reversal,
 * although its raw swing (4 deg) exceeds the gap. */
static void sine_signal(double *th, size_t n, double fs, double amp, double f, double t0,
                        double t1)
{
    for (size_t i = 0; i < n; i++) {
        double t = (double)i / fs;
        th[i] = t >= t0 && t <= t1 ? amp * sin(2 * M_PI * f * (t - t0)) : 0.0;
    }
}

static void srr_sine_by_hand(void **state)
{
    (void)state;
    enum { N = 3001 };
    static double th[N];
    sim_srr_result r;
    sim_error err = {0};
    sine_signal(th, N, 100, 10, 0.2, 5, 25);
    assert_int_equal(sim_srr_compute(th, N, 100, 0.6, 3, &r, &err), 0);
    assert_int_equal(r.up, 5);
    assert_int_equal(r.down, 4);
    NEAR(r.duration, 30);
    NEAR(r.rate, 18);
    assert_int_equal(sim_srr_compute(th, N, 100, 2, 0.1, &r, &err), 0);
    assert_int_equal(r.reversals, 9);

    sine_signal(th, N, 100, 1, 0.2, 5, 25);
    assert_int_equal(sim_srr_compute(th, N, 100, 0.6, 3, &r, &err), 0);
    assert_int_equal(r.reversals, 0);
    NEAR(r.rate, 0);
    assert_int_equal(sim_srr_compute(th, N, 100, 2, 0.1, &r, &err), 0);
    assert_int_equal(r.reversals, 9);

    sine_signal(th, N, 100, 2, 3, 5, 25);
    assert_int_equal(sim_srr_compute(th, N, 100, 0.6, 3, &r, &err), 0);
    assert_int_equal(r.reversals, 0);
    assert_int_equal(sim_srr_compute(th, N, 100, 0, 3, &r, &err), 0);
    assert_true(r.reversals > 100); /* unfiltered, the same swing reverses 6 times a second */

    th[7] = NAN;
    assert_int_equal(sim_srr_compute(th, N, 100, 0.6, 3, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "sample 7"));
}

/* The published algorithm written out plainly (metric_ReversalRate_VTEC.m with MATLAB's
 * filtfilt), with the published 30 Hz coefficients and a direct-form-I filter whose
 * histories start at the padded signal's first value (the steady state of a filter of
 * unit DC gain). 1-based arrays as in the original. */
static void ref_filter(const double *b, const double *a, double *x, int n)
{
    double x1 = x[1], x2 = x[1], y1 = x[1], y2 = x[1];
    for (int i = 1; i <= n; i++) {
        double y = b[0] * x[i] + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2;
        x2 = x1, x1 = x[i], y2 = y1, y1 = y;
        x[i] = y;
    }
}

static void ref_reverse(double *x, int n)
{
    for (int i = 1, j = n; i < j; i++, j--) {
        double t = x[i];
        x[i] = x[j], x[j] = t;
    }
}

static int ref_upward(const double *y, const int *ext, int ne, double sign, double gap)
{
    int i = 1, count = 0;
    for (int j = 1; j <= ne; j++) {
        if (sign * y[ext[j]] - sign * y[ext[i]] > gap) {
            count++;
            i = j;
        } else if (sign * y[ext[j]] <= sign * y[ext[i]]) {
            i = j;
        }
    }
    return count;
}

static int ref_reversals(const double *sw, int n, const double *b, const double *a, double gap,
                         double *filtered)
{
    int nf = 6, m = n + 2 * nf;
    double *x = malloc((size_t)(m + 1) * sizeof *x);
    for (int i = 1; i <= nf; i++) x[i] = 2 * sw[1] - sw[nf + 2 - i];
    for (int i = 1; i <= n; i++) x[nf + i] = sw[i];
    for (int i = 1; i <= nf; i++) x[nf + n + i] = 2 * sw[n] - sw[n - i];
    ref_filter(b, a, x, m);
    ref_reverse(x, m);
    ref_filter(b, a, x, m);
    ref_reverse(x, m);
    double *y = x + nf; /* y[1..n] */
    double *d = malloc((size_t)(n + 1) * sizeof *d);
    int *ext = malloc((size_t)(n + 1) * sizeof *ext), ne = 0;
    d[1] = 0;
    for (int k = 2; k <= n; k++) d[k] = y[k] - y[k - 1];
    for (int k = 1; k <= n - 1; k++) {
        int s1 = (d[k] > 0) - (d[k] < 0), s2 = (d[k + 1] > 0) - (d[k + 1] < 0);
        if (abs(s1 - s2) == 2 || d[k] == 0) ext[++ne] = k;
    }
    int rev = ref_upward(y, ext, ne, 1, gap) + ref_upward(y, ext, ne, -1, gap);
    for (int k = 1; k <= n; k++) filtered[k - 1] = y[k];
    free(x), free(d), free(ext);
    return rev;
}

/* Ten minutes of a seeded random steering signal at 30 Hz (a smoothed random walk with
 * corrections of a few degrees): the same filtered signal and the same counts. */
static void srr_agrees_with_published_algorithm(void **state)
{
    (void)state;
    enum { N = 18000 };
    static double sw[N + 1], raw[N], ref_y[N], ours_y[N];
    static const double b06[3] = {0.00362168151493, 0.00724336302986, 0.00362168151493};
    static const double a06[3] = {1, -1.82269492519631, 0.83718165125602};
    static const double b2[3] = {0.03357180936764, 0.06714361873528, 0.03357180936764};
    static const double a2[3] = {1, -1.41898265221812, 0.55326988968868};
    for (uint64_t seed = 1; seed <= 4; seed++) {
        uint64_t st = seed * 0x9E3779B97F4A7C15ull;
        double v = 0, angle = 0;
        for (int i = 1; i <= N; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(st >> 11) / 9007199254740992.0 - 0.5;
            v = 0.97 * v + u * (seed % 2 ? 1.5 : 0.05);
            angle = 0.995 * angle + v;
            sw[i] = angle;
            raw[i - 1] = angle;
        }
        sim_srr_result r;
        sim_error err = {0};
        int want = ref_reversals(sw, N, b06, a06, 3.0, ref_y);
        double b[3], a[3];
        assert_int_equal(sim_srr_butter2(30, 0.6, b, a, &err), 0);
        assert_int_equal(sim_srr_filtfilt(b, a, raw, ours_y, N, &err), 0);
        for (int i = 0; i < N; i++) near(ours_y[i], ref_y[i], 1e-9, "filtered 0.6 Hz");
        assert_int_equal(sim_srr_compute(raw, N, 30, 0.6, 3.0, &r, &err), 0);
        assert_int_equal((int)r.reversals, want);
        assert_true(want > 10);
        NEAR(r.rate, want / ((N - 1) / 30.0) * 60);

        want = ref_reversals(sw, N, b2, a2, 0.1, ref_y);
        assert_int_equal(sim_srr_compute(raw, N, 30, 2.0, 0.1, &r, &err), 0);
        assert_int_equal((int)r.reversals, want);
        assert_true(want > 10);
    }
}

/* ---- time to line crossing ---- */

/* Straight drift: lane from -1.75 to 1.75 m, car 1.8 m wide, v = 20 m/s, heading
 * asin(0.01) to the left: v_lat = 0.2 m/s, d = 0.2 t. The left wheels reach the mark when
 * d = 1.75 - 0.9 = 0.85, at t = 4.25: TLC(t) = 4.25 - t, both ways. Samples every 0.5 s
 * from 0 to 5: TLC 4.25, 3.75, ..., 0.75, 0.25, then 0 (over the line) at 4.5 and 5.
 * Minimum 0; time below 1 s: the samples at 3.5, 4, 4.5 hold until the next one: 1.5 s;
 * no local minimum (monotone, then 0). */
static void tlc_straight_drift(void **state)
{
    (void)state;
    sim_tlc_sample s[11];
    double tlc[11], tlc1[11];
    for (int i = 0; i < 11; i++)
        s[i] = (sim_tlc_sample){.t = i * 0.5, .d = 0.1 * i, .psi = asin(0.01), .kappa = 0,
                                .v = 20, .left = 1.75, .right = -1.75};
    sim_tlc_params p;
    sim_tlc_params_init(&p);
    sim_tlc_summary sum;
    sim_error err = {0};
    assert_int_equal(sim_tlc_compute(s, 11, &p, tlc, tlc1, &sum, &err), 0);
    for (int i = 0; i < 11; i++) {
        double want = i <= 8 ? 4.25 - i * 0.5 : 0.0;
        near(tlc[i], want, 1e-12, "tlc");
        near(tlc1[i], want, 1e-12, "tlc1");
    }
    NEAR(sum.min, 0);
    NEAR(sum.time_below, 1.5);
    assert_int_equal(sum.n_minima, 0);
    assert_true(isnan(sum.minima_mean));
}

/* On a circle of radius 100 m (kappa 0.01, left) from the lane's centre with heading 0,
 * sideways displacement after arc sigma is R (1 - cos(sigma / R)); it reaches 0.85 m at
 * sigma = 100 acos(1 - 0.0085) = 13.0546... m: TLC = sigma / 20. Turning right gives the
 * same towards the right mark. First order: v_lat = 0, never. A circle 200 m across in a
 * lane 600 m wide never reaches a mark: INFINITY. Heading straight down the lane: never. */
static void tlc_on_a_circle(void **state)
{
    (void)state;
    sim_tlc_params p;
    sim_tlc_params_init(&p);
    sim_tlc_sample s = {.t = 0, .d = 0, .psi = 0, .kappa = 0.01, .v = 20, .left = 1.75,
                        .right = -1.75};
    double want = 100 * acos(1 - 0.0085) / 20;
    NEAR(sim_tlc_circular(&s, &p), want);
    assert_true(isinf(sim_tlc_first_order(&s, &p)));
    s.kappa = -0.01;
    NEAR(sim_tlc_circular(&s, &p), want);
    /* Heading 0.1 rad left while curving right at R 100: the path peaks at
     * R (1 - cos 0.1) = 0.49958 m, below 0.85: it crosses the right mark instead, where
     * cos(0.1 - sigma/R) = cos(0.1) - 0.85/R... solved: sigma = R (0.1 + acos(cos 0.1 -
     * 0.0085)). */
    s.psi = 0.1;
    NEAR(sim_tlc_circular(&s, &p), 100 * (0.1 + acos(cos(0.1) - 0.0085)) / 20);
    NEAR(sim_tlc_first_order(&s, &p), 0.85 / (20 * sin(0.1)));
    s = (sim_tlc_sample){.d = 0, .psi = 0, .kappa = 0.01, .v = 20, .left = 300, .right = -300};
    assert_true(isinf(sim_tlc_circular(&s, &p)));
    s = (sim_tlc_sample){.d = 0, .psi = 0, .kappa = 0, .v = 20, .left = 1.75, .right = -1.75};
    assert_true(isinf(sim_tlc_circular(&s, &p)));
    s.d = NAN;
    assert_true(isnan(sim_tlc_circular(&s, &p)));
}

/* Straight paths at 1 m/s with 0.85 m to the left mark and heading asin(0.85 / T) give
 * TLC = T: the series 5, 3, 2, 2, 4, 1, 3, inf (heading 0) at t = 0..7 has the local
 * minima 2 (a plateau, counted once) and 1: mean 1.5; minimum 1; nothing below 1 s. */
static void tlc_local_minima(void **state)
{
    (void)state;
    double want[] = {5, 3, 2, 2, 4, 1, 3, INFINITY};
    sim_tlc_sample s[8];
    double tlc[8];
    for (int i = 0; i < 8; i++)
        s[i] = (sim_tlc_sample){.t = i, .d = 0, .psi = isinf(want[i]) ? 0 : asin(0.85 / want[i]),
                                .kappa = 0, .v = 1, .left = 1.75, .right = -1.75};
    sim_tlc_params p;
    sim_tlc_params_init(&p);
    sim_tlc_summary sum;
    sim_error err = {0};
    assert_int_equal(sim_tlc_compute(s, 8, &p, tlc, NULL, &sum, &err), 0);
    for (int i = 0; i < 7; i++) NEAR(tlc[i], want[i]);
    assert_true(isinf(tlc[7]));
    assert_int_equal(sum.n_minima, 2);
    NEAR(sum.minima_mean, 1.5);
    NEAR(sum.min, 1);
    NEAR(sum.time_below, 0);
    s[3].t = 1;
    assert_int_equal(sim_tlc_compute(s, 8, &p, tlc, NULL, &sum, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "sample 3"));
}

/* ---- glances ---- */

enum { ROAD = 0, MIRROR = 1, CLUSTER = 2, TRANS = -1, BAD = -2 };

/* Samples every 0.125 s, k-th at t = k / 8; `script` holds runs (area, count); BAD is an
 * invalid sample. */
static size_t gaze_script(sim_gaze_sample *g, const int (*script)[2], size_t runs)
{
    size_t k = 0;
    for (size_t r = 0; r < runs; r++)
        for (int c = 0; c < script[r][1]; c++, k++)
            g[k] = (sim_gaze_sample){.t = k / 8.0, .area = script[r][0] == BAD ? -1 : script[r][0],
                                     .valid = script[r][0] != BAD};
    return k;
}

/* Script (k: samples):  0-7 road | 8 transition | 9-12 mirror | 13-14 transition |
 * 15-30 road | 31-32 invalid (0.25 s, from road to cluster without a valid sample) |
 * 33-56 cluster | 57 invalid (a blink) | 58-60 cluster | 61-63 road.
 * Glances (each from the end of the previous dwell to the end of its own):
 *   road    0     -> 1.0    (k 8 starts)         1.0
 *   mirror  1.0   -> 1.625  (k 13)               0.625 (includes the transition at k 8)
 *   road    1.625 -> 3.875  (k 31)               2.25
 *   cluster 3.875 -> 7.625  (k 61; the blink is bridged, the invalid 0.25 s <= 0.3 s
 *                            before it is its transition)  3.75
 *   road    7.625 -> 7.875  (the last sample)    0.25
 * Off road: 0.625 + 3.75 = 4.375 s, one glance over 2 s (share 0.5), 85th percentile
 * 0.625 + 0.85 * 3.125 = 3.28125 s > 2: the NHTSA check fails. Road: 3 glances, 3.5 s. */
static void glances_by_hand(void **state)
{
    (void)state;
    static const int script[][2] = {{ROAD, 8}, {TRANS, 1}, {MIRROR, 4}, {TRANS, 2}, {ROAD, 16},
                                    {BAD, 2}, {CLUSTER, 24}, {BAD, 1}, {CLUSTER, 3}, {ROAD, 3}};
    sim_gaze_sample g[64];
    size_t n = gaze_script(g, script, sizeof script / sizeof *script);
    assert_int_equal(n, 64);
    sim_glance_params p;
    sim_glance_params_init(&p);
    sim_glance_result r;
    sim_error err = {0};
    assert_int_equal(sim_glance_compute(g, n, 3, &p, &r, &err), 0);
    assert_int_equal(r.n, 5);
    const int areas[] = {ROAD, MIRROR, ROAD, CLUSTER, ROAD};
    const double start[] = {0, 1.0, 1.625, 3.875, 7.625}, end[] = {1.0, 1.625, 3.875, 7.625, 7.875};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(r.glances[i].area, areas[i]);
        NEAR(r.glances[i].t_start, start[i]);
        NEAR(r.glances[i].t_end, end[i]);
    }
    NEAR(r.glances[1].t_dwell, 1.125);
    NEAR(r.glances[3].t_dwell, 4.125);
    assert_int_equal(r.area[ROAD].count, 3);
    NEAR(r.area[ROAD].total, 3.5);
    assert_int_equal(r.area[CLUSTER].count, 1);
    NEAR(r.area[CLUSTER].max, 3.75);
    assert_int_equal(r.off_road_count, 2);
    NEAR(r.eyes_off_road, 4.375);
    assert_int_equal(r.long_glances, 1);
    NEAR(r.long_share, 0.5);
    NEAR(r.off_road_p85, 3.28125);
    NEAR(r.off_road_mean, 2.1875);
    assert_false(r.nhtsa_pass);
    NEAR(r.lost, 0);
    sim_glance_result_free(&r);
}

/* Road k 0-7, invalid k 8-11 (0.5 s > 0.3 s), transition k 12, mirror k 13-15, road
 * k 16-19. The invalid half second is lost (1.0 -> 1.5); the mirror glance starts after it
 * with its transition: 1.5 -> 2.0; road 2.0 -> 2.375. Off road 0.5 s: the NHTSA check
 * passes. */
static void glances_lose_long_invalid_stretch(void **state)
{
    (void)state;
    static const int script[][2] = {{ROAD, 8}, {BAD, 4}, {TRANS, 1}, {MIRROR, 3}, {ROAD, 4}};
    sim_gaze_sample g[20];
    size_t n = gaze_script(g, script, 5);
    sim_glance_params p;
    sim_glance_params_init(&p);
    sim_glance_result r;
    sim_error err = {0};
    assert_int_equal(sim_glance_compute(g, n, 3, &p, &r, &err), 0);
    assert_int_equal(r.n, 3);
    NEAR(r.lost, 0.5);
    NEAR(r.glances[1].t_start, 1.5);
    NEAR(r.glances[1].duration, 0.5);
    NEAR(r.glances[2].duration, 0.375);
    NEAR(r.eyes_off_road, 0.5);
    assert_true(r.nhtsa_pass);
    sim_glance_result_free(&r);

    g[3].t = 0;
    assert_int_equal(sim_glance_compute(g, n, 3, &p, &r, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "sample 3"));
}

/* Areas as direction rectangles: the road ahead within +-15 deg yaw and pitch, the left
 * mirror at yaw 35..55 deg; the first area holding a direction wins. */
static void glance_areas_from_directions(void **state)
{
    (void)state;
    sim_glance_aoi aoi[2] = {{"road", -15, 15, -15, 15}, {"mirror_left", 35, 55, -10, 5}};
    assert_int_equal(sim_glance_aoi_find(aoi, 2, 0, 0), 0);
    assert_int_equal(sim_glance_aoi_find(aoi, 2, 40, 0), 1);
    assert_int_equal(sim_glance_aoi_find(aoi, 2, 25, 0), -1);
    assert_int_equal(sim_glance_aoi_find(aoi, 2, 40, 10), -1);
}

/* ---- SuRT ---- */

/* Responses (t, correct, rt): (2, yes, 2), (3.5, no, 1.5), (4.5, yes, 1), (6, yes, 1.5):
 * 4 responses, 3 correct (0.75), mean and median time per response 1.5 s; from the first
 * display (2 - 2 = 0) to the last response (6): 4 in 6 s, 40 per minute. */
static void surt_by_hand(void **state)
{
    (void)state;
    sim_surt_response r[] = {{2, true, 2}, {3.5, false, 1.5}, {4.5, true, 1}, {6, true, 1.5}};
    sim_surt_summary s;
    sim_surt_compute(r, 4, &s);
    assert_int_equal(s.responses, 4);
    assert_int_equal(s.correct, 3);
    NEAR(s.correct_rate, 0.75);
    NEAR(s.rt_mean, 1.5);
    NEAR(s.rt_median, 1.5);
    NEAR(s.rate, 40);
    sim_surt_compute(NULL, 0, &s);
    assert_true(isnan(s.correct_rate) && isnan(s.rt_mean));
}


/* ---- LCT adaptive model ---- */

/* A track from s = 0 to 500 m: lane d = 0, a change to d = 3.85 whose normative ramp is
 * [100, 120], back to 0 over [300, 320]. The baseline driver changes 10 m later and over
 * 30 m: f(x) = (x - 10)/30 on [10, 40] of the way (x from the ramp's start), and keeps
 * lanes exactly. Samples every 0.5 m (all break points on the grid: exact).
 * Normative MDEV: per change W * integral of (f_n - f_d) over [0, 40], with f_n = x/20:
 *   [0,10] x/20 -> 2.5; [10,20] (x+20)/60 -> 35/6; [20,40] (40-x)/30 -> 20/3; sum 15,
 * so MDEV = 2 * 3.85 * 15 / 500 = 0.231 m. The profile is f at x = -20..80, the
 * lane offset 0; the adaptive path of that profile is the driver's own: MDEV 0. With
 * the driver 0.2 m left throughout, the offset is 0.2 and MDEV against the adaptive
 * path 0 again. */
static double lct_driver(double s, double offset)
{
    double f1 = fmin(fmax((s - 110) / 30, 0), 1), f2 = fmin(fmax((s - 310) / 30, 0), 1);
    return 3.85 * (f1 - f2) + offset;
}

static void lct_adaptive_model_by_hand(void **state)
{
    (void)state;
    enum { N = 1001 };
    static double t[N], sv[N], d[N];
    const sim_metrics_point ideal[] = {{0, 0}, {100, 0}, {120, 3.85}, {300, 3.85}, {320, 0}, {500, 0}};
    for (int off = 0; off < 2; off++) {
        for (int i = 0; i < N; i++) sv[i] = i * 0.5, t[i] = i * 0.05, d[i] = lct_driver(sv[i], off ? 0.2 : 0);
        sim_lct_profile pr;
        sim_error err = {0};
        assert_int_equal(sim_lct_profile_make(sv, d, N, ideal, 6, &pr, &err), 0);
        assert_int_equal(pr.n_changes, 2);
        NEAR(pr.lane_offset, off ? 0.2 : 0);
        for (int j = 0; j < SIM_LCT_PROFILE_N; j++) {
            double x = pr.x0 + j * pr.dx;
            near(pr.shape[j], fmin(fmax((x - 10) / 30, 0), 1), 1e-12, "shape");
        }
        sim_metrics_point *ad;
        size_t na;
        assert_int_equal(sim_lct_adaptive_path(&pr, ideal, 6, &ad, &na, &err), 0);
        sim_metrics_samples smp = {.n = N, .t = t, .s = sv, .d = d};
        sim_metrics_task task;
        sim_metrics_task_init(&task);
        task.s_start = 0, task.s_end = 500;
        task.ideal = ad, task.n_ideal = na;
        sim_metrics_result r;
        assert_int_equal(sim_metrics_compute(&smp, &task, &r, &err), 0);
        near(r.mdev, 0, 1e-9, "adaptive mdev");
        sim_metrics_result_free(&r);
        free(ad);
        if (off) continue;
        task.ideal = ideal, task.n_ideal = 6;
        assert_int_equal(sim_metrics_compute(&smp, &task, &r, &err), 0);
        NEAR(r.mdev, 2 * 3.85 * 15 / 500);
        sim_metrics_result_free(&r);
    }
    /* A drive that covers no whole change */
    sim_lct_profile pr;
    sim_error err = {0};
    assert_int_equal(sim_lct_profile_make(sv, d, 150, ideal, 6, &pr, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "no lane change"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(percentiles),
        cmocka_unit_test(drt_hits_misses_early),
        cmocka_unit_test(drt_early_then_hit_and_late),
        cmocka_unit_test(drt_rejects_bad_input),
        cmocka_unit_test(srr_butterworth_matches_published),
        cmocka_unit_test(srr_sine_by_hand),
        cmocka_unit_test(srr_agrees_with_published_algorithm),
        cmocka_unit_test(tlc_straight_drift),
        cmocka_unit_test(tlc_on_a_circle),
        cmocka_unit_test(tlc_local_minima),
        cmocka_unit_test(glances_by_hand),
        cmocka_unit_test(glances_lose_long_invalid_stretch),
        cmocka_unit_test(glance_areas_from_directions),
        cmocka_unit_test(surt_by_hand),
        cmocka_unit_test(sensor_stats_by_hand),
        cmocka_unit_test(lct_adaptive_model_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
