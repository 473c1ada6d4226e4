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
#include <signal.h>
#include <sys/stat.h>
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

/* Regression: fopen on a FIFO waits for a writer before the regular-file check could
 * run, so a FIFO named as a scenario or vehicle file hung the program. The alarm turns
 * a hang into a failure. */
static void fifo_is_refused_without_blocking(void **state)
{
    char dir[] = "/tmp/test_file_fifo_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(5);
    char *data;
    size_t len;
    sim_error err = {0};
    assert_int_equal(sim_file_read(path, &data, &len, &err), SIM_EIO);
    alarm(0);
    assert_non_null(strstr(err.msg, "fifo: not a regular file"));
    unlink(path);
    rmdir(dir);
}

/* The bounded read (vehicle files) and mkdirs refusing an empty name or a file in the
 * way (it used to read past an empty path's buffer and to accept a file as "exists"). */
static void bounded_reads_and_mkdirs(void **state)
{
    char dir[] = "/tmp/test_file_mk_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[64], sub[96];
    snprintf(file, sizeof file, "%s/f", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("0123456789", f);
    fclose(f);
    char *data;
    size_t len;
    sim_error err = {0};
    assert_int_equal(sim_file_read_max(file, 10, &data, &len, &err), SIM_OK);
    assert_int_equal(len, 10);
    free(data);
    assert_int_equal(sim_file_read_max(file, 9, &data, &len, &err), SIM_ETOOBIG);
    assert_non_null(strstr(err.msg, "/f: larger than 9 bytes"));
    assert_null(data);
    assert_int_equal(sim_file_mkdirs("", &err), SIM_EINVAL);
    snprintf(sub, sizeof sub, "%s/f/g", dir);
    assert_int_equal(sim_file_mkdirs(sub, &err), SIM_EIO);
    assert_non_null(strstr(err.msg, "/f: a file of that name exists"));
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    assert_int_equal(sim_file_mkdirs(sub, &err), SIM_OK);
    assert_int_equal(sim_file_mkdirs(sub, &err), SIM_OK);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
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
    int line, col;
    sim_file_line_col("ab\ncd\n\nxyz", 8, &line, &col); /* the 'y' */
    assert_int_equal(line, 4);
    assert_int_equal(col, 2);
    sim_file_line_col("ab", 0, &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_whole_files),
        cmocka_unit_test(joins_paths),
        cmocka_unit_test(fifo_is_refused_without_blocking),
        cmocka_unit_test(bounded_reads_and_mkdirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
