/* sim_measures: the distraction literature's standard measures of one task (issue 25).
 *
 * Pure computation over arrays (no I/O, no globals), one file per measure:
 *   sim_metrics_drt.c     Detection Response Task (ISO 17488): hits, misses, early
 *                         responses, response times, per modality
 *   sim_metrics_srr.c     steering wheel reversal rate (Markkula & Engstrom 2006, SAE
 *                         J2944): zero-phase 2nd-order Butterworth, stationary points, gap
 *   sim_metrics_tlc.c     time to line crossing along the current circular path, and the
 *                         first-order d / v_lat beside it
 *   sim_metrics_glance.c  glances (ISO 15007): areas of interest, glance durations with
 *                         their transitions, eyes-off-road time, the NHTSA check
 *   sim_metrics_surt.c    Surrogate Reference Task responses (ISO/TS 14198)
 *   sim_metrics_sensor.c  a lab sensor channel's count, mean, SD, min, max in a time window
 *   sim_metrics_stats.c   mean, median, percentiles shared by the above
 * Exact definitions with sources: docs/metrics.md, section "Secondary-task measures".
 *
 * Ownership: input arrays belong to the caller and are only read. Results that hold
 * arrays say so and have a *_free function. */
#ifndef SIM_MEASURES_H
#define SIM_MEASURES_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"

/* ---- small statistics (sim_metrics_stats.c) ---- */

/* Mean of the finite values of v (NAN when none). */
double sim_stats_mean(const double *v, size_t n);
/* p-th percentile (0..100) of the finite values, linear interpolation between closest
 * ranks on (n-1) (numpy's default, Excel's PERCENTILE.INC); NAN when none. p = 50 is the
 * median. Sorts a copy; returns NAN when the copy cannot be allocated. */
double sim_stats_percentile(const double *v, size_t n, double p);

/* ---- DRT (sim_metrics_drt.c) ---- */

enum { SIM_DRT_VISUAL = 0, SIM_DRT_TACTILE = 1, SIM_DRT_AUDITORY = 2, SIM_DRT_NMODALITIES };
/* "visual", "tactile", "auditory"; NULL for anything else. */
const char *sim_drt_modality_name(int modality);
/* The modality named name, -1 when none. */
int sim_drt_modality_parse(const char *name);

typedef struct sim_drt_stimulus {
    double t;        /* onset, s */
    int modality;    /* SIM_DRT_* */
} sim_drt_stimulus;

/* The outcome of one stimulus. */
enum { SIM_DRT_HIT = 0, SIM_DRT_MISS = 1 };

typedef struct sim_drt_params {
    double rt_min;   /* s: a response sooner than this after onset is early (0.1) */
    double rt_max;   /* s: a response later than this is no hit (2.5) */
} sim_drt_params;

typedef struct sim_drt_summary {
    size_t stimuli, hits, misses, early, extra;
    double hit_rate;                 /* hits / stimuli, NAN when none */
    double rt_mean, rt_median;       /* of hits, s, NAN when none */
} sim_drt_summary;

typedef struct sim_drt_result {
    sim_drt_summary all;
    sim_drt_summary by_modality[SIM_DRT_NMODALITIES];
    /* Per stimulus, in the order given (owned, n_stimuli long): outcome and RT (s, NAN
     * for a miss). */
    int *outcome;
    double *rt;
    size_t n;
} sim_drt_result;

void sim_drt_params_init(sim_drt_params *p);
/* Matches responses (times, s, ascending) to stimuli (onsets ascending). res is
 * overwritten and owns its arrays on success. SIM_EINVAL names the unsorted or invalid
 * entry; SIM_ENOMEM. */
int sim_drt_compute(const sim_drt_stimulus *stim, size_t n_stim, const double *responses,
                    size_t n_resp, const sim_drt_params *p, sim_drt_result *res,
                    sim_error *err);
void sim_drt_result_free(sim_drt_result *res);

/* ---- steering wheel reversal rate (sim_metrics_srr.c) ---- */

/* 2nd-order Butterworth low-pass for sample rate fs and cut-off fc (Hz), by the bilinear
 * transform with pre-warping (MATLAB's butter(2, fc/(fs/2))): b[3], a[3] with a[0] = 1.
 * SIM_EINVAL unless 0 < fc < fs/2. */
int sim_srr_butter2(double fs, double fc, double b[3], double a[3], sim_error *err);

