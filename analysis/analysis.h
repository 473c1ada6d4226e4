/* analysis: internal interfaces of the offline analysis tool (bin/analysis).
 *
 *   drive.c     a drive in memory (columns, events, meta) and its readers
 *   scenario.c  what analysis needs of a scenario: tasks, ideal paths, lane marks, limits
 *   compute.c   one drive + scenario -> per-task sim_metrics results and diagnostics
 *   plot*.c     cairo figures (PNG and SVG): plot_canvas.c the drawing layer (plot.h),
 *               plot.c lateral position and timeline, plot_map.c map, box plots, definitions
 *   report.c    metrics.json, tasks.csv, events.csv, report.html of one drive
 *   tor.c       take-over requests: tor.csv, tor.json, a figure around each TOR
 *   batch.c     every drive under a folder, in parallel: study.csv and a study page
 *
 * Ownership: every struct here owns the arrays and strings it points to and is released
 * by its *_free function. */
#ifndef ANALYSIS_H
#define ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sim_drivelog.h"
#include "sim_error.h"
#include "sim_metrics.h"
#include "measures.h"

/* ---- drive ---- */

/* Sample columns: the drive log's numeric columns in table order (its list,
 * SIM_DRIVELOG_SAMPLE_COLUMNS, makes them: AN_RUN, AN_TICK, AN_T, AN_SPEED, ...), named
 * as in the samples table and its CSV export. The id columns are an_drive.ids. */
#define AN_COLUMN_(name, NAME, type) AN_##NAME,
#define AN_COLUMN_I64 AN_COLUMN_
#define AN_COLUMN_F64 AN_COLUMN_
#define AN_COLUMN_REAL AN_COLUMN_
#define AN_COLUMN_INT AN_COLUMN_
#define AN_COLUMN_ID(name, NAME, type)
#define AN_COLUMN(name, NAME, type) AN_COLUMN_##type(name, NAME, type)
enum { SIM_DRIVELOG_SAMPLE_COLUMNS(AN_COLUMN) AN_NCOL };
extern const char *const an_column_names[AN_NCOL];

typedef struct an_event {
    int run;
    double t;
    char *kind, *name, *json; /* json may be NULL */
} an_event;

/* Text columns of the samples (ids), stored as indices into an_drive.labels. */
enum { AN_ID_TASK, AN_ID_ROAD, AN_NIDS };
extern const char *const an_id_names[AN_NIDS];

/* A lab sensor channel of the drive log's sensor table (sensor.<name> messages,
 * docs/instruments.md) and its values, ordered by (run, t). */
typedef struct an_sensor_channel {
    char sensor[SIM_DRIVELOG_ID_MAX], channel[SIM_DRIVELOG_ID_MAX];
    char unit[32];                 /* "" when none was given */
    int *run;                      /* n long */
    sim_sensor_value *v;           /* n long */
    size_t n, cap;
} an_sensor_channel;

/* One render.latency window of the drive log (docs/latency.md). */
typedef struct an_latency_row {
    int run;
    double t;
    int frames;
    double median_ms, p95_ms, max_ms;
    double stage_ms[7];          /* device, input, step, physics, wait, draw, swap */
} an_latency_row;

/* The drive's wheel-to-picture figures: frames, the frame-weighted median of the
 * windows' medians and the frame-weighted 95th percentile of their p95s, and each
 * stage's frame-weighted median; NAN without rows. */
typedef struct an_latency_summary {
    long frames;
    size_t windows;
    double median_ms, p95_ms, max_ms;
    double stage_ms[7];
} an_latency_summary;

