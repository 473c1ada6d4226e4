/* Integration test of bin/heightmap: same options give the same bytes, another seed
 * another map, bad options exit 2; PNG output (by extension or --format) holds the
 * PGM's samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_grid_image.h"
#include "sim_terrain.h"

static int run(const char *args)
{
    const char *bin = getenv("SIM_BIN");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/heightmap %s >/dev/null 2>&1", bin ? bin : "bin", args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static size_t slurp(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void same_seed_same_bytes(void **state)
{
    char dir[] = "/tmp/heightmap_XXXXXX", args[512], a[300], b[300], c[300];
    assert_non_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/a.pgm", dir);
    snprintf(b, sizeof b, "%s/b.pgm", dir);
    snprintf(c, sizeof c, "%s/c.pgm", dir);
    snprintf(args, sizeof args, "--size 65 --seed 9 --octaves 4 --out %s", a);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "--out=%s --octaves 4 --seed 9 --size 65", b);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "--size 65 --seed 10 --octaves 4 --out %s", c);
    assert_int_equal(run(args), 0);
    static unsigned char ba[20000], bb[20000], bc[20000];
    size_t na = slurp(a, ba, sizeof ba), nb = slurp(b, bb, sizeof bb), nc = slurp(c, bc, sizeof bc);
    assert_int_equal(na, 15 + 65 * 65 * 2); /* "P5\n65 65\n65535\n" + samples */
    assert_int_equal(na, nb);
    assert_memory_equal(ba, bb, na);
    assert_int_equal(na, nc);
    assert_memory_not_equal(ba, bc, na);
    assert_int_equal(run("--size 65"), 2);           /* no --out */
    assert_int_equal(run("--out /tmp/x --bogus"), 2);
    assert_int_equal(run("--help"), 0);
    unlink(a), unlink(b), unlink(c);
    rmdir(dir);
}

static void png_holds_the_pgm_samples(void **state)
{
    char dir[] = "/tmp/heightmap_XXXXXX", args[512], pgm[300], png[300], raw[300];
    assert_non_null(mkdtemp(dir));
    snprintf(pgm, sizeof pgm, "%s/m.pgm", dir);
    snprintf(png, sizeof png, "%s/m.PNG", dir);
    snprintf(raw, sizeof raw, "%s/m.dat", dir);
    snprintf(args, sizeof args, "--size 40 --height 23 --seed 4 --out %s", pgm);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "--size 40 --height 23 --seed 4 --out %s", png);
    assert_int_equal(run(args), 0); /* by the extension, either case */
    snprintf(args, sizeof args, "--size 40 --height 23 --seed 4 --format png --out %s", raw);
    assert_int_equal(run(args), 0);
    sim_grid a, b, c;
    sim_error err = {0};
    assert_int_equal(sim_grid_read_pgm(pgm, &a, &err), 0);
    assert_int_equal(sim_grid_read_png(png, &b, &err), 0);
    assert_int_equal(sim_grid_read_png(raw, &c, &err), 0);
    assert_int_equal(b.nx, 40);
    assert_int_equal(b.ny, 23);
    assert_memory_equal(a.v, b.v, 40 * 23 * sizeof *a.v);
    assert_memory_equal(a.v, c.v, 40 * 23 * sizeof *a.v);
    sim_grid_free(&a);
    sim_grid_free(&b);
    sim_grid_free(&c);
    snprintf(args, sizeof args, "--format jpg --out %s", raw);
    assert_int_equal(run(args), 2);
    unlink(pgm), unlink(png), unlink(raw);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(same_seed_same_bytes),
                                       cmocka_unit_test(png_holds_the_pgm_samples)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
