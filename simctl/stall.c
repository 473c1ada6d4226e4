/* stall: the ego car standing for good in a headless session (see stall.h). */
#include "stall.h"

#include <math.h>

#include "sim_msg_vehicle.h"

bool run_stall_update(run_stall *st, const cJSON *msg)
{
    if (!(st->limit_s > 0)) return false;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "t");
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(msg, "run");
    sim_msg_vehicle_state vs;
    if (!cJSON_IsNumber(t) || sim_msg_vehicle_state_decode(msg, &vs, NULL) || isnan(vs.pos[0]) || isnan(vs.pos[1]))
        return false;
    int64_t r = cJSON_IsNumber(run) ? (int64_t)run->valuedouble : st->run;
    st->t = t->valuedouble;
    if (!st->have || r != st->run || hypot(vs.pos[0] - st->x, vs.pos[1] - st->y) > RUN_STALL_MOVE_M ||
        st->t < st->since_t) {
        st->have = true;
        st->run = r;
        st->x = vs.pos[0];
        st->y = vs.pos[1];
        st->since_t = st->t;
        return false;
    }
    return st->t - st->since_t >= st->limit_s;
}
