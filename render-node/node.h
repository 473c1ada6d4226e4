/* node: the render node's state shared by main.c (options, window, frames) and
 * session.c (the bus: states, traffic, operator commands, HUD topics). */
#ifndef RN_NODE_H
#define RN_NODE_H

#include <stdbool.h>
#include <uv.h>

#include "gfx.h"
#include "scene.h"
#include "sim_bus.h"
#include "sim_interp.h"
#include "sim_scenario.h"
#include "traffic_in.h"

#define RN_LATENCY_MAX 100000

typedef struct rn_options {
    const char *bus, *token, *scenario, *start, *vehicle, *shaders, *view_name, *size, *pos, *light;
    const char *screenshot, *traffic, *pose, *stats_file, *name;
    double yaw_offset_deg, fov_deg, screenshot_at, fps, lod_tolerance;
    int display, bench_frames;
    bool fullscreen, no_vsync, offscreen, brute_force, terrain_only, no_hud;
} rn_options;

typedef struct rn_node {
    rn_options o;
    sim_scenario *sc;
    gfx g;
    rn_scene scene;
    rn_view_opts view;
    sim_view_rig rig;              /* the driver's eye and the car's size */
    double cog_height;             /* m */
    /* the ego car */
    sim_interp ip;
    double ego_speed;              /* m/s, newest */
    bool ego_brake;
    double last_state_wall;        /* s on the node's clock; < 0 never */
    double sim_t;                  /* simulation time of the newest state */
    /* traffic */
    rn_agent agents[RN_MAX_AGENTS];
    int n_agents;
    /* set by the scenario, the operator */
    sim_light light;
    double limit_override_kmh;     /* control.speed_limit; 0 none */
    bool *trigger_fired;
    /* the bus */
    uv_loop_t *loop;
    sim_bus *bus;
    bool connected, stop;
    uv_timer_t wait;
    uv_signal_t sigint, sigterm, sigusr1;
    /* measuring */
    double *latency;               /* s, from a state's arrival to the end of its frame */
    int n_latency;
    double pending_arrival[64];
    int n_pending;
    bool shot_done, shot_now;
} rn_node;

/* The node's clock in seconds (monotonic). */
double rn_now(void);

/* Joins the bus (session.c). */
int rn_session_open(rn_node *n, sim_error *err);
void rn_session_close(rn_node *n);
/* Per frame: HUD values from what the bus brought (speed, limit, triggers, no data). */
void rn_session_update_hud(rn_node *n, double now);
/* Publishes an ack for a control message. */
void rn_session_ack(rn_node *n, const cJSON *msg, bool ok, const char *error);

#endif
