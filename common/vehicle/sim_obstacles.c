/* sim_obstacles: static collision shapes in a uniform grid, and the car's body against
 * them (see sim_obstacles.h). */
#include "sim_obstacles.h"
#include "sim_vehicle_impl.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CELLS (4 << 20)
#define MIN_CELL 4.0

/* The footprint's bounding box. */
static void footprint_bounds(const sim_obstacle *o, double b[4])
{
    double ex, ey;
    if (o->shape == SIM_SHAPE_CYLINDER) {
        ex = ey = o->half_w;
    } else {
        double c = fabs(cos(o->heading)), s = fabs(sin(o->heading));
        ex = o->half_l * c + o->half_w * s;
        ey = o->half_l * s + o->half_w * c;
    }
    b[0] = o->x - ex;
    b[1] = o->y - ey;
    b[2] = o->x + ex;
    b[3] = o->y + ey;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The cell range [c0, c1] covering [lo, hi] along one axis. */
static void cell_range(const sim_obstacles *s, double lo, double hi, double origin, int n, int *c0, int *c1)
{
    double a = floor((lo - origin) / s->cell), b = floor((hi - origin) / s->cell);
    *c0 = a < 0 ? 0 : a > n - 1 ? n - 1 : (int)a;
    *c1 = b < 0 ? 0 : b > n - 1 ? n - 1 : (int)b;
}

int sim_obstacles_build(sim_obstacles *out, const sim_obstacle *items, int n, sim_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 0)
        return sim_error_set(err, SIM_EINVAL, "obstacles: count %d, expected >= 0", n);
    out->cell = 8.0;
    out->nx = out->ny = 1;
    for (int i = 0; i < n; i++) {
        const sim_obstacle *o = &items[i];
        bool ok = isfinite(o->x) && isfinite(o->y) && isfinite(o->heading) && isfinite(o->z0) &&
                  isfinite(o->z1) && o->half_w >= 0 && o->half_w < 1e4 &&
                  (o->shape == SIM_SHAPE_CYLINDER || (o->half_l >= 0 && o->half_l < 1e4)) &&
                  (unsigned)o->shape <= SIM_SHAPE_RAIL;
        if (!ok)
            return sim_error_set(err, SIM_EINVAL,
                                 "obstacles: shape %d (tag %d): expected a known shape, finite position, "
                                 "heights and heading, sizes from 0 to 10 km", i, o->tag);
    }
    if (n == 0) {
        out->start = calloc(2, sizeof *out->start);
        return out->start ? SIM_OK : sim_error_set(err, SIM_ENOMEM, "obstacles: out of memory");
    }
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int i = 0; i < n; i++) {
        double b[4];
        footprint_bounds(&items[i], b);
        lo[0] = fmin(lo[0], b[0]);
        lo[1] = fmin(lo[1], b[1]);
        hi[0] = fmax(hi[0], b[2]);
        hi[1] = fmax(hi[1], b[3]);
    }
    out->x0 = lo[0];
    out->y0 = lo[1];
    double w = hi[0] - lo[0], h = hi[1] - lo[1];
    out->cell = 8.0;
    while ((w / out->cell + 1) * (h / out->cell + 1) > MAX_CELLS)
        out->cell *= 2;
    if (out->cell < MIN_CELL)
        out->cell = MIN_CELL;
    out->nx = (int)(w / out->cell) + 1;
    out->ny = (int)(h / out->cell) + 1;
    size_t cells = (size_t)out->nx * (size_t)out->ny;
    out->items = malloc((size_t)n * sizeof *out->items);
    out->bounds = malloc((size_t)n * 4 * sizeof *out->bounds);
    out->start = calloc(cells + 1, sizeof *out->start);
    if (!out->items || !out->bounds || !out->start)
        goto nomem;
    memcpy(out->items, items, (size_t)n * sizeof *items);
    for (int i = 0; i < n; i++)
        footprint_bounds(&items[i], out->bounds + 4 * i);
    out->n = n;
    /* counting sort of (cell, item) pairs into the CSR arrays */
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            const double *b = out->bounds + 4 * i;
            int cx0, cx1, cy0, cy1;
            cell_range(out, b[0], b[2], out->x0, out->nx, &cx0, &cx1);
            cell_range(out, b[1], b[3], out->y0, out->ny, &cy0, &cy1);
            for (int cy = cy0; cy <= cy1; cy++)
                for (int cx = cx0; cx <= cx1; cx++) {
                    size_t c = (size_t)cy * (size_t)out->nx + (size_t)cx;
                    if (pass == 0) {
                        out->start[c + 1]++;
                        total++;
                    } else {
                        out->index[out->start[c]++] = i;
                    }
                }
        }
        if (pass == 0) {
            if (total > (size_t)1 << 28)
                goto nomem;
            for (size_t c = 0; c < cells; c++)
                out->start[c + 1] += out->start[c];
            out->index = malloc((total ? total : 1) * sizeof *out->index);
            if (!out->index)
                goto nomem;
        }
    }
    /* the second pass moved each start to its cell's end: shift back */
    for (size_t c = cells; c > 0; c--)
        out->start[c] = out->start[c - 1];
    out->start[0] = 0;
    return SIM_OK;
