/* sim_xosc_signal: OpenSCENARIO's traffic signals in the .xosc reader: the RoadNetwork's
 * TrafficSignalControllers (phases of signal states, delay, reference) and their
 * placing in the lights model (sim_lights.h), TrafficSignalStateAction and
 * TrafficSignalControllerAction, TrafficSignalCondition and
 * TrafficSignalControllerCondition. A signal's `state` is either a lamp list
 * ("on;off;off": red, amber, green from the top; "on;off": a pedestrian head's red,
 * green) or a state of the lights model by name ("red", "green", ...). */
#include "sim_xosc_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_lights.h"

/* A lamp word: 0 off, 1 on, 2 flashing, -1 neither. */
static int lamp(const char *w, size_t n)
{
    if (n == 2 && strncmp(w, "on", 2) == 0) return 1;
    if (n == 3 && strncmp(w, "off", 3) == 0) return 0;
    if (n == 8 && strncmp(w, "flashing", 8) == 0) return 2;
    return -1;
}

int sim_xosc_light_state(const char *text)
{
    int named = sim_light_state_parse(text);
    if (named >= 0) return named;
    int l[3], n = 0;
    const char *p = text;
    for (;;) {
        const char *e = strchr(p, ';');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n == 3 || (l[n] = lamp(p, len)) < 0) return -1;
        n++;
        if (!e) break;
        p = e + 1;
    }
    if (n == 2) { /* a pedestrian head: red over green */
        l[2] = l[1];
        l[1] = 0;
    } else if (n != 3) {
        return -1;
    }
    int r = l[0], a = l[1], g = l[2];
    if (r == 0 && a == 2 && g == 0) return SIM_SIGNAL_FLASHING_AMBER;
    if (r == 2 || a == 2 || g == 2) return -1;
    if (r && a && !g) return SIM_SIGNAL_RED_AMBER;
    if (r && !a && !g) return SIM_SIGNAL_RED;
    if (!r && a && !g) return SIM_SIGNAL_AMBER;
    if (!r && !a && g) return SIM_SIGNAL_GREEN;
    if (!r && !a && !g) return SIM_SIGNAL_OFF;
    return -1;
}

/* The signal (attribute key) and state of a TrafficSignalStateAction, -Condition or a
 * phase's TrafficSignalState */
static int read_name_state(xosc_parser *P, const xmlNode *n, const char *key, char *name, char *state, int *light)
{
    if (!xosc_attr(P, n, key, true, name, SIM_SB_NAME) || !xosc_attr(P, n, "state", true, state, SIM_SB_NAME))
        return P->rc;
    *light = sim_xosc_light_state(state);
    if (*light < 0)
        return xosc_fail(P, n, SIM_EINVAL, "state \"%s\" of signal \"%s\": expected lamps red;amber;green (or red;green) "
                         "each on, off or flashing, e.g. \"off;off;on\", or off, red, red_amber, amber, green, "
                         "flashing_amber", state, name);
    return P->rc;
}

/* trafficSignalControllerRef and phase of a controller action or condition: the
 * controller among the RoadNetwork's, the phase's index in it */
static int read_ctl_phase(xosc_parser *P, const xmlNode *n, char *ctl, char *phase, int *index)
{
    if (!xosc_attr(P, n, "trafficSignalControllerRef", true, ctl, SIM_SB_NAME) ||
        !xosc_attr(P, n, "phase", true, phase, SIM_SB_NAME))
        return P->rc;
    const sim_xosc *x = P->x;
    for (int c = 0; c < x->n_ctls; c++) {
        if (strcmp(x->ctls[c].name, ctl) != 0) continue;
        for (int p = 0; p < x->ctls[c].n_phases; p++)
            if (strcmp(x->phases[x->ctls[c].phase0 + p].name, phase) == 0) return *index = p, P->rc;
        return xosc_fail(P, n, SIM_ENOTFOUND, "controller \"%s\" has no phase \"%s\"", ctl, phase);
    }
    return xosc_fail(P, n, SIM_ENOTFOUND, "names controller \"%s\", which <RoadNetwork> <TrafficSignals> does not declare",
                     ctl);
}

