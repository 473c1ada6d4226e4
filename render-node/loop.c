/* loop: the render node in a session: frames at the display's rate (vsync, or paced by
 * --fps), bus messages handled in between, screenshots at a simulation time or on
 * SIGUSR1, latency from each state's arrival to the end of its frame. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "sim_msg_render.h"

static void on_wait(uv_timer_t *t) { (void)t; }
static void on_signal(uv_signal_t *s, int sig)
{
    rn_node *n = s->data;
    if (sig == SIGUSR1)
        n->shot_now = true; /* kill -USR1: the next frame goes to --screenshot */
    else
        n->stop = true;
}

/* The frame's wheel-to-picture delay: kept for --stats-file and summarised on the
 * bus as render.latency every 100 ms. */
static void frame_latency(rn_node *n, const rn_chain *c)
{
    double stage[SIM_LATENCY_STAGES];
    double total = rn_latency_split(c, stage);
    if (n->latency_log) {
        /* every frame, stamped or not: the self-test looks for the patch's first lit frame */
        fprintf(n->latency_log, "%.6f,%d,%d,%.6f", c->swap_end, n->marker_on, n->marker_read, c->in_stamp);
        for (int i = 0; i < SIM_LATENCY_STAGES; i++)
            fprintf(n->latency_log, ",%.3f", isnan(total) ? NAN : stage[i] * 1e3);
        fprintf(n->latency_log, ",%.3f\n", isnan(total) ? NAN : total * 1e3);
        fflush(n->latency_log); /* read while the session runs (simctl latency) */
    }
    if (isnan(total) || n->paused)
        return;
    if (n->wheel && n->n_wheel < RN_LATENCY_MAX)
        n->wheel[n->n_wheel++] = total;
    sim_msg_render_latency m;
    if (rn_latency_add(&n->lat_win, c->swap_end, total, stage, 0.1, &m) && n->bus) {
        cJSON *o = sim_msg_render_latency_encode(&m);
        if (o) sim_bus_publish(n->bus, SIM_TOPIC_RENDER_LATENCY, n->sim_t, o);
        cJSON_Delete(o);
    }
}

