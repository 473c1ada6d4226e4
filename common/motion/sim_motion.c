/* sim_motion: the cueing chain (sim_motion.h). */
#include "sim_motion.h"

#include <math.h>
#include <string.h>

int sim_motion_init(sim_motion *m, const sim_motion_platform *pf, double dt, sim_error *err)
{
    if (!(dt > 0 && dt <= 0.1)) return sim_error_set(err, SIM_EINVAL, "motion step %g s, expected (0, 0.1]", dt);
    memset(m, 0, sizeof *m);
    m->pf = *pf;
    m->dt = dt;
    int rc = sim_motion_washout_init(&m->wo, &pf->washout, dt, err);
    if (rc) return rc;
    sim_motion_limiter_reset(&m->pf, &m->lim);
    return SIM_OK;
}

void sim_motion_fade(sim_motion *m, bool in)
{
    m->fade_in = in;
}

bool sim_motion_at_neutral(const sim_motion *m)
{
    if (m->fade_in || m->gain > 0) return false;
    for (int k = 0; k < 6; k++)
        if (fabs(m->lim.pose[k]) > 1e-9 || fabs(m->lim.pose[k] - m->lim.prev[k]) > 1e-9) return false;
    return true;
}

void sim_motion_step(sim_motion *m, const sim_motion_input *in, sim_motion_out *out)
{
    static const sim_motion_input rest = {.f = {0, 0, SIM_MOTION_G}};
    sim_motion_cue cue;
    sim_motion_washout_pose_step(&m->wo, in ? in : &rest, &cue);
    /* the fade: a half cosine, so that the gain's rate starts and ends at 0 */
    double fs = m->pf.fade_s;
    m->fade_t += m->fade_in ? m->dt : -m->dt;
    if (m->fade_t < 0) m->fade_t = 0;
    if (m->fade_t > fs) m->fade_t = fs;
    /* faded in or out the half cosine is 1 or 0 (cos(pi) is -1 in double) */
    m->gain = m->fade_t == fs ? 1 : m->fade_t == 0 ? 0 : 0.5 * (1 - cos(M_PI * m->fade_t / fs));
    if (m->gain == 0) sim_motion_washout_reset(&m->wo); /* faded out: start afresh next time */
    double want[6];
    for (int k = 0; k < 3; k++) {
        want[k] = m->gain * cue.pos[k];
        want[3 + k] = m->gain * cue.ang[k];
    }
    double prev[6], prev_vel[6];
    memcpy(prev, m->head, sizeof prev);
    memcpy(prev_vel, m->vel, sizeof prev_vel);
    out->limits = sim_motion_limit(&m->pf, &m->lim, want, m->dt, out->pose, out->len);
    out->gain = m->gain;
    /* the head's place (a seat turns it about its pivot) and the angles */
    if (m->pf.pivot[0] || m->pf.pivot[1] || m->pf.pivot[2]) sim_motion_head(&m->pf, out->pose, m->head);
    else memcpy(m->head, out->pose, 3 * sizeof *m->head); /* turning about the head leaves it in place */
    memcpy(m->head + 3, out->pose + 3, 3 * sizeof *m->head);
    double inv_dt = 1 / m->dt;
    for (int k = 0; k < 6; k++) m->vel[k] = (m->head[k] - prev[k]) * inv_dt;
    /* what the driver feels: the head's acceleration (small angles: in the moving
     * frame) plus gravity through the tilt; pitch up (negative) pushes back */
    double acc[3]; /* the sines and cosines of the pose's roll and pitch: the limiter's */
    const sim_motion_limiter *l = &m->lim;
    for (int k = 0; k < 3; k++) acc[k] = (m->vel[k] - prev_vel[k]) * inv_dt;
    out->f[0] = acc[0] - SIM_MOTION_G * l->sin_pitch;
    out->f[1] = acc[1] + SIM_MOTION_G * l->sin_roll * l->cos_pitch;
    out->f[2] = acc[2] + SIM_MOTION_G * l->cos_roll * l->cos_pitch;
    for (int k = 0; k < 3; k++) out->w[k] = m->vel[3 + k];
}

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

void sim_motion_head_force(const double a_cog[3], const double w[3], const double alpha[3], const double r[3],
                           const double up[3], double f[3])
{
    double ar[3], wr[3], wwr[3];
    cross(alpha, r, ar);
    cross(w, r, wr);
    cross(w, wr, wwr);
    for (int k = 0; k < 3; k++) f[k] = a_cog[k] + ar[k] + wwr[k] + up[k];
}