int xosc_read_signal_action(xosc_parser *P, const xmlNode *infra, sim_sb_action *a)
{
    const xmlNode *tsa = xosc_child(infra, "TrafficSignalAction");
    const xmlNode *k = tsa ? xosc_child(tsa, "TrafficSignalStateAction") : NULL;
    if (k) {
        if (!read_name_state(P, k, "name", a->param, a->value, &a->light)) a->type = SIM_SB_A_SIGNAL_STATE;
        return P->rc;
    }
    k = tsa ? xosc_child(tsa, "TrafficSignalControllerAction") : NULL;
    if (k) {
        if (!read_ctl_phase(P, k, a->param, a->value, &a->light)) a->type = SIM_SB_A_SIGNAL_PHASE;
        return P->rc;
    }
    /* an empty <TrafficSignalAction/> has no child to name: then it is what we count */
    const xmlNode *first = tsa ? xosc_first(tsa) : NULL;
    xosc_unsupported(P, first ? first : tsa ? tsa : infra);
    return P->rc;
}

int xosc_read_signal_condition(xosc_parser *P, const xmlNode *k, sim_sb_condition *c)
{
    if (xosc_is(k, "TrafficSignalControllerCondition")) {
        c->type = SIM_SB_C_SIGNAL_PHASE;
        return read_ctl_phase(P, k, c->ref, c->pvalue, &c->light);
    }
    c->type = SIM_SB_C_SIGNAL;
    return read_name_state(P, k, "name", c->ref, c->pvalue, &c->light);
}

int xosc_read_signal_controllers(xosc_parser *P, const xmlNode *ts)
{
    sim_xosc *x = P->x;
    for (const xmlNode *cn = ts->children; cn && !P->rc; cn = cn->next) {
        if (cn->type != XML_ELEMENT_NODE) continue;
        if (!xosc_is(cn, "TrafficSignalController")) {
            xosc_unsupported(P, cn);
            continue;
        }
        sim_xosc_light_ctl *c = xosc_push(P, cn, (void **)&x->ctls, &x->n_ctls, sizeof *c);
        if (!c || !xosc_attr(P, cn, "name", true, c->name, sizeof c->name)) return P->rc;
        c->line = cn->line;
        c->phase0 = x->n_phases;
        for (int i = 0; i < x->n_ctls - 1; i++)
            if (strcmp(x->ctls[i].name, c->name) == 0)
                return xosc_fail(P, cn, SIM_EINVAL, "controller \"%s\" is declared twice (line %d)", c->name, x->ctls[i].line);
        if (!xosc_num(P, cn, "delay", false, 0, &c->delay)) c->delay = 0;
        xosc_attr(P, cn, "reference", false, c->ref, sizeof c->ref);
        for (const xmlNode *pn = cn->children; pn && !P->rc; pn = pn->next) {
            if (!xosc_is(pn, "Phase")) continue;
            sim_xosc_light_phase *p = xosc_push(P, pn, (void **)&x->phases, &x->n_phases, sizeof *p);
            if (!p) return P->rc;
            x->ctls[x->n_ctls - 1].n_phases++;
            p->line = pn->line;
            p->set0 = x->n_sets;
            if (!xosc_attr(P, pn, "name", true, p->name, sizeof p->name) || !xosc_num(P, pn, "duration", true, 0, &p->duration))
                return P->rc;
            if (!(p->duration > 0) || !isfinite(p->duration))
                return xosc_fail(P, pn, SIM_EINVAL, "phase \"%s\": duration %g, expected seconds > 0", p->name, p->duration);
            for (const xmlNode *sn = pn->children; sn && !P->rc; sn = sn->next) {
                if (sn->type != XML_ELEMENT_NODE) continue;
                if (!xosc_is(sn, "TrafficSignalState")) {
                    xosc_unsupported(P, sn); /* TrafficSignalGroupState */
                    continue;
                }
                sim_xosc_light_set *st = xosc_push(P, sn, (void **)&x->sets, &x->n_sets, sizeof *st);
                if (!st) return P->rc;
                x->phases[x->n_phases - 1].n_sets++;
                st->line = sn->line;
                char state[SIM_SB_NAME];
                if (read_name_state(P, sn, "trafficSignalId", st->signal, state, &st->light)) return P->rc;
            }
        }
        if (x->ctls[x->n_ctls - 1].n_phases == 0)
            return xosc_fail(P, cn, SIM_EINVAL, "controller \"%s\" has no <Phase>", x->ctls[x->n_ctls - 1].name);
    }
    return P->rc;
}

