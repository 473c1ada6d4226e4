/* render-node: the driver's view (and the side screens, the mirrors, the operator's
 * chase view) drawn with OpenGL 3.3 from the scenario and the bus (docs/render.md).
 *
 * Modes: on the bus (default) it draws frames at the display rate, interpolating the
 * ego car between the last two vehicle.state messages; `--screenshot OUT.png` draws
 * one frame of a scenario's start point without a bus and exits; `--bench-frames N`
 * drives along the first road without a bus and reports frame times. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "node.h"
#include "road_adapter.h"
#include "sim_cli.h"
#include "sim_file.h"
#include "sim_vehicle.h"
#include "sim_vehicle_file.h"

double rn_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool have_display(void)
{
    const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (d && *d) || (w && *w);
}

/* The directory of this executable joined with rel (caller frees). */
static char *beside_exe(const char *rel)
{
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return strdup(rel);
    exe[k] = 0;
    char *dir = sim_file_dirname(exe);
    char *p = dir ? sim_file_join(dir, rel) : NULL;
    free(dir);
    return p;
}

static int parse_numbers(const char *text, double *out, int max)
{
    int n = 0;
    const char *p = text;
    while (n < max && *p) {
        char *end;
        out[n] = strtod(p, &end);
        if (end == p || !isfinite(out[n]))
            return -1;
        n++;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return n;
}

static int load_vehicle(rn_node *n, sim_error *err)
{
    const char *path = n->o.vehicle;
    char *fallback = NULL;
    if (!path) {
        path = "vehicles/bmw-318i.json";
        if (access(path, R_OK) != 0)
            path = fallback = beside_exe("../vehicles/bmw-318i.json");
    }
    sim_vehicle_params vp;
    int rc = sim_vehicle_params_load(path, &vp, err);
    free(fallback);
    if (rc)
        return rc;
    n->rig.eye[0] = vp.driver_eye.x;
    n->rig.eye[1] = vp.driver_eye.y;
    n->rig.eye[2] = vp.driver_eye.z;
    n->rig.length = 2 * vp.box_half.x;
    n->rig.width = 2 * vp.box_half.y;
    n->cog_height = vp.cog_height;
    return SIM_OK;
}

/* The ego pose and the other cars at the scenario's start, for a preview. */
static int start_pose(rn_node *n, sim_pose *p, sim_error *err)
{
    memset(p, 0, sizeof *p);
    if (n->o.pose) {
        double v[5] = {0};
        int k = parse_numbers(n->o.pose, v, 5);
        if (k != 4 && k != 5)
            return sim_error_set(err, SIM_EINVAL, "--pose: expected X,Y,Z,HEADING_DEG[,PITCH_DEG], got \"%s\"", n->o.pose);
        p->pos[0] = v[0]; p->pos[1] = v[1]; p->pos[2] = v[2];
        p->heading = v[3] * M_PI / 180;
        p->pitch = v[4] * M_PI / 180;
        return SIM_OK;
    }
    int si;
    int rc = sim_scenario_start_index(n->sc, n->o.start, &si, err);
    if (rc)
        return rc;
    const sim_start_point *st = &n->sc->starts[si];
    p->pos[0] = st->x;
    p->pos[1] = st->y;
    p->pos[2] = st->z + n->cog_height;
    p->heading = st->heading;
    return SIM_OK;
}

/* The scenario's agents at their start places (previews without a traffic node). */
static void scenario_agents(rn_node *n)
{
    n->n_agents = 0;
    for (int i = 0; i < n->sc->n_agents && n->n_agents < RN_MAX_AGENTS; i++) {
        const sim_agent *a = &n->sc->agents[i];
        double t, h;
        if (!ra_lane_center(n->sc, a->road, a->s, a->lane, &t))
            continue;
        rn_agent *o = &n->agents[n->n_agents++];
        memset(o, 0, sizeof *o);
        ra_pose(n->sc, a->road, a->s, t, o->pos, &h);
        o->heading = ra_lane_forward(n->sc, a->road, a->lane) ? h : h + M_PI;
        bool tractor = a->model && !strcmp(a->model, "tractor");
        o->size[0] = tractor ? 3.8 : 4.5;
        o->size[1] = tractor ? 2.2 : 1.8;
        o->size[2] = tractor ? 2.6 : 1.45;
        unsigned hsh = 2166136261u;
        for (const char *c = a->id; c && *c; c++)
            hsh = (hsh ^ (unsigned char)*c) * 16777619u;
        o->colour = hsh;
    }
}

static int load_traffic_file(rn_node *n, sim_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = sim_file_read(n->o.traffic, &text, &len, err);
    if (rc)
        return rc;
    cJSON *msg = cJSON_ParseWithLength(text, len);
    free(text);
    if (!msg)
        return sim_error_set(err, SIM_EINVAL, "--traffic %s: not valid JSON, expected a traffic.state message",
                             n->o.traffic);
    int k = rn_traffic_decode(msg, n->agents, RN_MAX_AGENTS, err);
    cJSON_Delete(msg);
    if (k < 0) {
        char m[SIM_ERROR_MSG_MAX];
        snprintf(m, sizeof m, "%s", err->msg);
        return sim_error_set(err, SIM_EINVAL, "--traffic %s: %s", n->o.traffic, m);
    }
    n->n_agents = k;
    return SIM_OK;
}

static void fill_state(rn_node *n, rn_frame_state *fs, const sim_pose *ego, double now)
{
    memset(fs, 0, sizeof *fs);
    fs->ego = *ego;
    fs->have_ego = true;
    fs->agents = n->agents;
    fs->n_agents = n->n_agents;
    fs->light = n->light;
    fs->visibility = n->sc->env.visibility;
    fs->weather = n->sc->env.weather;
    fs->clock = now;
    fs->ego_brake = n->ego_brake;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double p99(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)ceil(0.99 * n) - 1;
    return v[k < 0 ? 0 : k];
}

/* Draws one frame; the screenshot (when asked) is read before the swap. */
static int frame(rn_node *n, const sim_pose *ego, double now, const char *shot, rn_frame_stats *st, sim_error *err)
{
    rn_frame_state fs;
    fill_state(n, &fs, ego, now);
    fs.have_ego = n->last_state_wall >= 0 || !n->bus;
    sim_camera cam;
    int rc = rn_scene_draw(&n->scene, &fs, &n->view, n->g.width, n->g.height, &cam, st);
    if (rc)
        return sim_error_set(err, rc, "drawing: out of memory");
    if (shot && (rc = gfx_screenshot(&n->g, shot, err)))
        return rc;
    SDL_GL_SwapWindow(n->g.win);
    return SIM_OK;
}

/* CPU time of the whole process, llvmpipe's threads included. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static int write_stats(rn_node *n, const char *json, sim_error *err)
{
    if (!n->o.stats_file) {
        printf("%s\n", json);
        return SIM_OK;
    }
    FILE *f = fopen(n->o.stats_file, "w");
    if (!f || fputs(json, f) < 0 || fclose(f) != 0)
        return sim_error_set(err, SIM_EIO, "--stats-file %s: cannot write", n->o.stats_file);
    return SIM_OK;
}

/* --bench-frames: along the first road from the start point at 80 km/h, as fast as the
 * renderer goes. */
static int run_bench(rn_node *n, sim_error *err)
{
    sim_pose p;
    int rc = start_pose(n, &p, err);
    if (rc)
        return rc;
    int si = 0;
    sim_scenario_start_index(n->sc, n->o.start, &si, NULL);
    const sim_start_point *st = &n->sc->starts[si];
    int frames = n->o.bench_frames;
    double *ms = calloc((size_t)frames, sizeof *ms);
    if (!ms)
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    double tri = 0, calls = 0, blocks = 0, t0 = rn_now(), cpu0 = cpu_seconds();
    for (int i = 0; i < frames && !rc; i++) {
        double s = fmin(st->s + i * (22.2 / 60), ra_road_length(n->sc, st->road));
        double h;
        ra_pose(n->sc, st->road, s, st->d, p.pos, &h);
        p.pos[2] += n->cog_height;
        p.heading = ra_lane_forward(n->sc, st->road, st->lane) ? h : h + M_PI;
        double a = rn_now();
        rn_frame_stats fst;
        rc = frame(n, &p, a, NULL, &fst, err);
        glFinish();
        ms[i] = (rn_now() - a) * 1000;
        tri += fst.triangles;
        calls += fst.draw_calls;
        blocks += fst.terrain_blocks;
    }
    double total = rn_now() - t0, cpu = cpu_seconds() - cpu0;
    if (!rc) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"frames\":%d,\"width\":%d,\"height\":%d,\"brute_force\":%s,\"fps\":%.1f,\"frame_ms_p99\":%.2f,"
                 "\"cpu_ms_per_frame\":%.2f,\"terrain_triangles\":%.0f,\"draw_calls\":%.1f,\"terrain_blocks\":%.1f}",
                 frames, n->g.width, n->g.height, n->o.brute_force ? "true" : "false", frames / total,
                 p99(ms, frames), cpu * 1000 / frames, tri / frames, calls / frames, blocks / frames);
        rc = write_stats(n, json, err);
    }
    free(ms);
    return rc;
}

