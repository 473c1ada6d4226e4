/* traffic_in: traffic.state decoding (traffic_in.h). */
#include "traffic_in.h"

#include <math.h>
#include <string.h>

#include "sim_msg_traffic.h"

int rn_traffic_decode(const cJSON *msg, rn_agent *out, int max, sim_error *err)
{
    /* The one definition of traffic.state (common/protocol/sim_msg_traffic.h). */
    sim_msg_traffic_vehicle v[RN_MAX_AGENTS];
    sim_msg_traffic_state st = {.vehicles = v};
    if (max > RN_MAX_AGENTS) max = RN_MAX_AGENTS;
    int rc = sim_msg_traffic_state_decode(msg, &st, max, err);
    if (rc) return rc; /* a bad entry is an error the session reports */
    for (int i = 0; i < st.n_vehicles; i++) {
        rn_agent *a = &out[i];
        memset(a, 0, sizeof *a);
        memcpy(a->pos, v[i].pos, sizeof a->pos);
        memcpy(a->size, v[i].size, sizeof a->size);
        a->heading = v[i].heading;
        a->speed = v[i].velocity[0] * cos(a->heading) + v[i].velocity[1] * sin(a->heading);
        a->brake = v[i].brake;
        memcpy(a->model, v[i].model, sizeof a->model);
        a->model[sizeof a->model - 1] = 0;
        a->indicator = v[i].left && v[i].right ? 2 : v[i].left ? 1 : v[i].right ? -1 : 0;
        unsigned hsh = 2166136261u ^ (unsigned)i;
        if (v[i].id[0]) {
            hsh = 2166136261u;
            for (const char *c = v[i].id; *c; c++)
                hsh = (hsh ^ (unsigned char)*c) * 16777619u;
        }
        a->colour = hsh;
    }
    return st.n_vehicles;
}