/* Zero-phase filtering as MATLAB's filtfilt: odd reflection of 6 samples at each end,
 * initial states at the steady state of the first padded sample, forwards then
 * backwards. out may equal in. SIM_ENOMEM; n < 7 is filtered without padding. */
int sim_srr_filtfilt(const double b[3], const double a[3], const double *in, double *out,
                     size_t n, sim_error *err);

typedef struct sim_srr_result {
    size_t reversals;     /* upward plus downward */
    size_t up, down;
    double duration;      /* (n - 1) / fs, s */
    double rate;          /* reversals per minute, NAN when duration is 0 */
} sim_srr_result;

/* The reversal rate of steering-wheel angles theta (degrees) sampled at fs Hz, filtered
 * at fc Hz (fc <= 0: no filter), gap in degrees. NAN samples are not allowed (SIM_EINVAL
 * naming the index): callers cut the signal at gaps. */
int sim_srr_compute(const double *theta_deg, size_t n, double fs, double fc, double gap_deg,
                    sim_srr_result *res, sim_error *err);

/* ---- time to line crossing (sim_metrics_tlc.c) ---- */

/* One sample in the road frame: the car's centre at lateral position d (left +), its
 * heading psi relative to the road direction (rad, left +) and path curvature kappa
 * relative to the road's (1/m, left +), speed v (m/s), and the lane's boundaries
 * (d of the left and right marks). */
typedef struct sim_tlc_sample {
    double t, d, psi, kappa, v, left, right;
} sim_tlc_sample;

typedef struct sim_tlc_params {
    double width;        /* the car's track between the outer wheel edges, m (1.8) */
    double horizon;      /* s: longer TLCs are reported as INFINITY (20) */
    double threshold;    /* s: time with TLC under it is reported (1) */
} sim_tlc_params;

void sim_tlc_params_init(sim_tlc_params *p);
/* TLC of one sample along the circular path (INFINITY: no crossing within the horizon,
 * 0: a wheel is on or over a boundary); NAN when an input is NAN. */
double sim_tlc_circular(const sim_tlc_sample *s, const sim_tlc_params *p);
/* First-order TLC: distance to the boundary the car drifts towards / v sin(psi). */
double sim_tlc_first_order(const sim_tlc_sample *s, const sim_tlc_params *p);

typedef struct sim_tlc_summary {
    double min;             /* s, NAN when no sample had a finite TLC */
    double min_first_order; /* s */
    double time_below;      /* s with TLC < threshold (each sample holds to the next) */
    double minima_mean;     /* mean of the local minima (finite, > 0), s */
    size_t n_minima;
} sim_tlc_summary;

/* tlc and tlc1 (may be NULL) receive the per-sample values, n long. */
int sim_tlc_compute(const sim_tlc_sample *s, size_t n, const sim_tlc_params *p, double *tlc,
                    double *tlc1, sim_tlc_summary *sum, sim_error *err);

/* ---- glances (sim_metrics_glance.c) ---- */

#define SIM_GLANCE_AOI_MAX 16
#define SIM_GLANCE_NAME_MAX 32

/* An area of interest as a rectangle of gaze directions in the vehicle frame: yaw left
 * positive, pitch up positive, degrees. */
typedef struct sim_glance_aoi {
    char name[SIM_GLANCE_NAME_MAX];
    double yaw_min, yaw_max, pitch_min, pitch_max;
} sim_glance_aoi;

/* The area holding a direction: the first that contains it, -1 when none. */
int sim_glance_aoi_find(const sim_glance_aoi *aoi, size_t n, double yaw, double pitch);

/* A gaze sample: area index (-1: in no area, i.e. a transition) and validity. */
typedef struct sim_gaze_sample {
    double t;
    int area;
    bool valid;
} sim_gaze_sample;

typedef struct sim_glance {
    int area;
    double t_start;   /* start of the transition towards the area, s */
    double t_dwell;   /* first sample in the area, s */
    double t_end;     /* start of the transition away (the next glance's t_start), s */
    double duration;  /* t_end - t_start, s */
} sim_glance;

typedef struct sim_glance_params {
    int road_area;        /* index of the road-ahead area; glances elsewhere are off road */
    double max_gap;       /* s: invalid stretches up to this inside one area are bridged */
    double long_glance;   /* s (2) */
    double nhtsa_p85;     /* s: 85th percentile bound (2) */
    double nhtsa_total;   /* s: eyes-off-road bound per task (12) */
} sim_glance_params;

