/* sim_drt: the DRT schedule and the scripted driver's responses (see sim_drt.h). Every
 * draw is a hash of (seed, stimulus number, stream), not a running generator: the
 * sequence is the same whatever the driver does, and a test recomputes it. */
#include "sim_drt.h"

#include <math.h>
#include <string.h>

#include "sim_measures.h"
#include "sim_rand.h"

void sim_drt_config_init(sim_drt_config *c)
{
    memset(c, 0, sizeof *c);
    c->modality[0] = SIM_DRT_VISUAL;
    c->n_modalities = 1;
    c->interval_min = 3;
    c->interval_max = 5;
    c->duration = 1;
    c->angle_deg = 20;
    c->start_s = 5;
    c->seed = 1;
    c->latency_mean = 0.45;
    c->latency_sd = 0.05;
}

/* splitmix64 of (seed, k, stream) -> uniform in [0, 1) (sim_rand; the DRT's own salt) */
static double draw(uint64_t seed, int k, int stream)
{
    return sim_rand_draw(seed, (uint64_t)k, (uint64_t)stream, 0x2545F4914F6CDD1Dull);
}

double sim_drt_interval(const sim_drt_config *c, int k)
{
    return c->interval_min + (c->interval_max - c->interval_min) * draw(c->seed, k, 0);
}

int sim_drt_modality_of(const sim_drt_config *c, int k)
{
    return c->modality[(k - 1) % (c->n_modalities > 0 ? c->n_modalities : 1)];
}

bool sim_drt_script_latency(const sim_drt_config *c, int k, double *latency)
{
    if (draw(c->seed, k, 1) < c->miss_share) return false;
    /* Box-Muller from two more draws */
    double u = fmax(draw(c->seed, k, 2), 1e-12), v = draw(c->seed, k, 3);
    double z = sqrt(-2 * log(u)) * cos(2 * M_PI * v);
    *latency = fmin(fmax(c->latency_mean + c->latency_sd * z, 0.15), 2.4);
    return true;
}

void sim_drt_schedule_init(sim_drt_schedule *s, const sim_drt_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->next_on = cfg->start_s + sim_drt_interval(cfg, 1);
}

int sim_drt_schedule_step(sim_drt_schedule *s, double t, sim_drt_change out[2])
{
    int n = 0;
    if (!s->cfg.enabled) return 0;
    if (s->on && t >= s->on_t + s->cfg.duration) {
        s->on = false;
        out[n++] = (sim_drt_change){s->id, false, sim_drt_modality_of(&s->cfg, s->id), t};
    }
    if (t >= s->next_on && (s->cfg.end_s <= 0 || s->next_on <= s->cfg.end_s)) {
        if (s->on) { /* a duration longer than the interval: the old one ends first */
            s->on = false;
            out[n++] = (sim_drt_change){s->id, false, sim_drt_modality_of(&s->cfg, s->id), t};
        }
        s->id++;
        s->on = true;
        s->on_t = t;
        /* From the scheduled onset, not the tick that saw it: no drift. */
        s->next_on += sim_drt_interval(&s->cfg, s->id + 1);
        if (n < 2) out[n++] = (sim_drt_change){s->id, true, sim_drt_modality_of(&s->cfg, s->id), t};
    }
    return n;
}

int sim_drt_schedule_respond(sim_drt_schedule *s, double t, sim_drt_change *out)
{
    if (!s->on) return 0;
    s->on = false;
    *out = (sim_drt_change){s->id, false, sim_drt_modality_of(&s->cfg, s->id), t};
    return 1;
}

int sim_drt_config_parse(sim_json *j, const cJSON *v, const char *path, sim_drt_config *out)
{
    static const char *const keys[] = {"modality", "interval_s", "duration_s", "angle_deg",
                                       "start_s", "end_s", "seed", "script", NULL};
    static const char *const mods[] = {"visual", "tactile", "auditory", NULL};
    static const char *const skeys[] = {"latency_ms", "sd_ms", "miss_share", NULL};
    sim_drt_config_init(out);
    int errors = j->errors;
    if (sim_json_object(j, v, path)) return SIM_EINVAL;
    sim_json_keys(j, v, path, keys, -1);
    char p[SIM_JSON_PATH_MAX];
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, "modality");
    if (cJSON_IsArray(m)) {
        int n = cJSON_GetArraySize(m);
        if (n < 1 || n > SIM_DRT_MAX_MODALITIES)
            sim_json_found(j, sim_json_key_path(p, path, "modality"), m, "1 to 6 modality names");
        out->n_modalities = 0;
        for (int i = 0; i < n && i < SIM_DRT_MAX_MODALITIES; i++) {
            const cJSON *e = cJSON_GetArrayItem(m, i);
            int k = cJSON_IsString(e) ? sim_drt_modality_parse(e->valuestring) : -1;
            if (k < 0) {
                char q[SIM_JSON_PATH_MAX];
                sim_json_found(j, sim_json_index_path(q, sim_json_key_path(p, path, "modality"), i), e,
                               "\"visual\", \"tactile\" or \"auditory\"");
                k = SIM_DRT_VISUAL;
            }
            out->modality[out->n_modalities++] = k;
        }
    } else {
        sim_json_enum(j, v, path, "modality", SIM_DRT_VISUAL, mods, -1, &out->modality[0]);
    }
    const cJSON *iv = cJSON_GetObjectItemCaseSensitive(v, "interval_s");
    if (iv) {
        sim_json_key_path(p, path, "interval_s");
        if (!cJSON_IsArray(iv) || cJSON_GetArraySize(iv) != 2)
            sim_json_found(j, p, iv, "[min, max] in seconds, 0.5 <= min <= max <= 60");
        else {
            char q[SIM_JSON_PATH_MAX];
            sim_json_number(j, cJSON_GetArrayItem(iv, 0), sim_json_index_path(q, p, 0), 0.5, 60, &out->interval_min);
            sim_json_number(j, cJSON_GetArrayItem(iv, 1), sim_json_index_path(q, p, 1), out->interval_min, 60,
                            &out->interval_max);
        }
    }
    sim_json_num(j, v, path, "duration_s", false, 1, SIM_JSON_RANGE, 0.05, 10, &out->duration);
    sim_json_num(j, v, path, "angle_deg", false, 20, SIM_JSON_RANGE, -90, 90, &out->angle_deg);
    sim_json_num(j, v, path, "start_s", false, 5, SIM_JSON_NONNEG, 0, 0, &out->start_s);
    sim_json_num(j, v, path, "end_s", false, 0, SIM_JSON_NONNEG, 0, 0, &out->end_s);
    int seed = 1;
    sim_json_int(j, v, path, "seed", false, 1, 0, 2147483647, &seed);
    out->seed = (uint64_t)seed;
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(v, "script");
    if (sc) {
        sim_json_key_path(p, path, "script");
        if (!sim_json_object(j, sc, p)) {
            sim_json_keys(j, sc, p, skeys, -1);
            double ms = 450, sd = 50;
            sim_json_num(j, sc, p, "latency_ms", false, 450, SIM_JSON_RANGE, 150, 2400, &ms);
            sim_json_num(j, sc, p, "sd_ms", false, 50, SIM_JSON_RANGE, 0, 1000, &sd);
            sim_json_num(j, sc, p, "miss_share", false, 0, SIM_JSON_RANGE, 0, 1, &out->miss_share);
            out->latency_mean = ms / 1000;
            out->latency_sd = sd / 1000;
        }
    }
    out->enabled = true;
    return j->errors > errors ? SIM_EINVAL : SIM_OK;
}
