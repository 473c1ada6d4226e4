/* sim_xodr: OpenDRIVE documents, roads, junctions and links read with libxml2 into the
 * road model (see sim_xodr.h; lanes in sim_xodr_lanes.c). */
#include "sim_xodr.h"
#include "sim_xodr_util.h"

#include <libxml/parser.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_xml_read.h"

#define GEOM_BUDGET 4e6   /* sim_geom_cost units per file (Town03 needs about 2e3) */

/* ---- helpers ---------------------------------------------------------------------- */

bool xodr_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

int xodr_fail(xodr_parser *P, const xmlNode *n, int code, const char *fmt, ...)
{
    if (P->rc) return P->rc;
    char msg[SIM_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    P->rc = code;
    sim_error_set(P->err, code, "%s: %ld: <%s> %s", P->name, n ? xmlGetLineNo(n) : 0L,
                  n ? (const char *)n->name : "?", msg);
    return code;
}

void xodr_unsupported(xodr_parser *P, const char *what)
{
    sim_xodr_report *r = P->rep;
    for (int i = 0; i < r->n_unsupported; i++)
        if (strcmp(r->unsupported[i].name, what) == 0) {
            r->unsupported[i].count++;
            return;
        }
    if (r->n_unsupported == SIM_XODR_MAX_UNSUPPORTED) {
        r->n_unsupported_more++;
        return;
    }
    sim_xodr_count *c = &r->unsupported[r->n_unsupported++];
    snprintf(c->name, sizeof c->name, "%s", what);
    c->count = 1;
}

void xodr_skip(xodr_parser *P, const xmlNode *n)
{
    bool children = false;
    for (const xmlNode *c = n->children; c; c = c->next) children |= c->type == XML_ELEMENT_NODE;
    /* Containers (objects, signals, surface...) count what they hold; an empty one
     * drops nothing. */
    if (children && (xodr_is(n, "objects") || xodr_is(n, "signals") || xodr_is(n, "surface"))) {
        for (const xmlNode *c = n->children; c; c = c->next)
            if (c->type == XML_ELEMENT_NODE) xodr_unsupported(P, (const char *)c->name);
        return;
    }
    if (!children && !n->properties) return;
    xodr_unsupported(P, (const char *)n->name);
}

bool xodr_str(const xmlNode *n, const char *key, char *buf, size_t size)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)key);
    if (!v) return false;
    snprintf(buf, size, "%s", (const char *)v);
    xmlFree(v);
    return true;
}

bool xodr_num(xodr_parser *P, const xmlNode *n, const char *key, bool required, double def, double *out)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)key);
    if (!v) {
        *out = def;
        if (required) xodr_fail(P, n, SIM_EINVAL, "has no %s, expected a number", key);
        return !required;
    }
    char *end;
    double x = strtod((const char *)v, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r') end++;
    bool ok = end != (char *)v && *end == '\0' && isfinite(x);
    if (!ok) xodr_fail(P, n, SIM_EINVAL, "has %s \"%.40s\", expected a finite number", key, (const char *)v);
    xmlFree(v);
    *out = ok ? x : def;
    return ok;
}

bool xodr_int(xodr_parser *P, const xmlNode *n, const char *key, bool required, int def, int *out)
{
    double x;
    if (!xodr_num(P, n, key, required, def, &x)) return false;
    if (x != floor(x) || fabs(x) > 1e6) {
        xodr_fail(P, n, SIM_EINVAL, "has %s %g, expected an integer", key, x);
        return false;
    }
    *out = (int)x;
    return true;
}