nomem:
    sim_obstacles_free(out);
    return sim_error_set(err, SIM_ENOMEM, "obstacles: out of memory for %d shapes", n);
}

void sim_obstacles_free(sim_obstacles *s)
{
    free(s->items);
    free(s->start);
    free(s->index);
    free(s->bounds);
    memset(s, 0, sizeof *s);
}

int sim_obstacles_query(const sim_obstacles *s, double x0, double y0, double x1, double y1, int *out, int max)
{
    if (!s || s->n == 0 || !(x1 >= x0) || !(y1 >= y0))
        return 0;
    int qx0, qx1, qy0, qy1;
    cell_range(s, x0, x1, s->x0, s->nx, &qx0, &qx1);
    cell_range(s, y0, y1, s->y0, s->ny, &qy0, &qy1);
    int count = 0;
    for (int cy = qy0; cy <= qy1; cy++)
        for (int cx = qx0; cx <= qx1; cx++) {
            size_t c = (size_t)cy * (size_t)s->nx + (size_t)cx;
            for (int k = s->start[c]; k < s->start[c + 1]; k++) {
                int i = s->index[k];
                const double *b = s->bounds + 4 * i;
                if (b[2] < x0 || b[0] > x1 || b[3] < y0 || b[1] > y1)
                    continue;
                /* reported from the first cell of the query it is in, so once */
                int ix0, ix1, iy0, iy1;
                cell_range(s, b[0], b[2], s->x0, s->nx, &ix0, &ix1);
                cell_range(s, b[1], b[3], s->y0, s->ny, &iy0, &iy1);
                if (cx != clampi(qx0 > ix0 ? qx0 : ix0, 0, s->nx - 1) ||
                    cy != clampi(qy0 > iy0 ? qy0 : iy0, 0, s->ny - 1))
                    continue;
                if (count < max) {
                    /* ascending: insertion (a handful near a car) */
                    int j = count;
                    while (j > 0 && out[j - 1] > i) {
                        out[j] = out[j - 1];
                        j--;
                    }
                    out[j] = i;
                }
                count++;
            }
        }
    return count;
}

/* ---- the car against one shape ---- */

/* The car's footprint: centre, axes, half sizes; its height range. */
typedef struct footprint {
    double cx, cy, ux, uy, vx, vy, hx, hy, z0, z1;
} footprint;

static footprint car_footprint(const sim_vehicle *v)
{
    const double *y = v->y;
    sim_quat q = {y[3], y[4], y[5], y[6]};
    sim_vec3 fwd = sim_quat_rotate(q, sim_v3(1, 0, 0));
    double l = hypot(fwd.x, fwd.y);
    footprint f;
    f.ux = l > 1e-9 ? fwd.x / l : 1.0;
    f.uy = l > 1e-9 ? fwd.y / l : 0.0;
    f.vx = -f.uy;
    f.vy = f.ux;
    sim_vec3 c = sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_quat_rotate(q, v->p.box_offset));
    f.cx = c.x;
    f.cy = c.y;
    f.hx = v->p.box_half.x;
    f.hy = v->p.box_half.y;
    f.z0 = c.z - v->p.box_half.z;
    f.z1 = c.z + v->p.box_half.z;
    return f;
}

