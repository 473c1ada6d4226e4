/* render-node: the driver's view (and the side screens, the mirrors, the operator's
 * chase view) drawn with OpenGL 3.3 from the scenario and the bus (docs/render.md).
 *
 * Modes: on the bus (default) it draws frames at the display rate, interpolating the
 * ego car between the last two vehicle.state messages; `--screenshot OUT.png` draws
 * one frame of a scenario's start point without a bus and exits; `--bench-frames N`
 * drives along the first road without a bus and reports frame times; `--log LOG
 * --frames-out FILE` draws a drive log's frames at log times for simctl video
 * (logframes.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "node.h"
#include "sim_cli.h"
#include "sim_file.h"
#include "sim_sky.h"
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
    snprintf(n->ego_model, sizeof n->ego_model, "%s", vp.model);
    snprintf(n->ego_cockpit, sizeof n->ego_cockpit, "%s", vp.cockpit);
    return SIM_OK;
}

/* The models directory (--models, else the tree the executable was built in, else the
 * current directory's) and the ego's models: one that cannot be loaded was reported
 * and a box stands in, so the node goes on. */
static void setup_models(rn_node *n)
{
    rn_models *ms = &n->scene.objects.models;
    char *dir = n->o.models ? strdup(n->o.models) : beside_exe("../models");
    if (!n->o.models && (!dir || access(dir, R_OK) != 0)) {
        free(dir);
        dir = strdup("models");
    }
    if (dir) rn_models_set_dir(ms, dir);
    rn_scenery_use_models(&n->scene.scenery, dir, NULL); /* trees and buildings from their models */
    free(dir);
    rn_models_set_ego(ms, n->ego_model, n->ego_cockpit, n->rig.length, NULL);
}

/* --quality, or the renderer's preset (GL context current): a software rasteriser gets
 * low, said once on stderr, since medium there falls far below 60 fps. o->quality is
 * set to the preset's name for the statistics. */
