/* Integration test of bin/heightmap: same options give the same bytes, another seed
 * another map, bad options exit 2. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(same_seed_same_bytes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
