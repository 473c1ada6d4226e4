/* Unit tests of simctl's ssh command line for a lab's remote module (simctl/lab.c):
 * keys only (BatchMode), the host's port, user and ssh config, and the remote shell's
 * command with every word single-quoted (a quote inside a word included). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lab.h"
#include "simctl.h"

/* simctl's main.c (not linked into module tests) answers this: a lab host without a
 * "dir" runs simctl's own bin folder there. */
const char *simctl_bin_dir(void)
{
    return "/here/bin";
}

static int find(char **args, const char *word)
{
    for (int i = 0; args[i]; i++)
        if (strcmp(args[i], word) == 0) return i;
    return -1;
}

static void ssh_command_line(void **state)
{
    (void)state;
    sim_lab_host h = {.name = "sim", .address = "10.0.0.2", .user = "lab", .port = 2222, .dir = "/opt/sim"};
    char *argv[] = {"physics-node", "--bus", "10.0.0.1:7700", "--scenario", "it's.json"};
    char *args[48], cmd[4096];
    assert_int_equal(lab_ssh_args(&h, "/tmp/cfg", "physics-node", argv, 5, args, 48, cmd, sizeof cmd), 0);
    assert_string_equal(args[0], "ssh");
    assert_true(find(args, "BatchMode=yes") > 0);
    int p = find(args, "-p");
    assert_true(p > 0);
    assert_string_equal(args[p + 1], "2222");
    assert_string_equal(args[find(args, "-F") + 1], "/tmp/cfg");
    assert_string_equal(args[find(args, "-l") + 1], "lab");
    int dd = find(args, "--");
    assert_string_equal(args[dd - 1], "10.0.0.2");
    assert_ptr_equal(args[dd + 1], cmd);
    assert_null(args[dd + 2]);
    assert_string_equal(cmd, "'cd' '/opt/sim' && exec 'bin/simctl' '__remote' 'sim' 'bin/physics-node' '--bus' "
                             "'10.0.0.1:7700' '--scenario' 'it'\\''s.json'");
}

static void too_long_is_refused(void **state)
{
    (void)state;
    sim_lab_host h = {.name = "a", .address = "h", .port = 22, .dir = "/d"};
    char *argv[] = {"recorder"};
    char *args[48], cmd[32];
    assert_int_equal(lab_ssh_args(&h, NULL, "recorder", argv, 1, args, 48, cmd, sizeof cmd), -1);
    char big[64];
    assert_int_equal(lab_ssh_args(&h, NULL, "recorder", argv, 1, args, 48, big, sizeof big), 0);
    assert_int_equal(find(args, "-F"), -1);
    assert_int_equal(find(args, "-l"), -1);
    /* no "dir": simctl's own folders (a shared file system) */
    h.dir[0] = '\0';
    char cmd2[4096];
    assert_int_equal(lab_ssh_args(&h, NULL, "recorder", argv, 1, args, 48, cmd2, sizeof cmd2), 0);
    assert_non_null(strstr(cmd2, "&& exec '/here/bin/simctl' '__remote' 'a' '/here/bin/recorder'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ssh_command_line),
        cmocka_unit_test(too_long_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
