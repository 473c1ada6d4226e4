/* sim_drivelog: the drive-log file format, in one place (docs/drivelog.md).
 *
 * A drive log is one SQLite database per drive, in WAL mode, with the tables
 *   samples  (run, tick) primary key: one row per sample period (10 ms) of simulation
 *            time, aligned to ticks; a restart of the drive starts a new run.
 *   events   time-stamped buttons, operator commands, triggers, sectors, modules.
 *   meta     key/value: scenario and its hash, vehicle, version, seed, study, ...
 *   messages every bus message, raw, when the recorder was asked for --all.
 * The recorder writes through sim_drivelog_writer, analysis and replay read through
 * sim_drivelog_reader, so nobody else spells a table or column name.
 *
 * Writer: append calls only copy the row into memory; sim_drivelog_tick (called from a
 * timer) or sim_drivelog_flush inserts everything pending in one transaction with
 * prepared statements. Rows are therefore committed at most flush_ms apart as long as
 * the caller ticks at least that often, and a process killed with kill -9 leaves a
 * valid database holding every transaction committed before it. A failed commit (disk
 * full) is rolled back and its rows stay pending, so they are written once there is
 * room again. Inserts are INSERT OR IGNORE on each table's natural key, so replaying
 * the same messages twice (the dispatcher's backlog after a reconnect) adds nothing.
 *
 * NULL: a double field set to NAN, an int32 field set to SIM_DRIVELOG_NULL_INT or an
 * empty string is stored as SQL NULL and read back the same way.
 *
 * Threads: a writer or reader is used by one thread at a time (the reader's connection
 * is opened without SQLite's per-connection mutex); open one per thread.
 *
 * Ownership: the writer and reader are allocated by their open functions and freed by
 * their close functions. Strings passed in are copied. Arrays returned by the reader
 * belong to the caller and are freed with free() (samples) or
 * sim_drivelog_events_free (events, whose strings are owned by the array). */
#ifndef SIM_DRIVELOG_H
#define SIM_DRIVELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_error.h"

/* 1: the first format; 2: samples gained the road column (readers take both, a writer
 * resuming a version-1 file adds the column and marks the file 2). */
/* 3: the instrument tables gaze, sensor, sensor_channels, clock (readers take a file
 * without them as one with no rows; a writer creates them in any file it opens). */
/* 4: gaze gained surface_x, surface_y (a writer resuming an older file adds them, NULL
 * in the rows already there; readers take a gaze table without them as all NULL). */
/* 5: the latency table. 6: the motion table (created like the instrument tables). */
#define SIM_DRIVELOG_SCHEMA_VERSION 6
#define SIM_DRIVELOG_NULL_INT INT32_MIN
#define SIM_DRIVELOG_ID_MAX 48 /* sector, task and road ids, including the terminating NUL */

/* The samples columns, in table order: the one list that makes the struct below, the
 * table's SQL, the writer's binding, the reader's decoding, the CSV export and the
 * analysis' columns. COL(name, NAME, type), type one of
 *   I64   int64_t, never NULL        F64  double, never NULL
 *   REAL  double, NAN is NULL        INT  int32_t, SIM_DRIVELOG_NULL_INT is NULL
 *   ID    char[SIM_DRIVELOG_ID_MAX], "" is NULL
 * Units and meaning (docs/drivelog.md):
 *   run           run number from sim.tick; a restart starts a new one
 *   tick          sample index in the run: t = tick * sample period
 *   t             simulation time, s
 *   speed, accel  m/s and m/s^2 along the car's heading
 *   headway_dist  m to the vehicle ahead in the same lane; headway_time s (= dist /
 *                 speed); NULL: none
 *   lat_dev       m, left positive, from the task's ideal lane; NULL: unknown
 *   lane          OpenDRIVE lane id;  s, d  m road-relative;  x, y, z  m world frame
 *   heading       rad, CCW from +x;  yaw_rate  rad/s
 *   steer_wheel   rad, steering wheel angle;  wheel_angle  rad, road-wheel angle (left +)
 *   throttle, brake, clutch  0..1 pedal positions
 *   gear          -1 reverse, 0 neutral, 1.. forward;  rpm  engine speed, 1/min
 *   sector, task  test sector and task ids, "" outside any
 *   road          id of the scenario road the sample was located on, "" when unknown
 *                 (schema 1 logs, no scenario; the column came with schema 2) */
