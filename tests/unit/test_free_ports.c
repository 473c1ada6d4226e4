/* Unit test of ts_free_port (tests/support): two test processes asking for ports at
 * the same time never get the same one while both hold theirs. Before, a port was
 * only "free a moment ago": the kernel may hand the same port to the next bind(0), and
 * with 2 x 400 requests it does, a dozen times on average. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

#define N 400

static void two_processes_never_share_a_port(void **state)
{
    (void)state;
    int to_parent[2], go[2];
    assert_int_equal(pipe(to_parent), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the neighbour: takes N ports, reports them, holds them until told */
        close(to_parent[0]);
        close(go[1]);
        for (int i = 0; i < N; i++) {
            int p = ts_free_port();
            if (write(to_parent[1], &p, sizeof p) != sizeof p) _exit(2);
        }
        char c;
        _exit(read(go[0], &c, 1) == 1 ? 0 : 3);
    }
    close(to_parent[1]);
    close(go[0]);
    static bool theirs[65536];
    int mine[N];
    for (int i = 0; i < N; i++) mine[i] = ts_free_port();
    for (int i = 0; i < N; i++) {
        int p;
        assert_int_equal(read(to_parent[0], &p, sizeof p), (ssize_t)sizeof p);
        assert_true(p > 0 && p < 65536);
        theirs[p] = true;
    }
    int shared = 0;
    for (int i = 0; i < N; i++) {
        assert_true(mine[i] > 0);
        shared += theirs[mine[i]];
    }
    assert_int_equal(write(go[1], "x", 1), 1);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    print_message("%d of %d ports shared\n", shared, N);
    assert_int_equal(shared, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_processes_never_share_a_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
