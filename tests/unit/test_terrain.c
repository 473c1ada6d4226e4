/* Unit tests of sim_terrain: PGM/PNG/raw loading, the B-spline surface's exact
 * reproduction of planes and quadratics, analytic normals, C2 continuity and the
 * documented edge behaviour. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_grid_image.h"
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

/* ---- PNG: files written here with libpng itself, independently of the encoder
 * under test. ---- */

typedef struct membuf {
    unsigned char *b;
    size_t n, cap;
} membuf;

static void membuf_write_raw(membuf *m, const void *d, size_t n)
{
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2;
        m->b = realloc(m->b, m->cap);
        assert_non_null(m->b);
    }
    memcpy(m->b + m->n, d, n);
    m->n += n;
}

static void membuf_write(png_structp png, png_bytep d, size_t n)
{
    membuf_write_raw(png_get_io_ptr(png), d, n);
}

static void membuf_flush(png_structp png) { (void)png; }

/* A w x h PNG of the given bit depth, colour type and interlacing. `s` holds the
 * samples, top row first, every channel of a pixel in turn (palette: the index);
 * depths below 8 are packed here, 16-bit written big-endian as PNG says. `pal`
 * (n_pal entries) and `trns` (n_trns alpha values) are for palette images. The
 * caller frees the result. */
static unsigned char *make_png(int w, int h, int depth, int type, int interlace,
                               const unsigned *s, const png_color *pal, int n_pal,
                               const unsigned char *trns, int n_trns, size_t *len)
{
    membuf m = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_non_null(info);
    if (setjmp(png_jmpbuf(png))) fail_msg("libpng could not write the test image");
    png_set_write_fn(png, &m, membuf_write, membuf_flush);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, type,
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (pal) png_set_PLTE(png, info, pal, n_pal);
    if (trns) png_set_tRNS(png, info, trns, n_trns, NULL);
    png_write_info(png, info);
    int ch = type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_PALETTE ? 1
             : type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : type == PNG_COLOR_TYPE_RGB ? 3 : 4;
    size_t rowbytes = ((size_t)w * (size_t)ch * (size_t)depth + 7) / 8;
    unsigned char *img = calloc((size_t)h, rowbytes);
    png_bytep *rows = calloc((size_t)h, sizeof *rows);
    assert_true(img && rows);
    for (int r = 0; r < h; r++) {
        rows[r] = img + (size_t)r * rowbytes;
        for (int k = 0; k < w * ch; k++) {
            unsigned v = s[(size_t)r * (size_t)w * (size_t)ch + (size_t)k];
            if (depth == 16) {
                rows[r][2 * k] = (unsigned char)(v >> 8);
                rows[r][2 * k + 1] = (unsigned char)v;
            } else {
                int bit = k * depth; /* packed most significant bits first */
                rows[r][bit / 8] |= (unsigned char)(v << (8 - depth - bit % 8));
            }
        }
    }
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    free(img);
    *len = m.n;
    return m.b;
}

/* Parses a PNG that must load, checks the size, and compares every value with
 * expect[] (top row first) exactly. */
static void assert_png_values(const unsigned char *b, size_t n, int w, int h, const double *expect)
{
    sim_grid g;
    sim_error err = {0};
    int rc = sim_grid_parse_png(b, n, "t.png", &g, &err);
    if (rc) fail_msg("%s", err.msg);
    assert_int_equal(g.nx, w);
    assert_int_equal(g.ny, h);
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++)
            if (g.v[(size_t)(h - 1 - r) * (size_t)w + (size_t)c] != expect[r * w + c])
                fail_msg("row %d column %d: %.17g, expected %.17g", r, c,
                         g.v[(size_t)(h - 1 - r) * (size_t)w + (size_t)c], expect[r * w + c]);
    sim_grid_free(&g);
}