#define SIM_DRIVELOG_SAMPLE_COLUMNS(COL)                                                        \
    COL(run, RUN, I64) COL(tick, TICK, I64) COL(t, T, F64) COL(speed, SPEED, REAL)                    \
    COL(accel, ACCEL, REAL) COL(headway_dist, HEADWAY_DIST, REAL)                                 \
    COL(headway_time, HEADWAY_TIME, REAL) COL(lat_dev, LAT_DEV, REAL) COL(lane, LANE, INT)           \
    COL(s, S, REAL) COL(d, D, REAL) COL(x, X, REAL) COL(y, Y, REAL) COL(z, Z, REAL)                      \
    COL(heading, HEADING, REAL) COL(yaw_rate, YAW_RATE, REAL) COL(steer_wheel, STEER_WHEEL, REAL)    \
    COL(wheel_angle, WHEEL_ANGLE, REAL) COL(throttle, THROTTLE, REAL) COL(brake, BRAKE, REAL)        \
    COL(clutch, CLUTCH, REAL) COL(gear, GEAR, INT) COL(rpm, RPM, REAL) COL(sector, SECTOR, ID)         \
    COL(task, TASK, ID) COL(road, ROAD, ID)

#define SIM_DRIVELOG_CTYPE_I64 int64_t
#define SIM_DRIVELOG_CTYPE_F64 double
#define SIM_DRIVELOG_CTYPE_REAL double
#define SIM_DRIVELOG_CTYPE_INT int32_t
#define SIM_DRIVELOG_FIELD_(name, NAME, type) SIM_DRIVELOG_CTYPE_##type name;
#define SIM_DRIVELOG_FIELD_ID_(name) char name[SIM_DRIVELOG_ID_MAX];
#define SIM_DRIVELOG_FIELD(name, NAME, type) SIM_DRIVELOG_FIELD_##type(name, NAME, type)
#define SIM_DRIVELOG_FIELD_I64 SIM_DRIVELOG_FIELD_
#define SIM_DRIVELOG_FIELD_F64 SIM_DRIVELOG_FIELD_
#define SIM_DRIVELOG_FIELD_REAL SIM_DRIVELOG_FIELD_
#define SIM_DRIVELOG_FIELD_INT SIM_DRIVELOG_FIELD_
#define SIM_DRIVELOG_FIELD_ID(name, NAME, type) SIM_DRIVELOG_FIELD_ID_(name)

typedef struct sim_drivelog_sample {
    SIM_DRIVELOG_SAMPLE_COLUMNS(SIM_DRIVELOG_FIELD)
} sim_drivelog_sample;

/* The columns as data, for code that walks them (reading any subset, CSV, analysis). */
typedef enum {
    SIM_DRIVELOG_I64, SIM_DRIVELOG_F64, SIM_DRIVELOG_REAL, SIM_DRIVELOG_INT, SIM_DRIVELOG_ID
} sim_drivelog_type;
typedef struct sim_drivelog_column {
    const char *name;
    sim_drivelog_type type;
    size_t offset;          /* in sim_drivelog_sample */
} sim_drivelog_column;
#define SIM_DRIVELOG_COUNT_(name, NAME, type) +1
enum { SIM_DRIVELOG_N_COLUMNS = 0 SIM_DRIVELOG_SAMPLE_COLUMNS(SIM_DRIVELOG_COUNT_) };
extern const sim_drivelog_column sim_drivelog_columns[SIM_DRIVELOG_N_COLUMNS];
/* The column named name, NULL when there is none. */
const sim_drivelog_column *sim_drivelog_column_named(const char *name);
/* Column c of s as a double (NAN for NULL; ids are not numbers: NAN). */
double sim_drivelog_sample_number(const sim_drivelog_sample *s, const sim_drivelog_column *c);

/* A sample with every field NULL (NAN, SIM_DRIVELOG_NULL_INT, ""), run/tick/t 0. */
void sim_drivelog_sample_init(sim_drivelog_sample *s);

typedef struct sim_drivelog_event {
    int64_t run;
    double t;   /* simulation time, s */
    char *kind; /* "button", "control", "module", "traffic", "trigger", "sector",
                   "task", "run", "recorder" (docs/drivelog.md) */
    char *name; /* e.g. "indicator_left", "pause", "joined" */
    char *json; /* the bus message or a JSON object describing the event; may be NULL */
} sim_drivelog_event;

/* ---- writer ---- */