/* A contact: normal (nx, ny) pushing the car out, depth, point. */
typedef struct contact {
    double nx, ny, depth, px, py;
} contact;

static bool hit_cylinder(const footprint *f, const sim_obstacle *o, contact *c)
{
    double dx = o->x - f->cx, dy = o->y - f->cy;
    double lx = dx * f->ux + dy * f->uy, ly = dx * f->vx + dy * f->vy; /* car frame */
    double qx = fmax(-f->hx, fmin(f->hx, lx)), qy = fmax(-f->hy, fmin(f->hy, ly));
    double ex = lx - qx, ey = ly - qy, dist = hypot(ex, ey), r = o->half_w;
    double nlx, nly;
    if (dist > 1e-9) {
        if (dist >= r)
            return false;
        nlx = -ex / dist;
        nly = -ey / dist;
        c->depth = r - dist;
    } else { /* the axis inside the footprint: out through the nearer side */
        double ox = f->hx - fabs(lx), oy = f->hy - fabs(ly);
        if (ox < oy) {
            nlx = lx >= 0 ? -1 : 1;
            nly = 0;
            qx = lx >= 0 ? f->hx : -f->hx;
            c->depth = ox + r;
        } else {
            nlx = 0;
            nly = ly >= 0 ? -1 : 1;
            qy = ly >= 0 ? f->hy : -f->hy;
            c->depth = oy + r;
        }
    }
    c->nx = nlx * f->ux + nly * f->vx;
    c->ny = nlx * f->uy + nly * f->vy;
    c->px = f->cx + qx * f->ux + qy * f->vx;
    c->py = f->cy + qx * f->uy + qy * f->vy;
    return true;
}

static bool hit_box(const footprint *f, const sim_obstacle *o, contact *c)
{
    double ox = cos(o->heading), oy = sin(o->heading);
    double ax[4][2] = {{f->ux, f->uy}, {f->vx, f->vy}, {ox, oy}, {-oy, ox}};
    double dx = f->cx - o->x, dy = f->cy - o->y;
    int best = -1;
    double best_overlap = INFINITY, best_sign = 1;
    for (int a = 0; a < 4; a++) {
        double u0 = ax[a][0], u1 = ax[a][1];
        double rc = f->hx * fabs(f->ux * u0 + f->uy * u1) + f->hy * fabs(f->vx * u0 + f->vy * u1);
        double ro = o->half_l * fabs(ox * u0 + oy * u1) + o->half_w * fabs(-oy * u0 + ox * u1);
        double dd = dx * u0 + dy * u1;
        double overlap = rc + ro - fabs(dd);
        if (overlap <= 0.0)
            return false;
        /* a rail pushes only across itself */
        bool allowed = o->shape != SIM_SHAPE_RAIL || a == 3;
        if (allowed && overlap < best_overlap) {
            best = a;
            best_overlap = overlap;
            best_sign = dd >= 0 ? 1.0 : -1.0;
        }
    }
    c->nx = ax[best][0] * best_sign;
    c->ny = ax[best][1] * best_sign;
    c->depth = best_overlap;
    /* the incident corner: the car's deepest into the obstacle when the axis is the
     * obstacle's, the obstacle's deepest into the car when it is the car's */
    double bestd = INFINITY;
    for (int k = 0; k < 4; k++) {
        double su = (k & 1) ? 1 : -1, sv = (k & 2) ? 1 : -1, px, py;
        if (best >= 2) {
            px = f->cx + su * f->hx * f->ux + sv * f->hy * f->vx;
            py = f->cy + su * f->hx * f->uy + sv * f->hy * f->vy;
        } else {
            px = o->x + su * o->half_l * ox - sv * o->half_w * oy;
            py = o->y + su * o->half_l * oy + sv * o->half_w * ox;
        }
        double d = (px * c->nx + py * c->ny) * (best >= 2 ? 1.0 : -1.0);
        if (d < bestd) {
            bestd = d;
            c->px = px;
            c->py = py;
        }
    }
    return true;
}

