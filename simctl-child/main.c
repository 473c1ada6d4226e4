/* simctl-child: the first step of every module simctl run starts on this host
 * (`simctl-child PPID FILE ARGV0 [ARGS...]`, simctl/supervise.c). A module ends when
 * simctl ends, however simctl ends (kill -9 included): a module left running would go
 * on driving and logging for nobody. libuv has no hook between fork and exec, so the
 * spawned child is this program, which asks the kernel for SIGTERM when its parent
 * dies (PR_SET_PDEATHSIG survives the exec) and then becomes the module: the same
 * process, so simctl's supervision sees the module's own exit. SIGTERM is each
 * module's orderly stop (the recorder still drains and closes its log).
 *
 * A program of its own, libc only: simctl itself was this step until issue 36, and
 * loading simctl (141 shared libraries with FFmpeg's, for simctl video) took about
 * 150 ms of CPU each time, six times per session. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        puts("usage: simctl-child PPID FILE ARGV0 [ARGS...]\n"
             "Runs FILE as ARGV0 ARGS..., ended by SIGTERM when process PPID (simctl run) ends.\n"
             "simctl run starts every local module so; there is no need to run it by hand.");
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "simctl-child: expected PPID FILE ARGV0 [ARGS...] (simctl run starts it)\n");
        return 2;
    }
    pid_t parent = (pid_t)atol(argv[1]);
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)
        fprintf(stderr, "simctl: %s will outlive simctl: PR_SET_PDEATHSIG: %s\n", argv[2], strerror(errno));
    if (getppid() != parent) return 0; /* simctl died before the request took hold */
    execv(argv[2], argv + 3);
    fprintf(stderr, "simctl: cannot start %s: %s\n", argv[2], strerror(errno));
    return 127;
}
