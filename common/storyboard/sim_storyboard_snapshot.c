/* sim_storyboard_snapshot: a storyboard's moving state as bytes (see sim_storyboard.h).
 * The layout is this build's structs as they are in memory: a snapshot lives next to
 * the process that wrote it (traffic-node's --state) and is read back by the same
 * binary, so no portable encoding is needed; the header's shape check refuses any
 * other. */
#include "sim_storyboard.h"

#include <stdbool.h>
#include <string.h>

#define SNAP_MAGIC 0x53425332u /* "SBS2" */

typedef struct snap_shape {
    uint32_t magic;
    int32_t n_entities, n_elements, n_inst, n_conds, n_params, n_pool, n_lanes, n_prof;
} snap_shape;

typedef struct snap_scalars {
    double t;
    int64_t step;
    int32_t n_starting, collisions, lost_events;
    uint8_t done;
} snap_scalars;

static snap_shape shape_of(const sim_storyboard *sb)
{
    const sim_sb_model *m = sb->m;
    return (snap_shape){.magic = SNAP_MAGIC, .n_entities = m->n_entities, .n_elements = m->n_elements + 1,
                        .n_inst = sb->n_inst, .n_conds = m->n_conds, .n_params = m->n_params, .n_pool = sb->n_pool,
                        .n_lanes = sb->g->n_lanes, .n_prof = sb->n_prof};
}

/* The arrays in their order: base pointer and bytes. */
typedef struct snap_part {
    void *p;
    size_t n;
} snap_part;

static int parts_of(const sim_storyboard *sb, snap_part *out)
{
    snap_shape s = shape_of(sb);
    int k = 0;
    out[k++] = (snap_part){sb->ent, (size_t)s.n_entities * sizeof *sb->ent};
    out[k++] = (snap_part){sb->state, (size_t)s.n_elements * sizeof *sb->state};
    out[k++] = (snap_part){sb->trans, (size_t)s.n_elements * sizeof *sb->trans};
    out[k++] = (snap_part){sb->trans_step, (size_t)s.n_elements * sizeof *sb->trans_step};
    out[k++] = (snap_part){sb->exec, (size_t)s.n_elements * sizeof *sb->exec};
    out[k++] = (snap_part){sb->inst, (size_t)s.n_inst * sizeof *sb->inst};
    out[k++] = (snap_part){sb->last, (size_t)s.n_conds * sizeof *sb->last};
    out[k++] = (snap_part){sb->pending, (size_t)s.n_conds * sizeof *sb->pending};
    out[k++] = (snap_part){sb->pvalue, (size_t)s.n_params * sizeof *sb->pvalue};
    out[k++] = (snap_part){sb->pnum, (size_t)s.n_params * sizeof *sb->pnum};
    out[k++] = (snap_part){sb->px, (size_t)s.n_pool * sizeof *sb->px};
    out[k++] = (snap_part){sb->py, (size_t)s.n_pool * sizeof *sb->py};
    out[k++] = (snap_part){sb->starting, (size_t)s.n_inst * sizeof *sb->starting};
    out[k++] = (snap_part){sb->prof, (size_t)s.n_prof * sizeof *sb->prof};
    return k;
}

size_t sim_storyboard_snapshot_size(const sim_storyboard *sb)
{
    snap_part parts[16];
    size_t n = sizeof(snap_shape) + sizeof(snap_scalars);
    for (int i = 0, k = parts_of(sb, parts); i < k; i++) n += parts[i].n;
    return n;
}

size_t sim_storyboard_snapshot_write(const sim_storyboard *sb, void *buf, size_t cap)
{
    size_t need = sim_storyboard_snapshot_size(sb);
    if (cap < need) return 0;
    unsigned char *p = buf;
    snap_shape s = shape_of(sb);
    snap_scalars v = {.t = sb->t, .step = sb->step, .n_starting = sb->n_starting, .collisions = sb->collisions,
                      .lost_events = sb->lost_events, .done = sb->done};
    memcpy(p, &s, sizeof s);
    p += sizeof s;
    memcpy(p, &v, sizeof v);
    p += sizeof v;
    snap_part parts[16];
    for (int i = 0, k = parts_of(sb, parts); i < k; i++) {
        if (parts[i].n) memcpy(p, parts[i].p, parts[i].n);
        p += parts[i].n;
    }
    return need;
}

static bool in_range(int v, int lo, int hi) { return v >= lo && v < hi; }

/* The indices the engine follows without checking (lanes, instances), and the fixed
 * part of each instance (its action, element, actor, pool), checked in the bytes
 * before anything is taken: a snapshot that passes cannot send the engine outside its
 * arrays. */
