/* Unit tests of sim_file: whole-file reads, refusing what is not a regular file, and
 * the path helpers the scenario loader resolves height maps with. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_file.h"

static void reads_whole_files(void **state)
{
    char path[] = "/tmp/test_file_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    /* Larger than the first 64 KiB chunk, with a NUL inside. */
    size_t n = 200000;
    char *want = malloc(n);
    for (size_t i = 0; i < n; i++) want[i] = (char)(i * 7);
    assert_int_equal(write(fd, want, n), (ssize_t)n);
    close(fd);
    char *data;
    size_t len;
    assert_int_equal(sim_file_read(path, &data, &len, NULL), 0);
    assert_int_equal(len, n);
    assert_memory_equal(data, want, n);
    assert_int_equal(data[n], '\0');
    free(data);
    free(want);
    unlink(path);
    sim_error err = {0};
    assert_int_equal(sim_file_read("/dev/null", &data, &len, &err), SIM_EIO);
    assert_string_equal(err.msg, "/dev/null: not a regular file");
    assert_null(data);
    assert_int_equal(sim_file_read("/tmp", &data, &len, &err), SIM_EIO);
    assert_int_equal(sim_file_read("/nonexistent/f", &data, &len, &err), SIM_EIO);
    assert_string_equal(err.msg, "/nonexistent/f: cannot open: No such file or directory");
}

static void joins_paths(void **state)
{
    char *s;
    assert_string_equal(s = sim_file_join("scenarios", "rural.pgm"), "scenarios/rural.pgm");
    free(s);
    assert_string_equal(s = sim_file_join("scenarios", "/abs/x.pgm"), "/abs/x.pgm");
    free(s);
    assert_string_equal(s = sim_file_join(NULL, "x.pgm"), "x.pgm");
    free(s);
    assert_string_equal(s = sim_file_dirname("a/b/c.json"), "a/b");
    free(s);
    assert_string_equal(s = sim_file_dirname("c.json"), ".");
    free(s);
    assert_string_equal(s = sim_file_dirname("/c.json"), "/");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_whole_files),
        cmocka_unit_test(joins_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