static int run_screenshot(rn_node *n, sim_error *err)
{
    sim_pose p;
    int rc = start_pose(n, &p, err);
    if (rc)
        return rc;
    /* the HUD as the driver would see it at the start */
    int si = 0;
    double kmh = 0;
    if (!n->o.pose && sim_scenario_start_index(n->sc, n->o.start, &si, NULL) == SIM_OK)
        n->scene.hud.speed_kmh = (int)lround(n->sc->starts[si].speed * 3.6);
    if (ra_speed_limit_at(n->sc, p.pos[0], p.pos[1], &kmh, NULL, NULL))
        n->scene.hud.limit_kmh = kmh;
    rn_frame_stats st;
    rc = frame(n, &p, 0, n->o.screenshot, &st, err);
    if (!rc && n->o.stats_file) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"terrain_triangles\":%ld,\"draw_calls\":%d,\"terrain_blocks\":%d,\"culled\":%d,"
                 "\"min_level\":%d,\"max_level\":%d,\"stitched\":%d}",
                 st.triangles, st.draw_calls, st.terrain_blocks, st.culled, st.min_level, st.max_level, st.stitched);
        rc = write_stats(n, json, err);
    }
    return rc;
}

static void on_wait(uv_timer_t *t) { (void)t; }
static void on_signal(uv_signal_t *s, int sig)
{
    rn_node *n = s->data;
    if (sig == SIGUSR1)
        n->shot_now = true; /* kill -USR1: the next frame goes to --screenshot */
    else
        n->stop = true;
}

