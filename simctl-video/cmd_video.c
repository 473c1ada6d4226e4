/* cmd_video: `simctl video`, run as bin/simctl-video (cmd_video.h). The frames come from render-node in
 * lockstep with nothing but the log: frame k is the drive at log time t0 + k / fps
 * (sim_video_frame_time), whatever the machine's speed. */
#include "cmd_video.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim_cli.h"
#include "sim_drivelog.h"
#include "sim_sha256.h"
#include "sim_video.h"

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The drive's scenario: the log's meta scenario_file as given, next to the log, or under
 * scenarios/ by its base name, only a file with the SHA-256 the recorder wrote (as the
 * analysis finds it, docs/analysis.md "Which scenario"). */
static int find_scenario(sim_drivelog_reader *r, const char *log, char *out, size_t n, sim_error *err)
{
    char sc[1024] = "", want[80] = "", hex[65];
    if (sim_drivelog_read_meta(r, "scenario_file", sc, sizeof sc, NULL) || !sc[0])
        return sim_error_set(err, SIM_ENOTFOUND, "%s: the log's meta names no scenario; give one with --scenario FILE",
                             log);
    sim_drivelog_read_meta(r, "scenario_file_sha256", want, sizeof want, NULL);
    const char *base = strrchr(sc, '/') ? strrchr(sc, '/') + 1 : sc;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", log);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    for (int k = 0; k < 3; k++) {
        if (k == 0) snprintf(out, n, "%s", sc);
        else if (k == 1) snprintf(out, n, "%s/%s", dir, base);
        else snprintf(out, n, "scenarios/%s", base);
        if (sim_sha256_file(out, hex, NULL) == 0 && (!want[0] || strcmp(hex, want) == 0)) return SIM_OK;
    }
    return sim_error_set(err, SIM_ENOTFOUND,
                         "%s: scenario \"%s\" (from the log's meta, SHA-256 %.12s...) not found as given, next to the "
                         "log, or in scenarios/; give one with --scenario FILE", log, sc, want);
}

/* The run to show (run < 0: the first with a sample that has a position) and its first
 * and last such sample's t: the frames' range render-node takes as it is. */
typedef struct span {
    int64_t run;
    double first, last;
    size_t n;
} span;

static int span_sample(const sim_drivelog_sample *s, void *user)
{
    span *p = user;
    if (p->n && s->run != p->run) return 1;
    if (!isfinite(s->x) || !isfinite(s->y) || !isfinite(s->z)) return 0;
    if (!p->n) {
        p->run = s->run;
        p->first = s->t;
    }
    p->last = s->t;
    p->n++;
    return 0;
}