typedef struct an_drive {
    char *path;             /* the file or folder it was read from */
    size_t n;               /* samples */
    /* Each n long; a column the file lacks is all NAN. A drive log is read with only the
     * columns the analysis uses (an_drive_load_log); the others are NULL. */
    double *col[AN_NCOL];
    /* Each n long, or NULL when the log has no such column (a version-1 log has no road,
     * a CSV file may have neither): index into labels, -1 where the sample has none. */
    int *ids[AN_NIDS];
    char **labels;          /* distinct id strings of every id column */
    size_t n_labels;
    an_event *events;
    size_t n_events;
    char **meta_key, **meta_val;
    size_t n_meta;
    an_sensor_channel *sensors;  /* the log's sensor channels (sensors.c); none for CSV */
    size_t n_sensors;
    an_latency_row *latency;     /* the log's latency rows (latency.c); none for CSV */
    size_t n_latency;
    struct an_motion *motion;    /* the log's motion rows and their fidelity (motion.c); NULL: none */
    struct an_motion_result *motion_fid;
} an_drive;

/* Reads a drive: a drive log (SQLite, through sim_drivelog), or a folder or samples.csv
 * path of its CSV export (samples.csv, events.csv, optional meta.csv with key,value).
 * Samples are sorted by (run, tick or t). */
int an_drive_load(const char *path, an_drive *out, sim_error *err);
void an_drive_free(an_drive *dr);
/* Reads a drive log (SQLite) through sim_drivelog (logread.c). */
int an_drive_load_log(const char *path, an_drive *out, sim_error *err);
/* The drive's meta value of key (a log's meta table, or a CSV export's meta.csv) without
 * loading its samples; "" when it has none. For batch's per-subject LCT baselines. */
int an_drive_meta_only(const char *path, const char *key, char *buf, size_t size, sim_error *err);
/* Writes dr as a drive log (SQLite) at path, replacing a file there. */
int an_drive_write_log(const an_drive *dr, const char *path, sim_error *err);
const char *an_drive_meta(const an_drive *dr, const char *key); /* NULL: missing */

/* Writes dr as the CSV export (samples.csv, events.csv, meta.csv) into dir. */
int an_drive_write_csv(const an_drive *dr, const char *dir, sim_error *err);

/* Allocates n samples, all columns NAN, no events or meta. */
int an_drive_alloc(an_drive *dr, size_t n, sim_error *err);
int an_drive_add_event(an_drive *dr, int run, double t, const char *kind, const char *name,
                       const char *json, sim_error *err);
int an_drive_set_meta(an_drive *dr, const char *key, const char *val, sim_error *err);
/* Gives dr the id column (all -1) when it has none yet. */
int an_drive_add_ids(an_drive *dr, int which, sim_error *err);
/* Sets sample i of id column which (that exists) to text ("" or NULL: none); the string
 * is interned in labels. */
int an_drive_set_id(an_drive *dr, int which, size_t i, const char *text, sim_error *err);
/* Index of text in labels, -1 when no sample carries it. */
int an_drive_label(const an_drive *dr, const char *text);

/* ---- scenario ---- */

#include "sim_scenario.h"
#include "sim_csv.h"

/* A task as the metrics need it. */
typedef struct an_task {
    const char *id;              /* belongs to the scenario */
    int road;                    /* road index in the world model */
    double s_start, s_end;       /* m */
    double tube_half_width;      /* m */
    sim_metrics_point *ideal;    /* ideal path (owned) */
    size_t n_ideal;
    bool reactions;              /* triggers in the task: stimuli get reaction times */
} an_task;

/* What the analyst chooses rather than the scenario (command-line options). */
typedef struct an_params {
    double vehicle_width;        /* m, for lane-mark events (--vehicle-width, 1.8) */
    double speed_margin;         /* m/s over the limit for time_over_limit_margin_s
                                    (--speed-margin-kmh, 3 km/h) */
    const char *lct_baseline;    /* the participant's baseline drive for the Lane Change
                                    Test's adaptive model (--lct-baseline; NULL: none) */
    const char *xosc_params;     /* OpenSCENARIO overrides the drive ran with (the log's
                                    meta xosc_params; NULL: none): the ego's start, so the
                                    task's, follows them */
} an_params;

