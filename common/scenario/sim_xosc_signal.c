/* sim_xosc_signal: OpenSCENARIO's traffic signal actions and conditions in the .xosc
 * reader: TrafficSignalStateAction and TrafficSignalCondition, whose `state` is either
 * a lamp list ("on;off;off": red, amber, green from the top; "on;off": a pedestrian
 * head's red, green) or a state of the lights model by name ("red", "green", ...). */
#include "sim_xosc_util.h"

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

/* name and state of a TrafficSignalStateAction or TrafficSignalCondition */
static int read_name_state(xosc_parser *P, const xmlNode *n, char *name, char *state, int *light)
{
    if (!xosc_attr(P, n, "name", true, name, SIM_SB_NAME) || !xosc_attr(P, n, "state", true, state, SIM_SB_NAME))
        return P->rc;
    *light = sim_xosc_light_state(state);
    if (*light < 0)
        return xosc_fail(P, n, SIM_EINVAL, "state \"%s\" of signal \"%s\": expected lamps red;amber;green (or red;green) "
                         "each on, off or flashing, e.g. \"off;off;on\", or off, red, red_amber, amber, green, "
                         "flashing_amber", state, name);
    return P->rc;
}

int xosc_read_signal_action(xosc_parser *P, const xmlNode *infra, sim_sb_action *a)
{
    const xmlNode *tsa = xosc_child(infra, "TrafficSignalAction");
    const xmlNode *k = tsa ? xosc_child(tsa, "TrafficSignalStateAction") : NULL;
    if (!k) {
        xosc_unsupported(P, tsa ? xosc_first(tsa) : infra); /* TrafficSignalControllerAction */
        return P->rc;
    }
    if (read_name_state(P, k, a->param, a->value, &a->light)) return P->rc;
    a->type = SIM_SB_A_SIGNAL_STATE;
    return P->rc;
}

int xosc_read_signal_condition(xosc_parser *P, const xmlNode *k, sim_sb_condition *c)
{
    c->type = SIM_SB_C_SIGNAL;
    return read_name_state(P, k, c->ref, c->pvalue, &c->light);
}
