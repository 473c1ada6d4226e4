/* sim_timebase: wall clock onto simulation time (see sim_timebase.h). */
#include "sim_timebase.h"

#include <assert.h>
#include <math.h>

void sim_timebase_init(sim_timebase *tb, double period)
{
    tb->head = tb->n = 0;
    tb->period = period;
}

static const sim_timebase_point *at(const sim_timebase *tb, size_t i)
{
    return &tb->p[(tb->head + i) % SIM_TIMEBASE_POINTS];
}

void sim_timebase_add(sim_timebase *tb, double wall, int64_t run, double t, bool paused)
{
    if (tb->n && wall < at(tb, tb->n - 1)->wall) wall = at(tb, tb->n - 1)->wall;
    sim_timebase_point pt = {.wall = wall, .t = t, .run = run, .paused = paused};
    if (tb->n < SIM_TIMEBASE_POINTS) {
        tb->p[(tb->head + tb->n++) % SIM_TIMEBASE_POINTS] = pt;
    } else {
        tb->p[tb->head] = pt;
        tb->head = (tb->head + 1) % SIM_TIMEBASE_POINTS;
    }
}

bool sim_timebase_newest(const sim_timebase *tb, double *wall)
{
    if (!tb->n) return false;
    *wall = at(tb, tb->n - 1)->wall;
    return true;
}

bool sim_timebase_map(const sim_timebase *tb, double wall, int64_t *run, double *t, bool *clamped)
{
    if (clamped) *clamped = false;
    if (tb->n == 0 || isnan(wall)) return false;
    if (wall < at(tb, 0)->wall) {
        if (clamped) *clamped = true;
        *run = at(tb, 0)->run;
        *t = at(tb, 0)->t;
        return true;
    }
    /* the newest point noted at or before wall */
    size_t lo = 0, hi = tb->n - 1;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (at(tb, mid)->wall <= wall) lo = mid;
        else hi = mid - 1;
    }
    const sim_timebase_point *a = at(tb, lo);
    assert(a->wall <= wall);
    *run = a->run;
    if (a->paused) {
        *t = a->t;
        return true;
    }
    if (lo + 1 < tb->n) {
        const sim_timebase_point *b = at(tb, lo + 1);
        if (b->run == a->run && b->wall > a->wall && b->t >= a->t) {
            *t = a->t + (b->t - a->t) * (wall - a->wall) / (b->wall - a->wall);
            return true;
        }
    }
    /* past the newest tick (or the last of its run): real time, less than one period */
    double dt = wall - a->wall;
    *t = a->t + (dt < tb->period ? dt : tb->period * 0.999);
    return true;
}
