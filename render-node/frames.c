/* frames: drawing a frame, and the render node's modes without a bus: a preview of a
 * start point (--screenshot) and the benchmark drive (--bench-frames); the start pose,
 * the scenario's agents and a traffic file for them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "node.h"
#include "road_adapter.h"
#include "sim_file.h"
#include "sim_traffic.h"

int rn_parse_numbers(const char *text, double *out, int max)
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

/* The ego pose and the other cars at the scenario's start, for a preview. */
int rn_start_pose(rn_node *n, sim_pose *p, sim_error *err)
{
    memset(p, 0, sizeof *p);
    if (n->o.pose) {
        double v[5] = {0};
        int k = rn_parse_numbers(n->o.pose, v, 5);
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
void rn_scenario_agents(rn_node *n)
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
        /* the traffic node's size for the type (a bus is 12 m: drawn from its model,
         * scaled to that length); the tractor, which traffic sizes as a car, as it is */
        bool tractor = a->model && !strcmp(a->model, "tractor");
        const sim_traffic_vmodel *vm = &sim_traffic_vmodels[sim_traffic_vmodel_find(a->model)];
        o->size[0] = tractor ? 3.8 : vm->length;
        o->size[1] = tractor ? 2.2 : vm->width;
        o->size[2] = tractor ? 2.6 : vm->height;
        unsigned hsh = 2166136261u;
        for (const char *c = a->id; c && *c; c++)
            hsh = (hsh ^ (unsigned char)*c) * 16777619u;
        o->colour = hsh;
        snprintf(o->model, sizeof o->model, "%s", a->model ? a->model : "car");
    }
}

int rn_load_traffic_file(rn_node *n, sim_error *err)
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
    if (n->bus) {
        fs->n_agents = rn_session_agents(n, now);
        fs->agents = n->drawn;
    }
    fs->light = n->light;
    fs->visibility = n->sc->env.visibility;
    fs->weather = n->sc->env.weather;
    fs->clock = now;
    fs->ego_brake = n->ego_brake;
    fs->ego_speed = n->ego_speed;
    fs->ego_steer = n->ego_steer;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double rn_p99(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)ceil(0.99 * n) - 1;
    return v[k < 0 ? 0 : k];
}

