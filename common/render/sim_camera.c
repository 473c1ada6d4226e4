/* sim_camera: views, matrices and frustum planes (sim_camera.h). */
#include "sim_camera.h"

#include <assert.h>
#include <math.h>
#include <string.h>

static const char *const view_names[SIM_VIEW_COUNT] = {
    "front", "left", "right", "rear-mirror", "left-mirror", "right-mirror", "chase"};

const char *sim_view_name(sim_view v)
{
    return (unsigned)v < SIM_VIEW_COUNT ? view_names[v] : "?";
}

int sim_view_parse(const char *name)
{
    for (int i = 0; name && i < SIM_VIEW_COUNT; i++)
        if (strcmp(name, view_names[i]) == 0)
            return i;
    return -1;
}

void sim_pose_rotation(const sim_pose *p, double r[9])
{
    /* R = Rz(heading) * Ry(pitch) * Rx(roll): a positive rotation about the left axis
     * takes the nose down, one about the forward axis takes the right side down. */
    double ch = cos(p->heading), sh = sin(p->heading);
    double cp = cos(p->pitch), sp = sin(p->pitch);
    double cr = cos(p->roll), sr = sin(p->roll);
    r[0] = ch * cp; r[1] = ch * sp * sr - sh * cr; r[2] = ch * sp * cr + sh * sr;
    r[3] = sh * cp; r[4] = sh * sp * sr + ch * cr; r[5] = sh * sp * cr - ch * sr;
    r[6] = -sp;     r[7] = cp * sr;                r[8] = cp * cr;
}