bool xodr_speed(xodr_parser *P, const xmlNode *n, double *out)
{
    char unit[16] = "m/s", max[40];
    *out = 0.0;
    xodr_str(n, "unit", unit, sizeof unit);
    /* "no limit" / "undefined" are OpenDRIVE's words for none. */
    if (xodr_str(n, "max", max, sizeof max) && (strcmp(max, "no limit") == 0 || strcmp(max, "undefined") == 0))
        return true;
    double v;
    if (!xodr_num(P, n, "max", true, 0, &v)) return false;
    if (v < 0) return xodr_fail(P, n, SIM_ERANGE, "has max %g, expected a speed >= 0", v), false;
    if (strcmp(unit, "m/s") == 0) *out = v;
    else if (strcmp(unit, "km/h") == 0) *out = v / 3.6;
    else if (strcmp(unit, "mph") == 0) *out = v * 0.44704;
    else return xodr_fail(P, n, SIM_EINVAL, "has unit \"%s\", expected m/s, km/h or mph", unit), false;
    return true;
}

static int count_children(const xmlNode *n, const char *name)
{
    int k = 0;
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next) k += xodr_is(c, name);
    return k;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* ---- roads ------------------------------------------------------------------------ */

/* A link as written, resolved once every road and junction has its index. */
typedef struct raw_link {
    const xmlNode *node;     /* NULL: none */
    char id[128];
    bool junction;
    sim_contact contact;
} raw_link;

static int read_geometry(xodr_parser *P, const xmlNode *gn, sim_geom *g)
{
    bool ok = xodr_num(P, gn, "s", true, 0, &g->s0) && xodr_num(P, gn, "x", true, 0, &g->x0) &&
              xodr_num(P, gn, "y", true, 0, &g->y0) && xodr_num(P, gn, "hdg", true, 0, &g->hdg0) &&
              xodr_num(P, gn, "length", true, 0, &g->length);
    if (!ok) return P->rc;
    if (!(g->length > 0)) return xodr_fail(P, gn, SIM_ERANGE, "has length %g, expected > 0", g->length);
    const xmlNode *t = NULL;
    for (const xmlNode *c = gn->children; c && !t; c = c->next)
        if (c->type == XML_ELEMENT_NODE) t = c;
    if (!t) return xodr_fail(P, gn, SIM_EINVAL, "has no shape, expected <line>, <arc>, <spiral>, <poly3> or <paramPoly3>");
    if (xodr_is(t, "line")) {
        g->type = SIM_GEOM_LINE;
    } else if (xodr_is(t, "arc")) {
        g->type = SIM_GEOM_ARC;
        if (!xodr_num(P, t, "curvature", true, 0, &g->k0)) return P->rc;
    } else if (xodr_is(t, "spiral")) {
        g->type = SIM_GEOM_CLOTHOID;
        if (!xodr_num(P, t, "curvStart", true, 0, &g->k0) || !xodr_num(P, t, "curvEnd", true, 0, &g->k1))
            return P->rc;
    } else if (xodr_is(t, "poly3")) {
        g->type = SIM_GEOM_POLY3;
        static const char *const k[] = {"a", "b", "c", "d"};
        for (int i = 0; i < 4; i++)
            if (!xodr_num(P, t, k[i], true, 0, &g->poly[i])) return P->rc;
    } else if (xodr_is(t, "paramPoly3")) {
        g->type = SIM_GEOM_PARAMPOLY3;
        static const char *const k[] = {"aU", "bU", "cU", "dU", "aV", "bV", "cV", "dV"};
        for (int i = 0; i < 8; i++)
            if (!xodr_num(P, t, k[i], true, 0, &g->poly[i])) return P->rc;
        char pr[32] = "normalized";
        xodr_str(t, "pRange", pr, sizeof pr);
        if (strcmp(pr, "normalized") != 0 && strcmp(pr, "arcLength") != 0)
            return xodr_fail(P, t, SIM_EINVAL, "has pRange \"%s\", expected arcLength or normalized", pr);
        g->normalized = strcmp(pr, "normalized") == 0;
    } else {
        return xodr_fail(P, t, SIM_EINVAL, "is not a geometry shape, expected <line>, <arc>, <spiral>, <poly3> or <paramPoly3>");
    }
    double cost = sim_geom_cost(g);
    if (!(P->geom_cost + cost <= GEOM_BUDGET))
        return xodr_fail(P, gn, SIM_ETOOBIG, "needs %.3g units (length %g m), expected the file's geometry "
                         "within %g units", cost, g->length, GEOM_BUDGET);
    P->geom_cost += cost;
    sim_error e = {0};
    if (sim_geom_prepare(g, &e)) return xodr_fail(P, gn, e.code, "%s", e.msg);
    P->rep->n_geoms[g->type]++;
    return SIM_OK;
}

