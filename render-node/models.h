/* models: vehicles drawn from model files (common/model; docs/render.md, "Models"):
 * the other cars by their traffic.state `model`, the ego car by its vehicle file's
 * `model` in the chase view and its bonnet with the vehicle file's `cockpit` from the
 * driver's seat. Wheels turn with the speed and the front ones steer; lamps glow as
 * the box cars' did; the part named "paint" takes a traffic car's colour.
 *
 * A model is loaded on first use and kept; one that cannot be loaded is reported once
 * (on stderr, naming the file) and its vehicles are drawn as boxes (objects.c): the
 * node goes on. Each model is one vertex and index buffer, each vertex tagged with its
 * part (group or wheel).
 *
 * Vehicles are drawn instanced (shaders/car.vert): a frame queues each vehicle in view
 * (rn_models_queue: its model matrix, paint, wheel angle and steer, lamps) and
 * rn_models_flush draws every model's queue with one call, and one more for the lamps
 * that are lit on any of its vehicles (they glow: emissive). Draw calls grow with the
 * models in view, not with the vehicles: 50 sedans cost what one does (on llvmpipe a
 * car had been 6 calls, docs/performance.md).
 *
 * Names: "car" is one of the car models picked by the vehicle's id (hatchback, sedan,
 * estate, suv); another name NAME is DIR/NAME.glb; for the ego (its vehicle file, a
 * local file) a name with a '/' or ending in .glb or .gltf is a file path as it stands.
 * Names from the bus are names only (letters, digits, '-', '_'): a traffic.state cannot
 * make the node open a file outside DIR. At most RN_MODELS_MAX names are kept. */
#ifndef RN_MODELS_H
#define RN_MODELS_H

#include <stdbool.h>

#include "gfx.h"
#include "sim_camera.h"
#include "sim_error.h"

/* Index ranges in this order, one after the other: the fixed parts and the lamps that
 * are off are drawn as one range, the paint and a painted bonnet as another. */
enum { RN_GROUP_FIXED, RN_GROUP_BRAKE, RN_GROUP_HEAD, RN_GROUP_IND_LEFT, RN_GROUP_IND_RIGHT, RN_GROUP_PAINT,
       RN_GROUP_BONNET, RN_GROUP_COUNT };

#define RN_MODEL_MAX_WHEELS 16   /* car.vert's u_wheels */
#define RN_PART_WHEEL 16          /* a vertex's part: a group, or RN_PART_WHEEL + its wheel */
#define RN_MODELS_TRACKED 512   /* vehicles whose wheel angles are remembered */
#define RN_MODELS_MAX 64        /* model names kept (loaded or failed); more: boxes */

typedef struct rn_range {
    int first, count;           /* indices into the model's index buffer */
} rn_range;

typedef struct rn_model_wheel {
    float pivot[3];             /* the wheel's centre, model frame */
    bool steers;                /* "wheel_f*" */
    rn_range r;
} rn_model_wheel;

/* Floats per queued vehicle: the model matrix's three rows, paint (rgb, on), wheels
 * (cos, sin of the roll angle; cos, sin of the steer), lamps (brake group 0 off / 1 tail / 2 brake, head, left, right). */
#define RN_CAR_FLOATS 24

typedef struct rn_model {
    char *key;                  /* the name asked for (owned) */
    char *path;                 /* the file read (owned) */
    bool failed;                /* could not be loaded: a box stands in */
    gfx_mesh mesh;
    GLuint part_vbo, inst_vbo;  /* per vertex its part; per vehicle RN_CAR_FLOATS */
    float *queue;               /* this frame's vehicles (owned), RN_CAR_FLOATS each */
    int n_queued, cap_queued;
    bool lamps_lit;             /* a queued vehicle has a lamp on: a second, glowing draw */
    rn_range group[RN_GROUP_COUNT];
    rn_model_wheel wheels[RN_MODEL_MAX_WHEELS];
    int n_wheels;
    float lo[3], hi[3];         /* bounds, model frame */
    double wheel_radius, wheelbase; /* m, from the wheels' parts (0 without wheels) */
    long triangles;
    bool bonnet_painted;        /* the bonnet has the paint's colour: it takes a car's too */
} rn_model;

