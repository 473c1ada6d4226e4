/* sim_recording: turns bus messages into drive-log rows (the recorder's logic, kept
 * out of recorder/main.c so that tests drive it message by message).
 *
 * Samples: physics publishes `sim.tick` {n, t, run, paused} and `vehicle.state` {tick,
 * run, ...} for each tick. A sample row is written when a tick and the state of that
 * tick (same n and run; the same t for a sender that gives no tick number) have both
 * arrived (in either order) and t lies on the sample grid (a multiple of the sample
 * period, 10 ms): key (run of the tick, round(t / period)). The driver's
 * side comes from the newest `input.controls`. States repeated while paused map to the
 * same key and are skipped, so a pause leaves no gap and no duplicate.
 * Events: buttons, operator commands, module joins/losses, traffic events, triggers,
 * sector and task marks, run starts and pauses (docs/drivelog.md lists them), each
 * with the message's own line as its JSON; and what makes a stretch of the log
 * suspect: session.module crashes and restarts ("session"), ticks that never arrived
 * within a run ("gap" "samples" {from_t, to_t, missing}) and controls older than
 * SIM_RECORDING_STALL_S ("stall" "controls" {since_t, t}, then "controls_end").
 * With record_all every message also goes to the messages table.
 * With a scenario (sim_recording_set_scenario) each sample's place is physics' (the
 * road, s, d of vehicle.state), or, from a sender without one, its position located on
 * the scenario's roads: the test sector and task whose road and s-range contain it
 * name the sample's sector and task, and lat_dev is the located d minus the task's
 * ideal d at s; entering and leaving them are `sector`/`task` `start`/`end` events.
 * Without a scenario these come from the messages (docs/drivelog.md).
 *
 * Ownership: the caller owns the sim_recording (plain struct, no allocation), the
 * writer and the scenario, which must outlive the calls. */
#ifndef SIM_RECORDING_H
#define SIM_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_drivelog.h"
#include "sim_error.h"
#include "sim_msg_vehicle.h"
#include "sim_scenario.h"
#include "sim_timebase.h"
#include "sim_gaze.h"

#define SIM_RECORDING_PERIOD 0.01 /* s between sample rows */
/* Simulation time the newest input.controls may lag behind sim.tick before the log
 * gets a "stall" "controls" event (docs/drivelog.md). */
#define SIM_RECORDING_STALL_S 0.5
/* Instruments (sim_recording_instr.c): the senders of gaze.sample and sensor.* followed
 * at once, and the wall-clock seconds one may stay silent before it counts as stopped
 * (an event "sensor" "stopped"); clock rows are written at least this often. */
#define SIM_RECORDING_SOURCES 32
#define SIM_RECORDING_SOURCE_STOP_S 1.0
#define SIM_RECORDING_CLOCK_S 1.0
#define SIM_RECORDING_CLOCK_SLACK_S 0.002
/* Vehicles of traffic.state and signs of the scenario a gaze ray may meet. */
#define SIM_RECORDING_GAZE_OBJECTS 384
/* A sample stamped later than the newest tick waits (at most SIM_RECORDING_HOLD_S of
 * wall time, and while there is room) for the tick that says where it lands: on a
 * loaded machine a sample can overtake the ticks of its moment on the bus. */
#define SIM_RECORDING_HOLD_S 0.25
#define SIM_RECORDING_HELD_GAZE 256
#define SIM_RECORDING_HELD_SENSOR 1024

typedef struct sim_recording_held_gaze {
    sim_drivelog_gaze g;
    double recv;
    uint64_t line; /* the bus line it came on (sim_recording_set_line); 0: unknown */
} sim_recording_held_gaze;
typedef struct sim_recording_held_sensor {
    sim_drivelog_sensor s;
    double recv;
    uint64_t line;
} sim_recording_held_sensor;

typedef struct sim_recording_source {
    char name[SIM_DRIVELOG_ID_MAX]; /* "sensor.NAME", or the gaze sender's module name */
    double last_recv;               /* wall time of its newest sample's arrival */
    double last_clock;              /* wall time of its newest clock row */
    double last_t;                  /* simulation time of its newest sample */
    uint64_t samples;
    bool stopped;                   /* a "sensor" "stopped" event is open */
} sim_recording_source;

