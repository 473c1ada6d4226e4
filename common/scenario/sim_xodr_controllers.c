/* sim_xodr_controllers: OpenDRIVE <controller> elements (see sim_xodr.h).
 *
 * A top-level <controller id name sequence> groups the signals its <control signalId>
 * children name, so that they switch together; a junction's <controller id sequence>
 * entries say which controllers serve that junction and in which order (OpenDRIVE 1.6
 * sections 14.5 and 10.5). Each controller becomes a group of traffic-light heads
 * (sim_light_group, sim_lights.h) with its junction and sequence; then every group that
 * no other controller runs gets the default fixed-time program
 * (sim_lights_group_defaults: the groups of one junction take turns). A scenario's
 * `traffic_lights` controllers and an OpenSCENARIO file's TrafficSignalControllers come
 * later and drop those defaults first (sim_lights_drop_defaults), so they always win.
 *
 * A <control> naming a signal that is no traffic-light head (a static sign, another
 * dynamic type, an id not in the file) is counted in the report, not an error: the
 * heads we model still switch. Errors name the file, line and element: a controller
 * without an id or with one used before, a junction naming a controller that is not in
 * the file. Runs after the roads' signals were read (the heads must exist). */
#include "sim_xodr.h"
#include "sim_xodr_util.h"

#include <stdlib.h>
#include <string.h>

static int read_controller(xodr_parser *P, const xmlNode *cn)
{
    char id[128], sid[128];
    if (!xodr_str(cn, "id", id, sizeof id)) return xodr_fail(P, cn, SIM_EINVAL, "has no id, expected one");
    int seq;
    if (!xodr_int(P, cn, "sequence", false, 0, &seq)) return P->rc;
    int n = 0;
    for (const xmlNode *c = cn->children; c; c = c->next) n += xodr_is(c, "control");
    int *heads = malloc((size_t)(n ? n : 1) * sizeof *heads), nh = 0;
    if (!heads) return xodr_fail(P, cn, SIM_ENOMEM, "out of memory");
    for (const xmlNode *c = cn->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!xodr_is(c, "control")) {
            xodr_skip(P, c);
            continue;
        }
        if (!xodr_str(c, "signalId", sid, sizeof sid)) {
            free(heads);
            return xodr_fail(P, c, SIM_EINVAL, "has no signalId, expected the id of a <signal>");
        }
        int h = sim_lights_find_head(&P->net->lights, sid), j = 0;
        while (j < nh && heads[j] != h) j++;
        if (h < 0) P->rep->n_controls_not_heads++;
        else if (j == nh) heads[nh++] = h; /* named twice: once */
    }
    sim_error e = {0};
    int g = sim_lights_add_group(&P->net->lights, id, heads, nh, &e);
    free(heads);
    if (g < 0) return xodr_fail(P, cn, g, "%s", e.msg);
    P->net->lights.groups[g].sequence = seq;
    P->rep->n_controllers++;
    P->rep->n_controlled_heads += nh;
    return SIM_OK;
}

/* A junction's <controller id sequence>: the group serves junction ji, in that order
 * (the junction's sequence wins over the controller's own). */
static int read_junction_controllers(xodr_parser *P, const xmlNode *jn, int ji)
{
    char id[128];
    for (const xmlNode *c = jn->children; c; c = c->next) {
        if (!xodr_is(c, "controller")) continue;
        if (!xodr_str(c, "id", id, sizeof id)) return xodr_fail(P, c, SIM_EINVAL, "has no id, expected a <controller>'s");
        int g = sim_lights_find_group(&P->net->lights, id);
        if (g < 0)
            return xodr_fail(P, c, SIM_ENOTFOUND, "of junction %s names controller \"%s\", which the file does not have",
                             P->net->junctions[ji].id, id);
        sim_light_group *G = &P->net->lights.groups[g];
        if (!xodr_int(P, c, "sequence", false, G->sequence, &G->sequence)) return P->rc;
        G->junction = ji;
    }
    return SIM_OK;
}

int xodr_read_controllers(xodr_parser *P, const xmlNode *root, const xmlNode *const *jnodes)
{
    for (const xmlNode *c = root->children; c; c = c->next)
        if (xodr_is(c, "controller")) {
            int rc = read_controller(P, c);
            if (rc) return rc;
        }
    for (int ji = 0; ji < P->net->n_junctions; ji++) {
        int rc = read_junction_controllers(P, jnodes[ji], ji);
        if (rc) return rc;
    }
    sim_error e = {0};
    int n = sim_lights_group_defaults(&P->net->lights, &e);
    if (n < 0) return xodr_fail(P, root, n, "%s", e.msg);
    P->rep->n_controllers_running = n;
    return SIM_OK;
}
