/* objects: what moves: the other cars (body, cabin, wheels, brake lights, indicators,
 * headlights) and the ego car (its bonnet and dashboard seen from the driver's seat,
 * the whole car in the chase view). Meshes are made once in the car's frame (x
 * forward, y left, z up, origin on the ground below the middle) for a 4.5 x 1.8 x
 * 1.45 m car and scaled to each car's size. */
#ifndef RN_OBJECTS_H
#define RN_OBJECTS_H

#include "gfx.h"
#include "models.h"
#include "sim_camera.h"
#include "traffic_in.h"

typedef struct rn_objects {
    gfx_mesh body, details, brake, ind_left, ind_right, head;
    gfx_mesh bonnet, dash;
    GLint u_model, u_tint, u_tint_on, u_emissive;
    int draw_calls;
    rn_models models;   /* vehicles from model files; the boxes above stand in for them */
} rn_objects;

/* The lit program's uniform locations are looked up from prog. */
int rn_objects_init(rn_objects *o, GLuint prog, sim_error *err);
void rn_objects_free(rn_objects *o);
/* The lit program whose uniforms the boxes, the cockpit and models' plain draws set
 * (scene.c switches between variants of it). */
void rn_objects_set_program(rn_objects *o, GLuint prog);

/* Lamps' state for one car. */
typedef struct rn_lamps {
    bool brake, left, right, head;
} rn_lamps;

/* A car at pos (ground below its middle) with heading and size, body colour rgb. */
void rn_objects_draw_car(rn_objects *o, const double pos[3], double heading, double pitch, double roll,
                         const double size[3], const float rgb[3], const rn_lamps *lamps);
/* The ego car's interior seen from the driver's eye: body-frame model matrix of the
 * pose (reference point = centre of gravity, cog_height above the ground). */
void rn_objects_draw_cockpit(rn_objects *o, const sim_pose *pose, double cog_height, const double eye[3]);
/* A traffic car from its model (queued for rn_objects_flush, models.c), or drawn as a
 * box now when it has none. */
void rn_objects_draw_agent(rn_objects *o, const rn_agent *a, const float rgb[3], const rn_lamps *lamps,
                           double clock);
/* Draws the queued vehicles instanced (models.c), then makes prog current again. */
void rn_objects_flush(rn_objects *o, GLuint prog);
/* The ego car in the chase view (pose: its centre of gravity, cog_height above the
 * ground) from its vehicle file's model (queued as a traffic car's), or a red box; speed (m/s) and steer (rad at
 * the front wheels) turn its wheels. */
void rn_objects_draw_ego(rn_objects *o, const sim_pose *pose, double cog_height, const double size[3],
                         double speed, double steer, const rn_lamps *lamps, double clock);
/* A pleasant body colour from a hash. */
void rn_objects_colour(unsigned hash, float rgb[3]);

#endif
