/* sim_camera: the views a render node draws (driver's front, side screens, the three
 * mirrors, the operator's chase view), their view and projection matrices, and the
 * frustum planes used for culling.
 *
 * Frames: the world is x east, y north, z up. A vehicle pose is its reference point
 * (the physics' centre of gravity) with heading (rad, CCW from +x), pitch (nose down
 * positive) and roll (right side down positive), as in vehicle.state. The body frame
 * is x forward, y left, z up. The camera follows OpenGL: it looks down its -z with +y
 * up; matrices are column-major float[16] as glUniformMatrix4fv takes them.
 *
 * Mirrors show the scene reversed left to right: their projection has its x negated,
 * so the front faces of triangles wind the other way (sim_camera.mirrored).
 *
 * Pure computation, no globals. */
#ifndef SIM_CAMERA_H
#define SIM_CAMERA_H

#include <stdbool.h>

typedef enum {
    SIM_VIEW_FRONT,
    SIM_VIEW_LEFT,          /* the screen left of the front one: yaw + its fov */
    SIM_VIEW_RIGHT,
    SIM_VIEW_REAR_MIRROR,   /* interior mirror: looking back, mirrored */
    SIM_VIEW_LEFT_MIRROR,   /* door mirrors */
    SIM_VIEW_RIGHT_MIRROR,
    SIM_VIEW_CHASE,         /* the operator's view from behind and above the car */
    SIM_VIEW_COUNT
} sim_view;

/* "front", "left", ... ; parse returns -1 for an unknown name. */
const char *sim_view_name(sim_view v);
int sim_view_parse(const char *name);

/* A rigid pose in the world. */
typedef struct sim_pose {
    double pos[3];          /* m */
    double heading, pitch, roll; /* rad, conventions above */
} sim_pose;

/* Body-to-world rotation of a pose as a row-major 3x3 matrix: world = R * body. */
void sim_pose_rotation(const sim_pose *p, double r[9]);
/* A point given in the body frame of p, in world coordinates. */
void sim_pose_to_world(const sim_pose *p, const double body[3], double world[3]);

/* What a view needs from the vehicle: where the driver's eyes are (body frame,
 * relative to the pose's reference point) and the car's size for the mirrors and the
 * chase camera. */
typedef struct sim_view_rig {
    double eye[3];          /* m, body frame */
    double length, width;   /* m, of the car body */
} sim_view_rig;

typedef struct sim_camera_params {
    sim_view view;
    double yaw_offset;      /* rad, added to the view's own direction (left positive) */
    double fov_y;           /* rad, vertical field of view; <= 0: the view's default */
    double aspect;          /* width / height of the viewport */
    double z_near, z_far;   /* m; <= 0: defaults 0.1 and 4000 */
} sim_camera_params;

typedef struct sim_camera {
    double eye[3];          /* world position, m */
    double forward[3], left[3], up[3]; /* unit world directions */
    double fov_y, aspect, z_near, z_far;
    bool mirrored;
    float view[16], proj[16], view_proj[16]; /* column-major */
} sim_camera;

/* The view's default vertical fov (rad): 45 deg for screens, narrower for mirrors. */
double sim_view_default_fov(sim_view v);

/* Places the camera of params->view for the vehicle at pose with rig. */
void sim_camera_setup(sim_camera *c, const sim_pose *pose, const sim_view_rig *rig,
                      const sim_camera_params *params);

/* Projects a world point to normalised device coordinates (x, y in [-1, 1] on screen,
 * y up). Returns false when the point is behind the camera (w <= 0). */
bool sim_camera_project(const sim_camera *c, const double world[3], double ndc[2]);

/* ---- matrices -------------------------------------------------------------------- */

void sim_mat4_identity(float m[16]);
void sim_mat4_mul(float out[16], const float a[16], const float b[16]); /* out = a * b */
void sim_mat4_perspective(float m[16], double fov_y, double aspect, double z_near, double z_far);

/* ---- frustum --------------------------------------------------------------------- */

/* Six planes (a, b, c, d) with a*x + b*y + c*z + d >= 0 inside, normalised. */
typedef struct sim_frustum {
    double p[6][4];
} sim_frustum;

void sim_frustum_from_matrix(sim_frustum *f, const float view_proj[16]);
/* Whether the axis-aligned box [lo, hi] may be visible (false only when it is wholly
 * outside one plane: conservative). */
bool sim_frustum_box_visible(const sim_frustum *f, const double lo[3], const double hi[3]);

#endif
