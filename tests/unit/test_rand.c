/* Unit tests of sim_rand (common/base/sim_rand.h): every stream the pure cores drew from
 * their own copies of splitmix64, xorshift64* and the MMIX LCG gives the same numbers,
 * bit for bit, from the one copy: the old copies are kept here as references, and the
 * first draws of the public functions that use them are pinned as they were. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sim_automation_config.h"
#include "sim_drt.h"
#include "sim_lct.h"
#include "sim_rand.h"

/* ---- the old copies, verbatim but for their names ---- */

static double drt_draw(uint64_t seed, int k, int stream) /* common/tasks/sim_drt.c */
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (uint64_t)k * 0xBF58476D1CE4E5B9ull +
                 (uint64_t)stream * 0x94D049BB133111EBull + 0x2545F4914F6CDD1Dull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static double lct_draw(uint64_t seed, int k, int stream) /* common/tasks/sim_lct.c */
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (uint64_t)k * 0xBF58476D1CE4E5B9ull +
                 (uint64_t)stream * 0x94D049BB133111EBull + 0x6A09E667F3BCC909ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* common/study/sim_study_plan.c and common/traffic/sim_traffic_impl.h (tr_mix, tr_next,
 * tr_unit): the same two functions */
static uint64_t old_mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint64_t old_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}
static double old_tr_unit(uint64_t *s) { return (double)(old_next(s) >> 11) * 0x1.0p-53; }

/* common/automation/sim_automation_config.c and common/scenery/sim_scenery.c */
static uint64_t old_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double old_scenery_unit(uint64_t *s) { return (double)(old_splitmix(s) >> 11) * (1.0 / 9007199254740992.0); }

/* analysis/synth.c rnd, analysis/synth_tasks.c uni */
static double old_lcg_unit(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static const uint64_t SEEDS[] = {0, 1, 7, 42, 20261124, 0xFFFFFFFFFFFFFFFFull, 0x8000000000000000ull, 123456789};

static void same_numbers_as_the_old_copies(void **state)
{
    (void)state;
    int compared = 0;
    for (size_t i = 0; i < sizeof SEEDS / sizeof *SEEDS; i++) {
        uint64_t seed = SEEDS[i];
        for (int k = -2; k < 200; k++)
            for (int stream = 0; stream < 4; stream++) {
                double a = drt_draw(seed, k, stream), b = sim_rand_draw(seed, (uint64_t)k, (uint64_t)stream, 0x2545F4914F6CDD1Dull);
                double c = lct_draw(seed, k, stream), d = sim_rand_draw(seed, (uint64_t)k, (uint64_t)stream, 0x6A09E667F3BCC909ull);
                assert_memory_equal(&a, &b, sizeof a);
                assert_memory_equal(&c, &d, sizeof c);
                compared += 2;
            }
        assert_true(old_mix(seed) == sim_rand_mix(seed));
        uint64_t s1 = old_mix(seed) | 1, s2 = s1, s3 = s1, s4 = s1;
        uint64_t m1 = seed, m2 = seed, l1 = seed, l2 = seed;
        for (int n = 0; n < 1000; n++) {
            assert_true(old_next(&s1) == sim_rand_xorshift(&s2));
            double u = old_tr_unit(&s3), v = sim_rand_unit(sim_rand_xorshift(&s4));
            assert_memory_equal(&u, &v, sizeof u);
            assert_true(old_splitmix(&m1) == sim_rand_splitmix(&m2));
            double x = old_lcg_unit(&l1), y = sim_rand_unit(sim_rand_lcg(&l2));
            assert_memory_equal(&x, &y, sizeof x);
            compared += 4;
        }
        uint64_t g1 = seed, g2 = seed;
        for (int n = 0; n < 100; n++) {
            double u = old_scenery_unit(&g1), v = sim_rand_unit(sim_rand_splitmix(&g2));
            assert_memory_equal(&u, &v, sizeof u);
        }
    }
    assert_true(compared > 40000);
}

/* The first draws of the functions built on them, as they were before sim_rand (printed
 * with %a from the build before the change). */
static void public_streams_pinned(void **state)
{
    (void)state;
    sim_drt_config c;
    sim_drt_config_init(&c);
    c.seed = 7;
    assert_true(sim_drt_interval(&c, 1) == 0x1.f43186aeb80f8p+1);
    assert_true(sim_drt_interval(&c, 2) == 0x1.e5bd5caf1a4fap+1);
    assert_true(sim_drt_interval(&c, 3) == 0x1.25f962838f121p+2);

    sim_lct_params p;
    sim_lct_params_init(&p);
    p.track = 3;
    sim_lct_track t;
    sim_error err = {0};
    assert_int_equal(sim_lct_track_make(&p, &t, &err), 0);
    assert_true(t.change[0].sign_s == 0x1.2cp+7);
    assert_true(t.change[1].sign_s == 0x1.30e0cf61edc4ap+8);
    assert_true(t.change[2].sign_s == 0x1.c1b4f56d94355p+8);
    assert_int_equal(t.change[1].from_lane, 2);
    assert_int_equal(t.change[2].to_lane, 1);

    sim_reaction r = {.dist = SIM_REACT_UNIFORM, .min = 0.5, .max = 2.5};
    sim_reaction_seed(&r, 42);
    assert_true(sim_reaction_draw(&r) == 0x1.fbae644c5fd6ep+0);
    assert_true(sim_reaction_draw(&r) == 0x1.a3bf8ccec99bdp-1);
    assert_true(sim_reaction_draw(&r) == 0x1.0ea4ceae261f4p+0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_numbers_as_the_old_copies),
        cmocka_unit_test(public_streams_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
