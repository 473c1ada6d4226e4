/* libFuzzer target: the PNG height-map reader (sim_grid_parse_png, from memory), and
 * the spline on whatever grid it accepts.
 *
 * Every chunk's CRC is recomputed before parsing, as image fuzzers commonly do:
 * otherwise almost every mutation dies at libpng's checksum test and the decoder
 * behind it (sizes, colour types, interlacing, the grey check) is never reached.
 * Unmodified inputs are tried as well, so the CRC-error path stays covered.
 *
 * Seeds (fuzz/corpus/fuzz_png/): grey16.png from `bin/heightmap --size 6 --height 4
 * --seed 2 --octaves 2 --period 3 --out grey16.png`; truncated.png its first 70
 * bytes; grey8-adam7.png (5x3, interlaced), palette4.png (4-bit palette of greys with
 * tRNS) and rgb8-grey.png (RGB, R = G = B) written with Python's zlib and struct. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_grid_image.h"
#include "sim_terrain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* CRC-32 as PNG defines it (ISO 3309, polynomial 0xEDB88320, reflected). */
static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static void parse(const uint8_t *data, size_t size)
{
    sim_grid g;
    if (sim_grid_parse_png(data, size, "fuzz.png", &g, NULL) == 0) {
        double du, dv, v = sim_grid_spline(&g, g.nx * 0.5, g.ny * 0.5, &du, &dv);
        /* Samples are in [0, 1] and the spline is a convex combination of them. */
        if (!(v >= -1e-12 && v <= 1 + 1e-12) || !isfinite(du) || !isfinite(dv)) __builtin_trap();
        sim_grid_free(&g);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse(data, size);
    if (size < 8) return 0;
    uint8_t *fixed = malloc(size);
    if (!fixed) return 0;
    memcpy(fixed, data, size);
    /* Chunks after the signature: length (4, big-endian), type (4), data, CRC (4) over
     * type and data. */
    for (size_t p = 8; p + 12 <= size;) {
        size_t len = (size_t)fixed[p] << 24 | (size_t)fixed[p + 1] << 16 |
                     (size_t)fixed[p + 2] << 8 | fixed[p + 3];
        if (len > size - p - 12) break;
        uint32_t c = crc32_png(fixed + p + 4, len + 4);
        uint8_t *q = fixed + p + 8 + len;
        q[0] = (uint8_t)(c >> 24);
        q[1] = (uint8_t)(c >> 16);
        q[2] = (uint8_t)(c >> 8);
        q[3] = (uint8_t)c;
        p += 12 + len;
    }
    if (memcmp(fixed, data, size) != 0) parse(fixed, size);
    free(fixed);
    return 0;
}
