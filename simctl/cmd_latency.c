/* cmd_latency: `simctl latency SCENARIO` (docs/latency.md): a headless self-test of
 * the wheel-to-picture delay. It starts a session of its own on a free port (the
 * dispatcher, physics-node in real time, input-node with a virtual wheel that steps
 * past half lock and back N times, render-node offscreen with the photodiode patch),
 * reads the patch back from every presented frame, and prints for the steps the delay
 * from the wheel's step to the swap of the first frame with the patch lit (median,
 * p95, p99), the frames' own figure and its stage split, whether any frame lit the
 * patch before its input (causality), and whether the two figures agree within one
 * frame. --motion interpolate measures today's renderer (no early states, the pose
 * one state period behind) for comparison. */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <cjson/cJSON.h>

#include "latency_calc.h"
#include "sim_cli.h"
#include "simctl.h"

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A port nobody listens on now (the kernel's pick); another process may take it
 * before the dispatcher does, which then fails to start and says so. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static pid_t spawn(char *const argv[], const char *log)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* simctl killed: the session goes too */
        if (getppid() != parent) _exit(1);
        if (log && !freopen(log, "w", stderr)) _exit(126);
        if (log && !freopen("/dev/null", "w", stdout)) _exit(126);
        execv(argv[0], argv);
        fprintf(stderr, "simctl latency: cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

/* SIGTERM, then SIGKILL after wait_s. */
static void stop(pid_t pid, double wait_s)
{
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    double end = mono_now() + wait_s;
    while (mono_now() < end) {
        if (waitpid(pid, NULL, WNOHANG) == pid) return;
        usleep(20000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static int read_steps(const char *path, lat_step *steps, int max)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int n = 0;
    double mono, at;
    int kind, index, value;
    while (fscanf(f, "%lf,%lf,%d,%d,%d", &mono, &at, &kind, &index, &value) == 5) {
        if (kind != 0 || index != 0) continue; /* axis 0: the steering */
        if (value != 0 && n < max) steps[n++] = (lat_step){.on = mono, .off = INFINITY};
        else if (value == 0 && n > 0 && isinf(steps[n - 1].off)) steps[n - 1].off = mono;
    }
    fclose(f);
    return n;
}

static lat_frame *read_frames(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 4096;
    lat_frame *fr = malloc(cap * sizeof *fr);
    char line[512];
    *n = 0;
    if (!fr || !fgets(line, sizeof line, f)) { /* the header */
        fclose(f);
        return fr;
    }
    while (fgets(line, sizeof line, f)) {
        double v[12];
        int k = 0;
        char *p = line;
        while (k < 12) {
            char *end;
            v[k++] = strtod(p, &end); /* "nan" reads as NAN */
            if (*end != ',') break;
            p = end + 1;
        }
        if (k < 12) continue;
        if (*n == cap) {
            lat_frame *g = realloc(fr, 2 * cap * sizeof *fr);
            if (!g) break;
            fr = g;
            cap *= 2;
        }
        lat_frame *x = &fr[(*n)++];
        x->swap_end = v[0];
        x->lit = v[2] >= 128;
        for (int s = 0; s < 7; s++) x->stage_ms[s] = v[4 + s];
        x->total_ms = v[11];
    }
    fclose(f);
    return fr;
}

static cJSON *num_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

int simctl_cmd_latency(int argc, char **argv)
{
    const char *motion = "predict", *quality = "low", *size = "1280x720";
    bool json = false, keep = false;
    int steps_n = 20;
    double fps = 60;
    sim_opt opts[] = {
        {"steps", SIM_OPT_INT, &steps_n, "N", "steps of the virtual wheel past half lock and back (default 20)"},
        {"json", SIM_OPT_FLAG, &json, NULL, "print the figures as one JSON object"},
        {"motion", SIM_OPT_STRING, &motion, "predict|interpolate", "render-node's --motion (interpolate: today's renderer, physics without early states)"},
        {"quality", SIM_OPT_STRING, &quality, "PRESET", "render-node's --quality (default low)"},
        {"size", SIM_OPT_STRING, &size, "WxH", "the view's size (default 1280x720)"},
        {"fps", SIM_OPT_DOUBLE, &fps, "N", "frame pacing (offscreen: no vsync; default 60)"},
        {"keep", SIM_OPT_FLAG, &keep, NULL, "keep the work folder (the logs) and say where it is"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl latency [SCENARIO] [--steps N] [--json] [--motion predict|interpolate]",
                           "Measures the wheel-to-picture delay headless: a virtual wheel steps, the photodiode patch is read "
                           "back from the presented frames (docs/latency.md).",
                           opts, sizeof opts / sizeof *opts, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos > 1) {
        fprintf(stderr, "simctl latency: one scenario at most\n");
        return 2;
    }
    if (steps_n < 1 || steps_n > 1000) {
        fprintf(stderr, "simctl latency: --steps %d: expected 1..1000\n", steps_n);
        return 2;
    }
    if (strcmp(motion, "predict") && strcmp(motion, "interpolate")) {
        fprintf(stderr, "simctl latency: --motion %s: expected predict or interpolate\n", motion);
        return 2;
    }
    if (!(fps >= 1 && fps <= 1000)) {
        fprintf(stderr, "simctl latency: --fps: expected 1..1000\n");
        return 2;
    }
    const char *scenario = npos ? argv[1] : "scenarios/lane-change.json";
    if (access(scenario, R_OK) != 0) {
        fprintf(stderr, "simctl latency: %s: cannot read: %s\n", scenario, strerror(errno));
        return 1;
    }
    char dir[] = "/tmp/simctl-latency-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "simctl latency: cannot make a work folder in /tmp: %s\n", strerror(errno));
        return 1;
    }
    char script[128], vlog[128], flog[128], stats[128], logs[4][128];
    snprintf(script, sizeof script, "%s/wheel.vtest", dir);
    snprintf(vlog, sizeof vlog, "%s/wheel.csv", dir);
    snprintf(flog, sizeof flog, "%s/frames.csv", dir);
    snprintf(stats, sizeof stats, "%s/render-stats.json", dir);
    static const char *const names[4] = {"dispatcher", "physics", "input", "render"};
    for (int i = 0; i < 4; i++) snprintf(logs[i], sizeof logs[i], "%s/%s.log", dir, names[i]);
    /* The wheel: full lock left and right in turn (the car keeps roughly straight),
     * 0.35 s past half lock, then 0.45 s centred; the steps drift against the frames
     * and the physics ticks by 13.7 ms (mod 11) so that every phase is sampled. */
    FILE *f = fopen(script, "w");
    if (!f) {
        fprintf(stderr, "simctl latency: %s: cannot create\n", script);
        return 1;
    }
    const double first = 2.0, period = 0.8;
    fprintf(f, "wheel axes 4 buttons 12 hats 1\n");
    for (int i = 0; i < steps_n; i++) {
        double on = first + i * period + 0.0137 * ((i * 7) % 11);
        fprintf(f, "%.4f axis 0 %d\n%.4f axis 0 0\n", on, i % 2 ? 32767 : -32768, on + 0.35);
    }
    fclose(f);
    int port = free_port();
    if (port <= 0) {
        fprintf(stderr, "simctl latency: no free port on 127.0.0.1\n");
        return 1;
    }
    char bus[64], exe[4][1100], fpsbuf[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(fpsbuf, sizeof fpsbuf, "%g", fps);
    static const char *const exes[4] = {"dispatcher", "physics-node", "input-node", "render-node"};
    for (int i = 0; i < 4; i++) snprintf(exe[i], sizeof exe[i], "%s/%s", simctl_bin_dir(), exes[i]);
    bool interp = !strcmp(motion, "interpolate");
    char *dargv[] = {exe[0], "--listen", bus, "--control", "none", NULL};
    char *pargv[] = {exe[1], "--bus", bus, "--scenario", (char *)scenario, "--wait-for", "input,render",
                     interp ? "--no-early-states" : NULL, NULL};
    char *iargv[] = {exe[2], "--bus", bus, "--device", "auto", "--mapping-dir", "/nonexistent",
                     "--virtual-test-script", script, "--virtual-test-log", vlog, NULL};
    char *rargv[] = {exe[3], "--bus", bus, "--scenario", (char *)scenario, "--offscreen", "--latency-marker",
                     "--latency-log", flog, "--stats-file", stats, "--motion", (char *)motion,
                     "--quality", (char *)quality, "--size", (char *)size, "--fps", fpsbuf, NULL};
    pid_t pid[4] = {0};
    pid[0] = spawn(dargv, logs[0]);
    usleep(300000); /* the dispatcher listening; the modules retry their connect anyway */
    pid[1] = spawn(pargv, logs[1]);
    pid[3] = spawn(rargv, logs[3]);
    /* The wheel's script runs from input-node's arrival on the bus: it comes once the
     * view presents frames, however long a slow machine (or a sanitizer build) takes
     * to build the scene, so that every step has frames before it. */
    double up_by = mono_now() + 120;
    bool up = false;
    while (!up && mono_now() < up_by) {
        usleep(100000);
        FILE *fl = fopen(flog, "r");
        int lines = 0;
        for (int ch; fl && (ch = fgetc(fl)) != EOF;)
            lines += ch == '\n';
        if (fl) fclose(fl);
        up = lines >= 3; /* the header and two frames */
        if (waitpid(pid[3], NULL, WNOHANG) == pid[3]) {
            pid[3] = 0;
            break;
        }
    }
    if (!up) {
        fprintf(stderr, "simctl latency: render-node presented no frame (its log: %s)\n", logs[3]);
        stop(pid[3], 10);
        stop(pid[1], 5);
        stop(pid[0], 5);
        return 1;
    }
    pid[2] = spawn(iargv, logs[2]);
    double total_s = first + steps_n * period + 1.5; /* + the release of the last step */
    if (!json)
        fprintf(stderr, "simctl latency: %d steps of a virtual wheel, render-node --motion %s --quality %s, %.0f s ...\n",
                steps_n, motion, quality, total_s);
    double end = mono_now() + total_s;
    bool died = false;
    while (mono_now() < end && !died) {
        usleep(100000);
        for (int i = 0; i < 4; i++)
            if (pid[i] > 0 && waitpid(pid[i], NULL, WNOHANG) == pid[i]) {
                fprintf(stderr, "simctl latency: %s ended early (its log: %s)\n", exes[i], logs[i]);
                pid[i] = 0;
                died = true;
                keep = true;
            }
    }
    stop(pid[3], 10); /* render-node first: it writes its figures as it ends */
    stop(pid[2], 5);
    stop(pid[1], 5);
    stop(pid[0], 5);
    lat_step *steps = calloc((size_t)steps_n + 1, sizeof *steps);
    size_t n_frames = 0;
    lat_frame *frames = read_frames(flog, &n_frames);
    int n_steps = steps ? read_steps(vlog, steps, steps_n) : -1;
    int status = 0;
    if (!steps || !frames || n_steps < 0) {
        fprintf(stderr, "simctl latency: the session left no %s (logs in %s)\n", !frames ? flog : vlog, dir);
        free(steps);
        free(frames);
        return 1;
    }
    lat_result r;
    lat_evaluate(steps, (size_t)n_steps, frames, n_frames, 0.2, 0.3, &r);
    cJSON *st = NULL;
    FILE *sf = fopen(stats, "r");
    if (sf) {
        char buf[1024];
        size_t len = fread(buf, 1, sizeof buf - 1, sf);
        buf[len] = 0;
        fclose(sf);
        st = cJSON_Parse(buf);
    }
    double fr_p50 = NAN, fr_p95 = NAN, fr_p99 = NAN, fr_fps = NAN;
    if (st) {
        const cJSON *v;
        if (cJSON_IsNumber(v = cJSON_GetObjectItem(st, "wheel_ms_p50"))) fr_p50 = v->valuedouble;
        if (cJSON_IsNumber(v = cJSON_GetObjectItem(st, "wheel_ms_p95"))) fr_p95 = v->valuedouble;
        if (cJSON_IsNumber(v = cJSON_GetObjectItem(st, "wheel_ms_p99"))) fr_p99 = v->valuedouble;
        if (cJSON_IsNumber(v = cJSON_GetObjectItem(st, "fps"))) fr_fps = v->valuedouble;
        cJSON_Delete(st);
    }
    static const char *const stage_names[7] = {"device", "input", "step", "physics", "wait", "draw", "swap"};
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "scenario", scenario);
        cJSON_AddStringToObject(o, "motion", motion);
        cJSON_AddStringToObject(o, "quality", quality);
        cJSON_AddNumberToObject(o, "steps", r.steps);
        cJSON_AddNumberToObject(o, "measured", r.measured);
        cJSON_AddItemToObject(o, "median_ms", num_or_null(r.median_ms));
        cJSON_AddItemToObject(o, "p95_ms", num_or_null(r.p95_ms));
        cJSON_AddItemToObject(o, "p99_ms", num_or_null(r.p99_ms));
        cJSON_AddItemToObject(o, "own_median_ms", num_or_null(r.chain_median_ms));
        cJSON *sp = cJSON_AddObjectToObject(o, "stages_ms");
        for (int k = 0; k < 7; k++) cJSON_AddItemToObject(sp, stage_names[k], num_or_null(r.stage_ms[k]));
        cJSON_AddNumberToObject(o, "causality_violations", r.causality_violations);
        cJSON_AddItemToObject(o, "max_disagreement_ms", num_or_null(r.max_disagreement_ms));
        cJSON_AddNumberToObject(o, "disagreements", r.disagreements);
        cJSON_AddItemToObject(o, "frame_ms", num_or_null(r.frame_s * 1e3));
        cJSON *fo = cJSON_AddObjectToObject(o, "frames");
        cJSON_AddItemToObject(fo, "fps", num_or_null(fr_fps));
        cJSON_AddItemToObject(fo, "p50_ms", num_or_null(fr_p50));
        cJSON_AddItemToObject(fo, "p95_ms", num_or_null(fr_p95));
        cJSON_AddItemToObject(fo, "p99_ms", num_or_null(fr_p99));
        if (keep) cJSON_AddStringToObject(o, "work_dir", dir);
        char *text = cJSON_PrintUnformatted(o);
        if (text) puts(text);
        cJSON_free(text);
        cJSON_Delete(o);
    } else {
        printf("wheel to picture (%s, %s): %d of %d steps measured by the patch\n", motion, quality, r.measured, r.steps);
        printf("  step to first lit frame's swap: median %.1f ms, p95 %.1f ms, p99 %.1f ms\n", r.median_ms, r.p95_ms,
               r.p99_ms);
        printf("  those frames' own figure: median %.1f ms; max difference %.1f ms (%d beyond one frame of %.1f ms)\n",
               r.chain_median_ms, r.max_disagreement_ms, r.disagreements, r.frame_s * 1e3);
        printf("  stages (median ms):");
        for (int k = 0; k < 7; k++) printf(" %s %.2f", stage_names[k], r.stage_ms[k]);
        printf("\n  every frame: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms at %.1f fps\n", fr_p50, fr_p95, fr_p99, fr_fps);
        printf("  causality: %d lit frames before their input\n", r.causality_violations);
        if (keep) printf("  work folder: %s\n", dir);
    }
    if (r.measured == 0 || r.causality_violations > 0) status = 1;
    if (r.measured == 0) fprintf(stderr, "simctl latency: no step was seen on the screen (logs in %s)\n", dir);
    if (!keep && !status) {
        char path[160];
        const char *files[] = {"wheel.vtest", "wheel.csv", "frames.csv", "render-stats.json", "dispatcher.log",
                               "physics.log", "input.log", "render.log"};
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, files[i]);
            unlink(path);
        }
        rmdir(dir);
    }
    free(steps);
    free(frames);
    return status;
}
