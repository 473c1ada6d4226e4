/* sim_motion_washout: the classical washout (sim_motion_washout.h). */
#include "sim_motion_washout.h"

#include <math.h>
#include <string.h>

static double clip(double v, double lim)
{
    return v > lim ? lim : v < -lim ? -lim : v;
}

void sim_motion_washout_defaults(sim_motion_washout_params *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 3; i++) {
        p->f_scale[i] = 0.5;
        p->f_limit[i] = 6.0;
        p->f_omega[i] = 2.5;
        p->f_zeta[i] = 0.7;
        p->f_return[i] = 0.5;
        p->w_scale[i] = 0.5;
        p->w_limit[i] = 1.0;
        p->w_omega[i] = 1.0;
        p->w_zeta[i] = 0.7;
    }
    p->tilt_omega = 3.0;
    p->tilt_zeta = 0.8;
    p->tilt_rate_max = 3.0 * M_PI / 180;
    p->tilt_max = 10.0 * M_PI / 180;
}

int sim_motion_washout_read(sim_json *j, const cJSON *v, const char *path, sim_motion_washout_params *p)
{
    if (!v) return SIM_OK;
    static const char *const top[] = {"surge", "sway", "heave", "roll", "pitch", "yaw", "tilt"};
    static const char *const trans[] = {"scale", "limit", "omega", "zeta", "return_omega"};
    static const char *const rot[] = {"scale", "limit", "omega", "zeta"};
    static const char *const tilt[] = {"omega", "zeta", "rate_max_deg_s", "max_deg"};
    char pa[SIM_JSON_PATH_MAX];
    int rc = sim_json_object(j, v, path);
    if (!rc) rc = sim_json_keys(j, v, path, top, 7);
    for (int i = 0; i < 3 && !rc; i++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(v, top[i]);
        if (!o) continue;
        sim_json_key_path(pa, path, top[i]);
        rc = sim_json_object(j, o, pa);
        if (!rc) rc = sim_json_keys(j, o, pa, trans, 5);
        if (!rc) rc = sim_json_num(j, o, pa, "scale", false, p->f_scale[i], SIM_JSON_RANGE, 0, 1, &p->f_scale[i]);
        if (!rc) rc = sim_json_num(j, o, pa, "limit", false, p->f_limit[i], SIM_JSON_POS, 0, 0, &p->f_limit[i]);
        if (!rc) rc = sim_json_num(j, o, pa, "omega", false, p->f_omega[i], SIM_JSON_POS, 0, 0, &p->f_omega[i]);
        if (!rc) rc = sim_json_num(j, o, pa, "zeta", false, p->f_zeta[i], SIM_JSON_POS, 0, 0, &p->f_zeta[i]);
        if (!rc) rc = sim_json_num(j, o, pa, "return_omega", false, p->f_return[i], SIM_JSON_POS, 0, 0, &p->f_return[i]);
    }
    for (int i = 0; i < 3 && !rc; i++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(v, top[3 + i]);
        if (!o) continue;
        sim_json_key_path(pa, path, top[3 + i]);
        rc = sim_json_object(j, o, pa);
        if (!rc) rc = sim_json_keys(j, o, pa, rot, 4);
        if (!rc) rc = sim_json_num(j, o, pa, "scale", false, p->w_scale[i], SIM_JSON_RANGE, 0, 1, &p->w_scale[i]);
        if (!rc) rc = sim_json_num(j, o, pa, "limit", false, p->w_limit[i], SIM_JSON_POS, 0, 0, &p->w_limit[i]);
        if (!rc) rc = sim_json_num(j, o, pa, "omega", false, p->w_omega[i], SIM_JSON_POS, 0, 0, &p->w_omega[i]);
        if (!rc) rc = sim_json_num(j, o, pa, "zeta", false, p->w_zeta[i], SIM_JSON_POS, 0, 0, &p->w_zeta[i]);
    }
    const cJSON *o = rc ? NULL : cJSON_GetObjectItemCaseSensitive(v, "tilt");
    if (o) {
        sim_json_key_path(pa, path, "tilt");
        double rate = p->tilt_rate_max * 180 / M_PI, max = p->tilt_max * 180 / M_PI;
        rc = sim_json_object(j, o, pa);
        if (!rc) rc = sim_json_keys(j, o, pa, tilt, 4);
        if (!rc) rc = sim_json_num(j, o, pa, "omega", false, p->tilt_omega, SIM_JSON_POS, 0, 0, &p->tilt_omega);
        if (!rc) rc = sim_json_num(j, o, pa, "zeta", false, p->tilt_zeta, SIM_JSON_POS, 0, 0, &p->tilt_zeta);
        if (!rc) rc = sim_json_num(j, o, pa, "rate_max_deg_s", false, rate, SIM_JSON_POS, 0, 0, &rate);
        if (!rc) rc = sim_json_num(j, o, pa, "max_deg", false, max, SIM_JSON_RANGE, 0, 45, &max);
        p->tilt_rate_max = rate * M_PI / 180;
        p->tilt_max = max * M_PI / 180;
    }
    return rc;
}

