/* sim_terrain: height maps as uniform cubic B-spline surfaces (see sim_terrain.h). */
#include "sim_terrain.h"

#include "sim_enum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sim_grid_alloc(sim_grid *g, int nx, int ny, sim_error *err)
{
    g->nx = g->ny = 0;
    g->v = NULL;
    if (nx < 1 || ny < 1 || nx > SIM_GRID_MAX_SIDE || ny > SIM_GRID_MAX_SIDE)
        return sim_error_set(err, SIM_ERANGE, "grid size %dx%d: expected 1..%d points a side",
                             nx, ny, SIM_GRID_MAX_SIDE);
    g->v = calloc((size_t)nx * (size_t)ny, sizeof *g->v);
    if (!g->v) return sim_error_set(err, SIM_ENOMEM, "grid %dx%d: out of memory", nx, ny);
    g->nx = nx;
    g->ny = ny;
    return SIM_OK;
}

void sim_grid_free(sim_grid *g)
{
    if (!g) return;
    free(g->v);
    g->v = NULL;
    g->nx = g->ny = 0;
}

/* Integer hash (murmur3 finaliser) of a lattice point in one octave. */
static uint32_t lattice_hash(uint32_t seed, int octave, int x, int y)
{
    uint32_t h = seed * 0x9E3779B1u ^ (uint32_t)x * 0x85EBCA77u ^ (uint32_t)y * 0xC2B2AE3Du ^
                 (uint32_t)octave * 0x27D4EB2Fu;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

/* Gradient noise at (x, y) in lattice units: dot products with hashed unit gradients
 * at the four corners, blended with the quintic fade 6t^5 - 15t^4 + 10t^3. */
static double gradient_noise(uint32_t seed, int octave, double x, double y)
{
    double fx = floor(x), fy = floor(y);
    int ix = (int)fx, iy = (int)fy;
    double tx = x - fx, ty = y - fy, c[4];
    for (int k = 0; k < 4; k++) {
        int dx = k & 1, dy = k >> 1;
        double a = lattice_hash(seed, octave, ix + dx, iy + dy) * (2.0 * M_PI / 4294967296.0);
        c[k] = cos(a) * (tx - dx) + sin(a) * (ty - dy);
    }
    double ux = tx * tx * tx * (tx * (tx * 6 - 15) + 10), uy = ty * ty * ty * (ty * (ty * 6 - 15) + 10);
    double top = c[0] + ux * (c[1] - c[0]), bot = c[2] + ux * (c[3] - c[2]);
    return top + uy * (bot - top);
}

int sim_grid_fractal(sim_grid *out, int nx, int ny, uint32_t seed, int octaves, double period,
                     double persistence, sim_error *err)
{
    out->nx = out->ny = 0;
    out->v = NULL;
    if (octaves < 1 || octaves > 16 || !(period >= 1.0 && period <= 1e6) ||
        !(persistence > 0.0 && persistence <= 1.0))
        return sim_error_set(err, SIM_ERANGE, "fractal noise: octaves %d, period %g, persistence "
                             "%g: expected 1..16, 1..1e6 and (0, 1]", octaves, period, persistence);
    int rc = sim_grid_alloc(out, nx, ny, err);
    if (rc) return rc;
    double lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double f = 1.0 / period, a = 1.0, v = 0.0;
            for (int o = 0; o < octaves; o++, f *= 2.0, a *= persistence)
                v += a * gradient_noise(seed, o, i * f, j * f);
            out->v[(size_t)j * (size_t)nx + (size_t)i] = v;
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    double span = hi > lo ? hi - lo : 1.0;
    for (size_t k = 0; k < (size_t)nx * (size_t)ny; k++) out->v[k] = (out->v[k] - lo) / span;
    return SIM_OK;
}


/* Uniform cubic B-spline basis on one span, local parameter t in [0, 1): weights of
 * control points i-1, i, i+1, i+2 and their derivatives. */
static inline void bspline_basis(double t, double b[4], double db[4])
{
    double t2 = t * t, t3 = t2 * t, s = 1.0 - t;
    b[0] = s * s * s * (1.0 / 6.0);
    b[1] = (3.0 * t3 - 6.0 * t2 + 4.0) * (1.0 / 6.0);
    b[2] = (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) * (1.0 / 6.0);
    b[3] = t3 * (1.0 / 6.0);
    db[0] = -0.5 * s * s;
    db[1] = 1.5 * t2 - 2.0 * t;
    db[2] = -1.5 * t2 + t + 0.5;
    db[3] = 0.5 * t2;
}

static inline int clampi(int i, int lo, int hi)
{
    return i < lo ? lo : i > hi ? hi : i;
}

double sim_grid_spline(const sim_grid *g, double u, double v, double *du, double *dv)
{
    /* Beyond 2 cells outside, every control point involved is an edge copy: clamping
     * the coordinate there changes nothing and keeps floor() in int range. */
    u = u >= -3.0 ? u : -3.0; /* NaN too: it compares false */
    v = v >= -3.0 ? v : -3.0;
    u = u <= g->nx + 2.0 ? u : g->nx + 2.0;
    v = v <= g->ny + 2.0 ? v : g->ny + 2.0;
    /* floor() by truncation (u >= -3 here): a libm call on the x86-64 baseline. */
    int i = (int)u, j = (int)v;
    i -= u < i;
    j -= v < j;
    double fu = i, fv = j;
    double bu[4], dbu[4], bv[4], dbv[4];
    bspline_basis(u - fu, bu, dbu);
    bspline_basis(v - fv, bv, dbv);
    const double *p[4];
    double f = 0.0, fdu = 0.0, fdv = 0.0;
    if (i >= 1 && i + 2 < g->nx && j >= 1 && j + 2 < g->ny) {
        /* Interior: four contiguous rows, no clamping. */
        for (int r = 0; r < 4; r++)
            p[r] = g->v + (size_t)(j - 1 + r) * (size_t)g->nx + (size_t)(i - 1);
        if (!du && !dv) { /* the height alone (vehicles' body contacts): a third less */
            for (int r = 0; r < 4; r++)
                f += bv[r] * (bu[0] * p[r][0] + bu[1] * p[r][1] + bu[2] * p[r][2] + bu[3] * p[r][3]);
            return f;
        }
        for (int r = 0; r < 4; r++) {
            double row = bu[0] * p[r][0] + bu[1] * p[r][1] + bu[2] * p[r][2] + bu[3] * p[r][3];
            double drow =
                dbu[0] * p[r][0] + dbu[1] * p[r][1] + dbu[2] * p[r][2] + dbu[3] * p[r][3];
            f += bv[r] * row;
            fdv += dbv[r] * row;
            fdu += bv[r] * drow;
        }
    } else {
        int ci[4];
        for (int c = 0; c < 4; c++) ci[c] = clampi(i - 1 + c, 0, g->nx - 1);
        for (int r = 0; r < 4; r++) {
            const double *rowp = g->v + (size_t)clampi(j - 1 + r, 0, g->ny - 1) * (size_t)g->nx;
            double row = 0.0, drow = 0.0;
            for (int c = 0; c < 4; c++) {
                row += bu[c] * rowp[ci[c]];
                drow += dbu[c] * rowp[ci[c]];
            }
            f += bv[r] * row;
            fdv += dbv[r] * row;
            fdu += bv[r] * drow;
        }
    }
    if (du) *du = fdu;
    if (dv) *dv = fdv;
    return f;
}

int sim_terrain_init(sim_terrain *t, sim_grid *height, double origin_x, double origin_y,
                     double spacing, sim_error *err)
{
    memset(t, 0, sizeof *t);
    if (!height->v || height->nx < 1 || height->ny < 1) {
        sim_grid_free(height);
        return sim_error_set(err, SIM_EINVAL, "terrain: empty height grid");
    }
    if (!isfinite(spacing) || spacing <= 0.0 || !isfinite(origin_x) || !isfinite(origin_y)) {
        sim_grid_free(height);
        return sim_error_set(err, SIM_ERANGE,
                             "terrain: spacing %g, origin (%g, %g): expected a finite spacing > 0 "
                             "and a finite origin", spacing, origin_x, origin_y);
    }
    t->height = *height;
    height->v = NULL;
    height->nx = height->ny = 0;
    t->origin_x = origin_x;
    t->origin_y = origin_y;
    t->spacing = spacing;
    t->inv_spacing = 1.0 / spacing;
    t->friction_default = 1.0;
    t->surface_default = SIM_SURFACE_ASPHALT;
    return SIM_OK;
}

int sim_terrain_set_friction(sim_terrain *t, sim_grid *friction, sim_error *err)
{
    if (friction->nx != t->height.nx || friction->ny != t->height.ny) {
        int rc = sim_error_set(err, SIM_EINVAL,
                               "terrain: friction map %dx%d: expected the height map's size %dx%d",
                               friction->nx, friction->ny, t->height.nx, t->height.ny);
        sim_grid_free(friction);
        return rc;
    }
    sim_grid_free(&t->friction);
    t->friction = *friction;
    friction->v = NULL;
    friction->nx = friction->ny = 0;
    return SIM_OK;
}

void sim_terrain_free(sim_terrain *t)
{
    if (!t) return;
    sim_grid_free(&t->height);
    sim_grid_free(&t->friction);
    free(t->surface);
    t->surface = NULL;
}

double sim_terrain_max_slope(const sim_terrain *t)
{
    const sim_grid *g = &t->height;
    double mx = 0.0, my = 0.0;
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            double z = g->v[(size_t)j * (size_t)g->nx + (size_t)i];
            if (i + 1 < g->nx)
                mx = fmax(mx, fabs(g->v[(size_t)j * (size_t)g->nx + (size_t)i + 1] - z));
            if (j + 1 < g->ny)
                my = fmax(my, fabs(g->v[(size_t)(j + 1) * (size_t)g->nx + (size_t)i] - z));
        }
    return sqrt(mx * mx + my * my) * t->inv_spacing;
}