an_params an_params_default(void);

/* The world model's scenario (sim_scenario_load) and its tasks in metric form. */
typedef struct an_scenario {
    sim_scenario *world;         /* owned */
    const char *name;            /* belongs to world */
    double vehicle_width;        /* m (the scenario does not say; --vehicle-width) */
    double speed_margin;         /* m/s (an_params) */
    an_task *tasks;
    size_t n_tasks;
    sim_lct_profile *lct_profile; /* from --lct-baseline (lct.c); NULL: none. Owned. */
} an_scenario;

/* Loads and validates the scenario through the world model; err holds the first of
 * its messages (file, JSON path, found, expected) and how many there were. */
int an_scenario_load(const char *path, const an_params *p, an_scenario *out, sim_error *err);
void an_scenario_free(an_scenario *sc);
/* The marks bounding the lane of road that holds d at s (NAN where that border has none). */
void an_scenario_marks(const an_scenario *sc, int road, double s, double d, double *left, double *right);
/* Speed limit on road at s, m/s (NAN: none). */
double an_scenario_limit(const an_scenario *sc, int road, double s);
/* Whether road's lane layout changes along it (more than one lane section). */
bool an_scenario_multi_section(const an_scenario *sc, int road);
/* The marked lane borders of a road at s, d ascending (up to max); solid[k] false: dashed. */
size_t an_scenario_borders(const an_scenario *sc, int road, double s, double *d, bool *solid, size_t max);

/* ---- computation ---- */

typedef struct an_task_result {
    const an_task *task;
    int run;
    size_t i0, i1;               /* sample range [i0, i1) given to sim_metrics */
    int status;                  /* 0 ok, else a SIM_E* code (see message) */
    bool suspect;                /* computed, but the log has a crash, gap or stall
                                    inside the task (message says which) */
    bool computed;               /* m holds metrics (false: the task has no samples) */
    char message[640];           /* what is wrong ("" when nothing) */
    double *mark_left, *mark_right; /* marks of the ideal lane at samples i0..i1-1 */
    double *limit;               /* speed limit at samples i0..i1-1, m/s (NAN: none) */
    size_t collisions;           /* collision events of the run inside the task's time span */
    sim_metrics_result m;
    an_measures x;               /* the secondary-task measures (measures.c) */
} an_task_result;

typedef struct an_result {
    const an_drive *drive;
    const an_scenario *scenario;
    char study[64], subject[64], scenario_name[64];
    char **warnings;             /* drive-level problems (gaps, missing columns) */
    size_t n_warnings;
    an_task_result *tasks;       /* one per (run, task) */
    size_t n_tasks;
    an_streams streams;          /* the drive's drt, gaze and surt events (measures.c) */
} an_result;

/* Computes every task of every run. Problems with a task are recorded in it and in the
 * warnings; only failures to allocate return an error. */