/* Draws one frame; the screenshot (when asked) is read before the swap. */
int rn_frame(rn_node *n, const sim_pose *ego, double now, const char *shot, rn_frame_stats *st, sim_error *err)
{
    if (n->g.width < 1 || n->g.height < 1)
        return SIM_OK; /* a minimised window: nothing to draw into */
    rn_frame_state fs;
    fill_state(n, &fs, ego, now);
    fs.have_ego = n->last_state_wall >= 0 || !n->bus;
    sim_camera cam;
    int rc = rn_scene_draw(&n->scene, &fs, &n->view, n->g.width, n->g.height, &cam, st);
    if (rc)
        return sim_error_set(err, rc, "drawing: out of memory");
    if (n->o.latency_marker) {
        /* The photodiode patch over everything (scissored clear: no shader, no state
         * left behind but the scissor test, switched off again). */
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glEnable(GL_SCISSOR_TEST);
        glScissor(0, n->g.height - RN_MARKER_PX, RN_MARKER_PX, RN_MARKER_PX);
        float v = n->marker_on ? 1.0f : 0.0f;
        glClearColor(v, v, v, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glDisable(GL_SCISSOR_TEST);
        if (n->latency_log) {
            /* what will be presented: read back from the back buffer before the swap */
            unsigned char px[4] = {0};
            glReadPixels(RN_MARKER_PX / 2, n->g.height - RN_MARKER_PX / 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
            n->marker_read = px[0];
        }
    }
    if (shot && (rc = gfx_screenshot(&n->g, shot, err)))
        return rc;
    if (n->grab)
        gfx_read_rgb_into(&n->g, n->grab);
    /* Finished before the swap, so that the delay's split tells drawing from
     * presenting (the loop waits for the swap's end with glFinish anyway). */
    glFinish();
    n->draw_end = rn_now();
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

int rn_write_stats(rn_node *n, const char *json, sim_error *err)
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
int rn_run_bench(rn_node *n, sim_error *err)
{
    sim_pose p;
    int rc = rn_start_pose(n, &p, err);
    if (rc)
        return rc;
    int si = 0;
    sim_scenario_start_index(n->sc, n->o.start, &si, NULL);
    const sim_start_point *st = &n->sc->starts[si];
    int frames = n->o.bench_frames;
    double *ms = calloc((size_t)frames, sizeof *ms);
    if (!ms)
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    double tri = 0, calls = 0, blocks = 0, stri = 0, sinst = 0, veh = 0, vcalls = 0, t0 = rn_now(),
           cpu0 = cpu_seconds();
    for (int i = 0; i < frames && !rc; i++) {
        double s = fmin(st->s + i * (22.2 / 60), ra_road_length(n->sc, st->road));
        double h;
        ra_pose(n->sc, st->road, s, st->d, p.pos, &h);
        p.pos[2] += n->cog_height;
        p.heading = ra_lane_forward(n->sc, st->road, st->lane) ? h : h + M_PI;
        double a = rn_now();
        rn_frame_stats fst;
        rc = rn_frame(n, &p, a, NULL, &fst, err);
        glFinish();
        ms[i] = (rn_now() - a) * 1000;
        tri += fst.triangles;
        calls += fst.draw_calls;
        blocks += fst.terrain_blocks;
        stri += fst.scenery_triangles;
        sinst += fst.scenery_instances;
        veh += fst.vehicles;
        vcalls += fst.vehicle_draw_calls;
    }
    double total = rn_now() - t0, cpu = cpu_seconds() - cpu0;
    if (!rc) {
        char json[896];
        snprintf(json, sizeof json,
                 "{\"frames\":%d,\"width\":%d,\"height\":%d,\"brute_force\":%s,\"quality\":\"%s\",\"fps\":%.1f,"
                 "\"frame_ms_p99\":%.2f,\"cpu_ms_per_frame\":%.2f,\"terrain_triangles\":%.0f,\"draw_calls\":%.1f,"
                 "\"terrain_blocks\":%.1f,\"scenery_triangles\":%.0f,\"scenery_instances\":%.0f,"
                 "\"triangles\":%.0f,\"scenery_objects\":%d,\"vehicles\":%.1f,\"vehicle_draw_calls\":%.1f,"
                 "\"detail\":%s,\"anisotropy\":%.0f}",
                 frames, n->g.width, n->g.height, n->o.brute_force ? "true" : "false",
                 rn_quality_name(n->scene.quality), frames / total, rn_p99(ms, frames), cpu * 1000 / frames,
                 tri / frames, calls / frames, blocks / frames, stri / frames, sinst / frames, (tri + stri) / frames,
                 n->scene.scenery.list.n, veh / frames, vcalls / frames, n->scene.no_detail ? "false" : "true",
                 n->scene.anisotropy);
        rc = rn_write_stats(n, json, err);
    }
    free(ms);
    return rc;
}

int rn_run_screenshot(rn_node *n, sim_error *err)
{
    sim_pose p;
    int rc = rn_start_pose(n, &p, err);
    if (rc)
        return rc;
    /* the HUD as the driver would see it at the start */
    int si = 0;
    double kmh = 0;
    if (!n->o.pose && sim_scenario_start_index(n->sc, n->o.start, &si, NULL) == SIM_OK) {
        n->scene.hud.speed_kmh = (int)lround(n->sc->starts[si].speed * 3.6);
        n->scene.hud.speed_mph = (int)lround(n->sc->starts[si].speed * 3.6 / RN_KMH_PER_MPH);
    }
    n->scene.hud.mph = n->sc->env.speed_mph;
    if (ra_speed_limit_at(n->sc, p.pos[0], p.pos[1], &kmh, NULL, NULL))
        n->scene.hud.limit_kmh = kmh;
    rn_frame_stats st;
    rc = rn_frame(n, &p, 0, n->o.screenshot, &st, err);
    if (!rc && n->o.stats_file) {
        char json[384];
        snprintf(json, sizeof json,
                 "{\"terrain_triangles\":%ld,\"draw_calls\":%d,\"terrain_blocks\":%d,\"culled\":%d,"
                 "\"min_level\":%d,\"max_level\":%d,\"stitched\":%d,\"quality\":\"%s\",\"vehicles\":%d,"
                 "\"vehicle_draw_calls\":%d}",
                 st.triangles, st.draw_calls, st.terrain_blocks, st.culled, st.min_level, st.max_level, st.stitched,
                 rn_quality_name(n->scene.quality), st.vehicles, st.vehicle_draw_calls);
        rc = rn_write_stats(n, json, err);
    }
    return rc;
}

