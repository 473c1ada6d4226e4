/* synth_tasks: the secondary tasks of a synthetic drive (analysis synth --secondary):
 * DRT stimuli every 3-5 s with seeded responses (log-normal, median 450 ms; 6% missed,
 * 2% with an early press first), gaze samples at 30 Hz (the road ahead for 2-6 s, then a
 * glance of 0.5-2.5 s to the centre display, a mirror or the cluster with 0.1 s
 * transitions each way, a blink every few seconds) and SuRT responses in the middle
 * third, as the recorder would log them (events drt.*, gaze.*, surt.*). */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_msg_task.h"
#include "sim_rand.h"

typedef struct rng {
    uint64_t s;
} rng;

static double uni(rng *r) /* uniform [0, 1): the MMIX LCG (sim_rand) */
{
    return sim_rand_unit(sim_rand_lcg(&r->s));
}

static double gauss(rng *r)
{
    double u = fmax(uni(r), 1e-12), v = uni(r);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int add_json(an_drive *dr, double t, const char *kind, const char *name, cJSON *o, sim_error *err)
{
    char *txt = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!txt) return sim_error_set(err, SIM_ENOMEM, "synth: out of memory");
    int rc = an_drive_add_event(dr, 0, t, kind, name, txt, err);
    free(txt);
    return rc;
}

static int gaze(an_drive *dr, double t, bool valid, const char *area, sim_error *err)
{
    sim_msg_gaze_sample g;
    sim_msg_gaze_sample_clear(&g);
    g.valid = valid;
    snprintf(g.area, sizeof g.area, "%s", area);
    if (valid && !area[0]) g.yaw_deg = -20, g.pitch_deg = 0; /* between the areas */
    return add_json(dr, t, "gaze", "sample", sim_msg_gaze_sample_encode(&g), err);
}

typedef struct ev_order {
    double t;
    size_t i;
} ev_order;

static int order_cmp(const void *a, const void *b)
{
    const ev_order *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int an_synth_secondary(an_drive *dr, uint64_t seed, sim_error *err)
{
    if (dr->n < 2) return 0;
    double t_end = dr->col[AN_T][dr->n - 1];
    rng r = {seed * 0x9E3779B97F4A7C15ull + 25};
    int rc = 0;
    /* DRT */
    static const char *const mods[] = {"visual", "tactile", "auditory"};
    int id = 0;
    for (double t = 5 + 3 + 2 * uni(&r); t < t_end - 3 && !rc; t += 3 + 2 * uni(&r)) {
        sim_msg_drt_stimulus s = {.id = ++id, .on = true, .angle_deg = NAN};
        snprintf(s.modality, sizeof s.modality, "%s", mods[id % 3]);
        if (!strcmp(s.modality, "visual")) s.angle_deg = 20;
        rc = add_json(dr, t, "drt", "stimulus", sim_msg_drt_stimulus_encode(&s), err);
        double u = uni(&r), rt = 0.45 * exp(0.25 * gauss(&r));
        sim_msg_drt_response resp = {.source = "button"};
        if (!rc && u < 0.02)
            rc = add_json(dr, t + 0.05, "drt", "response", sim_msg_drt_response_encode(&resp), err);
        bool miss = u > 0.94;
        s.on = false;
        if (!rc) rc = add_json(dr, t + (miss ? 1.0 : fmin(rt, 1.0)), "drt", "stimulus", sim_msg_drt_stimulus_encode(&s), err);
        if (!rc && !miss)
            rc = add_json(dr, t + rt, "drt", "response", sim_msg_drt_response_encode(&resp), err);
    }
    /* Gaze at 30 Hz */
    static const char *const away[] = {"center_display", "center_display", "mirror_left", "cluster"};
    double next_blink = 3 + 3 * uni(&r), dt = 1.0 / 30;
    for (double t = 0; t < t_end && !rc;) {
        double road = 2 + 4 * uni(&r), glance = 0.5 + 2 * uni(&r);
        const char *area = away[(int)(uni(&r) * 4) & 3];
        double phases[4] = {road, 0.1, glance, 0.1};
        const char *names[4] = {"road", "", area, ""};
        for (int p = 0; p < 4 && !rc; p++)
            for (double e = t + phases[p]; t < e && t < t_end && !rc; t += dt) {
                bool blink = t >= next_blink;
                if (t >= next_blink + 0.15) next_blink = t + 3 + 3 * uni(&r);
                rc = gaze(dr, t, !blink, blink ? "" : names[p], err);
            }
    }
    /* SuRT in the middle third */
    for (double t = t_end / 3; t < 2 * t_end / 3 && !rc;) {
        double rt = 1.5 + 1.5 * uni(&r);
        t += rt;
        char js[96];
        snprintf(js, sizeof js, "{\"trial\":%d,\"correct\":%s,\"rt_ms\":%.0f,\"level\":\"easy\"}", ++id,
                 uni(&r) < 0.9 ? "true" : "false", rt * 1000);
        rc = an_drive_add_event(dr, 0, t, "surt", "response", js, err);
    }
    if (rc) return rc;
    /* Events in time order (stable), as a log has them. */
    ev_order *o = malloc(dr->n_events * sizeof *o);
    an_event *ev = malloc(dr->n_events * sizeof *ev);
    if (!o || !ev) {
        free(o), free(ev);
        return sim_error_set(err, SIM_ENOMEM, "synth: out of memory");
    }
    for (size_t k = 0; k < dr->n_events; k++) o[k] = (ev_order){dr->events[k].t, k};
    qsort(o, dr->n_events, sizeof *o, order_cmp);
    for (size_t k = 0; k < dr->n_events; k++) ev[k] = dr->events[o[k].i];
    memcpy(dr->events, ev, dr->n_events * sizeof *ev);
    free(o), free(ev);
    return 0;
}
