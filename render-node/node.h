/* node: the render node's state shared by main.c (options, window, frames) and
 * session.c (the bus: states, traffic, operator commands, HUD topics). */
#ifndef RN_NODE_H
#define RN_NODE_H

#include <stdbool.h>
#include <uv.h>

#include "gfx.h"
#include "latency.h"
#include "scene.h"
#include "sim_bus.h"
#include "sim_interp.h"
#include "sim_predict.h"
#include "sim_scenario.h"
#include "sim_throttle.h"
#include "traffic_in.h"

#define RN_LATENCY_MAX 100000

typedef struct rn_options {
    const char *bus, *token, *scenario, *start, *vehicle, *shaders, *view_name, *size, *pos, *light;
    const char *screenshot, *traffic, *pose, *stats_file, *name, *quality, *weather, *models;
    double yaw_offset_deg, fov_deg, screenshot_at, fps, lod_tolerance;
    double signals_at;             /* --signals-at: traffic lights as at this time (screenshots) */
    int display, bench_frames;
    bool fullscreen, no_vsync, offscreen, brute_force, terrain_only, no_hud, no_scenery, no_detail;
    bool latency_marker;           /* the photodiode patch (docs/latency.md) */
    bool study_screen;             /* the page between a study's drives (study_screen.c) */
    const char *motion;            /* --motion predict|interpolate */
    const char *latency_log;       /* every frame's delay, and the patch as read back, as CSV */
    const char *log, *frames_out;  /* --log LOG --frames-out FILE: a drive's frames (logframes.c) */
    int log_run;                   /* --run: the log's run (< 0: its first) */
    bool stamp;                    /* --stamp: each frame's log time drawn in the top right */
    double log_from, log_to;       /* --from, --to: log times (NAN: the run's first, last) */
} rn_options;

/* --motion: the ego pose drawn predicted to the frame's presentation from the newest
 * state (and vehicle.early.state followed), or interpolated between the last two
 * ticks' states, one state period behind (docs/render.md, docs/latency.md). */
typedef enum { RN_MOTION_PREDICT, RN_MOTION_INTERPOLATE } rn_motion;

/* A recent state: its simulation time, delay chain and steering input, so that a frame
 * is attributed to the state its pose stands for. */
#define RN_SHOWN_MAX 8
typedef struct rn_shown {
    double t;
    rn_chain chain;
    double steer;
} rn_shown;

/* --latency-marker: a square of RN_MARKER_PX pixels in the top left corner, white
 * while the newest state's steering input is past RN_MARKER_STEER (either way), else
 * black. */
#define RN_MARKER_PX 32
#define RN_MARKER_STEER 0.5