int an_compute(const an_drive *dr, const an_scenario *sc, an_result *out, sim_error *err);
void an_result_free(an_result *res);
int an_result_warn(an_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "ok", "warning" (computed, but suspect) or the error's name: the status column of
 * tasks.csv, metrics.json, the report and study.csv. */
const char *an_task_status(const an_task_result *tr);

/* ---- Lane Change Test (lct.c) ---- */

/* The adaptive model's profile from the baseline drive at path (its scenario: the
 * override when not NULL, as for the drive itself, else its meta's) into sc->lct_profile. */
int an_lct_baseline(const char *path, const char *scenario, const an_params *p, an_scenario *sc, sim_error *err);
/* MDEV per lane change of a task whose ideal path changes lanes, against the normative
 * path and (with a profile) the adaptive one; fills tr->x's LCT part. */
int an_lct_task(const an_result *res, const an_scenario *sc, an_task_result *tr);
/* The report's Lane Change Test paragraph and per-change table of a task (nothing for a
 * task whose ideal path keeps its lane). */
void an_lct_html(FILE *f, const an_result *res, const an_task_result *tr);
/* A number with dec decimals in HTML, a dash when not finite (report.c). */
void an_html_num(FILE *f, double v, int dec);
/* Finds the scenario of a drive: override, or its meta's scenario_file as given, next
 * to the log or under scenarios/ (report.c). */
int an_find_scenario(const an_drive *dr, const char *override, char *out, size_t n, sim_error *err);

/* ---- wheel to picture (latency.c; docs/latency.md) ---- */

/* Reads the drive log's latency rows into dr->latency (none without the table). */
int an_latency_load(an_drive *dr, sim_drivelog_reader *rd, sim_error *err);
/* Pure: the summary of n rows. */
void an_latency_summarise(const an_latency_row *rows, size_t n, an_latency_summary *out);
/* "wheel to picture: median X ms, p95 Y ms" (NULL-free; "no figure" without rows). */
void an_latency_line(const an_latency_summary *s, char *buf, size_t size);
/* The report's panel: the line and the stage split (nothing without rows). */
void an_latency_html(FILE *f, const an_drive *dr);

/* ---- lab sensor channels (sensors.c) ---- */

/* Reads the drive log's sensor rows into dr->sensors (a log without the table has none). */
int an_sensors_load(an_drive *dr, sim_drivelog_reader *rd, sim_error *err);
void an_sensors_free(an_drive *dr);
/* The channel's values of run inside [t0, t1] summarised; run < 0: every run. */
void an_sensor_stats(const an_sensor_channel *c, int run, double t0, double t1, sim_sensor_stats *out);
/* metrics.json's "sensors" object of a task (tr) or of the whole drive (tr NULL): one
 * entry per channel named "<sensor>.<channel>"; NULL when the drive has no channel. */
struct cJSON *an_sensors_json(const an_result *res, const an_task_result *tr);
/* sensors.csv: one row per channel for the drive, then per task and channel. */
int an_sensors_write_csv(const an_result *res, const char *path, sim_error *err);

/* ---- secondary-task measures (measures.c) ---- */

/* Parses the drive's drt, gaze and surt events into res->streams (bad ones are counted
 * and warned about once). */
int an_streams_read(an_result *res, const an_drive *dr);
void an_streams_free(an_streams *st);
/* Fills tr->x from the task's samples [i0, i1) and the streams of its run and span. */
int an_measures_compute(const an_result *res, const an_scenario *sc, an_task_result *tr);
void an_measures_free(an_measures *x);
/* The measures' columns of tasks.csv / study.csv (after an_metric's own). */
size_t an_measures_count(void);
const char *an_measures_name(size_t k);
double an_measures_value(const an_task_result *tr, size_t k);
/* The details metrics.json holds beside the columns (a new cJSON object; NULL: no memory). */
struct cJSON *an_measures_json(const an_result *res, const an_task_result *tr);

/* ---- outputs ---- */

/* Names of the per-task metrics, in the order of tasks.csv and study.csv. */
size_t an_metric_count(void);
const char *an_metric_name(size_t k);
double an_metric_value(const an_task_result *tr, size_t k);

/* Writes the CSV header (prefix columns given) or one row of the task metrics. */

/* Seconds spent in each phase of a report (for --timing and the benchmark). */
typedef struct an_timing {
    double load, compute, tables, figures, html;
} an_timing;

double an_now(void); /* monotonic clock, s */

/* tm may be NULL; when given, its tables, figures and html are filled. */
/* The style sheet shared by report.html and study.html (inline: pages work offline). */
extern const char an_html_style[];

int an_report_write(const an_result *res, const char *dir, bool plots, an_timing *tm,
                    sim_error *err);

/* The take-over requests of the drive (tor.c): tor.csv, tor.json and a figure around
 * each (with plots) into dir; nothing when the drive has none. */
int an_tor_write(const an_result *res, const char *dir, bool plots, sim_error *err);
/* Their section of report.html. */
void an_tor_html(FILE *f, const an_result *res, bool plots);

/* ---- plots ---- */

typedef enum { AN_PNG, AN_SVG } an_format;

/* The figure of DRT stimuli and responses, glance strips per area and TLC over time. */
int an_plot_tasks(const an_result *res, const an_task_result *tr, const char *path,
                  an_format fmt, sim_error *err);
bool an_plot_tasks_wanted(const an_result *res, const an_task_result *tr);

int an_plot_lateral(const an_result *res, const an_task_result *tr, const char *path,
                    an_format fmt, sim_error *err);
int an_plot_timeline(const an_result *res, const an_task_result *tr, const char *path,
                     an_format fmt, sim_error *err);
int an_plot_map(const an_result *res, int run, const char *path, an_format fmt, sim_error *err);

/* The figure of docs/metrics.md: a hand-made task with its events and areas marked. */
int an_plot_definitions(const char *path, an_format fmt, sim_error *err);

/* A distribution plot: one box per group with every value as a dot. */
int an_plot_boxes(const char *title, const char *ylabel, const char *const *groups,
                  size_t n_groups, const double *const *values, const size_t *n_values,
                  const char *path, an_format fmt, sim_error *err);

/* ---- study (study.c, plot_study.c) ---- */

/* One measure over nx columns (conditions or positions) for np participants: values
 * row-major [p * nx + c], NAN where missing. */
int an_plot_within(const char *title, const char *ylabel, const char *const *xlabels, size_t nx,
                   const double *values, size_t np, const char *path, an_format fmt, sim_error *err);
/* Mean of the finite values among v[0], v[stride], ... (n of them), the half width of
 * its 95 % confidence interval (NAN with fewer than 2) and how many there were. */
void an_mean_ci(const double *v, size_t n, size_t stride, double *mean, double *half, int *count);
double an_t975(int df);

typedef struct an_study_opts {
    const char *file;        /* the study file */
    const char *study_dir;   /* its output folder (default out/studies/<study>) */
    const char *out;         /* where the analysis goes (default <study_dir>/analysis) */
    an_params params;
    bool plots;
    bool complete;           /* a drive missing or flagged is a failure (exit 1) */
    const char *lct_baseline_condition; /* each participant's complete drive of this
                                           condition is the baseline of the adaptive LCT
                                           model for their drives (NULL: none) */
} an_study_opts;

/* tidy.csv, questionnaires.csv, drives.csv and study.html of a study (docs/study.md,
 * "Analysis"), also of a study still in progress (stderr says how many drives are not
 * in the tables). Returns 0; 1 when o->complete and drives are missing or flagged
 * (listed); or an error. */
int an_study(const an_study_opts *o, sim_error *err);

/* ---- batch ---- */

typedef struct an_batch_opts {
    const char *dir, *out, *scenario; /* scenario may be NULL: from each log's meta */
    an_params params;
    int jobs;                          /* worker processes; 0: number of cores */
    bool plots;                        /* per-drive reports with plots */
    const char *lct_baseline_match;    /* a drive whose name holds this text is its subject's
                                          LCT baseline (--lct-baseline-match; NULL: none) */
} an_batch_opts;

int an_batch(const an_batch_opts *o, sim_error *err);

/* Loads a drive, its scenario (override or from meta), computes and writes the report
 * into dir. Shared by report and batch. */
int an_report_one(const char *log, const char *scenario, const an_params *params,
                  const char *dir, bool plots,
                  an_result *keep, an_drive *keep_drive, an_scenario *keep_sc, an_timing *tm,
                  sim_error *err);

/* ---- synthetic data (synth.c) ---- */

#include <stdint.h>
/* A Lane Change Test style scenario file (world-model format) with n_tasks tasks on
 * one winding three-lane road of the given length. */
int an_synth_scenario(const char *path, int n_tasks, double task_len, double period,
                      double road_len, uint64_t seed, sim_error *err);
/* A drive of seconds at rate Hz through sc by a synthetic subject; dr is allocated. */
int an_synth_drive(const an_scenario *sc, double seconds, double rate, uint64_t seed,
                   const char *subject, const char *scenario_file, an_drive *dr, sim_error *err);
/* Adds seeded DRT, gaze and SuRT events to dr (synth_tasks.c) and sorts its events. */
int an_synth_secondary(an_drive *dr, uint64_t seed, sim_error *err);

/* ---- motion (motion.c): `analysis motion LOG`, docs/motion.md ---- */

#include "sim_motion_fidelity.h"

/* One motion step (a motion table row, or a motion.state message of an older --all
 * log): the car's and the platform's specific force (0..2) and angular rate (3..5). */
typedef struct an_motion_row {
    double t;
    int64_t step;
    bool running;
    unsigned limits;
    double car[6], plat[6];
} an_motion_row;

typedef struct an_motion {
    char platform[48];
    an_motion_row *rows;
    size_t n, cap;
    int bad;                 /* messages that did not decode */
    bool from_messages;      /* read from the messages table (a log before the motion table) */
} an_motion;

typedef struct an_motion_result {
    size_t rows;
    double running_s;
    sim_motion_axis_fidelity axis[6];
    int limit_hits;
    double limit_s;
} an_motion_result;

/* The drive log's motion rows (its motion table; a log without one: the motion.state
 * messages of its messages table); SIM_ENOTFOUND without any. */
int an_motion_load(const char *path, an_motion *m, sim_error *err);
void an_motion_free(an_motion *m);
/* The motion table's rows of an open log appended to m (motion_report.c). */
int an_motion_read(sim_drivelog_reader *rd, an_motion *m, sim_error *err);
/* The report's part: the motion table's rows of an open log into dr->motion with their
 * fidelity (step 0.01 s) in dr->motion_fid; both stay NULL for a log without rows.
 * an_motion_drive_free frees them. */
int an_motion_attach(an_drive *dr, sim_drivelog_reader *rd, sim_error *err);
void an_motion_drive_free(an_drive *dr);
/* The report's "Motion cueing" section (the figure motion.png when plots) and
 * metrics.json's drive.motion; nothing without motion rows. */
void an_motion_html(FILE *f, const an_drive *dr, bool plots);
struct cJSON *an_motion_json(const an_motion *m, const an_motion_result *r);
/* The figure: per axis the car's and the platform's specific force and angular rate
 * over time, limit hits shaded, the perceived RMSE and correlation in each caption. */
int an_plot_motion(const an_drive *dr, const char *path, an_format fmt, sim_error *err);
/* Every row through the vestibular model (step dt), compared while running. */
int an_motion_compute(const an_motion *m, double dt, an_motion_result *out, sim_error *err);
void an_motion_print(FILE *f, const an_motion *m, const an_motion_result *r, bool json);
int an_cmd_motion(int argc, char **argv);

/* ---- coded episodes (codes.c; docs/codes.md) ---- */
typedef struct an_code_episode {
    sim_drivelog_code code;   /* the codes table's row */
    size_t samples, n_lat;    /* samples in [t_start, t_end) of its run; those with lat_dev */
    double mean_speed;        /* m/s, NAN without samples */
    double sdlp;              /* population SD of lat_dev, m, NAN without */
    size_t drt_stimuli, drt_responses; /* drt events (stimulus on, response) inside */
} an_code_episode;
/* The measures of one coded episode over dr's samples and events (pure). */
void an_code_measure(const an_drive *dr, const sim_drivelog_code *c, an_code_episode *out);
void an_code_episodes_csv(FILE *f, const an_code_episode *ep, size_t n);
int an_cmd_codes(int argc, char **argv);
/* The report's "Coded episodes" table; nothing when dr's log has no codes (or is a CSV export). */
void an_codes_html(FILE *f, const an_drive *dr);

#endif
