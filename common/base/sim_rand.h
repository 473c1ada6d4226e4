/* sim_rand: the seeded pseudo-random generators of the pure cores, one copy: splitmix64
 * (Steele, Lea, Flood 2014) as a hash of one value, as a stream and as a counter-based
 * draw of (seed, k, stream); xorshift64* (Vigna 2016) seeded through it; Knuth's MMIX
 * linear congruential generator for the analysis' synthetic drives. The same seed gives
 * the same numbers on every machine; each caller's stream is pinned bit for bit by
 * tests/unit/test_rand.c. Pure: the caller owns the state. */
#ifndef SIM_RAND_H
#define SIM_RAND_H

#include <stdint.h>

#define SIM_RAND_GOLDEN 0x9E3779B97F4A7C15ull /* 2^64 / the golden ratio */

/* splitmix64's finaliser: a well-mixed 64-bit function of z. */
static inline uint64_t sim_rand_fmix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* splitmix64 of one value (a seed into a state): fmix(z + golden). */
static inline uint64_t sim_rand_mix(uint64_t z)
{
    return sim_rand_fmix(z + SIM_RAND_GOLDEN);
}

/* The splitmix64 stream: the next number, *state advanced. */
static inline uint64_t sim_rand_splitmix(uint64_t *state)
{
    return sim_rand_fmix(*state += SIM_RAND_GOLDEN);
}

/* xorshift64*: the next number, *state (never 0) advanced. */
static inline uint64_t sim_rand_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Knuth's MMIX LCG: the next state (its high bits are the usable ones). */
static inline uint64_t sim_rand_lcg(uint64_t *state)
{
    return *state = *state * 6364136223846793005ull + 1442695040888963407ull;
}

/* The top 53 bits of x as a double in [0, 1). */
static inline double sim_rand_unit(uint64_t x)
{
    return (double)(x >> 11) / 9007199254740992.0;
}

/* The k-th draw of a stream, in [0, 1), without state: the same (seed, k, stream, salt)
 * gives the same number whatever was drawn before (salt: the caller's own constant). */
static inline double sim_rand_draw(uint64_t seed, uint64_t k, uint64_t stream, uint64_t salt)
{
    return sim_rand_unit(sim_rand_fmix(seed * SIM_RAND_GOLDEN + k * 0xBF58476D1CE4E5B9ull +
                                       stream * 0x94D049BB133111EBull + salt));
}

#endif
