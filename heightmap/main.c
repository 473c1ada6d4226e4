/* heightmap: writes a seeded fractal-noise height map as a 16-bit PGM or PNG, so
 * that scenarios ship their terrain as a reproducible command rather than an opaque
 * binary. Same options, same samples (and, for PGM, the same bytes; PNG's compressed
 * bytes depend on the zlib version). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_cli.h"
#include "sim_grid_image.h"
#include "sim_terrain.h"

int main(int argc, char **argv)
{
    const char *out = NULL, *format = NULL;
    int size = 257, height = 0, seed = 1, octaves = 6;
    double period = 64.0, persistence = 0.5;
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "FILE", "file to write (required)"},
        {"format", SIM_OPT_STRING, &format, "pgm|png",
         "16-bit PGM or PNG, default png when FILE ends in .png, else pgm"},
        {"size", SIM_OPT_INT, &size, "N", "points along x (and y unless --height), default 257"},
        {"height", SIM_OPT_INT, &height, "N", "points along y, default = --size"},
        {"seed", SIM_OPT_INT, &seed, "N", "random seed (>= 0), default 1"},
        {"octaves", SIM_OPT_INT, &octaves, "N", "noise layers 1..16, default 6"},
        {"period", SIM_OPT_DOUBLE, &period, "POINTS", "feature size of the first layer, default 64"},
        {"persistence", SIM_OPT_DOUBLE, &persistence, "P",
         "amplitude ratio of successive layers (0, 1], default 0.5"},
    };
    static const char usage[] = "heightmap --out FILE [options]";
    int npos = 0;
    int rc = sim_cli_parse(usage, "Write a seeded fractal-noise height map (16-bit PGM or PNG, "
                           "values spanning 0..65535; set metres with the scenario's height_scale).",
                           opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc == SIM_CLI_ERROR) return 2;
    size_t olen = out ? strlen(out) : 0;
    if (!format) format = olen >= 4 && strcasecmp(out + olen - 4, ".png") == 0 ? "png" : "pgm";
    int png = strcmp(format, "png") == 0;
    if (!out || npos != 0 || seed < 0 || (!png && strcmp(format, "pgm") != 0)) {
        if (!out) fprintf(stderr, "error: --out FILE is required\n");
        else if (npos) fprintf(stderr, "error: unexpected argument '%s'\n", argv[1]);
        else if (seed < 0) fprintf(stderr, "error: --seed must be >= 0, got %d\n", seed);
        else fprintf(stderr, "error: --format: expected pgm or png, got '%s'\n", format);
        sim_cli_print_usage(usage, NULL, opts, sizeof opts / sizeof opts[0], stderr);
        return 2;
    }
    /* The file is opened first: a wrong path fails at once, not after the noise of a
     * large map has been computed. */
    FILE *f = fopen(out, "wb");
    if (!f) {
        fprintf(stderr, "heightmap: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }
    sim_grid g;
    sim_error err = {0};
    unsigned char *buf = NULL;
    size_t len = 0;
    rc = sim_grid_fractal(&g, size, height ? height : size, (uint32_t)seed, octaves, period, persistence, &err);
    if (rc == SIM_OK) rc = (png ? sim_grid_encode_png16 : sim_grid_encode_pgm16)(&g, &buf, &len, &err);
    sim_grid_free(&g);
    if (rc != SIM_OK) {
        fclose(f);
        remove(out);
        fprintf(stderr, "heightmap: %s\n", err.msg);
        /* Out-of-range options are usage errors, like the parser's. */
        return rc == SIM_EINVAL || rc == SIM_ERANGE ? 2 : 1;
    }
    int ok = fwrite(buf, 1, len, f) == len;
    int saved = errno;
    if (fclose(f) != 0) ok = 0, saved = errno;
    free(buf);
    if (!ok) {
        fprintf(stderr, "heightmap: cannot write %s: %s\n", out, strerror(saved));
        return 1;
    }
    return 0;
}
