/* sim_traffic_snapshot: a traffic world's moving state as bytes (see
 * sim_traffic_snapshot.h). The index, occupancy and lead are rebuilt by the next step;
 * the ego is set by the next vehicle.state. */
#include "sim_traffic_snapshot.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define SNAP_MAGIC 0x54534e50u /* "TSNP" */
#define SNAP_VERSION 1u

typedef struct snap_header {
    uint32_t magic, version;
    uint32_t agent_size;           /* sizeof(sim_traffic_agent): the same build */
    int32_t cap, n_lanes, n_triggers;
    int32_t n_slots, n_active, n_ambient, n_route_pool;
    double t, density_scale, ambient_timer;
    uint64_t steps, rng;
    uint32_t next_uid;
    uint8_t frozen, ambient_filled, pad[2];
    uint64_t hash;                 /* FNV-1a of everything after the header */
} snap_header;

static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

size_t sim_traffic_snapshot_size(const sim_traffic *t)
{
    return sizeof(snap_header) + (size_t)t->n_slots * sizeof(sim_traffic_agent) +
           (size_t)t->n_route_pool * sizeof(int) + 2 * (size_t)t->n_triggers * sizeof(bool);
}

size_t sim_traffic_snapshot_write(const sim_traffic *t, void *buf, size_t cap)
{
    size_t need = sim_traffic_snapshot_size(t);
    if (cap < need) return 0;
    unsigned char *p = buf;
    snap_header h = {.magic = SNAP_MAGIC, .version = SNAP_VERSION, .agent_size = sizeof(sim_traffic_agent),
                     .cap = t->cap, .n_lanes = t->g->n_lanes, .n_triggers = t->n_triggers,
                     .n_slots = t->n_slots, .n_active = t->n_active, .n_ambient = t->n_ambient,
                     .n_route_pool = t->n_route_pool, .t = t->t, .density_scale = t->density_scale,
                     .ambient_timer = t->ambient_timer, .steps = t->steps, .rng = t->rng,
                     .next_uid = t->next_uid, .frozen = t->frozen, .ambient_filled = t->ambient_filled};
    size_t off = sizeof h;
    memcpy(p + off, t->agents, (size_t)t->n_slots * sizeof *t->agents);
    off += (size_t)t->n_slots * sizeof *t->agents;
    if (t->n_route_pool) memcpy(p + off, t->route_pool, (size_t)t->n_route_pool * sizeof(int));
    off += (size_t)t->n_route_pool * sizeof(int);
    if (t->n_triggers) {
        memcpy(p + off, t->fired, (size_t)t->n_triggers * sizeof(bool));
        off += (size_t)t->n_triggers * sizeof(bool);
        memcpy(p + off, t->ego_in, (size_t)t->n_triggers * sizeof(bool));
        off += (size_t)t->n_triggers * sizeof(bool);
    }
    h.hash = fnv(p + sizeof h, off - sizeof h);
    memcpy(p, &h, sizeof h);
    return off;
}

static bool lane_ok(int lane, int n_lanes, bool none_ok)
{
    return (none_ok && lane == -1) || (lane >= 0 && lane < n_lanes);
}

int sim_traffic_snapshot_read(sim_traffic *t, const void *buf, size_t len, sim_error *err)
{
    const unsigned char *p = buf;
    snap_header h;
    if (len < sizeof h) return sim_error_set(err, SIM_EINVAL, "traffic snapshot: %zu bytes, shorter than its header", len);
    memcpy(&h, p, sizeof h);
    if (h.magic != SNAP_MAGIC || h.version != SNAP_VERSION || h.agent_size != sizeof(sim_traffic_agent))
        return sim_error_set(err, SIM_EINVAL, "traffic snapshot: not a snapshot of this build (version %u)", h.version);
    if (h.cap != t->cap || h.n_lanes != t->g->n_lanes || h.n_triggers != t->n_triggers)
        return sim_error_set(err, SIM_EINVAL,
                             "traffic snapshot: made for another world (%d agents, %d lanes, %d triggers; this one "
                             "has %d, %d, %d)", h.cap, h.n_lanes, h.n_triggers, t->cap, t->g->n_lanes, t->n_triggers);
    if (h.n_slots < 0 || h.n_slots > t->cap || h.n_route_pool < 0 || h.n_route_pool > t->cap_route_pool ||
        h.n_active < 0 || h.n_active > h.n_slots || h.n_ambient < 0 || h.n_ambient > h.n_active)
        return sim_error_set(err, SIM_EINVAL, "traffic snapshot: counts out of range");
    size_t need = sizeof h + (size_t)h.n_slots * sizeof(sim_traffic_agent) + (size_t)h.n_route_pool * sizeof(int) +
                  2 * (size_t)h.n_triggers * sizeof(bool);
    if (len != need) return sim_error_set(err, SIM_EINVAL, "traffic snapshot: %zu bytes, expected %zu", len, need);
    if (fnv(p + sizeof h, len - sizeof h) != h.hash)
        return sim_error_set(err, SIM_EINVAL, "traffic snapshot: damaged (its hash does not match)");
    const sim_traffic_agent *ag = (const sim_traffic_agent *)(p + sizeof h);
    for (int i = 0; i < h.n_slots; i++) {
        sim_traffic_agent a;
        memcpy(&a, &ag[i], sizeof a);
        if (!a.active) continue;
        int nl = h.n_lanes;
        if (!lane_ok(a.lane, nl, false) || !lane_ok(a.lane2, nl, true) || !lane_ok(a.next_lane, nl, true) ||
            !lane_ok(a.want_lane, nl, true) || !lane_ok(a.reserved, nl, true) || !lane_ok(a.vcap_lane, nl, true) ||
            !lane_ok(a.prev_lane, nl, true) || a.model < 0 || a.model >= sim_traffic_n_vmodels ||
            a.route0 < 0 || a.n_route < 0 || a.route0 + a.n_route > h.n_route_pool || a.route_i < 0 ||
            (a.n_route && a.route_i >= a.n_route) || !isfinite(a.s) || !isfinite(a.v) || !isfinite(a.lat))
            return sim_error_set(err, SIM_EINVAL, "traffic snapshot: agent slot %d out of range", i);
    }
    size_t off = sizeof h;
    memcpy(t->agents, p + off, (size_t)h.n_slots * sizeof *t->agents);
    off += (size_t)h.n_slots * sizeof *t->agents;
    for (int i = h.n_slots; i < t->n_slots; i++) t->agents[i].active = false;
    if (h.n_route_pool) memcpy(t->route_pool, p + off, (size_t)h.n_route_pool * sizeof(int));
    off += (size_t)h.n_route_pool * sizeof(int);
    if (h.n_triggers) {
        memcpy(t->fired, p + off, (size_t)h.n_triggers * sizeof(bool));
        off += (size_t)h.n_triggers * sizeof(bool);
        memcpy(t->ego_in, p + off, (size_t)h.n_triggers * sizeof(bool));
    }
    t->n_slots = h.n_slots;
    t->n_active = h.n_active;
    t->n_ambient = h.n_ambient;
    t->n_route_pool = h.n_route_pool;
    t->t = h.t;
    t->density_scale = h.density_scale;
    t->ambient_timer = h.ambient_timer;
    t->steps = h.steps;
    t->rng = h.rng;
    t->next_uid = h.next_uid;
    t->frozen = h.frozen;
    t->ambient_filled = h.ambient_filled;
    t->n_events = 0;
    return SIM_OK;
}