static int read_plan_view(xodr_parser *P, const xmlNode *pv, sim_road *r)
{
    int n = count_children(pv, "geometry");
    if (n == 0) return xodr_fail(P, pv, SIM_EINVAL, "has no <geometry>, expected at least one");
    if (!(r->geoms = calloc((size_t)n, sizeof *r->geoms))) return xodr_fail(P, pv, SIM_ENOMEM, "out of memory");
    for (const xmlNode *c = pv->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!xodr_is(c, "geometry")) {
            xodr_skip(P, c);
            continue;
        }
        sim_geom *g = &r->geoms[r->n_geoms];
        int rc = read_geometry(P, c, g);
        r->n_geoms++; /* counted even on failure: its table is freed with the road */
        if (rc) return rc;
        if (r->n_geoms > 1 && g->s0 < r->geoms[r->n_geoms - 2].s0)
            return xodr_fail(P, c, SIM_EINVAL, "has s %g, expected s >= %g (the geometry before it)", g->s0,
                             r->geoms[r->n_geoms - 2].s0);
    }
    return SIM_OK;
}

static int read_link(xodr_parser *P, const xmlNode *ln, raw_link *pred, raw_link *succ)
{
    for (const xmlNode *c = ln->children; c; c = c->next) {
        raw_link *l = xodr_is(c, "predecessor") ? pred : xodr_is(c, "successor") ? succ : NULL;
        if (!l) {
            if (c->type == XML_ELEMENT_NODE) xodr_skip(P, c);
            continue;
        }
        char type[32] = "", contact[16] = "";
        if (!xodr_str(c, "elementId", l->id, sizeof l->id))
            return xodr_fail(P, c, SIM_EINVAL, "has no elementId, expected the id of a road or junction");
        xodr_str(c, "elementType", type, sizeof type);
        if (strcmp(type, "road") != 0 && strcmp(type, "junction") != 0)
            return xodr_fail(P, c, SIM_EINVAL, "has elementType \"%s\", expected road or junction", type);
        l->junction = strcmp(type, "junction") == 0;
        l->contact = SIM_CONTACT_START;
        if (!l->junction) {
            xodr_str(c, "contactPoint", contact, sizeof contact);
            if (strcmp(contact, "start") != 0 && strcmp(contact, "end") != 0)
                return xodr_fail(P, c, SIM_EINVAL, "has contactPoint \"%s\", expected start or end", contact);
            l->contact = strcmp(contact, "end") == 0 ? SIM_CONTACT_END : SIM_CONTACT_START;
        }
        l->node = c;
    }
    return SIM_OK;
}

/* <type s type><speed max unit/></type> records as speed limits up to the next one. */
static int read_types(xodr_parser *P, const xmlNode *rn, sim_road *r)
{
    int n = count_children(rn, "type");
    if (n == 0) return SIM_OK;
    if (!(r->limits = calloc((size_t)n, sizeof *r->limits))) return xodr_fail(P, rn, SIM_ENOMEM, "out of memory");
    for (const xmlNode *c = rn->children; c; c = c->next) {
        if (!xodr_is(c, "type")) continue;
        double s;
        if (!xodr_num(P, c, "s", true, 0, &s)) return P->rc;
        if (r->n_limits > 0) r->limits[r->n_limits - 1].s_end = s;
        const xmlNode *sp = NULL;
        for (const xmlNode *k = c->children; k; k = k->next)
            if (xodr_is(k, "speed")) sp = k;
        double v = 0.0;
        if (sp && !xodr_speed(P, sp, &v)) return P->rc;
        r->limits[r->n_limits++] = (sim_speed_limit){s, r->length, v};
    }
    /* Records without a speed (or "no limit") hold none: drop them after their end
     * has been set. */
    int k = 0;
    for (int i = 0; i < r->n_limits; i++)
        if (r->limits[i].speed > 0 && r->limits[i].s_end > r->limits[i].s_start) r->limits[k++] = r->limits[i];
    r->n_limits = k;
    return SIM_OK;
}

