/* sim_vehicle_collide: the body's box against the ground and against obstacle boxes,
 * by impulses with restitution and Coulomb friction (shared by the full and wall
 * models, and the simple model's obstacles). */
#include "sim_vehicle_impl.h"

/* Corner k of the body box relative to the COG, body frame. */
static sim_vec3 box_offset_corner(const sim_vehicle_params *p, int k)
{
    return sim_v3(p->box_offset.x + ((k & 1) ? p->box_half.x : -p->box_half.x),
                  p->box_offset.y + ((k & 2) ? p->box_half.y : -p->box_half.y),
                  p->box_offset.z + ((k & 4) ? p->box_half.z : -p->box_half.z));
}

static sim_vec3 box_corner(const double *y, const sim_vehicle_params *p, int k)
{
    sim_quat q = {y[3], y[4], y[5], y[6]};
    return sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_quat_rotate(q, box_offset_corner(p, k)));
}

/* One contact: point pt on the chassis, unit normal n pushing the chassis out, depth,
 * velocity of the other side. Normal impulse with restitution and Coulomb friction. */
static void contact_impulse(const sim_vehicle_params *p, const sim_rigid_props *props, double *y,
                            sim_vec3 pt, sim_vec3 n, double depth, sim_vec3 other_vel)
{
    sim_vec3 vrel = sim_v3_sub(sim_rigid_point_velocity(y, pt), other_vel);
    double vn = sim_v3_dot(vrel, n);
    if (vn < 0.0) {
        double jn = -(1.0 + p->restitution) * vn / sim_rigid_inv_mass_along(props, y, pt, n);
        sim_rigid_apply_impulse(props, y, pt, sim_v3_scale(n, jn));
        sim_vec3 vt = sim_v3_madd(vrel, n, -vn);
        double vtl = sim_v3_len(vt);
        if (vtl > 1e-9) {
            sim_vec3 t = sim_v3_scale(vt, 1.0 / vtl);
            double jt = vtl / sim_rigid_inv_mass_along(props, y, pt, t);
            double lim = p->body_friction * jn;
            sim_rigid_apply_impulse(props, y, pt, sim_v3_scale(t, -(jt < lim ? jt : lim)));
        }
    }
    /* Push most of the way out so that resting contact does not sink. */
    double push = 0.8 * depth;
    y[0] += n.x * push;
    y[1] += n.y * push;
    y[2] += n.z * push;
}

/* Deepest penetration of point w (world) into an oriented box; false if outside. */
static bool point_in_box(sim_vec3 w, sim_vec3 centre, sim_quat q, sim_vec3 half, sim_vec3 *normal,
                         double *depth)
{
    sim_vec3 l = sim_quat_unrotate(q, sim_v3_sub(w, centre));
    double d[3] = {half.x - fabs(l.x), half.y - fabs(l.y), half.z - fabs(l.z)};
    if (d[0] <= 0 || d[1] <= 0 || d[2] <= 0)
        return false;
    int a = d[0] < d[1] ? (d[0] < d[2] ? 0 : 2) : (d[1] < d[2] ? 1 : 2);
    sim_vec3 nl = sim_v3(a == 0 ? (l.x >= 0 ? 1 : -1) : 0, a == 1 ? (l.y >= 0 ? 1 : -1) : 0,
                         a == 2 ? (l.z >= 0 ? 1 : -1) : 0);
    *normal = sim_quat_rotate(q, nl);
    *depth = d[a];
    return true;
}

/* True when corner c is certainly above the ground: the ground rises at most max_slope
 * per metre from where it was looked up last for this corner. Otherwise looks it up
 * (height only where the ground offers that), remembers it in cache, and says whether
 * c is above it. */
static bool corner_clear(const sim_vehicle_ground *ground, sim_vec3 c, double *cache)
{
    if (cache && ground->max_slope > 0.0 && cache[2] == cache[2]) {
        double d = sqrt((c.x - cache[0]) * (c.x - cache[0]) + (c.y - cache[1]) * (c.y - cache[1]));
        if (c.z - cache[2] > ground->max_slope * d)
            return true;
    }
    double h = NAN;
    if (ground->height) {
        h = ground->height(ground->ctx, c.x, c.y);
    } else {
        sim_ground_sample g;
        if (sim_vehicle_ground_at(ground, c.x, c.y, &g))
            h = g.height;
    }
    if (cache) {
        cache[0] = c.x;
        cache[1] = c.y;
        cache[2] = h;
    }
    return !(h >= c.z); /* no ground (NaN) is clear too */
}

void sim_vehicle_collide(const sim_vehicle_params *p, const sim_rigid_props *props, double *y,
                         const sim_vehicle_ground *ground, const sim_box *boxes, size_t n_boxes,
                         double (*corner_ground)[3])
{
    sim_vec3 zero = {0, 0, 0};
    /* While the body is upright its top corners stay above its bottom ones, so only a
     * car on its side or roof needs them tested against the ground. */
    sim_mat3 rot = sim_mat3_from_quat((sim_quat){y[3], y[4], y[5], y[6]});
    int corners = rot.m[2][2] > 0.5 ? 4 : 8;
    for (int k = 0; k < corners; k++) {
        sim_vec3 c = sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_mat3_rotate(&rot, box_offset_corner(p, k)));
        sim_ground_sample g;
        /* Clear of the ground: no contact, no full sample. */
        if (!ground || corner_clear(ground, c, corner_ground && k < 4 ? corner_ground[k] : NULL))
            continue;
        if (!sim_vehicle_ground_at(ground, c.x, c.y, &g))
            continue;
        sim_vec3 n = sim_v3(g.normal[0], g.normal[1], g.normal[2]);
        double depth = (g.height - c.z) * n.z;
        if (depth > 0.0)
            contact_impulse(p, props, y, c, n, depth, zero);
    }
    sim_quat qs = {y[3], y[4], y[5], y[6]};
    sim_vec3 own_centre = sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_quat_rotate(qs, p->box_offset));
    for (size_t b = 0; b < n_boxes; b++) {
        const sim_box *bx = &boxes[b];
        sim_quat qb = sim_quat_from_euler(0, 0, bx->heading);
        sim_vec3 bc = sim_v3(bx->center[0], bx->center[1], bx->center[2]);
        sim_vec3 bh = sim_v3(bx->half[0], bx->half[1], bx->half[2]);
        sim_vec3 bv = sim_v3(bx->velocity[0], bx->velocity[1], bx->velocity[2]);
        sim_vec3 n;
        double depth;
        for (int k = 0; k < 8; k++) { /* our corners inside the obstacle */
            sim_vec3 c = box_corner(y, p, k);
            if (point_in_box(c, bc, qb, bh, &n, &depth))
                contact_impulse(p, props, y, c, n, depth, bv);
        }
        for (int k = 0; k < 8; k++) { /* the obstacle's corners inside us */
            sim_vec3 lc = sim_v3((k & 1) ? bh.x : -bh.x, (k & 2) ? bh.y : -bh.y, (k & 4) ? bh.z : -bh.z);
            sim_vec3 c = sim_v3_add(bc, sim_quat_rotate(qb, lc));
            qs = (sim_quat){y[3], y[4], y[5], y[6]};
            own_centre = sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_quat_rotate(qs, p->box_offset));
            if (point_in_box(c, own_centre, qs, p->box_half, &n, &depth))
                contact_impulse(p, props, y, c, sim_v3_scale(n, -1.0), depth, bv);
        }
    }
}
