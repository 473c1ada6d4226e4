/* materials: procedural detail textures (materials.h). */
#include "materials.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint32_t hash2(int x, int y, uint32_t seed)
{
    uint32_t h = (uint32_t)x * 374761393u + (uint32_t)y * 668265263u + seed * 2246822519u;
    h = (h ^ (h >> 13)) * 1274126177u;
    return h ^ (h >> 16);
}

/* Value noise in [0, 1] with period `cells` (tiles seamlessly over the layer). */
static double noise(double u, double v, int cells, uint32_t seed)
{
    double x = u * cells, y = v * cells;
    int x0 = (int)floor(x), y0 = (int)floor(y);
    double fx = x - x0, fy = y - y0;
    fx = fx * fx * (3 - 2 * fx);
    fy = fy * fy * (3 - 2 * fy);
    double c[4];
    for (int k = 0; k < 4; k++) {
        int xi = ((x0 + (k & 1)) % cells + cells) % cells, yi = ((y0 + (k >> 1)) % cells + cells) % cells;
        c[k] = (hash2(xi, yi, seed) & 0xffff) / 65535.0;
    }
    return (c[0] * (1 - fx) + c[1] * fx) * (1 - fy) + (c[2] * (1 - fx) + c[3] * fx) * fy;
}

static double fbm(double u, double v, int cells, uint32_t seed)
{
    double sum = 0, amp = 0.5, norm = 0;
    for (int o = 0; o < 4; o++, cells *= 2, amp *= 0.5) {
        sum += amp * noise(u, v, cells, seed + (uint32_t)o);
        norm += amp;
    }
    return sum / norm;
}

/* A texel's factor f (about 0..2, 1 = unchanged) stored as f / 2. */
static unsigned char enc(double f)
{
    double v = f / 2 * 255;
    return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
}

void rn_materials_make(unsigned char *rgba)
{
    const int n = RN_MAT_SIZE;
    for (int m = RN_MAT_ASPHALT; m < RN_MAT_COUNT; m++) {
        unsigned char *layer = rgba + (size_t)(m - 1) * n * n * 4;
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                double u = (x + 0.5) / n, v = (y + 0.5) / n, r = 1, g = 1, b = 1;
                uint32_t h = hash2(x, y, (uint32_t)m * 977u);
                double white = (h & 0xffff) / 65535.0;
                switch (m) {
                case RN_MAT_ASPHALT: {
                    /* fine grain, bright aggregate specks, darker tar patches */
                    double k = 0.82 + 0.3 * fbm(u, v, 16, 11) + 0.12 * (white - 0.5);
                    if ((h >> 16) % 97 == 0)
                        k += 0.45;
                    k -= 0.12 * (noise(u, v, 4, 12) > 0.7);
                    r = g = b = k;
                    break;
                }
                case RN_MAT_PAINT: {
                    /* worn paint: the asphalt shows through in small flecks */
                    double k = 1.0 - 0.25 * (fbm(u, v, 32, 21) > 0.62) - 0.05 * white;
                    r = g = b = k;
                    break;
                }
                case RN_MAT_GROUND: {
                    /* grass: blades (high-frequency light/dark), clover and soil patches */
                    double blades = white, patch = fbm(u, v, 8, 31);
                    r = 0.8 + 0.35 * blades + 0.25 * (patch > 0.62);
                    g = 0.8 + 0.4 * blades - 0.05 * (patch > 0.62);
                    b = 0.75 + 0.3 * blades;
                    break;
                }
                case RN_MAT_CONCRETE: {
                    double k = 0.9 + 0.18 * fbm(u, v, 8, 41) + 0.08 * (white - 0.5);
                    r = g = b = k;
                    break;
                }
                }
                unsigned char *t = &layer[((size_t)y * n + x) * 4];
                t[0] = enc(r);
                t[1] = enc(g);
                t[2] = enc(b);
                t[3] = 255;
            }
    }
}

GLuint rn_materials_texture(void)
{
    const int n = RN_MAT_SIZE, layers = RN_MAT_COUNT - 1;
    unsigned char *px = malloc((size_t)n * n * 4 * layers);
    if (!px)
        return 0;
    rn_materials_make(px);
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D_ARRAY, t);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA8, n, n, layers, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glGenerateMipmap(GL_TEXTURE_2D_ARRAY);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    free(px);
    return t;
}
