/* Benchmark of `simctl video` (docs/video.md) against render-node's own frame loop in
 * the same run: a headless drive on the motorway (--record-all: its traffic is drawn),
 * then at 1280x720, 30 fps, the `low` preset:
 *   - render-node --bench-frames N (drawing alone, no read-back, no log, no encoder): fps
 *     and CPU per frame;
 *   - render-node --log LOG --frames-out /dev/null (drawing from the log and reading each
 *     frame back): frames per second of wall time and CPU per frame;
 *   - simctl video LOG -o OUT.mp4 (all of it: render-node, the pipe, H.264), with the
 *     default preset (veryfast) and with --preset ultrafast: seconds of drive per second
 *     of wall time (the goal: >= 2 on the idle 2-core machine), frames per
 *     second, CPU per frame (render-node's and the encoder's together), the bit rate,
 *     and the ratio of its frame rate to the render loop's.
 * Wall-time figures depend on the machine's load; the CPU per frame much less.
 * Needs SIM_BIN and SIM_ROOT (make bench sets them). Argument: the drive's seconds
 * (default 10). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "test_support.h"

static double children_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* Runs cmd; its wall and CPU seconds (the children's). */
static int timed(const char *cmd, double *wall, double *cpu)
{
    double c0 = children_cpu(), w0 = bench_clock(CLOCK_MONOTONIC);
    int rc = system(cmd);
    *wall = bench_clock(CLOCK_MONOTONIC) - w0;
    *cpu = children_cpu() - c0;
    if (rc != 0) fprintf(stderr, "bench_video: failed (%d): %s\n", rc, cmd);
    return rc;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    if (!(seconds >= 1 && seconds <= 3600)) {
        fprintf(stderr, "bench_video: the drive's seconds: 1 to 3600\n");
        return 2;
    }
    char dir[256], cmd[4096], log[600];
    snprintf(dir, sizeof dir, "/tmp/bench_video_%d", (int)getpid());
    if (mkdir(dir, 0755) != 0) return 1;
    double wall, cpu;
    snprintf(cmd, sizeof cmd,
             "%s run %s --headless --until %g --record-all --no-analysis --out %s/run >%s/run.txt 2>&1", ts_bin("simctl"),
             ts_root("scenarios/motorway.json"), seconds, dir, dir);
    if (timed(cmd, &wall, &cpu)) return 1;
    snprintf(cmd, sizeof cmd, "ls %s/run/logs/default/*.sqlite", dir);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(log, sizeof log, p)) return 1;
    pclose(p);
    log[strcspn(log, "\n")] = '\0';
    long frames = (long)(seconds * 30) + 1;

    snprintf(cmd, sizeof cmd,
             "%s --scenario %s --bench-frames %ld --size 1280x720 --quality low --stats-file %s/bench.json 2>/dev/null",
             ts_bin("render-node"), ts_root("scenarios/motorway.json"), frames, dir);
    double w_loop, c_loop;
    if (timed(cmd, &w_loop, &c_loop)) return 1;
    snprintf(cmd, sizeof cmd,
             "%s --scenario %s --log %s --frames-out /dev/null --fps 30 --size 1280x720 --quality low 2>/dev/null",
             ts_bin("render-node"), ts_root("scenarios/motorway.json"), log);
    double w_log, c_log;
    if (timed(cmd, &w_log, &c_log)) return 1;
    snprintf(cmd, sizeof cmd, "%s video %s -o %s/drive.mp4 --size 1280x720 --fps 30 --quality low >/dev/null 2>&1",
             ts_bin("simctl"), log, dir);
    double w_vid, c_vid;
    if (timed(cmd, &w_vid, &c_vid)) return 1;
    snprintf(cmd, sizeof cmd,
             "%s video %s -o %s/fast.mp4 --size 1280x720 --fps 30 --quality low --preset ultrafast >/dev/null 2>&1",
             ts_bin("simctl"), log, dir);
    double w_uf, c_uf;
    if (timed(cmd, &w_uf, &c_uf)) return 1;
    struct stat sv, su;
    char a[400], b[400];
    snprintf(a, sizeof a, "%s/drive.mp4", dir);
    snprintf(b, sizeof b, "%s/fast.mp4", dir);
    if (stat(a, &sv) || stat(b, &su)) return 1;
    /* every process pays its start (the scenario, the models): in all of them */
    printf("motorway drive of %g s, %ld frames at 1280x720, 30 fps, low (each figure includes the process's start)\n",
           seconds, frames);
    printf("  render-node --bench-frames          %6.1f fps   %6.1f ms CPU/frame\n", frames / w_loop,
           c_loop * 1000 / frames);
    printf("  render-node --log --frames-out null %6.1f fps   %6.1f ms CPU/frame\n", frames / w_log,
           c_log * 1000 / frames);
    printf("  simctl video (veryfast)             %6.1f fps   %6.1f ms CPU/frame   %.2f s of drive per s (goal >= 2), "
           "%.0f kbit/s\n", frames / w_vid, c_vid * 1000 / frames, seconds / w_vid, sv.st_size * 8 / 1000.0 / seconds);
    printf("  simctl video --preset ultrafast     %6.1f fps   %6.1f ms CPU/frame   %.2f s of drive per s, %.0f kbit/s\n",
           frames / w_uf, c_uf * 1000 / frames, seconds / w_uf, su.st_size * 8 / 1000.0 / seconds);
    printf("  simctl video / render loop: %.2f (veryfast), %.2f (ultrafast) of its frame rate\n", w_loop / w_vid,
           w_loop / w_uf);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}