typedef struct sim_drivelog_writer sim_drivelog_writer;

typedef struct sim_drivelog_write_options {
    int flush_ms;        /* commit interval for sim_drivelog_tick; 0: 100 */
    size_t batch_rows;   /* sim_drivelog_tick also commits once this many rows are
                            pending, which bounds the time one commit takes; 0: 4096 */
    size_t max_pending;  /* rows held while commits fail; 0: 1,000,000 */
    bool fsync_each;     /* synchronous=FULL: each commit survives power loss too.
                            false: NORMAL, each commit survives a killed process */
} sim_drivelog_write_options;

/* Opens path for writing, creating the file and schema when missing and keeping what
 * is there otherwise (a restarted recorder resumes its file). A file that is not a
 * drive log, or one of a newer schema, is refused. opts may be NULL. */
int sim_drivelog_writer_open(const char *path, const sim_drivelog_write_options *opts,
                             sim_drivelog_writer **out, sim_error *err);

/* Sets a meta key; written with the next commit. Later values replace earlier ones. */
int sim_drivelog_set_meta(sim_drivelog_writer *w, const char *key, const char *value,
                          sim_error *err);

int sim_drivelog_append_sample(sim_drivelog_writer *w, const sim_drivelog_sample *s,
                               sim_error *err);
/* kind and name required; json may be NULL. */
int sim_drivelog_append_event(sim_drivelog_writer *w, int64_t run, double t, const char *kind,
                              const char *name, const char *json, sim_error *err);
/* A raw bus message for the messages table (--all). seq < 0: none. */
int sim_drivelog_append_message(sim_drivelog_writer *w, int64_t run, double t, const char *topic,
                                const char *src, int64_t seq, const char *line, size_t len,
                                sim_error *err);

/* Commits everything pending now. On failure (disk full, I/O error) the transaction is
 * rolled back, the rows stay pending and the error names the file and the cause. */
int sim_drivelog_flush(sim_drivelog_writer *w, sim_error *err);

/* Commits when something is pending and at least flush_ms have passed since the last
 * commit, or when batch_rows are pending. now_s: a monotonic clock in seconds (e.g.
 * uv_now / 1000.0). */
int sim_drivelog_tick(sim_drivelog_writer *w, double now_s, sim_error *err);

size_t sim_drivelog_pending(const sim_drivelog_writer *w);
/* Rows (samples, events and messages) this writer has stored; rows the database
 * ignored as duplicates are not counted. */
uint64_t sim_drivelog_committed(const sim_drivelog_writer *w);
const char *sim_drivelog_path(const sim_drivelog_writer *w);

/* Rows known to be on disk: committed (sim_drivelog_committed) as of the last
 * successful checkpoint (sim_drivelog_sync or close). With synchronous=NORMAL a commit
 * is in the WAL but not yet synced: a crash of the machine or a filesystem turned
 * read-only can still lose it. */
uint64_t sim_drivelog_synced(const sim_drivelog_writer *w);
/* Checkpoints the WAL (passively: never waits for readers), which syncs it; on
 * success sim_drivelog_synced catches up with sim_drivelog_committed. */
int sim_drivelog_sync(sim_drivelog_writer *w, sim_error *err);

/* Flushes, checkpoints the WAL into the database and closes. The writer is freed even
 * when the final flush fails: the error says how many rows were lost and whether the
 * loss could be logged in the file itself (an event recorder/rows_lost {rows, cause}
 * and the pending meta, end_utc among it, in a small transaction of their own).
 * NULL allowed. */
int sim_drivelog_writer_close(sim_drivelog_writer *w, sim_error *err);

/* ---- reader ---- */

typedef struct sim_drivelog_reader sim_drivelog_reader;

/* A selection of rows: run < 0 means every run; t_from/t_to bound t inclusively, with
 * 1 ns of slack for rounding (use -INFINITY/INFINITY for no bound). */
typedef struct sim_drivelog_range {
    int64_t run;
    double t_from, t_to;
} sim_drivelog_range;

/* Everything: all runs, all times. */
sim_drivelog_range sim_drivelog_range_all(void);

/* Opens an existing drive log (also one left by a killed writer: its WAL is applied).
 * Refuses files that are not drive logs. */
int sim_drivelog_reader_open(const char *path, sim_drivelog_reader **out, sim_error *err);
void sim_drivelog_reader_close(sim_drivelog_reader *r);