static rn_quality pick_quality(rn_options *o)
{
    if (o->quality)
        return (rn_quality)rn_quality_parse(o->quality);
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    bool software = false;
    rn_quality q = rn_quality_for_renderer(renderer, &software);
    o->quality = rn_quality_name(q);
    if (software)
        fprintf(stderr, "render-node: software renderer %s: quality %s (pass --quality medium to override)\n",
                renderer, o->quality);
    return q;
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
    o->lod_tolerance = NAN; /* the quality preset's */
    o->quality = NULL; /* the renderer's: low on a software rasteriser, else medium */
    o->log_run = -1;
    o->log_from = o->log_to = NAN;
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
        {"traffic", SIM_OPT_STRING, &o->traffic, "FILE", "for --screenshot and --bench-frames: the other cars from a traffic.state message (default: the scenario's agents at their starts for a screenshot, none for the benchmark)"},
        {"pose", SIM_OPT_STRING, &o->pose, "X,Y,Z,HDG[,PITCH]", "for --screenshot: the car's centre of gravity (m) and heading, pitch (deg) instead of --start"},
        {"light", SIM_OPT_STRING, &o->light, "MODE", "day, dusk or night instead of the scenario's"},
        {"signals-at", SIM_OPT_DOUBLE, &o->signals_at, "T", "for --screenshot: traffic lights as their controllers show them at simulation time T (default 0)"},
        {"models", SIM_OPT_STRING, &o->models, "DIR", "where model names are looked up (default: models/ beside bin/)"},
        {"shaders", SIM_OPT_STRING, &o->shaders, "DIR", "shader directory (default: render-node/shaders beside bin/)"},
        {"quality", SIM_OPT_STRING, &o->quality, "PRESET", "low, medium or high: what a frame may cost (default: low on a software renderer such as llvmpipe, where it keeps 60 fps; medium on a GPU)"},
        {"no-scenery", SIM_OPT_FLAG, &o->no_scenery, NULL, "no roadside scenery (trees, posts, rails, buildings...)"},
        {"no-detail", SIM_OPT_FLAG, &o->no_detail, NULL, "no detail textures on ground, roads and marks (the benchmark's baseline)"},
        {"weather", SIM_OPT_STRING, &o->weather, "W", "clear, cloudy, rain, fog or snow instead of the scenario's"},
        {"lod-tolerance", SIM_OPT_DOUBLE, &o->lod_tolerance, "PX", "terrain screen-space error allowed (default: the preset's, 4, 2 or 1.5 pixels)"},
        {"brute-force", SIM_OPT_FLAG, &o->brute_force, NULL, "terrain at full resolution everywhere (benchmark baseline)"},
        {"terrain-only", SIM_OPT_FLAG, &o->terrain_only, NULL, "draw only the terrain over a magenta background (crack tests)"},
        {"no-hud", SIM_OPT_FLAG, &o->no_hud, NULL, "no head-up display"},
        {"bench-frames", SIM_OPT_INT, &o->bench_frames, "N", "draw N frames driving along the road without a bus, report speed"},
        {"stats-file", SIM_OPT_STRING, &o->stats_file, "FILE", "write frame statistics (JSON) there at exit instead of stdout"},
        {"motion", SIM_OPT_STRING, &o->motion, "predict|interpolate", "the car's pose: predicted from the newest state to the frame's presentation (default), or interpolated between the last two, one state period behind (docs/latency.md)"},
        {"latency-marker", SIM_OPT_FLAG, &o->latency_marker, NULL, "a 32-pixel patch in the top left corner, white while the steering input is past half lock, for a photodiode (docs/latency.md)"},
        {"study-screen", SIM_OPT_FLAG, &o->study_screen, NULL, "the driver's screen between a study's drives: a calm page with what study.state says, no scene (simctl study run starts it; docs/study.md)"},
        {"log", SIM_OPT_STRING, &o->log, "LOG", "draw a drive log's frames without a bus (with --frames-out; simctl video, docs/video.md)"},
        {"frames-out", SIM_OPT_STRING, &o->frames_out, "FILE", "with --log: every frame as raw RGB (width x height x 3 bytes, top row first) to FILE, - for stdout"},
        {"run", SIM_OPT_INT, &o->log_run, "N", "with --log: the log's run N (default its first)"},
        {"from", SIM_OPT_DOUBLE, &o->log_from, "T", "with --log: the first frame at log time T (default the run's first sample); then every 1/--fps s"},
        {"to", SIM_OPT_DOUBLE, &o->log_to, "T", "with --log: the last frame at or before log time T (default the run's last sample)"},
        {"stamp", SIM_OPT_FLAG, &o->stamp, NULL, "with --log: each frame's log time (and run, frame number) in the top right corner"},
        {"latency-log", SIM_OPT_STRING, &o->latency_log, "FILE", "in a session: every frame's wheel-to-picture delay and stages (and the patch as read back) as CSV"},
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
    char names[64], light_bad[96], weather_bad[96]; /* the names from sim_sky.def */
    snprintf(light_bad, sizeof light_bad, "--light must be %s", sim_light_operator_words(false, names, sizeof names));
    snprintf(weather_bad, sizeof weather_bad, "--weather must be %s", sim_weather_words(names, sizeof names));
    if (npos)
        bad = "no positional arguments are taken";
    else if (!o->scenario)
        bad = "--scenario FILE is required";
    else if (sim_view_parse(o->view_name) < 0)
        bad = "--view must be front, left, right, rear-mirror, left-mirror, right-mirror or chase";
    else if (o->fov_deg < 0 || o->fov_deg >= 170)
        bad = "--fov-deg must be from 1 to 170 degrees";
    else if (o->light && sim_light_find(o->light, true) < 0)
        bad = light_bad;
    else if (o->study_screen && (o->bench_frames > 0 || (o->screenshot && o->screenshot_at >= 0)))
        bad = "--study-screen takes --screenshot OUT.png (written on SIGUSR1) but not --screenshot-at or --bench-frames";
    else if (!o->log != !o->frames_out)
        bad = "--log LOG and --frames-out FILE go together";
    else if (o->stamp && !o->log)
        bad = "--stamp goes with --log";
    else if (o->log && (o->bench_frames > 0 || o->screenshot || o->study_screen))
        bad = "--log takes neither --screenshot, --bench-frames nor --study-screen";
    else if (o->screenshot_at >= 0 && !o->screenshot)
        bad = "--screenshot-at needs --screenshot OUT.png";
    else if (!(o->fps > 0 && o->fps <= 1000))
        bad = "--fps must be from 1 to 1000";
    else if (o->quality && rn_quality_parse(o->quality) < 0)
        bad = "--quality must be low, medium or high";
    else if (o->weather && sim_weather_find(o->weather) < 0)
        bad = weather_bad;
    else if (!isnan(o->lod_tolerance) && !(o->lod_tolerance > 0))
        bad = "--lod-tolerance must be > 0 pixels";
    else if (o->bench_frames < 0)
        bad = "--bench-frames must be >= 0";
    else if (o->motion && strcmp(o->motion, "predict") && strcmp(o->motion, "interpolate"))
        bad = "--motion must be predict or interpolate";
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
    n.motion = o->motion && !strcmp(o->motion, "interpolate") ? RN_MOTION_INTERPOLATE : RN_MOTION_PREDICT;
    int w, h;
    if (!parse_size(o->size, &w, &h)) {
        fprintf(stderr, "render-node: --size must be WIDTHxHEIGHT in pixels (16..16384), not \"%s\"\n", o->size);
        return 2;
    }
    int wx = -1, wy = -1;
    if (o->pos) {
        double v[2];
        if (rn_parse_numbers(o->pos, v, 2) != 2) {
            fprintf(stderr, "render-node: --pos must be X,Y in pixels, not \"%s\"\n", o->pos);
            return 2;
        }
        wx = (int)v[0];
        wy = (int)v[1];
    }
    bool one_off = (o->screenshot && o->screenshot_at < 0 && !o->study_screen) || o->bench_frames > 0 || o->log;
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
    if (o->weather)
        n.sc->env.weather = (sim_weather)sim_weather_find(o->weather);
    if (o->light)
        n.light = (sim_light)sim_light_find(o->light, true); /* checked by parse_options */
    n.trigger_fired = calloc((size_t)n.sc->n_triggers + 1, sizeof *n.trigger_fired);
    gfx_window_opts wo = {.width = w, .height = h, .x = wx, .y = wy, .display = o->display,
                          .fullscreen = o->fullscreen, .hidden = o->offscreen, .vsync = !o->no_vsync,
                          .title = o->study_screen ? "render-node study screen" : "render-node"};
    if (SDL_Init(SDL_INIT_EVENTS) != 0 || (rc = gfx_open(&n.g, &wo, &err))) {
        fprintf(stderr, "render-node: %s\n", err.msg[0] ? err.msg : SDL_GetError());
        rc = 1;
    } else if ((rc = rn_scene_init(&n.scene, n.sc, shaders, &n.rig, n.cog_height, pick_quality(o), &err))) {
        fprintf(stderr, "render-node: %s\n", err.msg);
        rc = 1;
    } else {
        setup_models(&n);
        n.scene.terrain.tolerance =
            isnan(o->lod_tolerance) ? rn_quality_lod_tolerance(n.scene.quality) : o->lod_tolerance;
        n.scene.no_detail = o->no_detail;
        if (o->no_scenery)
            n.scene.draw_scenery = false;
        if (o->signals_at != 0) rn_lights_show_at(&n.scene.lights, o->signals_at);
        if (o->brute_force)
            n.scene.terrain.force_level = n.scene.terrain.tree.depth;
        if (o->terrain_only) {
            n.scene.draw_roads = n.scene.draw_cars = n.scene.draw_scenery = false;
            n.scene.magenta = true;
        }
        if (o->no_hud)
            n.scene.no_hud = true;
        if (o->study_screen) {
            rc = rn_run_study_screen(&n, &err);
        } else if (o->log) {
            rc = rn_run_log_frames(&n, &err);
        } else if (o->bench_frames > 0) {
            rc = o->traffic ? rn_load_traffic_file(&n, &err) : SIM_OK;
            if (!rc)
                rc = rn_run_bench(&n, &err);
        } else if (o->screenshot && o->screenshot_at < 0) {
            if (o->traffic)
                rc = rn_load_traffic_file(&n, &err);
            else
                rn_scenario_agents(&n);
            if (!rc)
                rc = rn_run_screenshot(&n, &err);
        } else {
            rc = rn_run_session(&n, &err);
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