static int read_road(xodr_parser *P, const xmlNode *rn, sim_road *r, raw_link *pred, raw_link *succ)
{
    char buf[128];
    if (!xodr_num(P, rn, "length", true, 0, &r->length)) return P->rc;
    if (!(r->length >= 0)) return xodr_fail(P, rn, SIM_ERANGE, "has length %g, expected >= 0", r->length);
    if (xodr_str(rn, "name", buf, sizeof buf) && !(r->name = xstrdup(buf)))
        return xodr_fail(P, rn, SIM_ENOMEM, "out of memory");
    r->junction = -1;
    if (xodr_str(rn, "junction", buf, sizeof buf) && strcmp(buf, "-1") != 0) {
        r->junction = sim_roadnet_find_junction(P->net, buf);
        if (r->junction < 0)
            return xodr_fail(P, rn, SIM_ENOTFOUND, "has junction \"%s\", expected -1 or the id of a <junction>", buf);
    }
    r->left_hand = xodr_str(rn, "rule", buf, sizeof buf) && strcmp(buf, "LHT") == 0;
    r->elev_mode = SIM_ELEV_PROFILE; /* OpenDRIVE: no elevation records is z = 0 */
    bool plan = false, lanes = false, elev = false, lateral = false;
    int rc = SIM_OK;
    for (const xmlNode *c = rn->children; c && !rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        bool *once = xodr_is(c, "planView") ? &plan : xodr_is(c, "lanes") ? &lanes
                   : xodr_is(c, "elevationProfile") ? &elev : xodr_is(c, "lateralProfile") ? &lateral : NULL;
        if (once && *once) return xodr_fail(P, c, SIM_EINVAL, "again, expected one per <road>");
        if (xodr_is(c, "link")) rc = read_link(P, c, pred, succ);
        else if (xodr_is(c, "type")) continue; /* read_types, once the length is known */
        else if (xodr_is(c, "objects") || xodr_is(c, "signals")) continue; /* xodr_read_roadside, once built */
        else if (xodr_is(c, "planView")) rc = read_plan_view(P, c, r), plan = true;
        else if (xodr_is(c, "lanes")) rc = xodr_read_lanes(P, c, r), lanes = true;
        else if (xodr_is(c, "elevationProfile")) {
            elev = true;
            rc = xodr_read_polys(P, c, "elevation", "s", &r->elevation, &r->n_elevation);
            P->rep->n_elevation += r->n_elevation;
        } else if (xodr_is(c, "lateralProfile")) {
            lateral = true;
            rc = xodr_read_polys(P, c, "superelevation", "s", &r->superelevation, &r->n_superelevation);
            P->rep->n_superelevation += r->n_superelevation;
            for (const xmlNode *k = c->children; k; k = k->next)
                if (k->type == XML_ELEMENT_NODE && !xodr_is(k, "superelevation")) xodr_skip(P, k);
        } else xodr_skip(P, c);
    }
    if (rc) return rc;
    if (!plan) return xodr_fail(P, rn, SIM_EINVAL, "has no <planView>, expected one");
    if (!lanes) return xodr_fail(P, rn, SIM_EINVAL, "has no <lanes>, expected one");
    return read_types(P, rn, r);
}