static int run_session(rn_node *n, sim_error *err)
{
    n->loop = uv_default_loop();
    n->last_state_wall = -1;
    int rc = rn_session_open(n, err);
    if (rc)
        return rc;
    uv_timer_init(n->loop, &n->wait);
    uv_signal_init(n->loop, &n->sigint);
    uv_signal_init(n->loop, &n->sigterm);
    n->sigint.data = n->sigterm.data = n;
    uv_signal_start(&n->sigint, on_signal, SIGINT);
    uv_signal_start(&n->sigterm, on_signal, SIGTERM);
    uv_signal_init(n->loop, &n->sigusr1);
    n->sigusr1.data = n;
    if (n->o.screenshot)
        uv_signal_start(&n->sigusr1, on_signal, SIGUSR1);
    n->latency = malloc(RN_LATENCY_MAX * sizeof *n->latency);
    double period = 1.0 / (n->o.fps > 0 ? n->o.fps : 60), next = rn_now(), t0 = next;
    bool paced = n->o.no_vsync || n->o.offscreen || SDL_GL_GetSwapInterval() <= 0;
    long frames = 0;
    while (!n->stop && !rc) {
        uv_run(n->loop, UV_RUN_NOWAIT);
        SDL_Event ev;
        while (SDL_PollEvent(&ev))
            if (ev.type == SDL_QUIT)
                n->stop = true;
        double now = rn_now();
        sim_pose p;
        sim_interp_at(&n->ip, now, &p);
        rn_session_update_hud(n, now);
        const char *shot = NULL;
        if (n->o.screenshot_at >= 0 && !n->shot_done && n->last_state_wall >= 0 && n->sim_t >= n->o.screenshot_at)
            shot = n->o.screenshot;
        if (n->shot_now && n->o.screenshot)
            shot = n->o.screenshot;
        int pending = n->n_pending;
        rn_frame_stats st;
        rc = frame(n, &p, now, shot, &st, err);
        glFinish();
        double done = rn_now();
        for (int i = 0; i < pending && n->latency && n->n_latency < RN_LATENCY_MAX; i++)
            n->latency[n->n_latency++] = done - n->pending_arrival[i];
        memmove(n->pending_arrival, n->pending_arrival + pending, (size_t)(n->n_pending - pending) * sizeof(double));
        n->n_pending -= pending;
        if (shot && !rc) {
            n->shot_done = true;
            n->shot_now = false;
            fprintf(stderr, "render-node: wrote %s at t = %.3f s\n", shot, n->sim_t);
        }
        frames++;
        if (paced) {
            /* wait for the next frame's time, handling messages as they come */
            next += period;
            if (next < rn_now() - period)
                next = rn_now(); /* fell behind: do not try to catch up */
            while (!n->stop && rn_now() < next) {
                uv_timer_start(&n->wait, on_wait, (uint64_t)ceil((next - rn_now()) * 1000), 0);
                uv_run(n->loop, UV_RUN_ONCE);
            }
        }
    }
    double total = rn_now() - t0;
    if (n->o.stats_file) {
        char json[256];
        int nl = n->n_latency;
        snprintf(json, sizeof json, "{\"frames\":%ld,\"fps\":%.1f,\"latency_n\":%d,\"latency_ms_p99\":%.2f}", frames,
                 frames / (total > 0 ? total : 1), nl, p99(n->latency, nl) * 1000);
        sim_error werr = {0};
        if (write_stats(n, json, &werr))
            fprintf(stderr, "render-node: %s\n", werr.msg);
    }
    free(n->latency);
    n->latency = NULL;
    uv_timer_stop(&n->wait);
    uv_close((uv_handle_t *)&n->wait, NULL);
    uv_close((uv_handle_t *)&n->sigint, NULL);
    uv_close((uv_handle_t *)&n->sigterm, NULL);
    uv_close((uv_handle_t *)&n->sigusr1, NULL);
    rn_session_close(n);
    uv_run(n->loop, UV_RUN_DEFAULT);
    uv_loop_close(n->loop);
    return rc;
}

