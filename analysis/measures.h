/* measures.h: the secondary-task measures of one task in the analysis (measures.c):
 * what the drive's drt, gaze and surt events become once parsed (an_streams, once per
 * drive) and what each task gets from them and from its samples (an_measures): DRT,
 * steering reversal rate, TLC, glances, SuRT (common/metrics/sim_measures.h).
 * Included by analysis.h; the functions are declared there. */
#ifndef ANALYSIS_MEASURES_H
#define ANALYSIS_MEASURES_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_measures.h"

typedef struct an_drt_stim {
    int run, id, modality;
    double t, t_off;            /* onset and end (NAN: no end logged), s */
    double angle_deg;
} an_drt_stim;

typedef struct an_gaze {
    int run, area;              /* area: index into an_streams.areas, -1 none */
    double t;
    bool valid;
} an_gaze;

typedef struct an_surt {
    int run;
    double t, rt;               /* s */
    bool correct;
} an_surt;

typedef struct an_stamp {
    int run;
    double t;
} an_stamp;

typedef struct an_streams {
    an_drt_stim *stim;          /* ordered by (run, t), as the log's events */
    size_t n_stim;
    an_stamp *resp;
    size_t n_resp;
    an_gaze *gaze;
    size_t n_gaze;
    an_surt *surt;
    size_t n_surt;
    sim_glance_aoi areas[SIM_GLANCE_AOI_MAX]; /* the defaults, then names the samples add */
    size_t n_areas;
    size_t n_defined;  /* of which areas with directions (the vehicle file's, or the defaults) */
    int road_area;     /* the area named "road": glances elsewhere are off road */
    size_t bad;                 /* events that did not decode (first one warned about) */
} an_streams;

/* SRR parameter pairs of Markkula & Engstrom (2006): visual and cognitive load. */
enum { AN_SRR_VISUAL, AN_SRR_COGNITIVE, AN_SRR_N };

typedef struct an_measures {
    bool has_drt, has_gaze, has_surt;
    sim_drt_result drt;         /* per stimulus of the task (owned) */
    size_t drt_first;           /* index of its first stimulus in an_streams.stim */
    sim_srr_result srr[AN_SRR_N];
    bool has_srr;
    sim_tlc_summary tlc;
    bool has_tlc;
    double *tlc_v;              /* per sample of the task (i1 - i0), owned; NAN: unknown */
    sim_glance_result glance;   /* owned */
    sim_surt_summary surt;
    /* Lane Change Test (lct.c): one entry per change of the ideal path */
    struct an_lct_segment *lct;  /* owned */
    size_t n_lct;
    double mdev_adaptive;        /* m over the task, NAN without a baseline */
} an_measures;

typedef struct an_lct_segment {
    double s_start, s_end;       /* from the change's start to the next one's (m) */
    double d_from, d_to;         /* the normative lanes (m) */
    double mdev_normative, mdev_adaptive; /* m (adaptive NAN without a baseline) */
} an_lct_segment;

#endif
