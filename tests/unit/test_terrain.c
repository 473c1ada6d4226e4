/* Unit tests of sim_terrain: PGM/raw loading, the B-spline surface's exact
 * reproduction of planes and quadratics, analytic normals, C2 continuity and the
 * documented edge behaviour. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_terrain.h"

typedef double (*fn2)(double x, double y);

/* A terrain of nx x ny points with origin (ox, oy) and spacing h sampled from f. */
static void make_terrain(sim_terrain *t, int nx, int ny, double ox, double oy, double h, fn2 f)
{
    sim_grid g;
    assert_int_equal(sim_grid_alloc(&g, nx, ny, NULL), 0);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) g.v[j * nx + i] = f(ox + i * h, oy + j * h);
    assert_int_equal(sim_terrain_init(t, &g, ox, oy, h, NULL), 0);
    assert_null(g.v);
}

/* Deterministic pseudo-random numbers in [0, 1) for test points. */
static double rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 16777216.0;
}

static double plane(double x, double y) { return 2.0 + 0.3 * x - 0.2 * y; }
static double quad(double x, double y)
{
    return 0.01 * x * x + 0.02 * x * y - 0.03 * y * y + 0.5 * x + 1.0;
}
static double bumpy(double x, double y) { return sin(0.7 * x) * cos(0.4 * y) + 0.05 * x; }

static void plane_reproduced_exactly(void **state)
{
    sim_terrain t;
    make_terrain(&t, 12, 10, 10.0, -5.0, 2.0, plane);
    unsigned s = 1;
    /* Interior region: x in [ox + h, ox + (nx-2) h], y likewise. */
    for (int k = 0; k < 200; k++) {
        double x = 12.0 + rnd(&s) * 2.0 * 9, y = -3.0 + rnd(&s) * 2.0 * 7;
        sim_terrain_sample smp;
        sim_terrain_eval(&t, x, y, &smp);
        assert_true(fabs(smp.z - plane(x, y)) < 1e-12);
        assert_true(fabs(smp.dzdx - 0.3) < 1e-12);
        assert_true(fabs(smp.dzdy + 0.2) < 1e-12);
        double nz = 1.0 / sqrt(1.0 + 0.09 + 0.04);
        assert_true(fabs(smp.n[0] + 0.3 * nz) < 1e-12);
        assert_true(fabs(smp.n[1] - 0.2 * nz) < 1e-12);
        assert_true(fabs(smp.n[2] - nz) < 1e-12);
        assert_true(smp.friction == 1.0);
        assert_int_equal(smp.surface, SIM_SURFACE_ASPHALT);
    }
    sim_terrain_free(&t);
}

static void quadratic_reproduced_up_to_known_offset(void **state)
{
    /* For f = a x^2 + b xy + c y^2 + linear, the spline is f + (a + c) h^2 / 3:
     * sum_i i^2 B(u - i) = u^2 + 1/3 for the centred cubic B-spline, and the mixed
     * term factorises into two first moments, which are exact. */
    const double h = 2.5;
    sim_terrain t;
    make_terrain(&t, 16, 14, -20.0, 3.0, h, quad);
    const double offset = (0.01 - 0.03) * h * h / 3.0;
    unsigned s = 7;
    for (int k = 0; k < 200; k++) {
        double x = -20.0 + h * (1.0 + rnd(&s) * 13.0), y = 3.0 + h * (1.0 + rnd(&s) * 11.0);
        sim_terrain_sample smp;
        sim_terrain_eval(&t, x, y, &smp);
        assert_true(fabs(smp.z - (quad(x, y) + offset)) < 1e-10);
        assert_true(fabs(smp.dzdx - (0.02 * x + 0.02 * y + 0.5)) < 1e-10);
        assert_true(fabs(smp.dzdy - (0.02 * x - 0.06 * y)) < 1e-10);
    }
    /* At a grid point: (P[i-1] + 4 P[i] + P[i+1]) / 6 in each direction. */
    double x = -20.0 + 5 * h, y = 3.0 + 4 * h;
    assert_true(fabs(sim_terrain_height(&t, x, y) - (quad(x, y) + offset)) < 1e-10);
    sim_terrain_free(&t);
}