static void png_gives_the_pgm_grid(void **state)
{
    /* The 3x2 image of pgm_8_and_16_bit, as PNG: the same doubles, bit for bit. */
    static const unsigned char p8[] = "P5 3 2 255\n\x00\x33\xff\x80\x01\x02";
    const unsigned s8[] = {0x00, 0x33, 0xff, 0x80, 0x01, 0x02};
    size_t n;
    unsigned char *png = make_png(3, 2, 8, PNG_COLOR_TYPE_GRAY, 0, s8, NULL, 0, NULL, 0, &n);
    sim_grid a, b;
    assert_int_equal(sim_grid_parse_pgm(p8, sizeof p8 - 1, "a.pgm", &a, NULL), 0);
    assert_int_equal(sim_grid_parse_png(png, n, "a.png", &b, NULL), 0);
    assert_int_equal(b.nx, 3);
    assert_int_equal(b.ny, 2);
    assert_memory_equal(a.v, b.v, 6 * sizeof *a.v);
    assert_true(b.v[4] == 0x33 / 255.0 && b.v[0] == 0x80 / 255.0);
    sim_grid_free(&a);
    sim_grid_free(&b);
    free(png);

    /* 16 bit at full precision: neighbouring samples 1 and 2, 0xfffe and 0xffff stay
     * apart (an 8-bit conversion would merge them). Same grid, so same surface. */
    static const unsigned char p16[] = "P5 4 3 65535\n"
                                       "\x00\x00\x00\x01\x00\x02\x12\x34"
                                       "\xfe\xdc\xff\xfe\xff\xff\x80\x00"
                                       "\x00\xff\x01\x00\x7f\xff\x40\x01";
    const unsigned s16[] = {0, 1, 2, 0x1234, 0xfedc, 0xfffe, 0xffff, 0x8000,
                            0xff, 0x100, 0x7fff, 0x4001};
    png = make_png(4, 3, 16, PNG_COLOR_TYPE_GRAY, 0, s16, NULL, 0, NULL, 0, &n);
    double expect[12];
    for (int k = 0; k < 12; k++) expect[k] = s16[k] / 65535.0;
    assert_png_values(png, n, 4, 3, expect);
    sim_terrain ta, tb;
    assert_int_equal(sim_grid_parse_pgm(p16, sizeof p16 - 1, "b.pgm", &a, NULL), 0);
    assert_int_equal(sim_grid_parse_png(png, n, "b.png", &b, NULL), 0);
    assert_memory_equal(a.v, b.v, 12 * sizeof *a.v);
    assert_int_equal(sim_terrain_init(&ta, &a, -3.0, 2.0, 5.0, NULL), 0);
    assert_int_equal(sim_terrain_init(&tb, &b, -3.0, 2.0, 5.0, NULL), 0);
    unsigned r = 5;
    for (int k = 0; k < 50; k++) {
        double x = -8.0 + rnd(&r) * 30.0, y = -3.0 + rnd(&r) * 25.0;
        sim_terrain_sample sa, sb;
        sim_terrain_eval(&ta, x, y, &sa);
        sim_terrain_eval(&tb, x, y, &sb);
        assert_true(sa.z == sb.z && sa.dzdx == sb.dzdx && sa.dzdy == sb.dzdy);
    }
    sim_terrain_free(&ta);
    sim_terrain_free(&tb);
    free(png);
}