int rn_run_session(rn_node *n, sim_error *err)
{
    n->loop = uv_default_loop();
    n->last_state_wall = -1;
    if (n->o.latency_log) {
        n->latency_log = fopen(n->o.latency_log, "w");
        if (!n->latency_log)
            return sim_error_set(err, SIM_EIO, "--latency-log %s: cannot create: %s", n->o.latency_log, strerror(errno));
        fprintf(n->latency_log, "swap_end,marker_on,marker_read,in_stamp,device_ms,input_ms,step_ms,physics_ms,"
                                "wait_ms,draw_ms,swap_ms,total_ms\n");
    }
    int rc = rn_session_open(n, err);
    if (rc) {
        if (n->latency_log) fclose(n->latency_log);
        n->latency_log = NULL;
        return rc;
    }
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
    n->wheel = malloc(RN_LATENCY_MAX * sizeof *n->wheel);

    n->n_wheel = 0;
    rn_latency_window_init(&n->lat_win);
    n->chain = (rn_chain){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    /* until the first state: the view from the scenario's start point */
    sim_pose home;
    sim_error serr = {0};
    if (rn_start_pose(n, &home, &serr) != SIM_OK)
        memset(&home, 0, sizeof home);
    double period = 1.0 / (n->o.fps > 0 ? n->o.fps : 60), t0 = rn_now();
    n->frame_cost = 0.5 * period;
    bool paced = n->o.no_vsync || n->o.offscreen || SDL_GL_GetSwapInterval() <= 0;
    long frames = 0;
    while (!n->stop && !rc) {
        uv_run(n->loop, UV_RUN_NOWAIT);
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT)
                n->stop = true;
            else if (ev.type == SDL_WINDOWEVENT && ev.window.event == SDL_WINDOWEVENT_SIZE_CHANGED)
                SDL_GL_GetDrawableSize(n->g.win, &n->g.width, &n->g.height);
        }
        double now = rn_now(), start = now;
        sim_pose p = home;
        double shown_t = NAN;
        if (n->ip.n > 0 && n->motion == RN_MOTION_PREDICT) {
            /* where the car will be when this frame is presented: the newest state
             * carried forward by the time since physics was there plus what a frame
             * takes (docs/latency.md) */
            double dt = n->paused ? 0 : start + n->frame_cost - n->newest_ref;
            sim_predict(&n->newest_pose, &n->newest_motion, dt, &p);
            shown_t = n->newest_t;
        } else if (n->ip.n > 0) {
            shown_t = sim_interp_at(&n->ip, now, &p);
        }
        rn_session_update_hud(n, now);
        const char *shot = NULL;
        if (n->o.screenshot_at >= 0 && !n->shot_done && n->last_state_wall >= 0 && n->sim_t >= n->o.screenshot_at)
            shot = n->o.screenshot;
        if (n->shot_now && n->o.screenshot)
            shot = n->o.screenshot;
        int pending = n->n_pending;
        /* the state this frame's pose stands for (interpolating: the nearer of the two
         * it is between): its delay chain, and the marker follows its steering */
        const rn_shown *sh = isnan(shown_t) ? NULL : rn_session_shown(n, shown_t);
        rn_chain chain = sh ? sh->chain : n->chain;
        n->marker_on = sh && fabs(sh->steer) >= RN_MARKER_STEER;
        n->marker_read = -1;
        rn_frame_stats st;
        n->draw_end = NAN;
        rc = rn_frame(n, &p, now, shot, &st, err);
        glFinish();
        double done = rn_now();
        chain.frame_start = start;
        chain.draw_end = n->draw_end;
        chain.swap_end = done;
        frame_latency(n, &chain);
        n->frame_cost += 0.1 * ((done - start) - n->frame_cost);
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
        if (paced || n->g.width < 1 || n->g.height < 1) { /* minimised: no swap waits for us */
            /* Wait for the next frame's time, handling messages as they come. A new
             * state may bring the frame forward by a quarter period: it is then drawn
             * soon after it arrives (at most 1.33 times the frame rate). */
            while (!n->stop) {
                double due = start + (n->n_pending > 0 ? 0.75 : 1.0) * period, left = due - rn_now();
                if (left <= 0)
                    break;
                uv_timer_start(&n->wait, on_wait, (uint64_t)ceil(left * 1000), 0);
                uv_run(n->loop, UV_RUN_ONCE);
            }
        }
    }
    double total = rn_now() - t0;
    if (n->o.stats_file) {
        char json[512];
        int nl = n->n_latency, nw = n->n_wheel;
        double w50 = rn_quantile(n->wheel, nw, 0.5), w95 = rn_quantile(n->wheel, nw, 0.95);
        double w99 = rn_quantile(n->wheel, nw, 0.99);
        snprintf(json, sizeof json,
                 "{\"frames\":%ld,\"fps\":%.1f,\"latency_n\":%d,\"latency_ms_p99\":%.2f,\"quality\":\"%s\","
                 "\"wheel_n\":%d,\"wheel_ms_p50\":%.2f,\"wheel_ms_p95\":%.2f,\"wheel_ms_p99\":%.2f}",
                 frames, frames / (total > 0 ? total : 1), nl, rn_p99(n->latency, nl) * 1000,
                 rn_quality_name(n->scene.quality), nw, w50 * 1000, w95 * 1000, w99 * 1000);
        sim_error werr = {0};
        if (rn_write_stats(n, json, &werr))
            fprintf(stderr, "render-node: %s\n", werr.msg);
    }
    free(n->latency);
    n->latency = NULL;
    free(n->wheel);
    n->wheel = NULL;
    if (n->latency_log) fclose(n->latency_log);
    n->latency_log = NULL;
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