static int parse_size(const char *text, int *w, int *h)
{
    char tail;
    return text && sscanf(text, "%dx%d%c", w, h, &tail) == 2 && *w >= 16 && *h >= 16 && *w <= 16384 && *h <= 16384;
}

static int parse_options(int argc, char **argv, rn_options *o)
{
    memset(o, 0, sizeof *o);
    o->bus = "127.0.0.1:7700";
    o->view_name = "front";
    o->size = "1280x720";
    o->screenshot_at = -1;
    o->fps = 60;
    o->lod_tolerance = 2.0;
    const sim_opt opts[] = {
        {"bus", SIM_OPT_STRING, &o->bus, "HOST:PORT", "dispatcher to join (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &o->token, "TOKEN", "token for a dispatcher off loopback"},
        {"name", SIM_OPT_STRING, &o->name, "NAME", "name on the bus (default render for the front view, else render-VIEW)"},
        {"scenario", SIM_OPT_STRING, &o->scenario, "FILE", "scenario to draw (required)"},
        {"start", SIM_OPT_STRING, &o->start, "NAME", "start point for --screenshot and --bench-frames (default the first)"},
        {"vehicle", SIM_OPT_STRING, &o->vehicle, "FILE", "vehicle file: the driver's eye point (default vehicles/bmw-318i.json)"},
        {"view", SIM_OPT_STRING, &o->view_name, "VIEW", "front, left, right, rear-mirror, left-mirror, right-mirror or chase"},
        {"yaw-offset-deg", SIM_OPT_DOUBLE, &o->yaw_offset_deg, "DEG", "turn the view by DEG, left positive"},
        {"fov-deg", SIM_OPT_DOUBLE, &o->fov_deg, "DEG", "vertical field of view (default: 45, mirrors narrower)"},
        {"size", SIM_OPT_STRING, &o->size, "WxH", "window or image size in pixels (default 1280x720)"},
        {"pos", SIM_OPT_STRING, &o->pos, "X,Y", "window position on the desktop"},
        {"display", SIM_OPT_INT, &o->display, "N", "display for the window or fullscreen (default 0)"},
        {"fullscreen", SIM_OPT_FLAG, &o->fullscreen, NULL, "fullscreen on --display"},
        {"no-vsync", SIM_OPT_FLAG, &o->no_vsync, NULL, "do not wait for the display's refresh (then --fps paces)"},
        {"fps", SIM_OPT_DOUBLE, &o->fps, "N", "frame rate when not paced by vsync (default 60)"},
        {"offscreen", SIM_OPT_FLAG, &o->offscreen, NULL, "draw without a display (SDL's offscreen driver, EGL)"},
        {"screenshot", SIM_OPT_STRING, &o->screenshot, "OUT.png", "draw one frame of --start without a bus, write it, exit; with --screenshot-at: the frame at that time in a session"},
        {"screenshot-at", SIM_OPT_DOUBLE, &o->screenshot_at, "T", "in a session: write --screenshot at simulation time T (and whenever the node gets SIGUSR1)"},
        {"traffic", SIM_OPT_STRING, &o->traffic, "FILE", "for --screenshot: the other cars from a traffic.state message (default: the scenario's agents at their starts)"},
        {"pose", SIM_OPT_STRING, &o->pose, "X,Y,Z,HDG[,PITCH]", "for --screenshot: the car's centre of gravity (m) and heading, pitch (deg) instead of --start"},
        {"light", SIM_OPT_STRING, &o->light, "MODE", "day, dusk or night instead of the scenario's"},
        {"shaders", SIM_OPT_STRING, &o->shaders, "DIR", "shader directory (default: render-node/shaders beside bin/)"},
        {"lod-tolerance", SIM_OPT_DOUBLE, &o->lod_tolerance, "PX", "terrain screen-space error allowed (default 2 pixels)"},
        {"brute-force", SIM_OPT_FLAG, &o->brute_force, NULL, "terrain at full resolution everywhere (benchmark baseline)"},
        {"terrain-only", SIM_OPT_FLAG, &o->terrain_only, NULL, "draw only the terrain over a magenta background (crack tests)"},
        {"no-hud", SIM_OPT_FLAG, &o->no_hud, NULL, "no head-up display"},
        {"bench-frames", SIM_OPT_INT, &o->bench_frames, "N", "draw N frames driving along the road without a bus, report speed"},
        {"stats-file", SIM_OPT_STRING, &o->stats_file, "FILE", "write frame statistics (JSON) there at exit instead of stdout"},
    };
    int npos = 0;
    int rc = sim_cli_parse("render-node --scenario FILE [options]",
                           "Draws the driver's view, a side screen, a mirror or the chase view of a session (docs/render.md).",
                           opts, sizeof opts / sizeof *opts, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP)
        return 0;
    if (rc != SIM_CLI_OK)
        return 2;
    const char *bad = NULL;
    if (npos)
        bad = "no positional arguments are taken";
    else if (!o->scenario)
        bad = "--scenario FILE is required";
    else if (sim_view_parse(o->view_name) < 0)
        bad = "--view must be front, left, right, rear-mirror, left-mirror, right-mirror or chase";
    else if (o->fov_deg < 0 || o->fov_deg >= 170)
        bad = "--fov-deg must be from 1 to 170 degrees";
    else if (o->light && strcmp(o->light, "day") && strcmp(o->light, "dusk") && strcmp(o->light, "night"))
        bad = "--light must be day, dusk or night";
    else if (o->screenshot_at >= 0 && !o->screenshot)
        bad = "--screenshot-at needs --screenshot OUT.png";
    else if (!(o->fps > 0 && o->fps <= 1000))
        bad = "--fps must be from 1 to 1000";
    else if (!(o->lod_tolerance > 0))
        bad = "--lod-tolerance must be > 0 pixels";
    else if (o->bench_frames < 0)
        bad = "--bench-frames must be >= 0";
    if (bad) {
        fprintf(stderr, "render-node: %s (--help lists the options)\n", bad);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    static rn_node n;
    int rc = parse_options(argc, argv, &n.o);
    if (rc >= 0)
        return rc;
    rn_options *o = &n.o;
    int w, h;
    if (!parse_size(o->size, &w, &h)) {
        fprintf(stderr, "render-node: --size must be WIDTHxHEIGHT in pixels (16..16384), not \"%s\"\n", o->size);
        return 2;
    }
    int wx = -1, wy = -1;
    if (o->pos) {
        double v[2];
        if (parse_numbers(o->pos, v, 2) != 2) {
            fprintf(stderr, "render-node: --pos must be X,Y in pixels, not \"%s\"\n", o->pos);
            return 2;
        }
        wx = (int)v[0];
        wy = (int)v[1];
    }
    bool one_off = (o->screenshot && o->screenshot_at < 0) || o->bench_frames > 0;
    if (!getenv("SDL_VIDEODRIVER") && (o->offscreen || one_off)) {
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
        o->offscreen = true;
    } else if (!getenv("SDL_VIDEODRIVER") && !have_display()) {
        fprintf(stderr, "render-node: no display (DISPLAY is not set): use --offscreen to draw without one\n");
        return 1;
    }
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    sim_error err = {0};
    n.view.view = (sim_view)sim_view_parse(o->view_name);
    n.view.yaw_offset = o->yaw_offset_deg * M_PI / 180;
    n.view.fov_y = o->fov_deg * M_PI / 180;
    /* the shaders of the tree the executable was built in, else of the current directory */
    char *shaders = o->shaders ? strdup(o->shaders) : beside_exe("../render-node/shaders");
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/lit.vert", shaders ? shaders : "");
    if (!o->shaders && access(probe, R_OK) != 0 && access("render-node/shaders/lit.vert", R_OK) == 0) {
        free(shaders);
        shaders = strdup("render-node/shaders");
    }
    if ((rc = sim_scenario_load_err(o->scenario, &n.sc, &err)) || (rc = load_vehicle(&n, &err))) {
        fprintf(stderr, "render-node: %s\n", err.msg);
        free(shaders);
        sim_scenario_free(n.sc);
        return 1;
    }
    n.light = n.sc->env.light;
    if (o->light)
        n.light = !strcmp(o->light, "night") ? SIM_LIGHT_NIGHT : !strcmp(o->light, "dusk") ? SIM_LIGHT_DUSK : SIM_LIGHT_DAY;
    n.trigger_fired = calloc((size_t)n.sc->n_triggers + 1, sizeof *n.trigger_fired);
    gfx_window_opts wo = {.width = w, .height = h, .x = wx, .y = wy, .display = o->display,
                          .fullscreen = o->fullscreen, .hidden = o->offscreen, .vsync = !o->no_vsync,
                          .title = "render-node"};
    if (SDL_Init(SDL_INIT_EVENTS) != 0 || (rc = gfx_open(&n.g, &wo, &err))) {
        fprintf(stderr, "render-node: %s\n", err.msg[0] ? err.msg : SDL_GetError());
        rc = 1;
    } else if ((rc = rn_scene_init(&n.scene, n.sc, shaders, &n.rig, n.cog_height, &err))) {
        fprintf(stderr, "render-node: %s\n", err.msg);
        rc = 1;
    } else {
        n.scene.terrain.tolerance = o->lod_tolerance;
        if (o->brute_force)
            n.scene.terrain.force_level = n.scene.terrain.tree.depth;
        if (o->terrain_only) {
            n.scene.draw_roads = n.scene.draw_cars = false;
            n.scene.magenta = true;
        }
        if (o->no_hud)
            n.scene.no_hud = true;
        if (o->bench_frames > 0) {
            rc = run_bench(&n, &err);
        } else if (o->screenshot && o->screenshot_at < 0) {
            if (o->traffic)
                rc = load_traffic_file(&n, &err);
            else
                scenario_agents(&n);
            if (!rc)
                rc = run_screenshot(&n, &err);
        } else {
            rc = run_session(&n, &err);
        }
        if (rc) {
            fprintf(stderr, "render-node: %s\n", err.msg);
            rc = 1;
        }
    }
    rn_scene_free(&n.scene);
    gfx_close(&n.g);
    SDL_Quit();
    sim_scenario_free(n.sc);
    free(n.trigger_fired);
    free(shaders);
    return rc;
}