typedef struct sim_recording {
    double period;      /* sample period, s */
    char cab[33];       /* the cab whose log this is (docs/cabs.md; the recorder sets it from
                           SIM_CAB after sim_recording_init): another cab's lead is not
                           this car's headway; "": none */
    bool record_all;    /* also keep every message (messages table) */
    int64_t run;        /* current run; -1 until known */
    double t;           /* newest simulation time seen */
    bool paused;
    /* the newest sim.tick not yet paired with a state */
    bool tick_valid;
    double tick_t;
    int64_t tick_run;
    double tick_n;      /* its n; NAN when it had none */
    uint64_t tick_line; /* the bus line it came on; 0: unknown */
    /* the newest vehicle.state not yet paired with a tick */
    bool state_valid;
    double state_t;
    double state_tick;  /* the n of the tick it belongs to; NAN: not given (pair by t) */
    int64_t state_run;  /* its run; -1: not given */
    uint64_t state_line;
    sim_drivelog_sample state;
    /* the newest input.controls */
    bool controls_valid;
    double steer_wheel, throttle, brake, clutch;
    double controls_t;      /* their simulation time */
    bool controls_stalled;  /* a "stall" "controls" event is open */
    /* the last sample written, for acceleration by difference and duplicate skipping */
    bool last_valid;
    int64_t last_run, last_tick;
    double last_speed;
    char sector[SIM_DRIVELOG_ID_MAX], task[SIM_DRIVELOG_ID_MAX];
    uint64_t samples, events, messages; /* rows handed to the writer */
    const sim_scenario *scenario;       /* NULL: none */
    /* sector and task of the last located sample, for their start/end events */
    char loc_sector[SIM_DRIVELOG_ID_MAX], loc_task[SIM_DRIVELOG_ID_MAX];
    /* the ego's lead vehicle from the newest traffic.state (headway columns) */
    bool lead_valid;
    double lead_t, lead_gap, lead_thw;
    /* instruments: the session's wall clock now (sim_recording_set_wall; NAN: unknown),
     * the time base, the clock rows of "sim", the senders */
    double wall;
    uint64_t line;            /* the bus line being fed (sim_recording_set_line); 0: unknown */
    double tick_wall;         /* the newest sim.tick's own wall stamp (physics'); NAN: none */
    sim_timebase tb;
    double clock_wall;        /* wall time of the newest "sim" clock row; NAN: none */
    double clock_t;           /* and its simulation time */
    /* the tick before the newest, when it got no clock row: written before a row that
     * departs from the line, so that interpolating between rows stays within a tick */
    bool last_tick_valid, last_tick_logged;
    double last_tick_wall, last_tick_t;
    int64_t last_tick_run;
    bool last_tick_paused;
    int64_t clock_run;
    bool clock_paused;
    sim_recording_source sources[SIM_RECORDING_SOURCES];
    int n_sources;
    uint64_t gaze_rows, sensor_rows;  /* handed to the writer */
    uint64_t latency_rows;            /* render.latency rows handed to the writer */
    uint64_t motion_rows;             /* motion.state rows handed to the writer */
    /* gaze on the world (sim_gaze): the vehicle file's areas and eye point, the
     * scenario's signs then the newest traffic.state's vehicles, and the newest
     * gaze.sample's hit (hit_new until the recorder has published it as gaze.target) */
    sim_gaze_area gaze_areas[SIM_GAZE_AREAS_MAX];
    size_t n_gaze_areas;
    double eye[3];
    sim_gaze_object gaze_objects[SIM_RECORDING_GAZE_OBJECTS];
    size_t n_signs, n_gaze_objects;
    sim_gaze_hit hit;
    char hit_source[SIM_DRIVELOG_ID_MAX];
    double hit_t;
    bool hit_new;
    /* samples waiting for their tick (rings, oldest at head) */
    sim_recording_held_gaze held_gaze[SIM_RECORDING_HELD_GAZE];
    size_t held_gaze_head, n_held_gaze;
    sim_recording_held_sensor held_sensor[SIM_RECORDING_HELD_SENSOR];
    size_t held_sensor_head, n_held_sensor;
} sim_recording;

/* run: the run to assume until the first sim.tick (the last run of a resumed file, or
 * -1 for a new one). */
void sim_recording_init(sim_recording *rec, bool record_all, int64_t run);

/* Goes on after the last sample of a resumed log: its run, time, sector and task, so
 * that acceleration and sector events continue without a jump. */
void sim_recording_resume(sim_recording *rec, const sim_drivelog_sample *last);

