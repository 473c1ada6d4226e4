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

/* What the command line asked for. */
typedef struct {
    const char *motion, *quality, *size, *scenario;
    bool json, keep;
    int steps_n;
    double fps;
} lat_opts;

/* The work folder and the files the session writes in it. */
typedef struct {
    char dir[32];
    char script[128], vlog[128], flog[128], stats[128], logs[4][128];
} lat_paths;

/* The wheel's timing: the first step at 2 s, one every 0.8 s. */
static const double wheel_first = 2.0, wheel_period = 0.8;
static const char *const module_exes[4] = {"dispatcher", "physics-node", "input-node", "render-node"};
static const char *const stage_names[7] = {"device", "input", "step", "physics", "wait", "draw", "swap"};

/* 0: go on; otherwise 1 + the exit status (so that a help request is 1 + 0). */
static int parse_options(int argc, char **argv, lat_opts *o)
{
    *o = (lat_opts){.motion = "predict", .quality = "low", .size = "1280x720", .steps_n = 20, .fps = 60};
    sim_opt opts[] = {
        {"steps", SIM_OPT_INT, &o->steps_n, "N", "steps of the virtual wheel past half lock and back (default 20)"},
        {"json", SIM_OPT_FLAG, &o->json, NULL, "print the figures as one JSON object"},
        {"motion", SIM_OPT_STRING, &o->motion, "predict|interpolate", "render-node's --motion (interpolate: today's renderer, physics without early states)"},
        {"quality", SIM_OPT_STRING, &o->quality, "PRESET", "render-node's --quality (default low)"},
        {"size", SIM_OPT_STRING, &o->size, "WxH", "the view's size (default 1280x720)"},
        {"fps", SIM_OPT_DOUBLE, &o->fps, "N", "frame pacing (offscreen: no vsync; default 60)"},
        {"keep", SIM_OPT_FLAG, &o->keep, NULL, "keep the work folder (the logs) and say where it is"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl latency [SCENARIO] [--steps N] [--json] [--motion predict|interpolate]",
                           "Measures the wheel-to-picture delay headless: a virtual wheel steps, the photodiode patch is read "
                           "back from the presented frames (docs/latency.md).",
                           opts, sizeof opts / sizeof *opts, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 1 + 0;
    if (rc != SIM_CLI_OK) return 1 + 2;
    if (npos > 1) {
        fprintf(stderr, "simctl latency: one scenario at most\n");
        return 1 + 2;
    }
    if (o->steps_n < 1 || o->steps_n > 1000) {
        fprintf(stderr, "simctl latency: --steps %d: expected 1..1000\n", o->steps_n);
        return 1 + 2;
    }
    if (strcmp(o->motion, "predict") && strcmp(o->motion, "interpolate")) {
        fprintf(stderr, "simctl latency: --motion %s: expected predict or interpolate\n", o->motion);
        return 1 + 2;
    }
    if (!(o->fps >= 1 && o->fps <= 1000)) {
        fprintf(stderr, "simctl latency: --fps: expected 1..1000\n");
        return 1 + 2;
    }
    o->scenario = npos ? argv[1] : "scenarios/lane-change.json";
    if (access(o->scenario, R_OK) != 0) {
        fprintf(stderr, "simctl latency: %s: cannot read: %s\n", o->scenario, strerror(errno));
        return 1 + 1;
    }
    return 0;
}

static int make_work_dir(lat_paths *p)
{
    snprintf(p->dir, sizeof p->dir, "/tmp/simctl-latency-XXXXXX");
    if (!mkdtemp(p->dir)) {
        fprintf(stderr, "simctl latency: cannot make a work folder in /tmp: %s\n", strerror(errno));
        return -1;
    }
    /* A copy: GCC cannot tell p->dir from the member being written (-Wrestrict at -O1). */
    char dir[sizeof p->dir];
    memcpy(dir, p->dir, sizeof dir);
    snprintf(p->script, sizeof p->script, "%s/wheel.vtest", dir);
    snprintf(p->vlog, sizeof p->vlog, "%s/wheel.csv", dir);
    snprintf(p->flog, sizeof p->flog, "%s/frames.csv", dir);
    snprintf(p->stats, sizeof p->stats, "%s/render-stats.json", dir);
    static const char *const names[4] = {"dispatcher", "physics", "input", "render"};
    for (int i = 0; i < 4; i++) snprintf(p->logs[i], sizeof p->logs[i], "%s/%s.log", dir, names[i]);
    return 0;
}

/* The wheel: full lock left and right in turn (the car keeps roughly straight),
 * 0.35 s past half lock, then 0.45 s centred; the steps drift against the frames
 * and the physics ticks by 13.7 ms (mod 11) so that every phase is sampled. */
static int write_wheel_script(const char *script, int steps_n)
{
    FILE *f = fopen(script, "w");
    if (!f) {
        fprintf(stderr, "simctl latency: %s: cannot create\n", script);
        return -1;
    }
    fprintf(f, "wheel axes 4 buttons 12 hats 1\n");
    for (int i = 0; i < steps_n; i++) {
        double on = wheel_first + i * wheel_period + 0.0137 * ((i * 7) % 11);
        fprintf(f, "%.4f axis 0 %d\n%.4f axis 0 0\n", on, i % 2 ? 32767 : -32768, on + 0.35);
    }
    fclose(f);
    return 0;
}

/* Waits until render-node has presented two frames (its log's header and two
 * lines); false when it ended or 120 s passed. */
static bool wait_for_frames(const char *flog, pid_t *render)
{
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
        if (waitpid(*render, NULL, WNOHANG) == *render) {
            *render = 0;
            break;
        }
    }
    return up;
}

/* Lets the session run total_s; a module that ends early is reported and the
 * work folder kept. Then stops them all. */
static void watch_session(pid_t pid[4], const lat_paths *p, double total_s, bool *keep)
{
    double end = mono_now() + total_s;
    bool died = false;
    while (mono_now() < end && !died) {
        usleep(100000);
        for (int i = 0; i < 4; i++)
            if (pid[i] > 0 && waitpid(pid[i], NULL, WNOHANG) == pid[i]) {
                fprintf(stderr, "simctl latency: %s ended early (its log: %s)\n", module_exes[i], p->logs[i]);
                pid[i] = 0;
                died = true;
                *keep = true;
            }
    }
    stop(pid[3], 10); /* render-node first: it writes its figures as it ends */
    stop(pid[2], 5);
    stop(pid[1], 5);
    stop(pid[0], 5);
}

/* Runs the session to its end: 0, or 1 when it could not start. */
static int run_session(lat_opts *o, const lat_paths *p)
{
    int port = free_port();
    if (port <= 0) {
        fprintf(stderr, "simctl latency: no free port on 127.0.0.1\n");
        return 1;
    }
    char bus[64], exe[4][1100], fpsbuf[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(fpsbuf, sizeof fpsbuf, "%g", o->fps);
    for (int i = 0; i < 4; i++) snprintf(exe[i], sizeof exe[i], "%s/%s", simctl_bin_dir(), module_exes[i]);
    bool interp = !strcmp(o->motion, "interpolate");
    char *scenario = (char *)o->scenario, *motion = (char *)o->motion;
    char *dargv[] = {exe[0], "--listen", bus, "--control", "none", NULL};
    char *pargv[] = {exe[1], "--bus", bus, "--scenario", scenario, "--wait-for", "input,render",
                     interp ? "--no-early-states" : NULL, NULL};
    char *iargv[] = {exe[2], "--bus", bus, "--device", "auto", "--mapping-dir", "/nonexistent",
                     "--virtual-test-script", (char *)p->script, "--virtual-test-log", (char *)p->vlog, NULL};
    char *rargv[] = {exe[3], "--bus", bus, "--scenario", scenario, "--offscreen", "--latency-marker",
                     "--latency-log", (char *)p->flog, "--stats-file", (char *)p->stats, "--motion", motion,
                     "--quality", (char *)o->quality, "--size", (char *)o->size, "--fps", fpsbuf, NULL};
    pid_t pid[4] = {0};
    pid[0] = spawn(dargv, p->logs[0]);
    usleep(300000); /* the dispatcher listening; the modules retry their connect anyway */
    pid[1] = spawn(pargv, p->logs[1]);
    pid[3] = spawn(rargv, p->logs[3]);
    /* The wheel's script runs from input-node's arrival on the bus: it comes once the
     * view presents frames, however long a slow machine (or a sanitizer build) takes
     * to build the scene, so that every step has frames before it. */
    if (!wait_for_frames(p->flog, &pid[3])) {
        fprintf(stderr, "simctl latency: render-node presented no frame (its log: %s)\n", p->logs[3]);
        stop(pid[3], 10);
        stop(pid[1], 5);
        stop(pid[0], 5);
        return 1;
    }
    pid[2] = spawn(iargv, p->logs[2]);
    double total_s = wheel_first + o->steps_n * wheel_period + 1.5; /* + the release of the last step */
    if (!o->json)
        fprintf(stderr, "simctl latency: %d steps of a virtual wheel, render-node --motion %s --quality %s, %.0f s ...\n",
                o->steps_n, o->motion, o->quality, total_s);
    watch_session(pid, p, total_s, &o->keep);
    return 0;
}

/* render-node's own figures: p50, p95, p99 of every frame and fps; NAN where absent. */
static void read_render_stats(const char *stats, double fr[4])
{
    fr[0] = fr[1] = fr[2] = fr[3] = NAN;
    cJSON *st = NULL;
    FILE *sf = fopen(stats, "r");
    if (sf) {
        char buf[1024];
        size_t len = fread(buf, 1, sizeof buf - 1, sf);
        buf[len] = 0;
        fclose(sf);
        st = cJSON_Parse(buf);
    }
    if (!st) return;
    static const char *const keys[4] = {"wheel_ms_p50", "wheel_ms_p95", "wheel_ms_p99", "fps"};
    for (int i = 0; i < 4; i++) {
        const cJSON *v = cJSON_GetObjectItem(st, keys[i]);
        if (cJSON_IsNumber(v)) fr[i] = v->valuedouble;
    }
    cJSON_Delete(st);
}

static void print_json(const lat_opts *o, const char *dir, const lat_result *r, const double fr[4])
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "scenario", o->scenario);
    cJSON_AddStringToObject(obj, "motion", o->motion);
    cJSON_AddStringToObject(obj, "quality", o->quality);
    cJSON_AddNumberToObject(obj, "steps", r->steps);
    cJSON_AddNumberToObject(obj, "measured", r->measured);
    cJSON_AddItemToObject(obj, "median_ms", num_or_null(r->median_ms));
    cJSON_AddItemToObject(obj, "p95_ms", num_or_null(r->p95_ms));
    cJSON_AddItemToObject(obj, "p99_ms", num_or_null(r->p99_ms));
    cJSON_AddItemToObject(obj, "own_median_ms", num_or_null(r->chain_median_ms));
    cJSON *sp = cJSON_AddObjectToObject(obj, "stages_ms");
    for (int k = 0; k < 7; k++) cJSON_AddItemToObject(sp, stage_names[k], num_or_null(r->stage_ms[k]));
    cJSON_AddNumberToObject(obj, "causality_violations", r->causality_violations);
    cJSON_AddItemToObject(obj, "max_disagreement_ms", num_or_null(r->max_disagreement_ms));
    cJSON_AddNumberToObject(obj, "disagreements", r->disagreements);
    cJSON_AddItemToObject(obj, "frame_ms", num_or_null(r->frame_s * 1e3));
    cJSON *fo = cJSON_AddObjectToObject(obj, "frames");
    cJSON_AddItemToObject(fo, "fps", num_or_null(fr[3]));
    cJSON_AddItemToObject(fo, "p50_ms", num_or_null(fr[0]));
    cJSON_AddItemToObject(fo, "p95_ms", num_or_null(fr[1]));
    cJSON_AddItemToObject(fo, "p99_ms", num_or_null(fr[2]));
    if (o->keep) cJSON_AddStringToObject(obj, "work_dir", dir);
    char *text = cJSON_PrintUnformatted(obj);
    if (text) puts(text);
    cJSON_free(text);
    cJSON_Delete(obj);
}

