/* sim_vehicle_ffb: the steering-wheel torque for force feedback (ffb.command), from the
 * front tyres' aligning moments, a speed-dependent centring spring and road rumble.
 * The platform paper (3.3.2) feeds the centrifugal force and the road surface back
 * through the gaming wheel; here the aligning moment carries the first (it grows with
 * lateral force and fades as the front tyres reach their limit, the cue drivers use),
 * and the roughness of the ground under the wheels the second. Pure function. */
#include "sim_vehicle.h"

#include <math.h>

void sim_ffb_params_default(sim_ffb_params *p)
{
    p->aligning_full = 120.0; /* N m at the road wheels, roughly 0.6 g on a mid-size car */
    p->centring = 0.35;
    p->centring_speed = 20.0;
    p->damper = 0.15;
    p->rumble_gain = 0.6;
    p->rumble_speed = 25.0;
}

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

sim_ffb_output sim_vehicle_ffb(const sim_ffb_params *p, const sim_vehicle_state *s, double steer)
{
    sim_ffb_output o = {0, 0, 0, 0, 0};
    double v = fabs(s->speed);
    double mz = s->wheel[SIM_WHEEL_FL].mz + s->wheel[SIM_WHEEL_FR].mz;
    /* Mz is negative for a wheel steered left of its travel and turns it back right,
     * so it maps to the wheel's torque with its own sign (positive = left). */
    double align = p->aligning_full > 0 ? mz / p->aligning_full : 0.0;
    double speed_share = clamp(v / p->centring_speed, 0.0, 1.0);
    double centring = -p->centring * speed_share * steer;
    o.torque = clamp(align + centring, -1.0, 1.0);
    o.spring = clamp(p->centring * (0.3 + 0.7 * speed_share), 0.0, 1.0);
    o.damper = clamp(p->damper * (1.0 + (1.0 - speed_share)), 0.0, 1.0);
    double rough = 0.0;
    int contacts = 0;
    for (int i = 0; i < SIM_WHEELS; i++) {
        if (s->wheel[i].contact) {
            rough += s->wheel[i].roughness;
            contacts++;
        }
    }
    rough = contacts ? rough / contacts : 0.0;
    o.rumble = clamp(p->rumble_gain * rough * clamp(v / p->rumble_speed, 0.0, 1.0), 0.0, 1.0);
    o.rumble_hz = rough > 0.0 ? clamp(4.0 + 1.2 * v, 4.0, 60.0) : 0.0;
    return o;
}
