/* sim_lct: Lane Change Test tracks (see sim_lct.h). The sign order is an Euler circuit
 * of the complete directed graph on the three lanes with every edge taken three times:
 * every change kind appears equally often and each change starts where the previous one
 * ended. A seeded random walk that never strands itself (Fleury's rule: a remaining edge
 * whose use would leave the rest disconnected is taken last) finds one per track. */
#include "sim_lct.h"
#include "sim_rand.h"

#include <math.h>
#include <string.h>

void sim_lct_params_init(sim_lct_params *p)
{
    *p = (sim_lct_params){.track = 1, .length = 3000, .lane_width = 3.85, .speed_kmh = 60,
                          .first_sign = 150, .spacing_min = 140, .spacing_max = 160,
                          .visibility = 40, .lc_before = 30, .lc_length = 20, .tube_half_width = 1};
}

/* splitmix64 of (seed, k, stream) -> uniform in [0, 1) (sim_rand; the LCT's own salt) */
static double draw(uint64_t seed, int k, int stream)
{
    return sim_rand_draw(seed, (uint64_t)k, (uint64_t)stream, 0x6A09E667F3BCC909ull);
}

/* Whether every lane with edges left can still be reached from `from` (and the edges
 * can all be used): with in = out degrees, connectivity from `from` suffices. */
static bool connected(int left[SIM_LCT_LANES][SIM_LCT_LANES], int from)
{
    bool seen[SIM_LCT_LANES] = {false};
    int stack[SIM_LCT_LANES * SIM_LCT_LANES], n = 0;
    stack[n++] = from;
    seen[from] = true;
    while (n) {
        int a = stack[--n];
        for (int b = 0; b < SIM_LCT_LANES; b++)
            if (left[a][b] && !seen[b]) seen[b] = true, stack[n++] = b;
    }
    for (int a = 0; a < SIM_LCT_LANES; a++)
        for (int b = 0; b < SIM_LCT_LANES; b++)
            if (left[a][b] && !seen[a]) return false;
    return true;
}

int sim_lct_track_make(const sim_lct_params *p, sim_lct_track *out, sim_error *err)
{
    if (p->track < 1) return sim_error_set(err, SIM_EINVAL, "LCT: track %d, expected 1 or more", p->track);
    if (!(p->spacing_min > p->lc_before && p->spacing_max >= p->spacing_min))
        return sim_error_set(err, SIM_EINVAL, "LCT: sign spacing %g..%g m must exceed the lane change's "
                             "start %g m before the sign", p->spacing_min, p->spacing_max, p->lc_before);
    if (!(p->lc_length > 0 && p->lc_before >= 0 && p->lc_length <= p->lc_before + p->spacing_min))
        return sim_error_set(err, SIM_EINVAL, "LCT: lane change of %g m from %g m before the sign does not fit "
                             "between signs", p->lc_length, p->lc_before);
    if (!(p->visibility >= 0))
        return sim_error_set(err, SIM_EINVAL, "LCT: legibility distance %g m, expected 0 or more", p->visibility);
    double last = p->first_sign + (SIM_LCT_CHANGES - 1) * p->spacing_max;
    if (!(p->first_sign - p->lc_before > 20 && last + 100 <= p->length))
        return sim_error_set(err, SIM_EINVAL, "LCT: signs from %g m to up to %g m do not fit a %g m track "
                             "(room for the start and 100 m after the last)", p->first_sign, last, p->length);
    uint64_t seed = (uint64_t)p->track;
    int left[SIM_LCT_LANES][SIM_LCT_LANES];
    for (int a = 0; a < SIM_LCT_LANES; a++)
        for (int b = 0; b < SIM_LCT_LANES; b++) left[a][b] = a == b ? 0 : SIM_LCT_CHANGES / 6;
    int lane = (int)(draw(seed, 0, 1) * SIM_LCT_LANES);
    out->start_lane = lane + 1;
    double s = p->first_sign;
    for (int k = 0; k < SIM_LCT_CHANGES; k++) {
        int options[SIM_LCT_LANES], n = 0, fallback = -1;
        for (int b = 0; b < SIM_LCT_LANES; b++) {
            if (!left[lane][b]) continue;
            left[lane][b]--;
            if (connected(left, b)) options[n++] = b;
            else fallback = b;
            left[lane][b]++;
        }
        int to = n ? options[(int)(draw(seed, k + 1, 2) * n) % n] : fallback;
        left[lane][to]--;
        out->change[k] = (sim_lct_change){s, lane + 1, to + 1};
        lane = to;
        s += p->spacing_min + (p->spacing_max - p->spacing_min) * draw(seed, k + 1, 3);
    }
    return 0;
}

sim_lct_board sim_lct_board_at(double ahead_m, double legible_m)
{
    if (!(legible_m > 0)) return SIM_LCT_BOARD_LANES;
    return ahead_m <= legible_m ? SIM_LCT_BOARD_LANES : SIM_LCT_BOARD_BLANK;
}

double sim_lct_board_ahead(double bx, double by, double vx, double vy, double dx, double dy)
{
    double n = hypot(dx, dy);
    if (!(n > 0)) return 0;
    return ((bx - vx) * dx + (by - vy) * dy) / n;
}