/* Samples in the range ordered by run, tick. *out is malloc'ed (free()); NULL when *n
 * is 0. */
int sim_drivelog_read_samples(sim_drivelog_reader *r, sim_drivelog_range range,
                              sim_drivelog_sample **out, size_t *n, sim_error *err);
/* The same rows handed to cb one by one, in one sample that the reader owns and reuses
 * (copy what you keep); cb returns nonzero to stop early (not an error). No array of
 * samples is built, so an hour-long log is read into the caller's own layout (the
 * analysis's columns) without holding it twice. columns: the samples columns to read,
 * by their names in the table ("t", "speed", "task", ...; run and tick are always
 * read); the sample's other fields are NULL. Each column costs decoding time, so a
 * reader that needs half of them reads about twice as fast. NULL: every column. An
 * unknown name is SIM_EINVAL. */
typedef int (*sim_drivelog_sample_cb)(const sim_drivelog_sample *s, void *user);
int sim_drivelog_each_sample(sim_drivelog_reader *r, sim_drivelog_range range,
                             const char *const *columns, size_t n_columns,
                             sim_drivelog_sample_cb cb, void *user, sim_error *err);
/* The file's schema version (PRAGMA user_version): 1 or SIM_DRIVELOG_SCHEMA_VERSION. */
int sim_drivelog_schema_version(const sim_drivelog_reader *r);
/* The sample with the highest (run, tick): where a resumed recording goes on.
 * SIM_ENOTFOUND when the log has no samples. */
int sim_drivelog_read_last(sim_drivelog_reader *r, sim_drivelog_sample *out, sim_error *err);
/* Events in the range ordered by run, t, then insertion order. */
int sim_drivelog_read_events(sim_drivelog_reader *r, sim_drivelog_range range,
                             sim_drivelog_event **out, size_t *n, sim_error *err);
void sim_drivelog_events_free(sim_drivelog_event *events, size_t n);

/* Copies the value of key into buf. SIM_ENOTFOUND when the key is missing. */
int sim_drivelog_read_meta(sim_drivelog_reader *r, const char *key, char *buf, size_t size,
                           sim_error *err);
/* Run numbers present in samples or events, ascending; *out malloc'ed. */
int sim_drivelog_read_runs(sim_drivelog_reader *r, int64_t **out, size_t *n, sim_error *err);

/* First and last t of the samples whose sector (or task, when task is true) equals id,
 * in run (< 0: any). SIM_ENOTFOUND when no sample has it. */
int sim_drivelog_span(sim_drivelog_reader *r, int64_t run, bool task, const char *id,
                      double *t_from, double *t_to, sim_error *err);

/* Ticks missing in run between its first and last sample, as (after, before) pairs of
 * present ticks around each gap, up to max pairs; *n_gaps is the number of gaps found
 * (may exceed max). For checking that a log has every sample period. */
int sim_drivelog_find_gaps(sim_drivelog_reader *r, int64_t run, int64_t (*pairs)[2],
                           size_t max, size_t *n_gaps, sim_error *err);

/* Raw messages (--all logs) of one topic prefix ("" for all) in the range, ordered by
 * run, t and arrival, handed to cb one by one; cb returns nonzero to stop. */
typedef int (*sim_drivelog_message_cb)(int64_t run, double t, const char *topic,
                                       const char *line, size_t len, void *user);
int sim_drivelog_read_messages(sim_drivelog_reader *r, sim_drivelog_range range,
                               const char *topic_prefix, sim_drivelog_message_cb cb,
                               void *user, sim_error *err);

/* ---- CSV export (sim_drivelog_csv.c) ----
 * One header row with the column names of the table, then one line per row. Fields
 * are quoted as RFC 4180 says (a field with a comma, quote, CR or LF is put in double
 * quotes, quotes doubled), lines end in CRLF, numbers use '.' whatever the locale and
 * the shortest text that reads back to the same double, NULL is an empty field. R's
 * read.csv, pandas.read_csv and spreadsheets read the files as they are. */

int sim_drivelog_samples_csv(FILE *f, const sim_drivelog_sample *s, size_t n, sim_error *err);
int sim_drivelog_events_csv(FILE *f, const sim_drivelog_event *e, size_t n, sim_error *err);

/* Resolves a --from/--to bound: a time in seconds ("12.5"), or "sector:ID" /
 * "task:ID", which mean the first (is_to false) or last (is_to true) t of the samples
 * of that sector or task in run (< 0: any). */
