/* sim_interp: pose interpolation between the last two vehicle states (sim_interp.h). */
#include "sim_interp.h"

#include <math.h>
#include <string.h>

static double angle_lerp(double a, double b, double f)
{
    double d = remainder(b - a, 2 * M_PI);
    return a + f * d;
}

void sim_pose_lerp(const sim_pose *a, const sim_pose *b, double f, sim_pose *out)
{
    sim_pose r;
    for (int i = 0; i < 3; i++)
        r.pos[i] = a->pos[i] + f * (b->pos[i] - a->pos[i]);
    r.heading = angle_lerp(a->heading, b->heading, f);
    r.pitch = angle_lerp(a->pitch, b->pitch, f);
    r.roll = angle_lerp(a->roll, b->roll, f);
    *out = r;
}

void sim_interp_push(sim_interp *ip, const sim_pose *pose, double t, double now)
{
    if (ip->n > 0 && (!(t > ip->t[1]) || t - ip->t[1] > SIM_INTERP_MAX_GAP))
        ip->n = 0; /* back in time, the same time again, or a gap: start over */
    if (ip->n > 0) {
        ip->pose[0] = ip->pose[1];
        ip->t[0] = ip->t[1];
    }
    ip->pose[1] = *pose;
    ip->t[1] = t;
    ip->arrival = now;
    ip->n = ip->n > 0 ? 2 : 1;
}

double sim_interp_at(const sim_interp *ip, double now, sim_pose *out)
{
    if (ip->n == 0) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    if (ip->n == 1) {
        *out = ip->pose[1];
        return ip->t[1];
    }
    double period = ip->t[1] - ip->t[0];
    double f = (now - ip->arrival) / period;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    sim_pose_lerp(&ip->pose[0], &ip->pose[1], f, out);
    return ip->t[0] + f * period;
}