/* Per vehicle: the wheels' angle, integrated over the frames it was drawn in. */
typedef struct rn_wheel_state {
    unsigned key;               /* the vehicle's id hash; 0 free */
    double angle, heading, clock, steer;
} rn_wheel_state;

typedef struct rn_vehicle_look {
    double pos[3];              /* ground below the vehicle's middle, world */
    double heading, pitch, roll;
    double length;              /* m: the model is scaled evenly to it */
    double speed;               /* m/s, for the wheels */
    double steer;               /* rad at the front wheels; NAN: from the yaw rate */
    unsigned key;               /* the vehicle's id hash (wheel state, car variant) */
    const float *paint;         /* the paint's colour; NULL: the model's own */
    bool brake, left, right, head;
} rn_vehicle_look;

typedef struct rn_models {
    char *dir;                  /* owned */
    rn_model *items;
    int n, cap;
    int ego, cockpit;           /* items index or -1 */
    double ego_length;          /* m: the ego's model is scaled to it */
    rn_wheel_state wheels[RN_MODELS_TRACKED];
    GLint u_model, u_tint, u_tint_on, u_emissive;
    GLuint car;                 /* the instanced program (not owned) and its uniforms */
    GLint u_car_wheels, u_car_bonnet, u_car_lamp_pass, u_car_emissive, u_car_tint_on;
    int draw_calls;
    int vehicles;               /* drawn from models this frame (instances) */
    long triangles;             /* this frame's, model vehicles only */
    int failures;               /* models that could not be loaded */
} rn_models;

/* Advances a vehicle's wheels to `clock` (no GL): the angle by the distance rolled
 * (speed dt / radius; dt at most 0.5 s, so a vehicle seen again after a while does not
 * spin), the steer to look->steer or, when that is NAN, to what the yaw rate since the
 * last call asks of a bicycle model (tan(steer) = wheelbase * yaw rate / speed, within
 * +-0.6 rad, eased over 0.2 s). Radius and wheelbase in metres as drawn. */
void rn_wheels_advance(rn_wheel_state *s, const rn_vehicle_look *look, double radius, double wheelbase,
                       double clock);

/* The lit program's uniforms from prog; models from dir (NULL: "models"). */
void rn_models_init(rn_models *ms, GLuint prog, const char *dir);
void rn_models_free(rn_models *ms);
/* The lit program the cockpit is drawn with (its uniforms). */
void rn_models_set_lit(rn_models *ms, GLuint prog);
/* Where model names are looked up (before the first rn_models_get); SIM_ENOMEM. */
int rn_models_set_dir(rn_models *ms, const char *dir);
/* The model for name (loaded now if new): its index, or -1 when it cannot be loaded
 * (err says why, naming the file; the first failure of a name is printed on stderr).
 * paths: name may be a file path (the ego's), else a name only (traffic). */
int rn_models_get(rn_models *ms, const char *name, bool paths, unsigned key, sim_error *err);
/* The ego's model and cockpit by name (either NULL: none); -1 with err when one was
 * named and could not be loaded (the box and the built-in cockpit stand in). */
int rn_models_set_ego(rn_models *ms, const char *model, const char *cockpit, double length, sim_error *err);
/* The instanced vehicle program (shaders/car.vert; the caller owns it). */
void rn_models_set_program(rn_models *ms, GLuint car);
/* Queues a vehicle with model `index` at `clock` (s, the node's), its wheels advanced;
 * false when there is no such model (the caller draws the box) or no memory. */
bool rn_models_queue(rn_models *ms, int index, const rn_vehicle_look *look, double clock);
/* Draws what was queued with the instanced program (left in use) and empties the
 * queues: per model one call, and one for its lit lamps when any is on. */
void rn_models_flush(rn_models *ms);
/* The ego's bonnet (from its model) and cockpit model from the driver's seat; false
 * when the ego has neither (the caller draws the built-in one). */
bool rn_models_draw_cockpit(rn_models *ms, const sim_pose *pose, double cog_height);

#endif