static void normal_matches_finite_differences(void **state)
{
    sim_terrain t;
    make_terrain(&t, 20, 20, 0.0, 0.0, 1.5, bumpy);
    unsigned s = 3;
    const double e = 1e-5;
    for (int k = 0; k < 300; k++) {
        /* Whole map and 4 m beyond it: the edge extension has an exact normal too. */
        double x = -4.0 + rnd(&s) * 36.5, y = -4.0 + rnd(&s) * 36.5;
        sim_terrain_sample smp;
        sim_terrain_eval(&t, x, y, &smp);
        double gx = (sim_terrain_height(&t, x + e, y) - sim_terrain_height(&t, x - e, y)) / (2 * e);
        double gy = (sim_terrain_height(&t, x, y + e) - sim_terrain_height(&t, x, y - e)) / (2 * e);
        assert_true(fabs(gx - smp.dzdx) < 1e-6);
        assert_true(fabs(gy - smp.dzdy) < 1e-6);
        double n = sqrt(gx * gx + gy * gy + 1.0);
        assert_true(fabs(smp.n[0] + gx / n) < 1e-6);
        assert_true(fabs(smp.n[1] + gy / n) < 1e-6);
        assert_true(fabs(smp.n[2] - 1.0 / n) < 1e-6);
        assert_true(fabs(smp.n[0] * smp.n[0] + smp.n[1] * smp.n[1] + smp.n[2] * smp.n[2] - 1) <
                    1e-12);
    }
    sim_terrain_free(&t);
}

/* Value, first and second derivative (d/du) just left and right of grid line u = k
 * agree: the surface is C2 across cell borders, including the map's edge. */
static void c2_across_cell_borders(void **state)
{
    sim_grid g;
    assert_int_equal(sim_grid_alloc(&g, 9, 7, NULL), 0);
    unsigned s = 11;
    for (int k = 0; k < 63; k++) g.v[k] = rnd(&s) * 10.0; /* rough data, worst case */
    const double e = 1e-7;
    for (int k = -1; k <= 10; k++) {
        double v = 2.3;
        double dl, dr, dl2, dr2;
        double fl = sim_grid_spline(&g, k - e, v, &dl, NULL);
        double fr = sim_grid_spline(&g, k + e, v, &dr, NULL);
        sim_grid_spline(&g, k - 2 * e, v, &dl2, NULL);
        sim_grid_spline(&g, k + 2 * e, v, &dr2, NULL);
        assert_true(fabs(fl - fr) < 1e-5);
        assert_true(fabs(dl - dr) < 1e-5);
        double sl = (dl - dl2) / e, sr = (dr2 - dr) / e; /* one-sided second derivatives */
        assert_true(fabs(sl - sr) < 1e-3);
        /* Across rows too. */
        double gl, gr;
        sim_grid_spline(&g, 3.7, k - e, NULL, &gl);
        sim_grid_spline(&g, 3.7, k + e, NULL, &gr);
        assert_true(fabs(gl - gr) < 1e-5);
    }
    sim_grid_free(&g);
}

static double edge_data(double x, double y) { return x * 0.5 + y * y * 0.1; }

static void edge_behaviour_is_clamp_to_edge(void **state)
{
    sim_terrain t;
    make_terrain(&t, 6, 5, 0.0, 0.0, 1.0, edge_data);
    /* More than two spacings beyond the east edge (x > 7): flat, equal to the edge
     * point's value, for rows deep inside. */
    for (double x = 7.0; x < 1000.0; x *= 1.7) {
        sim_terrain_sample smp;
        sim_terrain_eval(&t, x, 2.0, &smp);
        /* Row 2 with rows 1..3 around it: (P1 + 4 P2 + P3)/6 in y of the edge column. */
        double expect = (edge_data(5, 1) + 4 * edge_data(5, 2) + edge_data(5, 3)) / 6.0;
        assert_true(fabs(smp.z - expect) < 1e-12);
        assert_true(smp.dzdx == 0.0);
        assert_true(fabs(smp.dzdy - (edge_data(5, 3) - edge_data(5, 1)) / 2.0) < 1e-12);
    }
    /* Far beyond a corner: exactly the corner point's value, normal straight up. */
    sim_terrain_sample c;
    sim_terrain_eval(&t, -1e9, -1e9, &c);
    assert_true(c.z == edge_data(0, 0));
    assert_true(c.n[2] == 1.0 && c.n[0] == 0.0 && c.n[1] == 0.0);
    sim_terrain_eval(&t, 1e300, 1e300, &c);
    assert_true(c.z == edge_data(5, 4));
    /* NaN evaluates like a point far beyond the low edge: defined, finite. */
    sim_terrain_eval(&t, NAN, 2.0, &c);
    assert_true(isfinite(c.z));
    /* Continuity at the map edge itself: values either side of x = 5 agree. */
    assert_true(fabs(sim_terrain_height(&t, 5.0 - 1e-9, 2.2) -
                     sim_terrain_height(&t, 5.0 + 1e-9, 2.2)) < 1e-8);
    sim_terrain_free(&t);

    /* A 1x1 map is a flat plane at its one value. */
    sim_grid one;
    assert_int_equal(sim_grid_alloc(&one, 1, 1, NULL), 0);
    one.v[0] = 42.0;
    assert_int_equal(sim_terrain_init(&t, &one, 0, 0, 10.0, NULL), 0);
    assert_true(sim_terrain_height(&t, 3.0, -7.0) == 42.0);
    sim_terrain_free(&t);
}

