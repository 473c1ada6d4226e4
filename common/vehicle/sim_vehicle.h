/* sim_vehicle: the ego car's dynamics as a pure library: three models behind one step
 * interface, the vehicle parameter file, the ground interface and the force-feedback
 * output.
 *
 *   SIM_VEHICLE_FULL    17-DOF car of the car-model paper (Deak, sections 4-5): chassis
 *                       6 DOF, four wheels with vertical travel and spin, two steered
 *                       front wheels, engine rotation; Magic Formula or brush tyres.
 *   SIM_VEHICLE_SIMPLE  longitudinal/transverse model of the platform paper (3.3).
 *   SIM_VEHICLE_WALL    imaginary-wall impulse model (Kang and Cho).
 *
 * Ownership: a sim_vehicle is plain storage owned by the caller (no heap, no globals,
 * copyable: a copy continues bit-identically; about 20 KB, mostly the tyre's tabulated
 * curves, so keep it static or on the heap). It keeps its own copy of the parameters.
 * The ground and the obstacle boxes are borrowed for the duration of one call. */
#ifndef SIM_VEHICLE_H
#define SIM_VEHICLE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"
#include "sim_powertrain.h"
#include "sim_rigid.h"
#include "sim_tire.h"

/* ---- ground ---- */

typedef struct sim_ground_sample {
    double height;     /* m, terrain height z at (x, y) */
    double normal[3];  /* unit surface normal, z > 0 */
    double friction;   /* road friction factor: 1 = dry asphalt (the tyre data's surface) */
    double roughness;  /* 0..1 surface roughness (force-feedback rumble; 0 = smooth) */
    double rolling;    /* rolling-resistance coefficient the surface adds to the tyre's
                        * own (soft ground: grass, sand; 0 on asphalt). A callback that
                        * leaves it alone gives 0. */
} sim_ground_sample;

/* Fills *out for world (x, y); returns 0, or nonzero where there is no ground (the
 * wheel is then airborne). Must be pure for determinism. */
typedef int (*sim_ground_fn)(void *ctx, double x, double y, sim_ground_sample *out);

/* The height z at (x, y) alone, where there is ground; NAN where there is none. */
typedef double (*sim_ground_height_fn)(void *ctx, double x, double y);

typedef struct sim_vehicle_ground {
    sim_ground_fn sample;
    void *ctx;
    /* Optional (NULL: sample is used): a cheaper height-only query for the body's
     * collision test, which needs the rest of a sample only where the body touches. */
    sim_ground_height_fn height;
    /* Optional (0: unknown): an upper bound of the ground's slope |grad z| everywhere.
     * With it the body's corners are not looked up while the ground cannot have risen
     * to them since the last look-up (the results are the same, bit for bit). The
     * vehicle remembers those look-ups: give it the same ground every step, or
     * sim_vehicle_init it again when the ground changes. */
    double max_slope;
} sim_vehicle_ground;

/* An infinite plane z = z0 + slope_x x + slope_y y, for tests and scenario-less runs. */
typedef struct sim_ground_plane {
    double z0, slope_x, slope_y;
    double friction, roughness; /* (no added rolling resistance: a paved plane) */
} sim_ground_plane;

int sim_ground_plane_sample(void *plane, double x, double y, sim_ground_sample *out);
double sim_ground_plane_height(void *plane, double x, double y);
/* A sim_vehicle_ground reading the plane (borrowed: the plane must outlive it). */
sim_vehicle_ground sim_ground_from_plane(sim_ground_plane *plane);

/* A traffic vehicle or other obstacle: an oriented box moving without rotation during a
 * step; the ego car bounces off it (it is not pushed: traffic moves on its own). */
typedef struct sim_box {
    double center[3];   /* m, world */
    double heading;     /* rad, CCW from +x */
    double half[3];     /* m, half length (x), half width (y), half height (z) */
    double velocity[3]; /* m/s, world */
} sim_box;

/* ---- parameters (the vehicle file; see docs/vehicle.md) ---- */

enum { SIM_WHEEL_FL = 0, SIM_WHEEL_FR = 1, SIM_WHEEL_RL = 2, SIM_WHEEL_RR = 3, SIM_WHEELS = 4 };

typedef enum sim_drive_layout { SIM_DRIVE_REAR = 0, SIM_DRIVE_FRONT = 1 } sim_drive_layout;

typedef struct sim_suspension_params {
    double spring_rate;     /* N/m, at the wheel */
    double spring_cubic;    /* N/m^3, progressive term */
    double preload;         /* N, spring force at zero travel (full droop) */
    double damping_bump;    /* N s/m, compression below knee speed */
    double damping_rebound; /* N s/m, extension below knee speed */
    double damping_knee;    /* m/s, above it the damping rate falls to a third */
    double bump_travel;     /* m, travel where the bump stop starts */
    double bump_rate;       /* N/m^2, bump stop force = rate * (travel - bump_travel)^2 */
    double droop_rate;      /* N/m, stop below zero travel */
    double antiroll_rate;   /* N/m of travel difference left-right */
} sim_suspension_params;