int sim_drivelog_parse_bound(sim_drivelog_reader *r, const char *text, bool is_to, int64_t run,
                             double *t, sim_error *err);

/* Writes dir/samples.csv and dir/events.csv for the range; dir must exist. Files are
 * written under a temporary name and renamed, so a failed export leaves no half file. */
int sim_drivelog_export_csv(sim_drivelog_reader *r, sim_drivelog_range range, const char *dir,
                            sim_error *err);

/* ---- MCAP export (sim_drivelog_mcap.c, docs/drivelog.md "MCAP") ----
 * Writes path as one MCAP file (common/mcap): every sample of the range on the channel
 * "samples", every event on "events", and in a log made with `recorder --all` every bus
 * topic on a channel of its own, all JSON with a JSON schema, log time = simulation
 * time in ns. compress: zstd chunks, else uncompressed. Written under path.part and
 * renamed, so a failed export leaves no half file. *n_messages: messages written. */
int sim_drivelog_export_mcap(sim_drivelog_reader *r, sim_drivelog_range range, const char *path, bool compress,
                             size_t *n_messages, sim_error *err);

/* ---- instruments: gaze, sensors and the time base (sim_drivelog_instr.c) ----
 * Schema 3 adds three tables (created in any file a writer opens, so a resumed older
 * log gains them; a reader of a file without them reads no rows):
 *   gaze    one row per eye-tracker sample (gaze.sample): run, t (simulation time the
 *           sample was taken, s), tick (floor(t / sample period): the samples row it
 *           lands on), src_t (the sender's own clock), wall (session wall clock, Unix
 *           s), source (the sender's module name), valid, confidence, yaw_deg,
 *           pitch_deg, area, target (what the gaze hit: an area of interest or an
 *           agent "agent:ID" / sign "sign:ID"), surface_x, surface_y (schema 4: the
 *           point on the screen named by area, 0..1 from its bottom left corner, from a
 *           tracker's surface mapping).
 *   sensor  one row per channel value of a sensor.<name> message: run, t, tick, src_t,
 *           wall, sensor (the name after "sensor."), channel, value; units in
 *           sensor_channels(sensor, channel, unit).
 *   clock   the time base: rows (run, t, wall, source, src_t, recv_wall, paused).
 *           source "sim": the recorder's wall clock when sim.tick t arrived (at each
 *           run start, pause, resume and at least once a second); other sources: a
 *           sender's own clock src_t against the wall time it stated and the wall time
 *           its message arrived (first message, then once a second).
 * Rows seen twice (backlog replay) are stored once: the key is (source, wall, src_t). */
typedef struct sim_drivelog_gaze {
    int64_t run;
    double t, src_t, wall;          /* src_t NAN: not given */
    char source[SIM_DRIVELOG_ID_MAX];
    bool valid;
    double confidence;              /* 0..1, NAN: not given */
    double yaw_deg, pitch_deg;      /* vehicle frame, yaw left +, pitch up +; NAN: none */
    char area[SIM_DRIVELOG_ID_MAX]; /* "" none */
    char target[SIM_DRIVELOG_ID_MAX];
    double surface_x, surface_y;    /* 0..1 on the screen named by area; NAN: none */
} sim_drivelog_gaze;

typedef struct sim_drivelog_sensor {
    int64_t run;
    double t, src_t, wall;
    char sensor[SIM_DRIVELOG_ID_MAX], channel[SIM_DRIVELOG_ID_MAX];
    double value;
} sim_drivelog_sensor;

typedef struct sim_drivelog_clock {
    int64_t run;
    double t, wall;
    char source[SIM_DRIVELOG_ID_MAX]; /* "sim" or a sender */
    double src_t, recv_wall;          /* NAN for "sim" */
    bool paused;
} sim_drivelog_clock;

/* tick of a gaze or sensor row: floor(t / sample period + 1e-9). */
int64_t sim_drivelog_tick_of(double t);

int sim_drivelog_append_gaze(sim_drivelog_writer *w, const sim_drivelog_gaze *g, sim_error *err);
int sim_drivelog_append_sensor(sim_drivelog_writer *w, const sim_drivelog_sensor *s, sim_error *err);
int sim_drivelog_append_clock(sim_drivelog_writer *w, const sim_drivelog_clock *c, sim_error *err);
/* The unit of a sensor channel ("mV", "uS", "bpm"); written when it is new or changed. */
int sim_drivelog_set_unit(sim_drivelog_writer *w, const char *sensor, const char *channel,
                          const char *unit, sim_error *err);