/* ---- into the lights model ------------------------------------------------------- */

static int find_ctl(const sim_xosc *x, const char *name)
{
    for (int c = 0; c < x->n_ctls; c++)
        if (strcmp(x->ctls[c].name, name) == 0) return c;
    return -1;
}

/* Controller c's phase 0 start: its delay after its reference's. */
static int offset_of(const sim_xosc *x, int c, double *out, sim_error *err)
{
    double t = 0;
    for (int hops = 0; c >= 0; hops++) {
        const sim_xosc_light_ctl *k = &x->ctls[c];
        if (hops > x->n_ctls)
            return sim_error_set(err, SIM_EINVAL, "%s: %d: <TrafficSignalController> \"%s\": its references make a loop",
                                 x->path, k->line, k->name);
        t += k->delay;
        if (!k->ref[0]) break;
        int r = find_ctl(x, k->ref);
        if (r < 0)
            return sim_error_set(err, SIM_ENOTFOUND, "%s: %d: <TrafficSignalController> \"%s\": reference \"%s\" is "
                                 "no controller of <TrafficSignals>", x->path, k->line, k->name, k->ref);
        c = r;
    }
    *out = t;
    return SIM_OK;
}

int sim_xosc_lights(const sim_xosc *x, sim_lights *L, sim_error *err)
{
    for (int c = 0; c < x->n_ctls; c++) {
        const sim_xosc_light_ctl *k = &x->ctls[c];
        int n_sets = 0;
        for (int p = 0; p < k->n_phases; p++) n_sets += x->phases[k->phase0 + p].n_sets;
        int *heads = calloc((size_t)n_sets + 1, sizeof *heads), n_heads = 0;
        double *dur = calloc((size_t)k->n_phases, sizeof *dur);
        sim_light_state *st = calloc((size_t)k->n_phases * ((size_t)n_sets + 1), sizeof *st);
        int rc = heads && dur && st ? SIM_OK : sim_error_set(err, SIM_ENOMEM, "%s: out of memory", x->path);
        for (int p = 0; p < k->n_phases && !rc; p++) { /* the heads, in the order first named */
            const sim_xosc_light_phase *ph = &x->phases[k->phase0 + p];
            for (int i = 0; i < ph->n_sets && !rc; i++) {
                const sim_xosc_light_set *s = &x->sets[ph->set0 + i];
                int h = sim_lights_find_head(L, s->signal), j = 0;
                if (h < 0)
                    rc = sim_error_set(err, SIM_ENOTFOUND, "%s: %d: <TrafficSignalState> trafficSignalId \"%s\": no "
                                       "traffic-light head of the OpenDRIVE file has that id", x->path, s->line, s->signal);
                while (j < n_heads && heads[j] != h) j++;
                if (!rc && j == n_heads) heads[n_heads++] = h;
            }
        }
        for (int p = 0; p < k->n_phases && !rc; p++) {
            const sim_xosc_light_phase *ph = &x->phases[k->phase0 + p];
            dur[p] = ph->duration;
            for (int i = 0; i < ph->n_sets; i++) { /* not named: off (calloc), the last state named wins */
                const sim_xosc_light_set *s = &x->sets[ph->set0 + i];
                int h = sim_lights_find_head(L, s->signal), j = 0;
                while (heads[j] != h) j++;
                st[p * n_heads + j] = (sim_light_state)s->light;
            }
        }
        double offset = 0;
        if (!rc) rc = offset_of(x, c, &offset, err);
        if (!rc && n_heads == 0)
            rc = sim_error_set(err, SIM_EINVAL, "%s: %d: <TrafficSignalController> \"%s\": its phases name no signal",
                               x->path, k->line, k->name);
        sim_error e = {0};
        if (!rc && (rc = sim_lights_add_controller(L, k->name, heads, n_heads, dur, st, k->n_phases, offset, &e)) < 0)
            sim_error_set(err, rc, "%s: %d: <TrafficSignalController> \"%s\": %s", x->path, k->line, k->name, e.msg);
        rc = rc < 0 ? rc : SIM_OK; /* else the controller's index */
        free(heads);
        free(dur);
        free(st);
        if (rc) return rc;
    }
    return SIM_OK;
}