static void rotate(const double r[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = r[3 * i] * v[0] + r[3 * i + 1] * v[1] + r[3 * i + 2] * v[2];
}

void sim_pose_to_world(const sim_pose *p, const double body[3], double world[3])
{
    double r[9], w[3];
    sim_pose_rotation(p, r);
    rotate(r, body, w);
    for (int i = 0; i < 3; i++)
        world[i] = p->pos[i] + w[i];
}

double sim_view_default_fov(sim_view v)
{
    switch (v) {
    case SIM_VIEW_REAR_MIRROR: return 12.0 * M_PI / 180.0;
    case SIM_VIEW_LEFT_MIRROR:
    case SIM_VIEW_RIGHT_MIRROR: return 18.0 * M_PI / 180.0;
    case SIM_VIEW_CHASE: return 50.0 * M_PI / 180.0;
    default: return 45.0 * M_PI / 180.0;
    }
}

void sim_mat4_identity(float m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

void sim_mat4_mul(float out[16], const float a[16], const float b[16])
{
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float s = 0;
            for (int k = 0; k < 4; k++)
                s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

void sim_mat4_perspective(float m[16], double fov_y, double aspect, double zn, double zf)
{
    double f = 1.0 / tan(fov_y / 2);
    memset(m, 0, 16 * sizeof *m);
    m[0] = (float)(f / aspect);
    m[5] = (float)f;
    m[10] = (float)((zf + zn) / (zn - zf));
    m[11] = -1.0f;
    m[14] = (float)(2 * zf * zn / (zn - zf));
}

/* The view's direction (yaw in the body frame) and eye position (body frame). */
static void view_place(const sim_camera_params *p, const sim_view_rig *rig, double hfov,
                       double *yaw, double eye[3], bool *mirrored)
{
    memcpy(eye, rig->eye, 3 * sizeof *eye);
    *mirrored = false;
    *yaw = 0;
    double half_w = rig->width > 0 ? rig->width / 2 : 0.9;
    double half_l = rig->length > 0 ? rig->length / 2 : 2.25;
    switch (p->view) {
    case SIM_VIEW_FRONT: break;
    case SIM_VIEW_LEFT: *yaw = hfov; break;
    case SIM_VIEW_RIGHT: *yaw = -hfov; break;
    case SIM_VIEW_REAR_MIRROR:
        /* the interior mirror: ahead of the eyes, on the car's centre line */
        eye[0] += 0.55; eye[1] = 0; eye[2] += 0.12;
        *yaw = M_PI; *mirrored = true;
        break;
    case SIM_VIEW_LEFT_MIRROR:
    case SIM_VIEW_RIGHT_MIRROR: {
        double side = p->view == SIM_VIEW_LEFT_MIRROR ? 1 : -1;
        eye[0] += 0.6; eye[1] = side * (half_w + 0.12); eye[2] -= 0.12;
        *yaw = M_PI - side * 0.12; *mirrored = true; /* back and a little outward */
        break;
    }
    case SIM_VIEW_CHASE:
        eye[0] = -(half_l + 6.5); eye[1] = 0; eye[2] = 2.6;
        break;
    default: assert(!"unknown view");
    }
}

void sim_camera_setup(sim_camera *c, const sim_pose *pose, const sim_view_rig *rig,
                      const sim_camera_params *params)
{
    memset(c, 0, sizeof *c);
    c->fov_y = params->fov_y > 0 ? params->fov_y : sim_view_default_fov(params->view);
    c->aspect = params->aspect > 0 ? params->aspect : 16.0 / 9.0;
    c->z_near = params->z_near > 0 ? params->z_near : 0.1;
    c->z_far = params->z_far > 0 ? params->z_far : 4000.0;
    double hfov = 2 * atan(c->aspect * tan(c->fov_y / 2));

    double yaw, eye_body[3];
    view_place(params, rig, hfov, &yaw, eye_body, &c->mirrored);
    yaw += params->yaw_offset;
    double down = 0;
    sim_pose p = *pose;
    if (params->view == SIM_VIEW_CHASE) {
        /* the chase camera rides level behind the car and looks a little down at it */
        p.pitch = p.roll = 0;
        down = 0.16;
    }
    sim_pose_to_world(&p, eye_body, c->eye);

    double r[9];
    sim_pose_rotation(&p, r);
    double fb[3] = {cos(yaw) * cos(down), sin(yaw) * cos(down), -sin(down)};
    double lb[3] = {-sin(yaw), cos(yaw), 0};
    rotate(r, fb, c->forward);
    rotate(r, lb, c->left);
    /* up = forward x left */
    c->up[0] = c->forward[1] * c->left[2] - c->forward[2] * c->left[1];
    c->up[1] = c->forward[2] * c->left[0] - c->forward[0] * c->left[2];
    c->up[2] = c->forward[0] * c->left[1] - c->forward[1] * c->left[0];

    /* Rows of the view rotation: camera x = right = -left, y = up, z = back. */
    const double *rows[3] = {c->left, c->up, c->forward};
    const double sign[3] = {-1, 1, -1};
    sim_mat4_identity(c->view);
    for (int i = 0; i < 3; i++) {
        double t = 0;
        for (int k = 0; k < 3; k++) {
            c->view[k * 4 + i] = (float)(sign[i] * rows[i][k]);
            t += sign[i] * rows[i][k] * c->eye[k];
        }
        c->view[12 + i] = (float)-t;
    }
    sim_mat4_perspective(c->proj, c->fov_y, c->aspect, c->z_near, c->z_far);
    if (c->mirrored)
        c->proj[0] = -c->proj[0];
    sim_mat4_mul(c->view_proj, c->proj, c->view);
}

bool sim_camera_project(const sim_camera *c, const double w[3], double ndc[2])
{
    const float *m = c->view_proj;
    double x = m[0] * w[0] + m[4] * w[1] + m[8] * w[2] + m[12];
    double y = m[1] * w[0] + m[5] * w[1] + m[9] * w[2] + m[13];
    double h = m[3] * w[0] + m[7] * w[1] + m[11] * w[2] + m[15];
    if (h <= 0)
        return false;
    ndc[0] = x / h;
    ndc[1] = y / h;
    return true;
}

void sim_frustum_from_matrix(sim_frustum *f, const float m[16])
{
    /* Gribb and Hartmann: each plane is row 4 plus or minus row 1, 2 or 3. */
    for (int i = 0; i < 6; i++) {
        int row = i / 2;
        double s = (i % 2) ? -1 : 1;
        double n = 0;
        for (int k = 0; k < 4; k++) {
            f->p[i][k] = m[k * 4 + 3] + s * m[k * 4 + row];
            if (k < 3)
                n += f->p[i][k] * f->p[i][k];
        }
        n = sqrt(n);
        if (n > 0)
            for (int k = 0; k < 4; k++)
                f->p[i][k] /= n;
    }
}

bool sim_frustum_box_visible(const sim_frustum *f, const double lo[3], const double hi[3])
{
    for (int i = 0; i < 6; i++) {
        const double *p = f->p[i];
        /* the box corner furthest along the plane's normal */
        double x = p[0] >= 0 ? hi[0] : lo[0];
        double y = p[1] >= 0 ? hi[1] : lo[1];
        double z = p[2] >= 0 ? hi[2] : lo[2];
        if (p[0] * x + p[1] * y + p[2] * z + p[3] < 0)
            return false;
    }
    return true;
}