static int resolve_link(xodr_parser *P, const raw_link *raw, sim_road_link *out)
{
    if (!raw->node) return SIM_OK;
    int i = raw->junction ? sim_roadnet_find_junction(P->net, raw->id) : sim_roadnet_find_road(P->net, raw->id);
    if (i < 0)
        return xodr_fail(P, raw->node, SIM_ENOTFOUND, "has elementId \"%s\", expected the id of a %s", raw->id,
                         raw->junction ? "junction" : "road");
    *out = (sim_road_link){raw->junction ? SIM_LINK_JUNCTION : SIM_LINK_ROAD, i, raw->contact};
    return SIM_OK;
}

/* ---- junctions -------------------------------------------------------------------- */

/* A direct junction (type="direct", OpenDRIVE 1.7 section 10.6) joins its roads with
 * no connecting road between them: its linkedRoad stands where a connecting road
 * would, so the lane graph reaches it the same way (and back, sim_road_lanes.c). */
static int read_connection(xodr_parser *P, const xmlNode *cn, bool direct, sim_connection *c)
{
    char in[128], conn[128], contact[16] = "start";
    const char *target = direct ? "linkedRoad" : "connectingRoad";
    if (!xodr_str(cn, "incomingRoad", in, sizeof in))
        return xodr_fail(P, cn, SIM_EINVAL, "has no incomingRoad, expected the id of a road");
    if (!xodr_str(cn, target, conn, sizeof conn))
        return xodr_fail(P, cn, SIM_EINVAL, "has no %s, expected the id of a road%s", target,
                         direct ? " (the junction is direct)" : "");
    c->incoming = sim_roadnet_find_road(P->net, in);
    c->connecting = sim_roadnet_find_road(P->net, conn);
    if (c->incoming < 0) return xodr_fail(P, cn, SIM_ENOTFOUND, "has incomingRoad \"%s\", expected the id of a road", in);
    if (c->connecting < 0)
        return xodr_fail(P, cn, SIM_ENOTFOUND, "has %s \"%s\", expected the id of a road", target, conn);
    xodr_str(cn, "contactPoint", contact, sizeof contact);
    if (strcmp(contact, "start") != 0 && strcmp(contact, "end") != 0)
        return xodr_fail(P, cn, SIM_EINVAL, "has contactPoint \"%s\", expected start or end", contact);
    c->contact = strcmp(contact, "end") == 0 ? SIM_CONTACT_END : SIM_CONTACT_START;
    int n = count_children(cn, "laneLink");
    if (n && !(c->lanes = calloc((size_t)n, sizeof *c->lanes))) return xodr_fail(P, cn, SIM_ENOMEM, "out of memory");
    for (const xmlNode *k = cn->children; k; k = k->next) {
        if (!xodr_is(k, "laneLink")) continue;
        sim_lane_link *l = &c->lanes[c->n_lanes];
        if (!xodr_int(P, k, "from", true, 0, &l->from) || !xodr_int(P, k, "to", true, 0, &l->to)) return P->rc;
        c->n_lanes++;
    }
    return SIM_OK;
}

static int read_junction(xodr_parser *P, const xmlNode *jn, sim_junction *j)
{
    char buf[128];
    if (xodr_str(jn, "name", buf, sizeof buf) && !(j->name = xstrdup(buf)))
        return xodr_fail(P, jn, SIM_ENOMEM, "out of memory");
    char type[32] = "default"; /* default and virtual ones have connecting roads */
    xodr_str(jn, "type", type, sizeof type);
    bool direct = strcmp(type, "direct") == 0;
    int n = count_children(jn, "connection");
    if (n && !(j->conns = calloc((size_t)n, sizeof *j->conns))) return xodr_fail(P, jn, SIM_ENOMEM, "out of memory");
    for (const xmlNode *c = jn->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!xodr_is(c, "connection")) {
            if (!xodr_is(c, "controller")) xodr_skip(P, c); /* controllers: xodr_read_controllers */
            continue;
        }
        int rc = read_connection(P, c, direct, &j->conns[j->n_conns]);
        j->n_conns++;
        if (rc) return rc;
        P->rep->n_connections++;
    }
    return SIM_OK;
}

