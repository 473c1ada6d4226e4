/* sim_xosc_route: OpenSCENARIO's RoutePosition (a route, inline or from a route
 * catalog, and a distance along it) and routes from catalogs for AssignRouteAction.
 * The reader keeps a RoutePosition's waypoints; once the roads are loaded,
 * xosc_route_resolve drives the route through common/routing (the shortest way from
 * each waypoint to the next, as routeStrategy "shortest" asks) and turns the position
 * into the lane position pathS metres along it: the storyboard engine never sees a
 * route position (docs/openscenario.md). */
#include "sim_xosc_util.h"

#include <math.h>
#include <string.h>

#include "sim_route_roads.h"

/* The <Route> a RouteRef or AssignRouteAction holds, inline or by CatalogReference;
 * *from_catalog says whether the caller must restore the parameter stack to *mark and
 * the depth. NULL on error (recorded) or when neither is there (*missing). */
static const xmlNode *route_node(xosc_parser *P, const xmlNode *parent, bool *from_catalog, int *mark)
{
    *from_catalog = false;
    const xmlNode *r = xosc_child(parent, "Route");
    if (r) return r;
    const xmlNode *cr = xosc_child(parent, "CatalogReference");
    if (!cr) return xosc_fail(P, parent, SIM_EINVAL, "has neither <Route> nor <CatalogReference>"), NULL;
    r = xosc_catalog_entry(P, cr, mark);
    if (!r) return NULL;
    *from_catalog = true;
    if (!xosc_is(r, "Route")) {
        P->n_params = *mark;
        P->depth--;
        *from_catalog = false;
        return xosc_fail(P, cr, SIM_EINVAL, "names a <%s>, expected a <Route>", (const char *)r->name), NULL;
    }
    return r;
}

int xosc_route_waypoints(xosc_parser *P, const xmlNode *parent, sim_sb_position **arr, int *n, bool *ignored)
{
    bool from_catalog;
    int mark;
    const xmlNode *route = route_node(P, parent, &from_catalog, &mark);
    if (!route) return P->rc;
    int n0 = *n;
    for (const xmlNode *w = route->children; w && !P->rc; w = w->next) {
        if (!xosc_is(w, "Waypoint")) continue;
        const xmlNode *pn = xosc_child(w, "Position");
        if (!pn) {
            xosc_fail(P, w, SIM_EINVAL, "has no <Position>");
            break;
        }
        sim_sb_position p; /* read aside: a waypoint's own route would grow the same pool */
        if (xosc_position(P, pn, &p)) break;
        if (p.kind == SIM_SB_POS_NONE || p.kind == SIM_SB_POS_ROUTE) *ignored = true;
        sim_sb_position *slot = xosc_push(P, w, (void **)arr, n, sizeof *slot);
        if (!slot) break;
        *slot = p;
    }
    if (!P->rc && *n - n0 < 2) xosc_fail(P, route, SIM_EINVAL, "has %d waypoints, expected at least 2", *n - n0);
    if (from_catalog) {
        P->n_params = mark;
        P->depth--;
    }
    return P->rc;
}

int xosc_route_position(xosc_parser *P, const xmlNode *p, sim_sb_position *pos)
{
    pos->kind = SIM_SB_POS_ROUTE;
    const xmlNode *ref = xosc_child(p, "RouteRef"), *in = xosc_child(p, "InRoutePosition");
    if (!ref || !in) return xosc_fail(P, p, SIM_EINVAL, "needs <RouteRef> and <InRoutePosition>");
    const xmlNode *c = xosc_first(in);
    if (!c) return xosc_fail(P, in, SIM_EINVAL, "is empty, expected <FromLaneCoordinates> or <FromRoadCoordinates>");
    if (xosc_is(c, "FromLaneCoordinates")) {
        if (!xosc_num(P, c, "pathS", true, 0, &pos->path_s) || !xosc_int(P, c, "laneId", true, 0, &pos->lane) ||
            !xosc_num(P, c, "laneOffset", false, 0, &pos->offset))
            return P->rc;
        if (pos->lane == 0) return xosc_fail(P, c, SIM_EINVAL, "has laneId 0, expected a lane (not the centre line)");
    } else if (xosc_is(c, "FromRoadCoordinates")) {
        if (!xosc_num(P, c, "pathS", true, 0, &pos->path_s) || !xosc_num(P, c, "t", true, 0, &pos->t)) return P->rc;
        pos->lane = 0;
    } else {
        xosc_unsupported(P, c); /* FromCurrentEntity */
        pos->kind = SIM_SB_POS_NONE;
        return P->rc;
    }
    if (pos->path_s < 0) return xosc_fail(P, c, SIM_EINVAL, "has pathS %g, expected >= 0", pos->path_s);
    bool ignored = false;
    pos->route0 = P->x->model.n_route_pts;
    if (xosc_route_waypoints(P, ref, &P->x->model.route_pts, &P->x->model.n_route_pts, &ignored)) return P->rc;
    pos->n_route_pts = P->x->model.n_route_pts - pos->route0;
    if (ignored) { /* a waypoint we cannot place: the position is not taken either */
        xosc_unsupported(P, p);
        pos->kind = SIM_SB_POS_NONE;
    }
    xosc_read_orientation(P, p, pos);
    return P->rc;
}

int xosc_route_resolve(const char *path, const sim_sb_model *m, sim_sb_position *p, const sim_roadnet *net,
                       sim_route_map *map, bool *have_map, sim_error *err)
{
    if (p->kind != SIM_SB_POS_ROUTE) return SIM_OK;
    if (!*have_map) {
        int rc = sim_route_map_build(map, net, err);
        if (rc) return rc;
        *have_map = true;
    }
    double left = p->path_s;
    int node = -1;
    double t = 0;
    for (int k = 0; k + 1 < p->n_route_pts && node < 0; k++) {
        const sim_sb_position *a = &m->route_pts[p->route0 + k], *b = &m->route_pts[p->route0 + k + 1];
        if (!a->has_xy && a->kind != SIM_SB_POS_WORLD) goto unplaced;
        if (!b->has_xy && b->kind != SIM_SB_POS_WORLD) goto unplaced;
        sim_route_end from = {a->x, a->y, a->h}, to = {b->x, b->y, b->h};
        sim_route r;
        sim_error why = {0};
        if (sim_route_map_route(map, &from, &to, 5.0, &r, &why))
            return sim_error_set(err, SIM_ENOTFOUND, "%s: %d: <RoutePosition>: no way from waypoint %d to %d (%s)", path,
                                 p->line, k + 1, k + 2, why.msg);
        for (int i = 0; i < r.n_legs && node < 0; i++) {
            double len = r.legs[i].t1 - r.legs[i].t0;
            if (left <= len || (k + 2 == p->n_route_pts && i + 1 == r.n_legs)) {
                node = r.legs[i].node;
                t = r.legs[i].t0 + fmin(left, len);
            }
            left -= len;
        }
        sim_route_free(&r);
    }
    if (node < 0) goto unplaced;
    const sim_route_node *n = &map->g.nodes[node];
    int road = n->road;
    double s = map->s0[node] + (n->dir > 0 ? t : n->length - t);
    snprintf(p->road, sizeof p->road, "%s", net->roads[road].id);
    p->s = fmin(fmax(s, 0), net->roads[road].length);
    p->kind = p->lane ? SIM_SB_POS_LANE : SIM_SB_POS_ROAD;
    return SIM_OK;
unplaced:
    return sim_error_set(err, SIM_EINVAL, "%s: %d: <RoutePosition> pathS %g cannot be placed on its route", path, p->line,
                         p->path_s);
}