static void pgm_8_and_16_bit(void **state)
{
    /* 3x2 image, top row is north (j = 1). */
    static const unsigned char p8[] = "P5\n# comment\n3 2\n255\n\x00\x33\xff\x80\x01\x02";
    sim_grid g;
    sim_error err = {0};
    assert_int_equal(sim_grid_parse_pgm(p8, sizeof p8 - 1, "a.pgm", &g, &err), 0);
    assert_int_equal(g.nx, 3);
    assert_int_equal(g.ny, 2);
    assert_true(g.v[3] == 0.0 && g.v[4] == 0x33 / 255.0 && g.v[5] == 1.0);
    assert_true(g.v[0] == 0x80 / 255.0 && g.v[2] == 2 / 255.0);
    sim_grid_free(&g);

    static const unsigned char p16[] = "P5 2 1 65535 \x12\x34\xff\xff";
    assert_int_equal(sim_grid_parse_pgm(p16, sizeof p16 - 1, "b.pgm", &g, &err), 0);
    assert_true(g.v[0] == 0x1234 / 65535.0 && g.v[1] == 1.0);
    sim_grid_free(&g);

    static const unsigned char trunc[] = "P5 4 4 255\n\x01\x02";
    assert_int_equal(sim_grid_parse_pgm(trunc, sizeof trunc - 1, "c.pgm", &g, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "c.pgm: PGM data truncated: found 2 bytes, expected 16 for "
                                 "4x4 at 1 byte(s) per sample");
    static const unsigned char p2[] = "P2 1 1 255\n7";
    assert_int_equal(sim_grid_parse_pgm(p2, sizeof p2 - 1, "d.pgm", &g, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "d.pgm: not a binary PGM: expected magic \"P5\" at the start");
    static const unsigned char over[] = "P5 1 1 100\n\xff";
    assert_int_equal(sim_grid_parse_pgm(over, sizeof over - 1, "e.pgm", &g, &err), SIM_EINVAL);
    assert_null(g.v);
    assert_int_equal(sim_grid_read_pgm("/nonexistent/x.pgm", &g, &err), SIM_EIO);
    assert_string_equal(err.msg, "/nonexistent/x.pgm: cannot open: No such file or directory");
}

static void raw_float_grid(void **state)
{
    char path[] = "/tmp/test_terrain_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    /* 2x2: north row 1.5, -2; south row 0.25, 1e3 (little-endian float32). */
    const unsigned char bytes[16] = {0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0,
                                     0x00, 0x00, 0x80, 0x3e, 0x00, 0x00, 0x7a, 0x44};
    assert_int_equal(write(fd, bytes, 16), 16);
    close(fd);
    sim_grid g;
    sim_error err = {0};
    assert_int_equal(sim_grid_read_f32(path, 2, 2, &g, &err), 0);
    assert_true(g.v[2] == 1.5 && g.v[3] == -2.0 && g.v[0] == 0.25 && g.v[1] == 1000.0);
    sim_grid_free(&g);
    assert_int_equal(sim_grid_read_f32(path, 3, 2, &g, &err), SIM_EINVAL);
    char expect[256];
    snprintf(expect, sizeof expect,
             "%s: raw float32 grid of 16 bytes: expected 24 (3x2 x 4)", path);
    assert_string_equal(err.msg, expect);
    unlink(path);
}

static void friction_map_and_bad_init(void **state)
{
    sim_terrain t;
    make_terrain(&t, 5, 5, 0, 0, 1.0, plane);
    sim_grid f;
    assert_int_equal(sim_grid_alloc(&f, 5, 5, NULL), 0);
    for (int k = 0; k < 25; k++) f.v[k] = 0.4;
    assert_int_equal(sim_terrain_set_friction(&t, &f, NULL), 0);
    sim_terrain_sample smp;
    sim_terrain_eval(&t, 2.2, 1.3, &smp);
    assert_true(fabs(smp.friction - 0.4) < 1e-12);
    sim_grid bad;
    sim_error err = {0};
    assert_int_equal(sim_grid_alloc(&bad, 4, 5, NULL), 0);
    assert_int_equal(sim_terrain_set_friction(&t, &bad, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "terrain: friction map 4x5: expected the height map's size 5x5");
    assert_null(bad.v);
    sim_terrain_free(&t);

    sim_grid g;
    assert_int_equal(sim_grid_alloc(&g, 2, 2, NULL), 0);
    assert_int_equal(sim_terrain_init(&t, &g, 0, 0, -1.0, &err), SIM_ERANGE);
    assert_null(g.v);
    assert_int_equal(sim_grid_alloc(&g, 0, 2, &err), SIM_ERANGE);
}

/* FNV-1a over a byte buffer, to pin generated maps down to the byte. */
static uint32_t fnv1a(const unsigned char *b, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

static void fractal_maps_are_deterministic(void **state)
{
    sim_grid a, b, c;
    assert_int_equal(sim_grid_fractal(&a, 33, 17, 42, 5, 8.0, 0.5, NULL), 0);
    assert_int_equal(sim_grid_fractal(&b, 33, 17, 42, 5, 8.0, 0.5, NULL), 0);
    assert_int_equal(sim_grid_fractal(&c, 33, 17, 43, 5, 8.0, 0.5, NULL), 0);
    unsigned char *ba, *bb, *bc;
    size_t la, lb, lc;
    assert_int_equal(sim_grid_encode_pgm16(&a, &ba, &la, NULL), 0);
    assert_int_equal(sim_grid_encode_pgm16(&b, &bb, &lb, NULL), 0);
    assert_int_equal(sim_grid_encode_pgm16(&c, &bc, &lc, NULL), 0);
    const char head[] = "P5\n33 17\n65535\n";
    assert_int_equal(la, sizeof head - 1 + 33 * 17 * 2);
    assert_memory_equal(ba, head, sizeof head - 1);
    assert_int_equal(la, lb);
    assert_memory_equal(ba, bb, la);            /* same seed: same bytes */
    assert_memory_not_equal(ba, bc, la);        /* another seed: another map */
    /* Normalised: the samples span exactly 0..65535. */
    unsigned lo = 65535, hi = 0;
    for (size_t k = sizeof head - 1; k < la; k += 2) {
        unsigned s = (unsigned)ba[k] << 8 | ba[k + 1];
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 65535);
    /* Round trip through the PGM reader, north row first. */
    sim_grid back;
    assert_int_equal(sim_grid_parse_pgm(ba, la, "gen", &back, NULL), 0);
    for (int k = 0; k < 33 * 17; k++) assert_true(fabs(back.v[k] - a.v[k]) <= 0.5 / 65535 + 1e-12);
    /* Pinned: the bytes of this map on this platform (catches accidental changes to the
     * generator, which would silently change every shipped terrain). */
    assert_int_equal(fnv1a(ba, la), 0x35f497c0u);
    free(ba);
    free(bb);
    free(bc);
    sim_grid_free(&a);
    sim_grid_free(&b);
    sim_grid_free(&c);
    sim_grid_free(&back);
    sim_error err = {0};
    assert_int_equal(sim_grid_fractal(&a, 8, 8, 1, 0, 8.0, 0.5, &err), SIM_ERANGE);
    assert_string_equal(err.msg, "fractal noise: octaves 0, period 8, persistence 0.5: expected "
                                 "1..16, 1..1e6 and (0, 1]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plane_reproduced_exactly),
        cmocka_unit_test(quadratic_reproduced_up_to_known_offset),
        cmocka_unit_test(normal_matches_finite_differences),
        cmocka_unit_test(c2_across_cell_borders),
        cmocka_unit_test(edge_behaviour_is_clamp_to_edge),
        cmocka_unit_test(pgm_8_and_16_bit),
        cmocka_unit_test(raw_float_grid),
        cmocka_unit_test(friction_map_and_bad_init),
        cmocka_unit_test(fractal_maps_are_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