typedef struct sim_vehicle_params {
    char name[64];
    char model[128];          /* render.model: the car's model (docs/render.md), "" none */
    char cockpit[128];        /* render.cockpit: its interior from the driver's seat, "" none */
    /* body */
    double mass;              /* kg, whole car with driver */
    double unsprung_mass;     /* kg per wheel */
    sim_vec3 inertia;         /* kg m^2, roll, pitch, yaw of the whole car about its COG */
    double cog_height;        /* m above ground at rest */
    double wheelbase;         /* m */
    double cog_to_front;      /* m, COG to front axle (longitudinally) */
    double track_front, track_rear; /* m */
    sim_vec3 box_half;        /* m, half extents of the body's collision box */
    sim_vec3 box_offset;      /* m, box centre relative to the COG, body frame */
    sim_vec3 driver_eye;      /* m, the driver's eye point relative to the COG, body frame (render views) */
    double restitution;       /* body collisions, 0..1 */
    double body_friction;     /* body-ground and body-box friction coefficient */
    /* aerodynamics */
    double drag_coefficient;  /* c_w */
    double frontal_area;      /* m^2 */
    double air_density;       /* kg/m^3 */
    /* steering */
    double steer_max;         /* rad at the road wheels, full lock */
    double ackermann;         /* 0..1 share of true Ackermann geometry */
    double steer_time;        /* s, time constant of the steering system */
    /* wheels, tyres, suspension */
    double wheel_inertia_front, wheel_inertia_rear; /* kg m^2 incl. brake disc and shafts */
    sim_tire_params tire;
    sim_suspension_params susp_front, susp_rear;
    /* powertrain */
    sim_drive_layout drive;
    sim_engine_params engine;
    sim_clutch_params clutch;
    sim_gearbox_params gearbox;
    sim_diff_params diff;
    sim_brake_params brakes;
    double auto_econ_rpm;     /* automatic: part-throttle upshift speed */
    /* light models */
    double simple_steer_max_low;   /* rad, paper 2: 10.5 deg up to speed_low */
    double simple_steer_max_high;  /* rad, 3.5 deg from speed_high */
    double simple_speed_low, simple_speed_high; /* m/s (40 and 80 km/h) */
    double simple_friction;   /* friction coefficient for the centrifugal limit */
    double wall_mu_max;       /* paper 3: side-slip parameter at standstill, 0..1 */
    double wall_v_theta;      /* m/s, speed where the wall lets the wheels slide freely */
    double wall_max_penetration; /* m, phi_tau */
    double wall_xi;           /* 1/(N s), xi of equation 3 */
} sim_vehicle_params;

/* Parses a vehicle file's JSON text. file names it in error messages, which give the
 * JSON path, what was found and what was expected. */
int sim_vehicle_params_parse(const char *json, size_t len, const char *file,
                             sim_vehicle_params *out, sim_error *err);
/* (Reading a vehicle file from disk is sim_vehicle_params_load, in the scenario
 * component's sim_vehicle_file.h: this component does no I/O.) */
/* Checks ranges (positive masses, ascending curve, ...); parse calls it. */
int sim_vehicle_params_validate(const sim_vehicle_params *p, const char *file, sim_error *err);

/* ---- the vehicle ---- */

typedef enum sim_vehicle_model {
    SIM_VEHICLE_FULL = 0,
    SIM_VEHICLE_SIMPLE = 1,
    SIM_VEHICLE_WALL = 2,
} sim_vehicle_model;

int sim_vehicle_model_parse(const char *name, sim_vehicle_model *out, sim_error *err);
const char *sim_vehicle_model_name(sim_vehicle_model m);

/* The driver's inputs (input.controls). */
typedef struct sim_vehicle_controls {
    double steer;     /* -1..1, left positive, fraction of full lock */
    double throttle;  /* 0..1 */
    double brake;     /* 0..1 */
    double clutch;    /* 0..1, 1 = pedal pressed (disengaged) */
    bool automatic;   /* gearbox chooses forward gears itself */
    int gear;         /* manual: requested gear, -1 reverse, 0 neutral, 1..n */
} sim_vehicle_controls;

typedef struct sim_vehicle_start {
    double x, y;      /* m, world */
    double heading;   /* rad */
    double speed;     /* m/s along the heading (wheels and engine matched) */
    int gear;         /* gear to start in (0 = neutral) */
} sim_vehicle_start;

#define SIM_VEHICLE_STATE_LEN 36

