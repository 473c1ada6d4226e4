/* Unit tests of sim_texture: the chain's size, mip levels as rounded 2x2 means (solved
 * by hand, and every level of every layer against the level above), each layer's mean
 * factor 1 at every level (far away the ground keeps its colour), contrast left at
 * every level down to 8x8 (detail that survives distance), determinism, bad sizes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_texture.h"

static void sizes(void **state)
{
    (void)state;
    assert_int_equal(sim_texture_levels(1), 1);
    assert_int_equal(sim_texture_levels(4), 3);
    assert_int_equal(sim_texture_levels(256), 9);
    assert_int_equal(sim_texture_chain_bytes(4), (16 + 4 + 1) * 4);
    assert_int_equal(sim_texture_chain_bytes(256), (65536 + 16384 + 4096 + 1024 + 256 + 64 + 16 + 4 + 1) * 4);
}

/* 4x4 -> 2x2: each channel the rounded mean of its block, halves rounded up. */
static void halve_by_hand(void **state)
{
    (void)state;
    unsigned char src[4 * 4 * 4] = {0}, dst[2 * 2 * 4];
    const unsigned char block[4][4] = {{0, 1, 2, 3}, {10, 10, 10, 11}, {255, 255, 255, 255}, {0, 0, 0, 2}};
    for (int b = 0; b < 4; b++)
        for (int k = 0; k < 4; k++) {
            int x = (b % 2) * 2 + k % 2, y = (b / 2) * 2 + k / 2;
            src[(y * 4 + x) * 4 + 0] = block[b][k];
            src[(y * 4 + x) * 4 + 1] = (unsigned char)(255 - block[b][k]);
            src[(y * 4 + x) * 4 + 2] = 7;
            src[(y * 4 + x) * 4 + 3] = 255;
        }
    sim_texture_halve(src, 4, dst);
    const unsigned char want[4] = {2, 10, 255, 1}; /* 1.5 -> 2, 10.25 -> 10, 255, 0.5 -> 1 */
    const unsigned char want_g[4] = {254, 245, 0, 255}; /* 253.5, 244.75, 0, 254.5 */
    for (int b = 0; b < 4; b++) {
        assert_int_equal(dst[b * 4 + 0], want[b]);
        assert_int_equal(dst[b * 4 + 1], want_g[b]);
        assert_int_equal(dst[b * 4 + 2], 7);
        assert_int_equal(dst[b * 4 + 3], 255);
    }
}

static double mean(const unsigned char *t, int n)
{
    double s = 0;
    for (long i = 0; i < (long)n * n; i++)
        s += t[i * 4];
    return s / ((double)n * n);
}

static double stddev(const unsigned char *t, int n)
{
    double m = mean(t, n), s = 0;
    for (long i = 0; i < (long)n * n; i++)
        s += (t[i * 4] - m) * (t[i * 4] - m);
    return sqrt(s / ((double)n * n));
}

static void layers(void **state)
{
    (void)state;
    const int n = 256;
    size_t bytes = sim_texture_chain_bytes(n);
    unsigned char *a = malloc(bytes), *b = malloc(bytes), *half = malloc((size_t)n * n);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(half);
    unsigned char *first = NULL;
    for (int k = 0; k < SIM_TEXTURE_COUNT; k++) {
        assert_int_equal(sim_texture_make((sim_texture_kind)k, n, a, NULL), 0);
        assert_int_equal(sim_texture_make((sim_texture_kind)k, n, b, NULL), 0);
        assert_memory_equal(a, b, bytes); /* deterministic */
        if (!first) {
            first = malloc(bytes);
            assert_non_null(first);
            memcpy(first, a, bytes);
        } else {
            assert_memory_not_equal(a, first, (size_t)n * n * 4); /* each layer its own */
        }
        double m0 = mean(a, n);
        assert_true(fabs(m0 - 127.5) < 1.5); /* mean factor 1 */
        unsigned char *lv = a;
        double sd0 = 0;
        for (int s = n, l = 0; s >= 1; s /= 2, l++) {
            /* each level from the one above as a rounded 2x2 mean (0.125 higher on
             * average per level from the rounding), and grey, opaque */
            assert_true(fabs(mean(lv, s) - m0) <= 0.5 * l + 0.01);
            for (long i = 0; i < (long)s * s; i++) {
                assert_int_equal(lv[i * 4], lv[i * 4 + 1]);
                assert_int_equal(lv[i * 4 + 3], 255);
            }
            if (s > 1) {
                sim_texture_halve(lv, s, half);
                assert_memory_equal(half, lv + (size_t)s * s * 4, (size_t)s / 2 * s / 2 * 4);
            }
            /* contrast left at every level to 8x8, at least a quarter of the top
             * level's (white noise would keep 1/32 at 8x8), and for the ground (grass,
             * asphalt) at least 6/255: far ground (its small levels) is not flat
             * colour; paint is the exception, worn only in flecks */
            if (l == 0)
                sd0 = stddev(lv, s);
            if (s >= 8 && k != SIM_TEXTURE_PAINT)
                if (!(stddev(lv, s) > sd0 / 4 && (k == SIM_TEXTURE_CONCRETE || stddev(lv, s) > 6)))
                    fail_msg("layer %d level %d: sd %.1f, top %.1f", k, l, stddev(lv, s), sd0);
            lv += (size_t)s * s * 4;
        }
    }
    free(first);
    free(a);
    free(b);
    free(half);
}

static void bad_input(void **state)
{
    (void)state;
    unsigned char buf[64 * 4];
    sim_error err = {0};
    assert_int_equal(sim_texture_make(SIM_TEXTURE_GRASS, 6, buf, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "power of two"));
    assert_int_equal(sim_texture_make(SIM_TEXTURE_GRASS, 2, buf, &err), SIM_EINVAL);
    assert_int_equal(sim_texture_make(SIM_TEXTURE_GRASS, 8192, buf, &err), SIM_EINVAL);
    assert_int_equal(sim_texture_make(SIM_TEXTURE_COUNT, 4, buf, &err), SIM_EINVAL);
    assert_int_equal(sim_texture_make(SIM_TEXTURE_GRASS, 4, buf, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes),
        cmocka_unit_test(halve_by_hand),
        cmocka_unit_test(layers),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