typedef struct rn_node {
    rn_options o;
    sim_scenario *sc;
    gfx g;
    rn_scene scene;
    rn_view_opts view;
    sim_view_rig rig;              /* the driver's eye and the car's size */
    sim_throttle bad_output;       /* stderr lines about bad messages, per topic */
    double cog_height;             /* m */
    char ego_model[128], ego_cockpit[128]; /* the vehicle file's render.model, render.cockpit */
    /* the ego car */
    sim_interp ip;
    rn_motion motion;
    sim_pose newest_pose;          /* the newest state's pose, motion, time, and when (node */
    sim_motion newest_motion;      /* clock) physics was at that time: the prediction's base */
    double newest_t, newest_ref;
    double frame_cost;             /* s from a frame's start to its swap's end, smoothed */
    rn_shown shown[RN_SHOWN_MAX];  /* ring of recent states, newest at shown_head - 1 */
    int shown_head, n_shown;
    double ego_speed;              /* m/s, newest */
    double ego_steer;              /* rad, mean front road-wheel angle, newest */
    double ego_steer_input;        /* -1..1, the steering input the newest state applied */
    bool ego_brake;
    /* where physics says the newest state is (vehicle.state's road, s, lane): the HUD's
     * speed limit and the triggers go by it, so that render-node never picks another
     * road than physics and the log at a bridge or a junction */
    bool ego_placed;               /* the state said (a physics state always does) */
    char ego_road[48];             /* road id; "" off every road */
    double ego_s;
    int ego_lane;                  /* SIM_MSG_NO_INT: outside every lane */
    double last_state_wall;        /* s on the node's clock; < 0 never */
    double sim_t;                  /* simulation time of the newest state */
    /* traffic */
    rn_agent agents[RN_MAX_AGENTS];   /* the newest traffic.state */
    int n_agents;
    rn_agent prev[RN_MAX_AGENTS];     /* the one before, for interpolation */
    int n_prev;
    double traffic_t[2];              /* simulation time of prev and agents */
    double traffic_arrival;           /* node clock when the newest arrived */
    rn_agent drawn[RN_MAX_AGENTS];    /* this frame's, interpolated */
    /* set by the scenario, the operator */
    sim_light light;
    double limit_override_kmh;     /* control.speed_limit; 0 none */
    bool *trigger_fired;
    /* the bus */
    uv_loop_t *loop;
    sim_bus *bus;
    bool connected, stop;
    bool paused;                   /* control.pause until resume, restart or stop */
    uv_timer_t wait;
    uv_signal_t sigint, sigterm, sigusr1;
    /* measuring */
    double *latency;               /* s, from a state's arrival to the end of its frame */
    int n_latency;
    double pending_arrival[64];
    int n_pending;
    /* wheel to picture (latency.h): the chain of the newest state, the frame's own
     * stamps, the window summarised as render.latency, every frame's total (s) */
    rn_chain chain;
    double draw_end;               /* set by rn_frame before the swap */
    bool marker_on;                /* this frame's patch is lit */
    int marker_read;               /* the patch's red as read back before the swap; -1 none */
    FILE *latency_log;
    rn_latency_window lat_win;
    double *wheel;
    int n_wheel;
    bool shot_done, shot_now;
    unsigned char *grab;           /* not NULL: rn_frame reads the frame into it (RGB) */
} rn_node;

/* The node's clock in seconds (monotonic). */
double rn_now(void);

/* frames.c: "X,Y,..." into at most max numbers (returns how many, -1 when malformed);
 * the ego pose at --pose or --start; the scenario's agents at their starts; --traffic. */
int rn_parse_numbers(const char *text, double *out, int max);
int rn_start_pose(rn_node *n, sim_pose *p, sim_error *err);
void rn_scenario_agents(rn_node *n);
int rn_load_traffic_file(rn_node *n, sim_error *err);
/* Draws one frame at the node's clock `now` (screenshot to `shot` before the swap when
 * not NULL). */
int rn_frame(rn_node *n, const sim_pose *ego, double now, const char *shot, rn_frame_stats *st, sim_error *err);
/* The 99th percentile of v[0..n) (sorts v). */
double rn_p99(double *v, int n);
/* Writes a JSON line to --stats-file, or stdout without one. */
int rn_write_stats(rn_node *n, const char *json, sim_error *err);
/* The modes: without a bus (--screenshot, --bench-frames), and the session (loop.c). */
int rn_run_screenshot(rn_node *n, sim_error *err);
int rn_run_bench(rn_node *n, sim_error *err);
int rn_run_session(rn_node *n, sim_error *err);
/* --log LOG --frames-out FILE: the drive's frames at log times from + k / fps, raw RGB
 * (logframes.c, docs/video.md). */
int rn_run_log_frames(rn_node *n, sim_error *err);
/* --study-screen: the calm page between a study's drives (study_screen.c). */
int rn_run_study_screen(rn_node *n, sim_error *err);

/* Joins the bus (session.c). */
int rn_session_open(rn_node *n, sim_error *err);
void rn_session_close(rn_node *n);
/* Per frame: HUD values from what the bus brought (speed, limit, triggers, no data). */
void rn_session_update_hud(rn_node *n, double now);
/* A vehicle.state, or a vehicle.early.state when early (t: its envelope's time, NAN
 * when it had none). */
void rn_session_vehicle_state(rn_node *n, const cJSON *msg, double t, bool early);
/* The recent state nearest simulation time t (NULL: none yet). */
const rn_shown *rn_session_shown(const rn_node *n, double t);
/* Fills n->drawn with the other cars for a frame at `now`; returns how many. */
int rn_session_agents(rn_node *n, double now);
/* Publishes an ack for a control message. */
void rn_session_ack(rn_node *n, const cJSON *msg, bool ok, const char *error);
/* Clears what the operator set (HUD text, speed limit) and every HUD text: control.restart. */
void rn_session_restart(rn_node *n);

#endif