double sim_terrain_height(const sim_terrain *t, double x, double y)
{
    return sim_grid_spline(&t->height, (x - t->origin_x) * t->inv_spacing,
                           (y - t->origin_y) * t->inv_spacing, NULL, NULL);
}


void sim_terrain_eval(const sim_terrain *t, double x, double y, sim_terrain_sample *out)
{
    double u = (x - t->origin_x) * t->inv_spacing, v = (y - t->origin_y) * t->inv_spacing;
    double du, dv;
    out->z = sim_grid_spline(&t->height, u, v, &du, &dv);
    out->dzdx = du * t->inv_spacing;
    out->dzdy = dv * t->inv_spacing;
    double inv = 1.0 / sqrt(1.0 + out->dzdx * out->dzdx + out->dzdy * out->dzdy);
    out->n[0] = -out->dzdx * inv;
    out->n[1] = -out->dzdy * inv;
    out->n[2] = inv;
    if (t->surface) {
        int i = clampi((int)lround(fmin(fmax(u, -1.0), (double)t->height.nx)), 0,
                       t->height.nx - 1);
        int j = clampi((int)lround(fmin(fmax(v, -1.0), (double)t->height.ny)), 0,
                       t->height.ny - 1);
        out->surface = t->surface[(size_t)j * (size_t)t->height.nx + (size_t)i];
    } else {
        out->surface = t->surface_default;
    }
    if (t->friction.v)
        out->friction = sim_grid_spline(&t->friction, u, v, NULL, NULL);
    else if (isnan(t->friction_default))
        out->friction = sim_surface_props_of(out->surface)->friction;
    else
        out->friction = t->friction_default;
}