static int check_indices(const sim_storyboard *sb, const unsigned char *p, const snap_shape *s, sim_error *err)
{
    for (int e = 0; e < s->n_entities; e++) {
        sim_sb_state_ent x;
        memcpy(&x, p + (size_t)e * sizeof x, sizeof x);
        if (!in_range(x.lane, -1, s->n_lanes) || !in_range(x.goal_lane, -1, s->n_lanes) ||
            !in_range(x.long_inst, -1, s->n_inst) || !in_range(x.lat_inst, -1, s->n_inst) ||
            !in_range(x.path_inst, -1, s->n_inst) || (x.on_lane && x.lane < 0))
            return sim_error_set(err, SIM_EINVAL, "storyboard snapshot: entity %d has a lane or action out of range", e);
    }
    p += (size_t)s->n_entities * sizeof(sim_sb_state_ent);
    p += (size_t)s->n_elements * (sizeof *sb->state + sizeof *sb->trans + sizeof *sb->trans_step + sizeof *sb->exec);
    for (int i = 0; i < s->n_inst; i++) {
        sim_sb_inst x;
        memcpy(&x, p + (size_t)i * sizeof x, sizeof x);
        const sim_sb_inst *fresh = &sb->inst[i];
        if (x.action != fresh->action || x.element != fresh->element || x.entity != fresh->entity ||
            x.pool0 != fresh->pool0 || x.prof0 != fresh->prof0 || x.seg < 0 || x.n_seg < 0 ||
            x.n_seg > SIM_SB_PROFILE_CAP(sb->m->actions[x.action].n_prof) ||
            x.seg > (sb->m->actions[x.action].type == SIM_SB_A_SPEED_PROFILE ? x.n_seg : sb->m->actions[x.action].n_route))
            return sim_error_set(err, SIM_EINVAL, "storyboard snapshot: action instance %d is not this scenario's", i);
    }
    p += (size_t)s->n_inst * sizeof(sim_sb_inst);
    p += (size_t)s->n_conds * (sizeof *sb->last + sizeof *sb->pending);
    for (int i = 0; i < s->n_params; i++) /* values are NUL-terminated text */
        if (!memchr(p + (size_t)i * sizeof *sb->pvalue, 0, sizeof *sb->pvalue))
            return sim_error_set(err, SIM_EINVAL, "storyboard snapshot: parameter %d's value is not text", i);
    p += (size_t)s->n_params * (sizeof *sb->pvalue + sizeof *sb->pnum);
    p += (size_t)s->n_pool * 2 * sizeof(double);
    for (int i = 0; i < s->n_inst; i++) {
        int x;
        memcpy(&x, p + (size_t)i * sizeof x, sizeof x);
        if (!in_range(x, 0, s->n_inst))
            return sim_error_set(err, SIM_EINVAL, "storyboard snapshot: a starting action out of range");
    }
    return SIM_OK;
}

int sim_storyboard_snapshot_read(sim_storyboard *sb, const void *buf, size_t len, sim_error *err)
{
    snap_shape want = shape_of(sb), got;
    if (len != sim_storyboard_snapshot_size(sb) || len < sizeof got)
        return sim_error_set(err, SIM_EINVAL, "storyboard snapshot: %zu bytes, expected %zu for this scenario", len,
                             sim_storyboard_snapshot_size(sb));
    const unsigned char *p = buf;
    memcpy(&got, p, sizeof got);
    if (memcmp(&got, &want, sizeof got) != 0)
        return sim_error_set(err, SIM_EINVAL, "storyboard snapshot: of another scenario or lane graph");
    p += sizeof got;
    snap_scalars v;
    memcpy(&v, p, sizeof v);
    p += sizeof v;
    if (v.n_starting < 0 || v.n_starting > want.n_inst)
        return sim_error_set(err, SIM_EINVAL, "storyboard snapshot: %d actions starting, expected 0..%d", v.n_starting,
                             want.n_inst);
    int rc = check_indices(sb, p, &want, err);
    if (rc) return rc;
    snap_part parts[16];
    for (int i = 0, k = parts_of(sb, parts); i < k; i++) {
        if (parts[i].n) memcpy(parts[i].p, p, parts[i].n);
        p += parts[i].n;
    }
    sb->t = v.t;
    sb->step = v.step;
    sb->n_starting = v.n_starting;
    sb->collisions = v.collisions;
    sb->lost_events = v.lost_events;
    sb->done = v.done;
    sb->n_events = 0; /* said before the snapshot was taken */
    return SIM_OK;
}