static void png_colour_types_and_interlace(void **state)
{
    size_t n;
    unsigned char *png;
    /* Low bit depths: sample / (2^depth - 1), as PGM's sample / maxval. */
    const unsigned s1[] = {1, 0, 1, 1, 0, 0, 0, 1, 1};
    const double e1[] = {1, 0, 1, 1, 0, 0, 0, 1, 1};
    png = make_png(9, 1, 1, PNG_COLOR_TYPE_GRAY, 0, s1, NULL, 0, NULL, 0, &n);
    assert_png_values(png, n, 9, 1, e1);
    free(png);
    const unsigned s2[] = {0, 1, 2, 3, 3};
    const double e2[] = {0, 1 / 3.0, 2 / 3.0, 1, 1};
    png = make_png(5, 1, 2, PNG_COLOR_TYPE_GRAY, 0, s2, NULL, 0, NULL, 0, &n);
    assert_png_values(png, n, 5, 1, e2);
    free(png);
    const unsigned s4[] = {0, 5, 15};
    const double e4[] = {0, 5 / 15.0, 1};
    png = make_png(3, 1, 4, PNG_COLOR_TYPE_GRAY, 0, s4, NULL, 0, NULL, 0, &n);
    assert_png_values(png, n, 3, 1, e4);
    free(png);

    /* Alpha is ignored, whatever its value. */
    const unsigned ga8[] = {10, 0, 200, 255, 255, 7};
    const double ega8[] = {10 / 255.0, 200 / 255.0, 1};
    png = make_png(3, 1, 8, PNG_COLOR_TYPE_GRAY_ALPHA, 0, ga8, NULL, 0, NULL, 0, &n);
    assert_png_values(png, n, 3, 1, ega8);
    free(png);
    const unsigned ga16[] = {0x1234, 0, 0xfffe, 0xffff};
    const double ega16[] = {0x1234 / 65535.0, 0xfffe / 65535.0};
    png = make_png(2, 1, 16, PNG_COLOR_TYPE_GRAY_ALPHA, 0, ga16, NULL, 0, NULL, 0, &n);
    assert_png_values(png, n, 2, 1, ega16);
    free(png);

    /* Grey stored as colour (R = G = B) reads as that grey, at 8 and 16 bit. */
    const unsigned rgb8[] = {9, 9, 9, 250, 250, 250};
    const double ergb8[] = {9 / 255.0, 250 / 255.0};
    png = make_png(1, 2, 8, PNG_COLOR_TYPE_RGB, 0, rgb8, NULL, 0, NULL, 0, &n);
    assert_png_values(png, n, 1, 2, ergb8);
    free(png);
    const unsigned rgba16[] = {0xabcd, 0xabcd, 0xabcd, 0, 1, 1, 1, 0xffff};
    const double ergba16[] = {0xabcd / 65535.0, 1 / 65535.0};
    png = make_png(2, 1, 16, PNG_COLOR_TYPE_RGB_ALPHA, 0, rgba16, NULL, 0, NULL, 0, &n);
    assert_png_values(png, n, 2, 1, ergba16);
    free(png);
    /* A palette of greys, with transparency (ignored), 4-bit indices. */
    const png_color pal[3] = {{0, 0, 0}, {128, 128, 128}, {255, 255, 255}};
    const unsigned char trns[3] = {255, 0, 128};
    const unsigned idx[] = {2, 1, 0, 1};
    const double eidx[] = {1, 128 / 255.0, 0, 128 / 255.0};
    png = make_png(2, 2, 4, PNG_COLOR_TYPE_PALETTE, 0, idx, pal, 3, trns, 3, &n);
    assert_png_values(png, n, 2, 2, eidx);
    free(png);

    /* Adam7 interlacing: the same values as the plain file, on a size that leaves
     * some passes empty for some rows. */
    enum { W = 11, H = 9 };
    unsigned si[W * H];
    double ei[W * H];
    for (int k = 0; k < W * H; k++) {
        si[k] = (unsigned)(k * 2654435761u >> 16);
        ei[k] = si[k] / 65535.0;
    }
    png = make_png(W, H, 16, PNG_COLOR_TYPE_GRAY, 1, si, NULL, 0, NULL, 0, &n);
    assert_png_values(png, n, W, H, ei);
    free(png);

    /* Colour: refused, naming the first pixel that is not grey. */
    const unsigned col[] = {5, 5, 5, 5, 5, 5, 1, 2, 3, 4, 4, 4};
    png = make_png(2, 2, 8, PNG_COLOR_TYPE_RGB, 0, col, NULL, 0, NULL, 0, &n);
    sim_grid g;
    sim_error err = {0};
    assert_int_equal(sim_grid_parse_png(png, n, "c.png", &g, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "c.png: PNG pixel at row 1 column 0 is not grey (R 1, G 2, B "
                                 "3): expected R = G = B (save height maps as greyscale)");
    assert_null(g.v);
    assert_int_equal(g.nx, 0);
    free(png);
    const png_color red[2] = {{0, 0, 0}, {255, 0, 0}};
    const unsigned ridx[] = {0, 1};
    png = make_png(2, 1, 8, PNG_COLOR_TYPE_PALETTE, 0, ridx, red, 2, NULL, 0, &n);
    assert_int_equal(sim_grid_parse_png(png, n, "p.png", &g, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "p.png: PNG pixel at row 0 column 1 is not grey (R 255, G 0, "
                                 "B 0): expected R = G = B (save height maps as greyscale)");
    free(png);
}

/* The signature and IHDR of a w x h 8-bit grey PNG (written by libpng, CRC and
 * all), followed by the header of an IDAT chunk and no data: enough for the
 * reader to see the size. */
static unsigned char *png_header_only(int w, int h, size_t *len)
{
    membuf m = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_non_null(info);
    if (setjmp(png_jmpbuf(png))) fail_msg("libpng could not write the test header");
    png_set_write_fn(png, &m, membuf_write, membuf_flush);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_destroy_write_struct(&png, &info);
    membuf_write_raw(&m, "\0\0\x10\0IDAT", 8);
    *len = m.n;
    return m.b;
}

static void png_errors_name_the_file(void **state)
{
    size_t n;
    unsigned s[64];
    for (int k = 0; k < 64; k++) s[k] = (unsigned)(k * 977 % 65536);
    unsigned char *png = make_png(8, 8, 16, PNG_COLOR_TYPE_GRAY, 0, s, NULL, 0, NULL, 0, &n);
    sim_grid g;
    sim_error err = {0};
    /* Cut short inside the image data: the reader's message, nothing leaked (ASan). */
    assert_int_equal(sim_grid_parse_png(png, n - 30, "cut.png", &g, &err), SIM_EINVAL);
    char expect[256];
    snprintf(expect, sizeof expect, "cut.png: bad PNG data: truncated: found %zu bytes, "
             "expected more", n - 30);
    assert_string_equal(err.msg, expect);
    assert_null(g.v);
    /* Only the IEND chunk missing: still truncated (the whole file is checked). */
    assert_int_equal(sim_grid_parse_png(png, n - 12, "end.png", &g, &err), SIM_EINVAL);
    snprintf(expect, sizeof expect, "end.png: bad PNG data: truncated: found %zu bytes, "
             "expected more", n - 12);
    assert_string_equal(err.msg, expect);
    /* Corruption: one flipped bit in the compressed stream's header, then in the
     * chunk's checksum; libpng's messages, named. The IDAT chunk starts after the
     * signature (8) and IHDR (25): length, type, data, CRC. */
    assert_memory_equal(png + 37, "IDAT", 4);
    size_t idat_len = (size_t)png[33] << 24 | (size_t)png[34] << 16 | png[35] << 8 | png[36];
    png[42] ^= 0x10;
    assert_int_equal(sim_grid_parse_png(png, n, "zlib.png", &g, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "zlib.png: bad PNG data: IDAT: incorrect header check");
    png[42] ^= 0x10;
    png[41 + idat_len] ^= 0x01;
    assert_int_equal(sim_grid_parse_png(png, n, "crc.png", &g, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "crc.png: bad PNG data: IDAT: CRC error");
    assert_null(g.v);
    png[41 + idat_len] ^= 0x01;
    assert_int_equal(sim_grid_parse_png(png, n, "ok.png", &g, &err), 0);
    sim_grid_free(&g);
    /* No signature (a PGM given to the PNG reader). */
    static const unsigned char pgm[] = "P5 1 1 255\n\x01";
    assert_int_equal(sim_grid_parse_png(pgm, sizeof pgm - 1, "x.png", &g, &err), SIM_EINVAL);
    assert_string_equal(err.msg,
                        "x.png: not a PNG: expected the 8-byte PNG signature at the start");
    assert_int_equal(sim_grid_parse_png(png, 5, "short.png", &g, &err), SIM_EINVAL);
    free(png);

    /* A header that promises more samples than the file could hold, and one beyond
     * the size limit: refused before anything that size is allocated. (Only the
     * header matters; libpng checks its CRC, so it is recomputed.) */
    png = png_header_only(16000, 16000, &n);
    assert_int_equal(n, 8 + 25 + 8);
    assert_int_equal(sim_grid_parse_png(png, n, "big.png", &g, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "big.png: PNG of 16000x16000 needs 256000000 bytes of "
                                 "samples, expected a file of at least 248062 bytes, found 41: "
                                 "truncated");
    free(png);
    png = png_header_only(20000, 3, &n);
    assert_int_equal(sim_grid_parse_png(png, n, "wide.png", &g, &err), SIM_ERANGE);
    assert_string_equal(err.msg, "wide.png: PNG size 20000x3: expected 1..16384 a side");
    assert_null(g.v);
    free(png);

    assert_int_equal(sim_grid_read_png("/nonexistent/x.png", &g, &err), SIM_EIO);
    assert_string_equal(err.msg, "/nonexistent/x.png: cannot open: No such file or directory");
}

static void png_encoder_round_trip(void **state)
{
    /* The heightmap tool's PNG holds exactly the PGM's samples. */
    sim_grid a, from_pgm, from_png;
    assert_int_equal(sim_grid_fractal(&a, 21, 13, 9, 4, 6.0, 0.5, NULL), 0);
    unsigned char *bp, *bn;
    size_t lp, ln;
    assert_int_equal(sim_grid_encode_pgm16(&a, &bp, &lp, NULL), 0);
    assert_int_equal(sim_grid_encode_png16(&a, &bn, &ln, NULL), 0);
    assert_memory_equal(bn, "\x89PNG\r\n\x1a\n", 8);
    assert_int_equal(sim_grid_parse_pgm(bp, lp, "a.pgm", &from_pgm, NULL), 0);
    assert_int_equal(sim_grid_parse_png(bn, ln, "a.png", &from_png, NULL), 0);
    assert_int_equal(from_png.nx, 21);
    assert_int_equal(from_png.ny, 13);
    assert_memory_equal(from_pgm.v, from_png.v, 21 * 13 * sizeof *a.v);
    /* parse_image tells them apart by their first bytes. */
    sim_grid c;
    assert_int_equal(sim_grid_parse_image(bn, ln, "a", &c, NULL), 0);
    assert_memory_equal(c.v, from_png.v, 21 * 13 * sizeof *a.v);
    sim_grid_free(&c);
    assert_int_equal(sim_grid_parse_image(bp, lp, "a", &c, NULL), 0);
    assert_memory_equal(c.v, from_pgm.v, 21 * 13 * sizeof *a.v);
    sim_grid_free(&c);
    free(bp);
    free(bn);
    sim_grid_free(&a);
    sim_grid_free(&from_pgm);
    sim_grid_free(&from_png);
    sim_grid empty = {0};
    sim_error err = {0};
    assert_int_equal(sim_grid_encode_png16(&empty, &bn, &ln, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "PNG encoding: grid 0x0: expected 1..16384 points a side");
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

/* sim_terrain_max_slope bounds the surface's slope everywhere (inside, across cells and
 * beyond the map), and is not loose: the steepest point found is within 2x of it. A
 * plane's bound is its own slope. */
static void max_slope_bounds_the_surface(void **state)
{
    (void)state;
    sim_grid g;
    sim_error err = {0};
    assert_int_equal(sim_grid_fractal(&g, 65, 65, 3, 4, 16.0, 0.5, &err), 0);
    for (int k = 0; k < 65 * 65; k++)
        g.v[k] *= 6.0;
    sim_terrain t;
    assert_int_equal(sim_terrain_init(&t, &g, -10.0, 5.0, 1.5, &err), 0);
    double bound = sim_terrain_max_slope(&t), steepest = 0.0;
    unsigned seed = 11;
    for (int i = 0; i < 200000; i++) {
        double x = -20.0 + 120.0 * rnd(&seed), y = -5.0 + 120.0 * rnd(&seed);
        sim_terrain_sample smp;
        sim_terrain_eval(&t, x, y, &smp);
        steepest = fmax(steepest, hypot(smp.dzdx, smp.dzdy));
    }
    printf("max slope bound %.4f, steepest of 200000 points %.4f\n", bound, steepest);
    assert_true(steepest <= bound);
    assert_true(steepest >= 0.5 * bound);
    sim_terrain_free(&t);
    sim_terrain pl;
    make_terrain(&pl, 9, 9, 0.0, 0.0, 2.0, plane);
    assert_true(fabs(sim_terrain_max_slope(&pl) - hypot(0.3, 0.2)) < 1e-12);
    sim_terrain_free(&pl);
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
        cmocka_unit_test(png_gives_the_pgm_grid),
        cmocka_unit_test(png_colour_types_and_interlace),
        cmocka_unit_test(png_errors_name_the_file),
        cmocka_unit_test(png_encoder_round_trip),
        cmocka_unit_test(raw_float_grid),
        cmocka_unit_test(friction_map_and_bad_init),
        cmocka_unit_test(max_slope_bounds_the_surface),
        cmocka_unit_test(fractal_maps_are_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
