/* sim_sb_profile: an OpenSCENARIO 1.2 SpeedProfileAction's speed over time
 * (docs/openscenario.md), pure computation.
 *
 * The entries (each a speed, reached `time` s after the one before; time not given: as
 * fast as the limits allow) become the corners of a piecewise linear speed, every
 * slope held within maxAcceleration / maxDeceleration (an entry asking for more is
 * reached later). followingMode "position" drives that polyline as it is (the
 * acceleration steps at its corners); "follow" rounds each corner by changing the
 * acceleration at maxAccelerationRate / maxDecelerationRate (jerk), so the speed
 * leaves one slope and joins the next on its line. The plan is a list of segments,
 * each v(tau) = v + k (tau - t) + j (tau - t)^2 / 2 from its start t (s after the
 * action started) to the next one's; the last has k = j = 0 (the final speed). As
 * esmini plays it (OSCPrivateAction.cpp, LongSpeedProfileAction) but for two cases:
 * a follow profile of one entry rounds its two corners like any other (esmini solves
 * for arriving at the entry's time), and an entry's speed relative to an entity is
 * relative in position mode too. */
#ifndef SIM_SB_PROFILE_H
#define SIM_SB_PROFILE_H

#include <stdbool.h>

typedef struct sim_sb_seg {
    double t, v, k, j;             /* start (s from the action's start), m/s, m/s^2, m/s^3 */
} sim_sb_seg;

typedef struct sim_sb_limits {     /* INFINITY: no limit */
    double max_speed, max_acc, max_dec, max_acc_rate, max_dec_rate;
} sim_sb_limits;

/* Room a plan of n entries needs (segments and the planner's scratch). */
#define SIM_SB_PROFILE_CAP(n) (3 * (n) + 6)

/* Plans a profile of n >= 1 entries (time[i], NAN: not given, and speed[i] + offset)
 * from speed v_now and acceleration a_now at tau = 0 into out (room for
 * SIM_SB_PROFILE_CAP(n)); returns the number of segments (>= 1). */
int sim_sb_profile_plan(const double *time, const double *speed, int n, bool follow, double v_now, double a_now,
                        double offset, const sim_sb_limits *lim, sim_sb_seg *out);

/* The planned speed at tau; *cur is the segment reached so far (start at 0; it only
 * moves forward). */
double sim_sb_profile_speed(const sim_sb_seg *seg, int n, int *cur, double tau);

#endif
