/* sim_texture: procedural detail textures and their mipmaps (sim_texture.h). */
#include "sim_texture.h"

#include <math.h>
#include <stdint.h>

int sim_texture_levels(int n)
{
    int l = 1;
    while (n > 1) n /= 2, l++;
    return l;
}

size_t sim_texture_chain_bytes(int n)
{
    size_t b = 0;
    for (; n >= 1; n /= 2)
        b += (size_t)n * n * 4;
    return b;
}

void sim_texture_halve(const unsigned char *src, int n, unsigned char *dst)
{
    int h = n / 2;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < h; x++)
            for (int c = 0; c < 4; c++) {
                const unsigned char *a = src + ((size_t)(2 * y) * n + 2 * x) * 4 + c, *b = a + (size_t)n * 4;
                dst[((size_t)y * h + x) * 4 + c] = (unsigned char)((a[0] + a[4] + b[0] + b[4] + 2) / 4);
            }
}

static uint32_t hash2(int x, int y, uint32_t seed)
{
    uint32_t h = (uint32_t)x * 374761393u + (uint32_t)y * 668265263u + seed * 2246822519u;
    h = (h ^ (h >> 13)) * 1274126177u;
    return h ^ (h >> 16);
}

static double white(int x, int y, uint32_t seed) { return (hash2(x, y, seed) & 0xffff) / 65535.0; }

/* Value noise in [0, 1] with `cells` cells across the layer (tiles seamlessly). */
static double noise(double u, double v, int cells, uint32_t seed)
{
    double x = u * cells, y = v * cells;
    int x0 = (int)floor(x), y0 = (int)floor(y);
    double fx = x - x0, fy = y - y0;
    fx = fx * fx * (3 - 2 * fx);
    fy = fy * fy * (3 - 2 * fy);
    double c[4];
    for (int k = 0; k < 4; k++)
        c[k] = white(((x0 + (k & 1)) % cells + cells) % cells, ((y0 + (k >> 1)) % cells + cells) % cells, seed);
    return (c[0] * (1 - fx) + c[1] * fx) * (1 - fy) + (c[2] * (1 - fx) + c[3] * fx) * fy;
}

/* Octaves of equal amplitude from 2 cells across the layer to one cell per 2 texels:
 * centred on 0, about +-0.5 * amp each. */
static double pink(double u, double v, int n, double amp, uint32_t seed)
{
    double sum = 0;
    for (int cells = 2; cells <= n / 2; cells *= 2, seed++)
        sum += amp * (noise(u, v, cells, seed) - 0.5);
    return sum;
}

/* The factor of texel (x, y) of an n x n layer, before normalising. */
static double factor(sim_texture_kind kind, int x, int y, int n)
{
    double u = (x + 0.5) / n, v = (y + 0.5) / n, w = white(x, y, 977u * (kind + 1)) - 0.5;
    switch (kind) {
    case SIM_TEXTURE_ASPHALT: {
        double k = 1 + pink(u, v, n, 0.11, 11) + 0.22 * w;
        if (hash2(x, y, 5) % 61 == 0)
            k += 0.45; /* aggregate catching the light */
        if (noise(u, v, 4, 12) > 0.68)
            k -= 0.14; /* tar patches, hard-edged */
        if (noise(u, v, 3, 13) > 0.74)
            k += 0.1; /* a repair, lighter and newer */
        return k;
    }
    case SIM_TEXTURE_PAINT:
        return 1.0 - 0.28 * (noise(u, v, 32, 21) + 0.5 * noise(u, v, 64, 22) > 1.0) - 0.08 * w;
    case SIM_TEXTURE_GRASS: {
        double k = 1 + pink(u, v, n, 0.16, 31) + 0.4 * w;  /* blades */
        if (noise(u, v, 8, 40) > 0.64)
            k -= 0.22; /* soil showing between clumps */
        if (noise(u, v, 32, 41) > 0.7)
            k += 0.18; /* lighter tufts, clover */
        return k;
    }
    case SIM_TEXTURE_CONCRETE: {
        double k = 1 + pink(u, v, n, 0.14, 51) + 0.12 * w;
        if (x % (n / 2) < 2)
            k -= 0.25; /* joints between slabs */
        return k;
    }
    default:
        return 1;
    }
}

static unsigned char enc(double f)
{
    double v = f / 2 * 255;
    return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
}

int sim_texture_make(sim_texture_kind kind, int n, unsigned char *chain, sim_error *err)
{
    if ((int)kind < 0 || kind >= SIM_TEXTURE_COUNT)
        return sim_error_set(err, SIM_EINVAL, "texture: no kind %d", (int)kind);
    if (n < 4 || n > SIM_TEXTURE_MAX || (n & (n - 1)))
        return sim_error_set(err, SIM_EINVAL, "texture: size %d is not a power of two from 4 to %d", n,
                             SIM_TEXTURE_MAX);
    /* two passes, no buffer of our own: the mean, then the texels scaled to mean 1 */
    double sum = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            sum += fmax(0.05, factor(kind, x, y, n));
    double scale = (double)n * n / sum;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            unsigned char *t = chain + ((size_t)y * n + x) * 4, k = enc(fmax(0.05, factor(kind, x, y, n)) * scale);
            t[0] = t[1] = t[2] = k;
            t[3] = 255;
        }
    for (unsigned char *src = chain; n > 1; n /= 2) {
        unsigned char *dst = src + (size_t)n * n * 4;
        sim_texture_halve(src, n, dst);
        src = dst;
    }
    return SIM_OK;
}