static void print_text(const lat_opts *o, const char *dir, const lat_result *r, const double fr[4])
{
    printf("wheel to picture (%s, %s): %d of %d steps measured by the patch\n", o->motion, o->quality, r->measured,
           r->steps);
    printf("  step to first lit frame's swap: median %.1f ms, p95 %.1f ms, p99 %.1f ms\n", r->median_ms, r->p95_ms,
           r->p99_ms);
    printf("  those frames' own figure: median %.1f ms; max difference %.1f ms (%d beyond one frame of %.1f ms)\n",
           r->chain_median_ms, r->max_disagreement_ms, r->disagreements, r->frame_s * 1e3);
    printf("  stages (median ms):");
    for (int k = 0; k < 7; k++) printf(" %s %.2f", stage_names[k], r->stage_ms[k]);
    printf("\n  every frame: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms at %.1f fps\n", fr[0], fr[1], fr[2], fr[3]);
    printf("  causality: %d lit frames before their input\n", r->causality_violations);
    if (o->keep) printf("  work folder: %s\n", dir);
}

static void remove_work_dir(const char *dir)
{
    char path[160];
    const char *files[] = {"wheel.vtest", "wheel.csv", "frames.csv", "render-stats.json", "dispatcher.log",
                           "physics.log", "input.log", "render.log"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Reads what the session left, prints the figures: 0, or 1 when nothing was
 * measured, a frame lit before its input, or the logs are missing. */
static int report(lat_opts *o, const lat_paths *p)
{
    lat_step *steps = calloc((size_t)o->steps_n + 1, sizeof *steps);
    size_t n_frames = 0;
    lat_frame *frames = read_frames(p->flog, &n_frames);
    int n_steps = steps ? read_steps(p->vlog, steps, o->steps_n) : -1;
    int status = 0;
    if (!steps || !frames || n_steps < 0) {
        fprintf(stderr, "simctl latency: the session left no %s (logs in %s)\n", !frames ? p->flog : p->vlog, p->dir);
        free(steps);
        free(frames);
        return 1;
    }
    lat_result r;
    lat_evaluate(steps, (size_t)n_steps, frames, n_frames, 0.2, 0.3, &r);
    double fr[4];
    read_render_stats(p->stats, fr);
    if (o->json) print_json(o, p->dir, &r, fr);
    else print_text(o, p->dir, &r, fr);
    if (r.measured == 0 || r.causality_violations > 0) status = 1;
    if (r.measured == 0) fprintf(stderr, "simctl latency: no step was seen on the screen (logs in %s)\n", p->dir);
    if (!o->keep && !status) remove_work_dir(p->dir);
    free(steps);
    free(frames);
    return status;
}

int simctl_cmd_latency(int argc, char **argv)
{
    lat_opts o;
    lat_paths p;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc - 1;
    if (make_work_dir(&p) < 0) return 1;
    if (write_wheel_script(p.script, o.steps_n) < 0) return 1;
    if ((rc = run_session(&o, &p)) != 0) return rc;
    return report(&o, &p);
}