typedef struct sim_vehicle {
    sim_vehicle_params p;
    sim_vehicle_model model;
    sim_integrator integrator;
    double t;                 /* s, simulation time */
    double y[SIM_VEHICLE_STATE_LEN]; /* integrated state (layout in sim_vehicle.c) */
    double work[5 * SIM_VEHICLE_STATE_LEN];
    int gear;
    double shift_timer;       /* s left of a shift in progress */
    bool clutch_locked;       /* the clutch's two sides turn together */
    double gear_hold;         /* s before the automatic may shift again */
    sim_vehicle_controls in;  /* inputs of the current step */
    double last_dt;           /* s, the latest step (stiction is resolved within one) */
    sim_vec3 hardpoint[SIM_WHEELS]; /* wheel centre at zero travel, body frame */
    /* light-model extras */
    double side_speed;        /* simple model: outward drift velocity, m/s */
    double steer_angle;       /* simple and wall models: road-wheel angle, rad */
    double accel_light[3];    /* simple and wall models: body-frame acceleration of the last step */
    double steer_target[2];   /* full model: front road-wheel angles the steering seeks */
    double steer_input;       /* full model: the input steer_target was computed for */
    double steer_trig[2][3];  /* full model: front angles at the step's start, their sin, cos */
    double corner_ground[4][3]; /* body's bottom corners: last ground look-up x, y, z (z NaN: none) */
} sim_vehicle;

typedef struct sim_wheel_state {
    double pos[3];       /* wheel centre, world */
    double omega;        /* rad/s spin */
    double travel;       /* m suspension compression */
    double steer;        /* rad road-wheel angle */
    double load;         /* N tyre vertical force */
    double fx, fy, mz;   /* N, N, N m tyre forces in the tyre frame */
    double slip_ratio;   /* kappa */
    double slip_angle;   /* rad, positive when the tyre pushes to the left */
    double friction;     /* road friction factor under the wheel */
    double roughness;    /* road roughness under the wheel */
    bool contact;
} sim_wheel_state;

typedef struct sim_vehicle_state {
    double t;
    double pos[3];           /* COG, world */
    double quat[4];          /* w x y z, body to world */
    double roll, pitch, heading;
    double vel[3];           /* m/s world */
    double vel_body[3];      /* m/s body: forward, left, up */
    double ang_vel_body[3];  /* rad/s body: roll rate, pitch rate, yaw rate */
    double yaw_rate;         /* rad/s about world z */
    double accel_body[3];    /* m/s^2 body, kinematic acceleration of the COG */
    double speed;            /* m/s along the heading */
    double rpm;
    int gear;
    double steer_angle;      /* rad, mean of the front road-wheel angles */
    double clutch;           /* engagement 0..1 */
    sim_wheel_state wheel[SIM_WHEELS];
} sim_vehicle_state;

/* The gear the automatic would be in at speed (m/s) at part throttle: the lowest forward
 * gear in which the engine turns no faster than the part-throttle upshift speed
 * (gearbox.econ_rpm), else the top gear; 1 at a standstill. A start point's speed needs
 * it: started in first at 100 km/h the engine turns 12,000 rpm and brakes the car from
 * 27.8 to 22.3 m/s in 0.05 s. */
int sim_vehicle_start_gear(const sim_vehicle_params *p, double speed);

/* Sets the vehicle up on the ground at the start pose (body along the ground's normal,
 * suspension at its static travel), moving at start->speed with wheels and engine
 * matched. The parameters are copied. */
int sim_vehicle_init(sim_vehicle *v, const sim_vehicle_params *p, sim_vehicle_model model,
                     sim_integrator integrator, const sim_vehicle_ground *ground,
                     const sim_vehicle_start *start, sim_error *err);

/* Advances by dt (s) with controls c held (out-of-range or non-finite inputs are
 * clamped or zeroed), on ground, bouncing off boxes (may be NULL with n_boxes 0).
 * Returns 0; SIM_EINVAL for dt outside (0, 0.1] or NULL arguments; SIM_ERANGE if the
 * state stopped being finite (the vehicle is then unchanged). */
int sim_vehicle_step(sim_vehicle *v, const sim_vehicle_controls *c, const sim_vehicle_ground *ground,
                     const sim_box *boxes, size_t n_boxes, double dt);

/* The observable state (forces are evaluated at the current state; cheap enough for
 * the publish rate, not needed per step). */
void sim_vehicle_get_state(const sim_vehicle *v, const sim_vehicle_ground *ground, sim_vehicle_state *out);

/* ---- force feedback (ffb.command) ---- */

typedef struct sim_ffb_params {
    double aligning_full;  /* N m of summed front aligning moment mapped to torque 1 */
    double centring;       /* spring share 0..1 at centring_speed and above */
    double centring_speed; /* m/s */
    double damper;         /* 0..1 */
    double rumble_gain;    /* rumble per unit roughness at rumble_speed */
    double rumble_speed;   /* m/s */
} sim_ffb_params;

typedef struct sim_ffb_output {
    double torque;    /* -1..1, positive turns the wheel left */
    double spring;    /* 0..1 centring stiffness */
    double damper;    /* 0..1 */
    double rumble;    /* 0..1 amplitude */
    double rumble_hz; /* Hz */
} sim_ffb_output;

void sim_ffb_params_default(sim_ffb_params *p);
/* Steering torque from the front tyres' aligning moments, speed-dependent centring and
 * the road surface. steer is the driver's input (-1..1). Pure. */
sim_ffb_output sim_vehicle_ffb(const sim_ffb_params *p, const sim_vehicle_state *s, double steer);

#endif