/* Impulse with restitution and Coulomb friction at the contact, at the centre of
 * mass's height, then the car pushed out; returns the approach speed (0: separating). */
static double respond(sim_vehicle *v, const sim_rigid_props *props, const contact *c)
{
    double *y = v->y;
    sim_vec3 pt = sim_v3(c->px, c->py, y[2]);
    sim_vec3 n = sim_v3(c->nx, c->ny, 0.0);
    sim_vec3 vrel = sim_rigid_point_velocity(y, pt);
    double vn = sim_v3_dot(vrel, n);
    double approach = 0.0;
    if (vn < 0.0) {
        approach = -vn;
        double jn = -(1.0 + v->p.restitution) * vn / sim_rigid_inv_mass_along(props, y, pt, n);
        sim_rigid_apply_impulse(props, y, pt, sim_v3_scale(n, jn));
        sim_vec3 vt = sim_v3_madd(vrel, n, -vn);
        vt.z = 0.0;
        double vtl = sim_v3_len(vt);
        if (vtl > 1e-9) {
            sim_vec3 t = sim_v3_scale(vt, 1.0 / vtl);
            double jt = vtl / sim_rigid_inv_mass_along(props, y, pt, t);
            double lim = v->p.body_friction * jn;
            sim_rigid_apply_impulse(props, y, pt, sim_v3_scale(t, -(jt < lim ? jt : lim)));
        }
    }
    y[0] += c->nx * c->depth;
    y[1] += c->ny * c->depth;
    return approach;
}

#define MAX_NEAR 64

int sim_vehicle_hit_obstacles(sim_vehicle *v, const sim_obstacles *s, sim_obstacle_hit *hits, int max)
{
    if (!v || !s || s->n == 0)
        return 0;
    footprint f = car_footprint(v);
    double ex = f.hx * fabs(f.ux) + f.hy * fabs(f.vx), ey = f.hx * fabs(f.uy) + f.hy * fabs(f.vy);
    int near[MAX_NEAR];
    int n = sim_obstacles_query(s, f.cx - ex, f.cy - ey, f.cx + ex, f.cy + ey, near, MAX_NEAR);
    if (n > MAX_NEAR)
        n = MAX_NEAR;
    sim_rigid_props props = sim_vehicle_chassis_props(&v->p, v->model == SIM_VEHICLE_FULL);
    int touched = 0;
    bool impulse = false;
    for (int k = 0; k < n; k++) {
        const sim_obstacle *o = &s->items[near[k]];
        if (f.z1 < o->z0 || f.z0 > o->z1)
            continue;
        contact c = {0};
        bool hit = o->shape == SIM_SHAPE_CYLINDER ? hit_cylinder(&f, o, &c) : hit_box(&f, o, &c);
        if (!hit)
            continue;
        double speed = respond(v, &props, &c);
        impulse |= speed > 0.0;
        if (touched < max)
            hits[touched] = (sim_obstacle_hit){near[k], o->tag, speed, c.px, c.py};
        touched++;
        f = car_footprint(v); /* pushed out: the next shape sees where the car now is */
    }
    if (impulse) {
        double *y = v->y;
        double speed = y[7] * f.ux + y[8] * f.uy;
        if (v->model == SIM_VEHICLE_SIMPLE) {
            /* the simple model keeps its drift apart and turns on its circle */
            y[10] = y[11] = 0.0;
            v->side_speed = y[7] * f.vx + y[8] * f.vy;
        }
        /* the wheels roll on at the car's new speed (a crash, not a burn-out) */
        double r = sim_vehicle_dynamic_radius(&v->p);
        for (int i = 0; i < SIM_WHEELS; i++)
            y[SIM_VY_WHEEL(i) + SIM_VW_SPIN] = speed / r;
    }
    return touched;
}