int sim_motion_washout_init(sim_motion_washout *w, const sim_motion_washout_params *p, double dt,
                            sim_error *err)
{
    memset(w, 0, sizeof *w);
    w->p = *p;
    w->dt = dt;
    int rc = SIM_OK;
    for (int i = 0; i < 3 && !rc; i++) {
        double om = p->f_omega[i], z = p->f_zeta[i], wb = p->f_return[i];
        if (!(om > 0 && z > 0 && wb > 0 && p->w_omega[i] > 0 && p->w_zeta[i] > 0))
            return sim_error_set(err, SIM_EINVAL, "washout axis %d: frequencies and dampings must be > 0", i);
        /* (s^2 + 2 z om s + om^2)(s + wb) */
        double den[4] = {om * om * wb, om * om + 2 * z * om * wb, 2 * z * om + wb, 1};
        rc = sim_motion_filter_init(&w->pos[i], 3, (double[]){0, 1, 0, 0}, den, dt, err);
        if (!rc) rc = sim_motion_filter_init(&w->vel[i], 3, (double[]){0, 0, 1, 0}, den, dt, err);
        if (!rc) rc = sim_motion_filter_init(&w->acc[i], 3, (double[]){0, 0, 0, 1}, den, dt, err);
        double ro = p->w_omega[i], rz = p->w_zeta[i];
        double rden[3] = {ro * ro, 2 * rz * ro, 1};
        if (!rc) rc = sim_motion_filter_init(&w->ang[i], 2, (double[]){0, 1, 0}, rden, dt, err);
        if (!rc) rc = sim_motion_filter_init(&w->rate[i], 2, (double[]){0, 0, 1}, rden, dt, err);
    }
    if (!(p->tilt_omega > 0 && p->tilt_zeta > 0 && p->tilt_rate_max > 0 && p->tilt_max >= 0))
        return sim_error_set(err, SIM_EINVAL, "washout tilt: frequency, damping and rate limit must be > 0");
    double to = p->tilt_omega;
    for (int i = 0; i < 2 && !rc; i++)
        rc = sim_motion_filter_init(&w->tilt[i], 2, (double[]){to * to, 0, 0},
                                    (double[]){to * to, 2 * p->tilt_zeta * to, 1}, dt, err);
    return rc;
}

/* all: also the velocity, acceleration and rate filters (the pose needs none of them) */
static void washout_step(sim_motion_washout *w, const sim_motion_input *in, sim_motion_cue *out, bool all)
{
    const sim_motion_washout_params *p = &w->p;
    for (int i = 0; i < 3; i++) {
        double u = clip(p->f_scale[i] * (in->f[i] - (i == 2 ? SIM_MOTION_G : 0)), p->f_limit[i]);
        out->pos[i] = sim_motion_filter_step(&w->pos[i], u);
        double r = clip(p->w_scale[i] * in->w[i], p->w_limit[i]);
        out->ang[i] = sim_motion_filter_step(&w->ang[i], r);
        if (!all) continue;
        out->vel[i] = sim_motion_filter_step(&w->vel[i], u);
        out->acc[i] = sim_motion_filter_step(&w->acc[i], u);
        out->rate[i] = sim_motion_filter_step(&w->rate[i], r);
    }
    /* tilt[0]: roll from y, tilt[1]: pitch from x (nose up for a forward force) */
    for (int k = 0; k < 2; k++) {
        int axis = k == 0 ? 1 : 0;
        double u = clip(p->f_scale[axis] * in->f[axis], p->f_limit[axis]);
        double lp = sim_motion_filter_step(&w->tilt[k], u) / SIM_MOTION_G;
        double want = asin(lp > 1 ? 1 : lp < -1 ? -1 : lp) * (k == 0 ? 1 : -1);
        want = clip(want, p->tilt_max);
        double step = p->tilt_rate_max * w->dt;
        w->tilt_angle[k] += clip(want - w->tilt_angle[k], step);
        out->tilt[k] = w->tilt_angle[k];
    }
    out->ang[0] += out->tilt[0];
    out->ang[1] += out->tilt[1];
}

void sim_motion_washout_step(sim_motion_washout *w, const sim_motion_input *in, sim_motion_cue *out)
{
    washout_step(w, in, out, true);
}

void sim_motion_washout_pose_step(sim_motion_washout *w, const sim_motion_input *in, sim_motion_cue *out)
{
    washout_step(w, in, out, false);
}

void sim_motion_washout_reset(sim_motion_washout *w)
{
    for (int i = 0; i < 3; i++) {
        sim_motion_filter_reset(&w->pos[i]);
        sim_motion_filter_reset(&w->vel[i]);
        sim_motion_filter_reset(&w->acc[i]);
        sim_motion_filter_reset(&w->ang[i]);
        sim_motion_filter_reset(&w->rate[i]);
    }
    sim_motion_filter_reset(&w->tilt[0]);
    sim_motion_filter_reset(&w->tilt[1]);
    w->tilt_angle[0] = w->tilt_angle[1] = 0;
}
