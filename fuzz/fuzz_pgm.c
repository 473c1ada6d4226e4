/* libFuzzer target: the binary PGM reader behind every height map, and the spline
 * evaluated on whatever grid it accepts. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_grid_image.h"
#include "sim_terrain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_grid g;
    if (sim_grid_parse_pgm(data, size, "fuzz.pgm", &g, NULL) == 0) {
        double du, dv, v = sim_grid_spline(&g, g.nx * 0.5, g.ny * 0.5, &du, &dv);
        /* Samples are in [0, 1] and the spline is a convex combination of them. */
        if (!(v >= -1e-12 && v <= 1 + 1e-12) || !isfinite(du) || !isfinite(dv)) __builtin_trap();
        sim_grid_free(&g);
    }
    return 0;
}
