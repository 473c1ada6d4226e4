/* recorder.h: the recorder's state, shared by main.c (the bus, the timers, stopping)
 * and logfile.c (choosing, resuming and opening the drive log, and saying so on the bus
 * when it cannot be opened). */
#ifndef RECORDER_H
#define RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "sim_bus.h"
#include "sim_drivelog.h"
#include "sim_error.h"
#include "sim_recording.h"
#include "sim_scenario.h"
#include "sim_gaze.h"
#include "sim_throttle.h"

#ifndef SIM_VERSION
#define SIM_VERSION "0.1.0-dev"
#endif

/* The recorder's exit status when rows were lost at close (simctl run passes it on). */
#define REC_EXIT_LOST 3

typedef struct options {
    const char *out, *study, *subject, *scenario, *vehicle, *token;
    const char *meta_file; /* --meta-file: more meta keys (a study's), NULL none */
    const char *params;    /* --params: the OpenSCENARIO overrides of the drive, to meta xosc_params */
    int seed;
    bool all, fsync;
    int flush_ms, resume_within, stall_ms;
} options;

typedef struct recorder {
    options opt;
    uv_loop_t *loop;
    sim_bus *bus;
    sim_drivelog_writer *w;
    sim_recording rec;
    sim_scenario *scenario; /* --scenario, for sectors, tasks and lat_dev; NULL: none */
    /* --vehicle's areas of interest and eye point for the gaze hit test; gaze_json:
     * the areas as the file gives them, for meta (owned; NULL: none) */
    sim_gaze_area gaze_areas[SIM_GAZE_AREAS_MAX];
    size_t n_gaze_areas;
    double eye[3];
    char *gaze_json;
    uv_timer_t tick_timer, status_timer;
    uv_check_t after_io; /* asks for a commit after each round of reading */
    char error[SIM_ERROR_MSG_MAX]; /* the current write error, "" when none */
    uint64_t last_error_ms;        /* when log.error was last published */
    uint64_t bad_messages;
    bool stopping;       /* no more messages: closing */
    bool draining;       /* asked to stop: reading what is still on its way */
    bool flush_asked;    /* draining: durable.flush sent; the dispatcher's answer ends the drain */
    bool flushed;        /* ... and dispatcher.flushed arrived: everything queued before it is read */
    uint64_t drain_since_ms, last_msg_ms;
    uint64_t last_tick_ms; /* wall clock of the newest sim.tick; 0: none yet */
    bool tick_stalled;     /* a "stall" "ticks" event is open */
    bool resumed;        /* this process resumed an unfinished file */
    bool welcomed;       /* the first welcome has been seen */
    uint64_t skip;       /* backlog messages still to discard (see on_state) */
    uint64_t skip_held;  /* of the discarded backlog: what the dispatcher still holds
                            (not yet read as of the last durable.ack, less its losses) */
    uint64_t acked, acked_ms; /* the last durable.ack's "received", and when */
    sim_throttle bad_output; /* stderr lines per cause, at most one a second (sim_throttle.h) */
} recorder;

/* The session's wall clock, Unix seconds (CLOCK_REALTIME). */
double rec_wall_now(void);
/* The current UTC time as ISO 8601 ("2026-05-01T12:00:00Z"). */
void rec_utc_now(char *buf, size_t size);
/* An event of the recorder itself (started, resumed, stopped, bus_lost, ...). */
void rec_event(recorder *r, const char *name);
/* Opens (or resumes) the log file and sets r->rec up to go on where it left off;
 * *resumed says which. */
int rec_open_log(recorder *r, bool *resumed, sim_error *err);
/* The log could not be opened: says msg on the bus as log.error (briefly joining as
 * recorder-error; gives up after 2 s without a dispatcher). */
void rec_announce_fatal(const options *o, const char *host, int port, const char *msg);

/* engine_meta.c: traffic.engine (SUMO's version and options) into the log's meta. */
int rec_traffic_engine_meta(sim_drivelog_writer *w, const cJSON *msg, sim_error *err);

#endif
