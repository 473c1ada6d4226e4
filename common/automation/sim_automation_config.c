/* sim_automation_config: the scenario's automation section and the reaction-time draws
 * (see sim_automation_config.h). */
#include "sim_automation_config.h"

#include <math.h>
#include <string.h>

#include "sim_json.h"
#include "sim_rand.h"

void sim_reaction_seed(sim_reaction *r, uint64_t seed)
{
    r->state = seed;
}

/* In (0, 1): splitmix64 (sim_rand), half a step off zero. */
static double unit(sim_reaction *r)
{
    return ((double)(sim_rand_splitmix(&r->state) >> 11) + 0.5) / 9007199254740992.0;
}

/* Box-Muller: one standard normal per call (the second is dropped, so each draw uses
 * the same number of generator steps whatever came before). */
static double std_normal(sim_reaction *r)
{
    double u1 = unit(r), u2 = unit(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double sim_reaction_draw(sim_reaction *r)
{
    double x;
    switch (r->dist) {
    case SIM_REACT_NONE: return INFINITY;
    case SIM_REACT_FIXED: x = r->mean; break;
    case SIM_REACT_NORMAL: x = r->mean + r->sd * std_normal(r); break;
    case SIM_REACT_LOGNORMAL: {
        /* The log's parameters from the time's own mean and sd. */
        double s2 = log(1.0 + (r->sd * r->sd) / (r->mean * r->mean));
        double mu = log(r->mean) - 0.5 * s2;
        x = exp(mu + sqrt(s2) * std_normal(r));
        break;
    }
    case SIM_REACT_UNIFORM: x = r->min + (r->max - r->min) * unit(r); break;
    default: return INFINITY;
    }
    return fmin(r->max, fmax(r->min, x));
}

void sim_auto_config_default(sim_auto_config *c)
{
    memset(c, 0, sizeof *c);
    sim_auto_params_default(&c->params);
    c->start_mode = SIM_AUTO_MANUAL;
    c->cues = SIM_AUTO_CUE_HUD | SIM_AUTO_CUE_CHIME | SIM_AUTO_CUE_VIBRATION;
    c->reaction = (sim_reaction){.dist = SIM_REACT_FIXED, .mean = 2.5, .min = 0, .max = 60};
    sim_reaction_seed(&c->reaction, 1);
    c->driver_brake = 0.3;
    c->driver_brake_s = 1.0;
}

static const char *const MODES[] = {"manual", "acc", "lc", "l2", "l3", NULL};
static const char *const ACTIONS[] = {"engage", "disengage", "tor", NULL};
static const char *const DISTS[] = {"none", "fixed", "normal", "lognormal", "uniform", NULL};
static const char *const CUES[] = {"hud", "chime", "vibration", NULL};

static int parse_tor(sim_json *j, const cJSON *tor, sim_auto_config *c)
{
    static const char *const keys[] = {"budget_s", "ttc_s", "mrm_decel", "limit_time_s", "cues", NULL};
    sim_auto_params *p = &c->params;
    int rc;
    if ((rc = sim_json_object(j, tor, "automation.tor")) || (rc = sim_json_keys(j, tor, "automation.tor", keys, -1)) ||
        (rc = sim_json_num(j, tor, "automation.tor", "budget_s", false, p->tor_budget, SIM_JSON_RANGE, 1, 60, &p->tor_budget)) ||
        (rc = sim_json_num(j, tor, "automation.tor", "ttc_s", false, p->tor_ttc, SIM_JSON_RANGE, 0, 20, &p->tor_ttc)) ||
        (rc = sim_json_num(j, tor, "automation.tor", "mrm_decel", false, p->mrm_decel, SIM_JSON_RANGE, 0.5, 8, &p->mrm_decel)) ||
        (rc = sim_json_num(j, tor, "automation.tor", "limit_time_s", false, p->limit_time, SIM_JSON_RANGE, 0, 60, &p->limit_time)))
        return rc;
    const cJSON *cues;
    if ((rc = sim_json_array(j, tor, "automation.tor", "cues", false, &cues))) return rc;
    if (!cues) return SIM_OK;
    c->cues = 0;
    int i = 0;
    for (const cJSON *e = cues->child; e; e = e->next, i++) {
        char path[SIM_JSON_PATH_MAX];
        sim_json_index_path(path, "automation.tor.cues", i);
        int k = -1;
        for (int n = 0; CUES[n] && cJSON_IsString(e); n++)
            if (strcmp(e->valuestring, CUES[n]) == 0) k = n;
        if (k < 0) return sim_json_found(j, path, e, "\"hud\", \"chime\" or \"vibration\"");
        c->cues |= 1u << k;
    }
    return SIM_OK;
}

static int parse_event(sim_json *j, const cJSON *e, const char *path, sim_auto_trigger *ev)
{
    static const char *const keys[] = {"at_t", "trigger", "action", "mode", "reason", NULL};
    int rc, action, mode = SIM_AUTO_L3;
    if ((rc = sim_json_object(j, e, path)) || (rc = sim_json_keys(j, e, path, keys, -1)) ||
        (rc = sim_json_enum(j, e, path, "action", -1, ACTIONS, -1, &action)) ||
        (rc = sim_json_enum(j, e, path, "mode", SIM_AUTO_L3, MODES, -1, &mode)))
        return rc;
    *ev = (sim_auto_trigger){.action = (sim_auto_action)action, .mode = (sim_auto_mode)mode, .at_t = NAN};
    strcpy(ev->reason, "scenario");
    if ((rc = sim_json_strcpy(j, e, path, "reason", false, ev->reason, sizeof ev->reason)) ||
        (rc = sim_json_strcpy(j, e, path, "trigger", false, ev->trigger, sizeof ev->trigger)))
        return rc;
    bool has_t = sim_json_at(e, "at_t") != NULL;
    if (has_t && (rc = sim_json_num(j, e, path, "at_t", true, 0, SIM_JSON_NONNEG, 0, 0, &ev->at_t))) return rc;
    if (has_t == (ev->trigger[0] != '\0'))
        return sim_json_fail(j, SIM_EINVAL, path, "expected either \"at_t\" (s) or \"trigger\" (a traffic trigger's id)");
    return SIM_OK;
}

static int parse_driver(sim_json *j, const cJSON *d, sim_auto_config *c)
{
    static const char *const keys[] = {"reaction", "seed", "brake", "brake_s", NULL};
    static const char *const rkeys[] = {"dist", "mean_s", "sd_s", "min_s", "max_s", NULL};
    const char *P = "automation.driver", *R = "automation.driver.reaction";
    int rc, seed, dist;
    if ((rc = sim_json_object(j, d, P)) || (rc = sim_json_keys(j, d, P, keys, -1)) ||
        (rc = sim_json_int(j, d, P, "seed", false, 1, 0, 2147483647, &seed)) ||
        (rc = sim_json_num(j, d, P, "brake", false, c->driver_brake, SIM_JSON_RANGE, 0.11, 1, &c->driver_brake)) ||
        (rc = sim_json_num(j, d, P, "brake_s", false, c->driver_brake_s, SIM_JSON_RANGE, 0.05, 10, &c->driver_brake_s)))
        return rc;
    sim_reaction_seed(&c->reaction, (uint64_t)seed);
    const cJSON *r = sim_json_at(d, "reaction");
    if (!r) return SIM_OK;
    sim_reaction *x = &c->reaction;
    if ((rc = sim_json_object(j, r, R)) || (rc = sim_json_keys(j, r, R, rkeys, -1)) ||
        (rc = sim_json_enum(j, r, R, "dist", -1, DISTS, -1, &dist)) ||
        (rc = sim_json_num(j, r, R, "mean_s", false, x->mean, SIM_JSON_RANGE, 0.01, 60, &x->mean)) ||
        (rc = sim_json_num(j, r, R, "sd_s", false, 0, SIM_JSON_RANGE, 0, 30, &x->sd)) ||
        (rc = sim_json_num(j, r, R, "min_s", false, 0, SIM_JSON_RANGE, 0, 60, &x->min)) ||
        (rc = sim_json_num(j, r, R, "max_s", false, 60, SIM_JSON_RANGE, 0, 600, &x->max)))
        return rc;
    x->dist = (sim_reaction_dist)dist;
    if (x->max < x->min) return sim_json_fail(j, SIM_EINVAL, R, "max_s %g below min_s %g", x->max, x->min);
    return SIM_OK;
}

int sim_auto_config_parse(const cJSON *a, const char *file, sim_auto_config *c, sim_error *err)
{
    static const char *const keys[] = {"mode", "set_speed_kmh", "time_gap_s", "tor", "override", "events", "driver", NULL};
    static const char *const okeys[] = {"steer_deg", "brake", NULL};
    sim_auto_config_default(c);
    if (!a) return SIM_OK;
    sim_json j = {.file = file, .err = err};
    sim_auto_params *p = &c->params;
    const char *P = "automation";
    int rc, mode;
    double kmh, gap;
    if ((rc = sim_json_object(&j, a, P)) || (rc = sim_json_keys(&j, a, P, keys, -1)) ||
        (rc = sim_json_enum(&j, a, P, "mode", SIM_AUTO_MANUAL, MODES, -1, &mode)) ||
        (rc = sim_json_num(&j, a, P, "set_speed_kmh", false, p->set_speed * 3.6, SIM_JSON_RANGE, 10, 250, &kmh)) ||
        (rc = sim_json_num(&j, a, P, "time_gap_s", false, p->time_gap, SIM_JSON_RANGE, 0.8, 3.0, &gap)))
        return rc;
    c->start_mode = (sim_auto_mode)mode;
    p->set_speed = kmh / 3.6;
    p->time_gap = gap;
    const cJSON *o;
    if ((o = sim_json_at(a, "tor")) && (rc = parse_tor(&j, o, c))) return rc;
    if ((o = sim_json_at(a, "override")) &&
        ((rc = sim_json_object(&j, o, "automation.override")) || (rc = sim_json_keys(&j, o, "automation.override", okeys, -1)) ||
         (rc = sim_json_num(&j, o, "automation.override", "steer_deg", false, p->override_steer_deg, SIM_JSON_RANGE, 2, 90, &p->override_steer_deg)) ||
         (rc = sim_json_num(&j, o, "automation.override", "brake", false, p->override_brake, SIM_JSON_RANGE, 0.01, 1, &p->override_brake))))
        return rc;
    if ((o = sim_json_at(a, "driver")) && (rc = parse_driver(&j, o, c))) return rc;
    const cJSON *evs;
    if ((rc = sim_json_array(&j, a, P, "events", false, &evs))) return rc;
    int i = 0;
    for (const cJSON *e = evs ? evs->child : NULL; e; e = e->next, i++) {
        char path[SIM_JSON_PATH_MAX];
        sim_json_index_path(path, "automation.events", i);
        if (i == SIM_AUTO_MAX_TRIGGERS)
            return sim_json_fail(&j, SIM_EINVAL, path, "at most %d events", SIM_AUTO_MAX_TRIGGERS);
        if ((rc = parse_event(&j, e, path, &c->events[i]))) return rc;
    }
    c->n_events = i;
    return SIM_OK;
}