/* Rows in the range, ordered by run, t (then arrival), one by one to cb (a row the
 * reader owns; return nonzero to stop). sensor: one sensor's rows, NULL all. A log
 * without the table has no rows. */
typedef int (*sim_drivelog_gaze_cb)(const sim_drivelog_gaze *g, void *user);
typedef int (*sim_drivelog_sensor_cb)(const sim_drivelog_sensor *s, const char *unit, void *user);
typedef int (*sim_drivelog_clock_cb)(const sim_drivelog_clock *c, void *user);
int sim_drivelog_each_gaze(sim_drivelog_reader *r, sim_drivelog_range range, sim_drivelog_gaze_cb cb,
                           void *user, sim_error *err);
int sim_drivelog_each_sensor(sim_drivelog_reader *r, sim_drivelog_range range, const char *sensor,
                             sim_drivelog_sensor_cb cb, void *user, sim_error *err);
int sim_drivelog_each_clock(sim_drivelog_reader *r, sim_drivelog_range range, sim_drivelog_clock_cb cb,
                            void *user, sim_error *err);
/* Writes dir/gaze.csv, dir/sensor.csv (with each channel's unit) and dir/clock.csv for
 * the range (header only when the log has no such rows). */
int sim_drivelog_export_instruments_csv(sim_drivelog_reader *r, sim_drivelog_range range, const char *dir,
                                        sim_error *err);

/* ---- latency (schema 5; sim_drivelog_instr.c; docs/latency.md) ----
 * One row per render.latency message (every 0.1 s of frames of a render node): run, t
 * (simulation time of the newest state drawn), tick, source (the render node's module
 * name), window_s, frames, the wheel-to-picture delay's min_ms, median_ms, p95_ms,
 * max_ms over the window, and the median of each stage (device_ms, input_ms, step_ms,
 * physics_ms, wait_ms, draw_ms, swap_ms). Created like the instrument tables (an older
 * log resumed gains it; a reader of a log without it reads no rows). */
#define SIM_DRIVELOG_LATENCY_STAGES 7
typedef struct sim_drivelog_latency {
    int64_t run;
    double t;
    char source[SIM_DRIVELOG_ID_MAX];
    double window_s;
    int frames;
    double min_ms, median_ms, p95_ms, max_ms;
    double stage_ms[SIM_DRIVELOG_LATENCY_STAGES]; /* device, input, step, physics, wait, draw, swap */
} sim_drivelog_latency;

int sim_drivelog_append_latency(sim_drivelog_writer *w, const sim_drivelog_latency *l, sim_error *err);
typedef int (*sim_drivelog_latency_cb)(const sim_drivelog_latency *l, void *user);
int sim_drivelog_each_latency(sim_drivelog_reader *r, sim_drivelog_range range, sim_drivelog_latency_cb cb,
                              void *user, sim_error *err);

/* ---- motion (schema 6; sim_drivelog_motion.c; docs/motion.md) ----
 * One row per motion.state message: a motion base's commanded motion, each cueing step
 * of motion-node (100 Hz of its own clock). The columns, the one list that makes the
 * struct, the table's SQL, the insert and the reader (types as the samples' list):
 *   run, t        the recorder's run; the simulation time of the message, s
 *   tick          the samples row it lands on (floor(t / sample period))
 *   step          motion-node's step count (the UDP datagram's seq): +1 each step
 *   platform      the platform's name;  state  neutral, fading_in, running, fading_out
 *   gain          the fade, 0..1;  limits  SIM_MOTION_HIT_* bits that acted this step
 *   x y z         the commanded pose of the head point from neutral, m
 *   roll pitch yaw  rad
 *   len0..len5    actuator lengths, m (NULL past the platform's actuators)
 *   f_x f_y f_z   the specific force the platform gives the driver, m/s^2
 *   w_x w_y w_z   its angular rate, rad/s
 *   car_f_*, car_w_*  the car's at the driver's head (the cueing's input)
 * Rows seen twice (backlog replay) are stored once: the key is (run, step, t). A log
 * without the table has no rows; a writer creates it in any file it opens. */