static int check_junctions(xodr_parser *P, const xmlNode *const *jnodes)
{
    const sim_roadnet *net = P->net;
    for (int ji = 0; ji < net->n_junctions; ji++) {
        const sim_junction *j = &net->junctions[ji];
        const xmlNode *cn = jnodes[ji]->children;
        for (int k = 0; k < j->n_conns; k++, cn = cn->next) {
            while (!xodr_is(cn, "connection")) cn = cn->next;
            const sim_connection *c = &j->conns[k];
            const sim_road *in = &net->roads[c->incoming], *cr = &net->roads[c->connecting];
            for (int m = 0; m < c->n_lanes; m++) {
                const sim_road *rr[2] = {in, cr};
                int ids[2] = {c->lanes[m].from, c->lanes[m].to};
                for (int q = 0; q < 2; q++)
                    if (!sim_road_has_lane(rr[q], ids[q]))
                        return xodr_fail(P, cn, SIM_EINVAL, "id %s links lane %d of road \"%s\", which has no such lane",
                                         j->id, ids[q], rr[q]->id);
            }
            double gap = sim_roadnet_connection_gap(net, ji, c);
            if (!isfinite(gap)) continue; /* the incoming road names another junction: its link, not ours */
            if (gap > SIM_XODR_GAP_MAX)
                return xodr_fail(P, cn, SIM_EINVAL, "id %s: connecting road \"%s\" (%s) lies %.3f m from incoming "
                                 "road \"%s\", expected within %g m", j->id, cr->id,
                                 c->contact == SIM_CONTACT_START ? "start" : "end", gap, in->id, SIM_XODR_GAP_MAX);
        }
    }
    return SIM_OK;
}

/* ---- document --------------------------------------------------------------------- */

static int read_header(xodr_parser *P, const xmlNode *h)
{
    double maj = 1, min = 0;
    if (!xodr_num(P, h, "revMajor", false, 1, &maj) || !xodr_num(P, h, "revMinor", false, 0, &min)) return P->rc;
    P->rep->rev_major = (int)maj;
    P->rep->rev_minor = (int)min;
    for (const xmlNode *c = h->children; c; c = c->next) {
        if (!xodr_is(c, "geoReference")) {
            if (c->type == XML_ELEMENT_NODE) xodr_skip(P, c);
            continue;
        }
        xmlChar *t = xmlNodeGetContent(c);
        if (!t) continue;
        const char *s = (const char *)t;
        while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
        free(P->net->geo_reference);
        P->net->geo_reference = xstrdup(s);
        xmlFree(t);
        if (!P->net->geo_reference) return xodr_fail(P, c, SIM_ENOMEM, "out of memory");
    }
    return SIM_OK;
}