typedef struct sim_glance_area_summary {
    size_t count;
    double total, mean, max;  /* s */
} sim_glance_area_summary;

typedef struct sim_glance_result {
    sim_glance *glances;  /* owned, in time order */
    size_t n;
    sim_glance_area_summary area[SIM_GLANCE_AOI_MAX];
    size_t n_areas;
    size_t off_road_count;
    double eyes_off_road;    /* s: total of off-road glances */
    size_t long_glances;     /* off-road glances longer than long_glance */
    double off_road_p85;     /* s, NAN when none */
    double off_road_mean;    /* s, NAN when none */
    double long_share;       /* share of off-road glances > long_glance, NAN when none */
    bool nhtsa_pass;         /* p85 <= bound and total <= bound (no off-road glance: true) */
    double lost;             /* s of invalid data assigned to no glance */
} sim_glance_result;

void sim_glance_params_init(sim_glance_params *p);
/* Glances of samples (t ascending) over n_areas areas. Samples may be NULL when n is 0.
 * res owns its glances on success. SIM_EINVAL names the bad sample; SIM_ENOMEM. */
int sim_glance_compute(const sim_gaze_sample *smp, size_t n, size_t n_areas,
                       const sim_glance_params *p, sim_glance_result *res, sim_error *err);
void sim_glance_result_free(sim_glance_result *res);

/* ---- SuRT (sim_metrics_surt.c) ---- */

typedef struct sim_surt_response {
    double t;        /* s */
    bool correct;
    double rt;       /* s from the trial's display to this response */
} sim_surt_response;

typedef struct sim_surt_summary {
    size_t responses, correct;
    double correct_rate;       /* NAN when none */
    double rt_mean, rt_median; /* s per response, NAN when none */
    double rate;               /* responses per minute over [first display, last response] */
} sim_surt_summary;

void sim_surt_compute(const sim_surt_response *r, size_t n, sim_surt_summary *sum);

/* ---- lab sensor channels per task (sim_metrics_sensor.c) ---- */

/* One value of a sensor channel at simulation time t (s). */
typedef struct sim_sensor_value {
    double t, value;
} sim_sensor_value;

typedef struct sim_sensor_stats {
    size_t count;            /* finite values inside the window */
    double mean, sd;         /* sd: sample SD (n - 1); NAN when count < 2 (mean: < 1) */
    double min, max;         /* NAN when count is 0 */
} sim_sensor_stats;

/* Count, mean, SD, min and max of the finite values whose t lies in [t0, t1] (both
 * ends included, as a task's span; -INFINITY..INFINITY: all). v may be in any order and
 * NULL when n is 0. */
void sim_sensor_stats_window(const sim_sensor_value *v, size_t n, double t0, double t1,
                             sim_sensor_stats *out);

/* ---- Lane Change Test: the adaptive reference model (sim_metrics_lct.c) ---- */

#include "sim_metrics.h"

#define SIM_LCT_PROFILE_N 101 /* x = -20 .. +80 m in 1 m steps from a change's start */

/* A participant's own lane change (ISO 26022, adaptive model), from a baseline drive:
 * the mean fraction of the way from the old lane's centre to the new one at each x
 * metres after the normative model's change start, and the mean offset from the lane
 * centre while keeping a lane. */
typedef struct sim_lct_profile {
    double x0, dx;
    double shape[SIM_LCT_PROFILE_N];
    size_t n_changes;          /* lane changes averaged */
    double lane_offset;        /* m, left positive */
} sim_lct_profile;

/* The profile of a baseline drive (samples s ascending by their running maximum, d)
 * against its track's normative ideal path (its ramps are the changes). SIM_EINVAL when
 * the drive covers no complete change. */
int sim_lct_profile_make(const double *s, const double *d, size_t n, const sim_metrics_point *ideal,
                         size_t n_ideal, sim_lct_profile *out, sim_error *err);
/* The adaptive model's reference path for a track's normative ideal path: lanes kept at
 * their centre plus the offset, each change following the profile. *out (owned by the
 * caller, free()) gets *n_out points. SIM_ENOMEM. */
int sim_lct_adaptive_path(const sim_lct_profile *pr, const sim_metrics_point *ideal, size_t n_ideal,
                          sim_metrics_point **out, size_t *n_out, sim_error *err);

#endif