static pid_t spawn_render(char *const argv[], int *read_fd, sim_error *err)
{
    int fd[2];
    if (pipe(fd) != 0) return sim_error_set(err, SIM_EIO, "pipe: %s", strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return sim_error_set(err, SIM_EIO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* simctl killed: the renderer goes too */
        if (getppid() != parent) _exit(1);
        close(fd[0]);
        if (dup2(fd[1], STDOUT_FILENO) < 0) _exit(126);
        close(fd[1]);
        execv(argv[0], argv);
        fprintf(stderr, "simctl video: cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    *read_fd = fd[0];
    return pid;
}

static bool read_all(int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        got += (size_t)k;
    }
    return true;
}

/* The progress line: frames done, the drive's seconds done, the speed in seconds of
 * drive per second since the first frame (render-node's start, loading the scenario,
 * is not a frame's cost), and the time left at that speed. */
static void progress(long k, long frames, double fps, double t_first, bool tty, bool last)
{
    double el = mono_now() - t_first, rate = k > 1 && el > 0 ? (k - 1) / fps / el : 0;
    double left = rate > 0 ? (frames - k) / fps / rate : 0;
    char eta[32] = "--:--";
    if (rate > 0) snprintf(eta, sizeof eta, "%d:%02d", (int)left / 60, (int)left % 60);
    fprintf(stderr, "%ssimctl video: %ld/%ld frames, %.1f of %.1f s of the drive, %.2f s of drive per s, %s left%s",
            tty ? "\r" : "", k, frames, k / fps, frames / fps, rate, eta, tty && !last ? "   " : "\n");
}

int simctl_cmd_video(int argc, char **argv)
{
    const char *out = NULL, *from = NULL, *to = NULL, *size = "1280x720", *scenario = NULL, *quality = NULL,
               *preset = NULL;
    int fps = 30, run = -1, crf = 0;
    bool force = false, stamp = false;
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "OUT.mp4", "the video (also -o): H.264 in MP4 (.mp4) or VP9 in WebM (.webm)"},
        {"size", SIM_OPT_STRING, &size, "WxH", "picture size in pixels, even (default 1280x720)"},
        {"fps", SIM_OPT_INT, &fps, "N", "frames per second of log time (default 30)"},
        {"from", SIM_OPT_STRING, &from, "T|sector:ID|task:ID", "first frame here (default the run's first sample)"},
        {"to", SIM_OPT_STRING, &to, "T|sector:ID|task:ID", "last frame at or before here (default the run's last sample)"},
        {"run", SIM_OPT_INT, &run, "N", "the log's run N (default its first)"},
        {"crf", SIM_OPT_INT, &crf, "N", "the encoder's constant quality, lower is better (default H.264 23, VP9 32)"},
        {"preset", SIM_OPT_STRING, &preset, "NAME", "H.264's speed: ultrafast (fastest, largest file), superfast, veryfast (default), faster, fast, medium, slow, slower, veryslow"},
        {"quality", SIM_OPT_STRING, &quality, "low|medium|high", "render-node's preset (default: low on a software renderer)"},
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "the drive's scenario (default: the one the log names)"},
        {"stamp", SIM_OPT_FLAG, &stamp, NULL, "each frame's log time, run and number in the top right corner"},
        {"force", SIM_OPT_FLAG, &force, NULL, "overwrite an existing OUT"},
    };
    const char *usage = "simctl video LOG -o OUT.mp4 [--size WxH] [--fps N] [--from ...] [--to ...] [--run N] [--crf N] "
                        "[--preset NAME] [--quality Q] [--stamp] [--scenario FILE] [--force]";
    const char *desc = "Renders a drive log's driver view offscreen to a video on the log's time base: frame k shows "
                       "the drive at log time t0 + k / fps (docs/video.md).";
    size_t n_opts = sizeof opts / sizeof opts[0];
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-o")) argv[i] = "--out";
    int npos = 0;
    int rc = sim_cli_parse(usage, desc, opts, n_opts, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    const char *bad = NULL;
    int w = 0, h = 0;
    char tail;
    if (npos != 1) bad = "expected one LOG file";
    else if (!out) bad = "-o OUT.mp4 is required";
    else if (!sim_video_codec_for(out)) bad = "-o: expected a name ending in .mp4 (H.264) or .webm (VP9)";
    else if (sscanf(size, "%dx%d%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > SIM_VIDEO_SIZE_MAX ||
             h > SIM_VIDEO_SIZE_MAX || w % 2 || h % 2)
        bad = "--size: expected WIDTHxHEIGHT, even, 16 to 8192 pixels";
    else if (fps < 1 || fps > SIM_VIDEO_FPS_MAX) bad = "--fps: expected 1 to 240";
    else if (crf < 0 || crf > 63) bad = "--crf: expected 1 to 51 (H.264) or 63 (VP9)";
    else if (preset) {
        bool known = false;
        for (int i = 0; !known && sim_video_presets[i]; i++) known = !strcmp(preset, sim_video_presets[i]);
        if (!known) bad = "--preset: expected ultrafast, superfast, veryfast, faster, fast, medium, slow, slower or veryslow";
        else if (strcmp(sim_video_codec_for(out), "libx264")) bad = "--preset: for H.264 (.mp4) only";
    }
    if (bad) {
        fprintf(stderr, "simctl video: %s\n", bad);
        sim_cli_print_usage(usage, desc, opts, n_opts, stderr);
        return 2;
    }
    const char *log = argv[1];
    sim_error err = {0};
    struct stat in_st, out_st;
    if (stat(out, &out_st) == 0 && stat(log, &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        fprintf(stderr, "simctl video: %s is the drive log; it is never overwritten\n", out);
        return 1;
    }
    if (!force && access(out, F_OK) == 0) {
        fprintf(stderr, "simctl video: %s exists; give --force to overwrite it\n", out);
        return 1;
    }
    sim_drivelog_reader *r = NULL;
    double t_from = NAN, t_to = NAN;
    char scen[4200], vehicle[1024] = "";
    span sp = {0};
    int ret = sim_drivelog_reader_open(log, &r, &err);
    bool usage_error = false;
    if (!ret && from) ret = sim_drivelog_parse_bound(r, from, false, run, &t_from, &err);
    if (!ret && to) ret = sim_drivelog_parse_bound(r, to, true, run, &t_to, &err);
    usage_error = ret != 0 && r != NULL;
    if (!ret) {
        if (scenario) snprintf(scen, sizeof scen, "%s", scenario);
        else ret = find_scenario(r, log, scen, sizeof scen, &err);
    }
    if (!ret) {
        sim_drivelog_range range = sim_drivelog_range_all();
        range.run = run;
        static const char *const cols[] = {"t", "x", "y", "z"};
        ret = sim_drivelog_each_sample(r, range, cols, 4, span_sample, &sp, &err);
        if (!ret && !sp.n) ret = sim_error_set(&err, SIM_ENOTFOUND, "%s: no samples with a position%s", log,
                                               run >= 0 ? " in that --run" : "");
    }
    if (!ret && sim_drivelog_read_meta(r, "vehicle_file", vehicle, sizeof vehicle, NULL) == 0 && access(vehicle, R_OK))
        vehicle[0] = '\0'; /* render-node's default */
    sim_drivelog_reader_close(r);
    double t0 = 0, t1 = 0;
    long frames = 0;
    if (!ret) {
        t0 = isnan(t_from) ? sp.first : fmax(t_from, sp.first);
        t1 = isnan(t_to) ? sp.last : fmin(t_to, sp.last);
        frames = sim_video_frame_count(t0, t1, fps);
        if (!frames)
            ret = sim_error_set(&err, SIM_ENOTFOUND, "%s: run %lld has samples from %g to %g s: nothing in --from %s --to %s",
                                log, (long long)sp.run, sp.first, sp.last, from ? from : "-", to ? to : "-");
    }
    if (ret) {
        fprintf(stderr, "simctl video: %s\n", err.msg);
        return usage_error && ret == SIM_EINVAL ? 2 : 1;
    }
    char exe[4200], a_fps[16], a_run[24], a_from[40], a_to[40];
    snprintf(exe, sizeof exe, "%s/render-node", simctl_bin_dir());
    snprintf(a_fps, sizeof a_fps, "%d", fps);
    snprintf(a_run, sizeof a_run, "%lld", (long long)sp.run);
    snprintf(a_from, sizeof a_from, "%.17g", t0);
    snprintf(a_to, sizeof a_to, "%.17g", t1);
    char *rargv[32];
    int k = 0;
    rargv[k++] = exe;
    rargv[k++] = "--scenario", rargv[k++] = scen;
    if (vehicle[0]) rargv[k++] = "--vehicle", rargv[k++] = vehicle;
    rargv[k++] = "--log", rargv[k++] = (char *)log;
    rargv[k++] = "--frames-out", rargv[k++] = "-";
    rargv[k++] = "--offscreen";
    rargv[k++] = "--size", rargv[k++] = (char *)size;
    rargv[k++] = "--fps", rargv[k++] = a_fps;
    rargv[k++] = "--run", rargv[k++] = a_run;
    rargv[k++] = "--from", rargv[k++] = a_from;
    rargv[k++] = "--to", rargv[k++] = a_to;
    if (quality) rargv[k++] = "--quality", rargv[k++] = (char *)quality;
    if (stamp) rargv[k++] = "--stamp";
    rargv[k] = NULL;

    char comment[600];
    snprintf(comment, sizeof comment, "simctl video %s: run %lld, frame k at log time %.6f + k/%d s", log,
             (long long)sp.run, t0, fps);
    sim_video_writer_opts vo = {.width = w, .height = h, .fps = fps, .crf = crf, .comment = comment,
                                  .preset = preset};
    sim_video_writer *vw = NULL;
    if (sim_video_writer_open(out, &vo, &vw, &err)) {
        fprintf(stderr, "simctl video: %s\n", err.msg);
        return 1;
    }
    int fd = -1;
    pid_t pid = spawn_render(rargv, &fd, &err);
    if (pid < 0) {
        fprintf(stderr, "simctl video: %s\n", err.msg);
        sim_video_writer_abort(vw);
        return 1;
    }
    size_t bytes = (size_t)w * h * 3;
    uint8_t *px = malloc(bytes);
    bool tty = isatty(STDERR_FILENO);
    double start = mono_now(), first = start, shown = start;
    long got = 0;
    ret = px ? SIM_OK : sim_error_set(&err, SIM_ENOMEM, "out of memory");
    while (!ret && got < frames) {
        if (!read_all(fd, px, bytes)) {
            ret = sim_error_set(&err, SIM_EIO, "render-node ended after %ld of %ld frames (its words are above)", got,
                                frames);
            break;
        }
        ret = sim_video_writer_frame(vw, px, &err);
        if (++got == 1) first = shown = mono_now();
        double now = mono_now();
        if (!ret && (now - shown >= (tty ? 0.25 : 5.0))) {
            progress(got, frames, fps, first, tty, false);
            shown = now;
        }
    }
    close(fd);
    if (ret) kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        ret = sim_error_set(&err, SIM_EIO, "render-node failed (%s %d)", WIFEXITED(status) ? "exit status" : "signal",
                            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    free(px);
    if (ret) {
        if (tty) fputc('\n', stderr);
        fprintf(stderr, "simctl video: %s\n", err.msg);
        sim_video_writer_abort(vw);
        return 1;
    }
    if (sim_video_writer_close(vw, &err)) {
        fprintf(stderr, "simctl video: %s\n", err.msg);
        return 1;
    }
    progress(got, frames, fps, first, tty, true);
    double el = mono_now() - start;
    fprintf(stderr, "simctl video: %s: %ld frames, %dx%d at %d fps, log time %.3f to %.3f s of run %lld, in %.1f s\n",
            out, frames, w, h, fps, t0, sim_video_frame_time(t0, fps, frames - 1), (long long)sp.run, el);
    printf("%s\n", out);
    return 0;
}