/* A logged sample as the vehicle.state a replay publishes: the fields the sample has
 * (the inverse of what the recorder takes from vehicle.state), its run, replay true. */
void sim_recording_state_of_sample(const sim_drivelog_sample *s, sim_msg_vehicle_state *out);

/* Locates samples in sc from now on (NULL: stop). */
void sim_recording_set_scenario(sim_recording *rec, const sim_scenario *sc);

/* Fills s->sector, s->task and s->lat_dev from where the sample is. When s->road and
 * s->s are given (physics' vehicle.state carries them: physics locates the car once
 * for everybody) they are that place; otherwise s->road (and s, d, lane when NULL)
 * come from the sample's x, y located in sc, its z and heading (when not NULL)
 * picking among overlapping roads as physics does (sim_roadnet_locate_query). Leaves
 * them as they are when x or y is NULL or sc has no roads. */
void sim_recording_locate(const sim_scenario *sc, sim_drivelog_sample *s);

/* Feeds one bus message (its parsed form and its raw line). Rows go to w. Messages of
 * no interest are ignored; a message with a field of the wrong type is logged as far as
 * it can be (the bad field is NULL) and SIM_EINVAL names it; append errors from the
 * writer are passed on. */
int sim_recording_feed(sim_recording *rec, sim_drivelog_writer *w, const char *topic,
                       const cJSON *msg, const char *line, size_t len, sim_error *err);

/* The session's wall clock (Unix s, e.g. from clock_gettime(CLOCK_REALTIME)) as of
 * the next messages: the recorder sets it before each feed, so that the time base and
 * arrival times are known; tests set it to what they like. */
void sim_recording_set_wall(sim_recording *rec, double wall);

/* The number of the bus line fed next on the current connection (the recorder's
 * sim_bus_received), so that sim_recording_held_from can say which lines are still
 * only in memory; 0 forgets the numbers of what is held (a new connection counts
 * from 1 again, and the dispatcher hands the old connection's unacknowledged lines
 * over again). */
void sim_recording_set_line(sim_recording *rec, uint64_t line);

/* The first bus line whose content is held in memory and not yet handed to the
 * writer (half of a tick/state pair, a gaze or sensor sample waiting for its tick),
 * 0 when none (or its number is unknown). A durable recorder acknowledges only the
 * lines before it: a restarted one must be handed that line again, or the sample it
 * completes is lost (the pair's other half arrives after the restart alone). */
uint64_t sim_recording_held_from(const sim_recording *rec);

/* Senders of gaze.sample or sensor.* silent for SIM_RECORDING_SOURCE_STOP_S of wall
 * time (as of sim_recording_set_wall) get an event "sensor" "stopped" {source, last_t,
 * samples}; its end is "sensor" "resumed" {source, gap_s} with the next sample. Called
 * from a timer. */
int sim_recording_check_sources(sim_recording *rec, sim_drivelog_writer *w, sim_error *err);

/* The car's areas of interest and the driver's eye point (body frame, m, from the
 * point vehicle.state's x, y, z give) for the gaze hit test: each gaze.sample with a
 * direction gets its target (sim_gaze_hit_test against the areas, the scenario's signs
 * and the newest traffic.state's vehicles) unless its sender gave one. */
void sim_recording_set_gaze(sim_recording *rec, const sim_gaze_area *areas, size_t n, const double eye[3]);

/* Writes the samples still waiting for their tick (SIM_RECORDING_HOLD_S), mapped with
 * what is known now: before the writer closes. */
int sim_recording_release_held(sim_recording *rec, sim_drivelog_writer *w, sim_error *err);

/* Private to sim_recording*.c: traffic.state's vehicles for the hit test; the
 * scenario's signs (at sim_recording_set_scenario). */
void sim_recording_instr_traffic(sim_recording *rec, const cJSON *msg);
void sim_recording_instr_signs(sim_recording *rec, const sim_scenario *sc);

/* Private to sim_recording*.c: the instruments' part of a feed. *handled says whether
 * topic was theirs; bad gets a message's first bad field. */
int sim_recording_instr_feed(sim_recording *rec, sim_drivelog_writer *w, const char *topic, const cJSON *msg,
                             double msg_t, bool *handled, sim_error *bad, sim_error *err);
/* Private: a sim.tick was taken (rec->run, t, paused are its). */
int sim_recording_instr_tick(sim_recording *rec, sim_drivelog_writer *w, sim_error *err);

#endif
