/* sim_predict: constant turn rate and acceleration (see sim_predict.h). */
#include "sim_predict.h"

#include <math.h>

void sim_predict(const sim_pose *p, const sim_motion *m, double dt, sim_pose *out)
{
    sim_pose r = *p;
    if (!(dt > 0)) {
        *out = r;
        return;
    }
    if (dt > SIM_PREDICT_MAX) dt = SIM_PREDICT_MAX;
    double v = isfinite(m->speed) ? m->speed : 0, w = isfinite(m->yaw_rate) ? m->yaw_rate : 0;
    double a = isfinite(m->accel) ? m->accel : 0, vz = isfinite(m->vz) ? m->vz : 0;
    int n = (int)ceil(dt / SIM_PREDICT_STEP - 1e-9);
    double h = dt / n;
    for (int i = 0; i < n; i++) {
        /* the distance of this step at constant a, stopping at zero speed (a brake
         * does not drive the car backwards) */
        if (v == 0 && a <= 0) break; /* standing: a brake holds it */
        double v1 = v + a * h, s;
        if (v != 0 && (v > 0) != (v1 > 0)) {
            s = -v * v / (2 * a); /* stops within the step */
            v1 = 0;
        } else {
            s = 0.5 * (v + v1) * h;
        }
        double th = w * h, hd = r.heading;
        if (fabs(th) < 1e-9) {
            r.pos[0] += s * cos(hd);
            r.pos[1] += s * sin(hd);
        } else {
            /* the arc of length s turning th: chord s * sinc(th/2) at the mean heading */
            double chord = s * sin(th / 2) / (th / 2);
            r.pos[0] += chord * cos(hd + th / 2);
            r.pos[1] += chord * sin(hd + th / 2);
        }
        r.heading = hd + th;
        r.pos[2] += vz * h;
        v = v1;
    }
    r.heading = remainder(r.heading, 2 * M_PI);
    *out = r;
}