#define SIM_DRIVELOG_MOTION_COLUMNS(COL)                                                         \
    COL(run, RUN, I64) COL(t, T, F64) COL(tick, TICK, I64) COL(step, STEP, I64)                     \
    COL(platform, PLATFORM, ID) COL(state, STATE, ID) COL(gain, GAIN, REAL) COL(limits, LIMITS, INT) \
    COL(x, X, REAL) COL(y, Y, REAL) COL(z, Z, REAL) COL(roll, ROLL, REAL) COL(pitch, PITCH, REAL)     \
    COL(yaw, YAW, REAL) COL(len0, LEN0, REAL) COL(len1, LEN1, REAL) COL(len2, LEN2, REAL)             \
    COL(len3, LEN3, REAL) COL(len4, LEN4, REAL) COL(len5, LEN5, REAL) COL(f_x, F_X, REAL)             \
    COL(f_y, F_Y, REAL) COL(f_z, F_Z, REAL) COL(w_x, W_X, REAL) COL(w_y, W_Y, REAL) COL(w_z, W_Z, REAL) \
    COL(car_f_x, CAR_F_X, REAL) COL(car_f_y, CAR_F_Y, REAL) COL(car_f_z, CAR_F_Z, REAL)              \
    COL(car_w_x, CAR_W_X, REAL) COL(car_w_y, CAR_W_Y, REAL) COL(car_w_z, CAR_W_Z, REAL)

typedef struct sim_drivelog_motion {
    SIM_DRIVELOG_MOTION_COLUMNS(SIM_DRIVELOG_FIELD)
} sim_drivelog_motion;
enum { SIM_DRIVELOG_MOTION_N_COLUMNS = 0 SIM_DRIVELOG_MOTION_COLUMNS(SIM_DRIVELOG_COUNT_) };
extern const sim_drivelog_column sim_drivelog_motion_columns[SIM_DRIVELOG_MOTION_N_COLUMNS];

/* A motion row with every nullable field NULL, run/t/tick/step 0. */
void sim_drivelog_motion_init(sim_drivelog_motion *m);
/* Appends a row (tick is set from t); t finite, step >= 0 and platform required. */
int sim_drivelog_append_motion(sim_drivelog_writer *w, const sim_drivelog_motion *m, sim_error *err);
/* Rows in the range ordered by run, t, step, one by one to cb (return nonzero to stop). */
typedef int (*sim_drivelog_motion_cb)(const sim_drivelog_motion *m, void *user);
int sim_drivelog_each_motion(sim_drivelog_reader *r, sim_drivelog_range range, sim_drivelog_motion_cb cb, void *user,
                             sim_error *err);

/* ---- naming ---- */

/* Writes "<dir>/<study>/<subject>-<scenario>-<YYYYmmddTHHMMSSZ>.sqlite" into buf, with
 * scenario the base name of the scenario file without its extension ("none" when
 * NULL) and characters outside [A-Za-z0-9._-] in study, subject and scenario replaced
 * by '_'. unix_time: seconds since 1970 (UTC). */
int sim_drivelog_make_path(char *buf, size_t size, const char *dir, const char *study,
                           const char *subject, const char *scenario_file, int64_t unix_time,
                           sim_error *err);

/* Removes a closed drive log and its "-wal" and "-shm" companions (those that exist).
 * Returns 0, or -1 when the log itself could not be removed (errno says why). */
int sim_drivelog_remove(const char *path);

/* ---- codes (sim_drivelog_codes.c; docs/drivelog.md "codes") ----
 * Behaviour codes imported from ELAN or BORIS: one row per coded interval, on the
 * log's time base. The table is created by the first import; the schema version stays. */
typedef struct sim_drivelog_code {
    int64_t run;
    double t_start, t_end;       /* log time, s */
    char tier[128], code[512];   /* the coding file's tier and the annotation's value */
    char annotator[128];         /* "" is NULL */
    char source[256];            /* the coding file's name: what an import replaces */
} sim_drivelog_code;
/* Replaces every row of source with rows, in one transaction (so a second import of the
 * same file changes nothing); *removed: the rows it replaced. Opens path itself. */
int sim_drivelog_replace_codes(const char *path, const char *source, const sim_drivelog_code *rows, size_t n,
                               size_t *removed, sim_error *err);
typedef int (*sim_drivelog_code_cb)(const sim_drivelog_code *c, void *user);
/* Each code of run (< 0: all), by run, tier, t_start; none for a log without the table. */
int sim_drivelog_each_code(sim_drivelog_reader *r, int64_t run, sim_drivelog_code_cb cb, void *user, sim_error *err);

#endif