static int read_document(xodr_parser *P, const xmlNode *root)
{
    if (!xodr_is(root, "OpenDRIVE")) return xodr_fail(P, root, SIM_EINVAL, "is the root, expected <OpenDRIVE>");
    sim_roadnet *net = P->net;
    int nr = count_children(root, "road"), nj = count_children(root, "junction");
    net->roads = calloc((size_t)(nr ? nr : 1), sizeof *net->roads);
    net->junctions = calloc((size_t)(nj ? nj : 1), sizeof *net->junctions);
    const xmlNode **rnodes = calloc((size_t)(nr ? nr : 1), sizeof *rnodes);
    const xmlNode **jnodes = calloc((size_t)(nj ? nj : 1), sizeof *jnodes);
    raw_link *links = calloc((size_t)(nr ? nr : 1), 2 * sizeof *links);
    int rc = SIM_OK;
    if (!net->roads || !net->junctions || !rnodes || !jnodes || !links) {
        rc = xodr_fail(P, root, SIM_ENOMEM, "out of memory");
        goto out;
    }
    /* Ids first: roads name junctions and links name roads in any order. */
    for (const xmlNode *c = root->children; c && !rc; c = c->next) {
        char id[128];
        bool road = xodr_is(c, "road"), junc = xodr_is(c, "junction");
        if (!road && !junc) {
            if (xodr_is(c, "header")) rc = read_header(P, c);
            else if (xodr_is(c, "controller")) continue; /* xodr_read_controllers, once the heads are in */
            else if (c->type == XML_ELEMENT_NODE) xodr_skip(P, c);
            continue;
        }
        if (!xodr_str(c, "id", id, sizeof id)) {
            rc = xodr_fail(P, c, SIM_EINVAL, "has no id, expected one");
            break;
        }
        if (road ? sim_roadnet_find_road(net, id) >= 0 : sim_roadnet_find_junction(net, id) >= 0) {
            rc = xodr_fail(P, c, SIM_EINVAL, "has id \"%s\" again, expected a unique id", id);
            break;
        }
        char *dup = xstrdup(id);
        if (!dup) {
            rc = xodr_fail(P, c, SIM_ENOMEM, "out of memory");
            break;
        }
        if (road) rnodes[net->n_roads] = c, net->roads[net->n_roads++].id = dup;
        else jnodes[net->n_junctions] = c, net->junctions[net->n_junctions++].id = dup;
    }
    for (int i = 0; i < net->n_roads && !rc; i++)
        rc = read_road(P, rnodes[i], &net->roads[i], &links[2 * i], &links[2 * i + 1]);
    for (int i = 0; i < net->n_roads && !rc; i++) {
        rc = resolve_link(P, &links[2 * i], &net->roads[i].pred);
        if (!rc) rc = resolve_link(P, &links[2 * i + 1], &net->roads[i].succ);
    }
    for (int i = 0; i < net->n_junctions && !rc; i++) rc = read_junction(P, jnodes[i], &net->junctions[i]);
    if (!rc) {
        sim_error e = {0};
        if ((rc = sim_roadnet_build_index(net, &e))) rc = xodr_fail(P, root, rc, "%s", e.msg);
    }
    if (!rc) rc = check_junctions(P, jnodes);
    for (int i = 0; i < net->n_roads && !rc; i++) rc = xodr_read_roadside(P, rnodes[i], i);
    if (!rc) rc = xodr_read_controllers(P, root, jnodes);
    P->rep->n_roads = net->n_roads;
    P->rep->n_junctions = net->n_junctions;
out:
    free(rnodes);
    free(jnodes);
    free(links);
    return rc;
}

int sim_xodr_parse(const char *buf, size_t len, const char *name, sim_roadnet *net,
                   sim_xodr_report *rep, sim_error *err)
{
    sim_xodr_report local;
    if (!rep) rep = &local;
    memset(rep, 0, sizeof *rep);
    memset(net, 0, sizeof *net);
    if (len > (size_t)INT32_MAX) return sim_error_set(err, SIM_ETOOBIG, "%s: over 2 GB", name);
    /* No network, no entities, no messages on stderr: errors come back here. */
    sim_error local_err;
    if (!err) err = &local_err;
    xmlDocPtr doc = sim_xml_read(buf, len, name, 0, err);
    if (!doc) return err->code;
    xodr_parser P = {.name = name, .net = net, .rep = rep, .err = err};
    int rc = read_document(&P, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
    if (rc) sim_roadnet_free(net);
    return rc;
}

int sim_xodr_load(const char *path, sim_roadnet *net, sim_xodr_report *rep, sim_error *err)
{
    char *buf;
    size_t len;
    memset(net, 0, sizeof *net);
    int rc = sim_file_read(path, &buf, &len, err);
    if (rc) return rc;
    const char *base = strrchr(path, '/');
    rc = sim_xodr_parse(buf, len, base ? base + 1 : path, net, rep, err);
    free(buf);
    return rc;
}

void sim_xodr_unsupported_text(const sim_xodr_report *rep, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < rep->n_unsupported && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s (%d)", i ? ", " : "", rep->unsupported[i].name,
                              rep->unsupported[i].count);
    if (rep->n_unsupported_more && n < size)
        snprintf(buf + n, size - n, " and %d more kinds", rep->n_unsupported_more);
}
