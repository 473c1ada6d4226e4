/* sim_xodr_write: the road model written as OpenDRIVE text with libxml2's text writer
 * (see sim_xodr_write.h). The element order is the schema's (link, type, planView,
 * elevationProfile, lateralProfile, lanes), which netconvert and other strict readers
 * expect. */
#include "sim_xodr_write.h"

#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The writer and whether any call failed: libxml2 reports only "it failed" (out of
 * memory for a memory buffer), so one flag checked at the end is enough. */
typedef struct xw {
    xmlTextWriterPtr w;
    bool bad;
} xw;

static void start(xw *x, const char *name)
{
    if (xmlTextWriterStartElement(x->w, BAD_CAST name) < 0) x->bad = true;
}

static void end(xw *x)
{
    if (xmlTextWriterEndElement(x->w) < 0) x->bad = true;
}

static void attr(xw *x, const char *key, const char *value)
{
    if (xmlTextWriterWriteAttribute(x->w, BAD_CAST key, BAD_CAST value) < 0) x->bad = true;
}

/* 17 significant digits: the reader gets the very double back. */
static void num(xw *x, const char *key, double v)
{
    char b[32];
    snprintf(b, sizeof b, "%.17g", v == 0 ? 0.0 : v); /* no "-0" */
    attr(x, key, b);
}

static void inum(xw *x, const char *key, int v)
{
    char b[16];
    snprintf(b, sizeof b, "%d", v);
    attr(x, key, b);
}

/* a b c d of a polynomial record, with its start under skey */
static void poly(xw *x, const char *name, const char *skey, const sim_poly3 *p)
{
    start(x, name);
    num(x, skey, p->s0);
    num(x, "a", p->a);
    num(x, "b", p->b);
    num(x, "c", p->c);
    num(x, "d", p->d);
    end(x);
}

static const char *mark_name(sim_mark_type t)
{
    static const char *const names[] = {"none",         "solid",         "broken",     "solid solid",
                                        "solid broken", "broken solid",  "broken broken", "botts dots",
                                        "grass",        "curb",          "custom"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "custom";
}

static const char *color_name(sim_mark_color c)
{
    static const char *const names[] = {"standard", "yellow", "blue", "green", "red", "orange"};
    return (unsigned)c < sizeof names / sizeof *names ? names[c] : "standard";
}

static void road_link(xw *x, const sim_roadnet *net, const char *name, const sim_road_link *l)
{
    if (l->kind == SIM_LINK_ROAD && l->index >= 0 && l->index < net->n_roads) {
        start(x, name);
        attr(x, "elementType", "road");
        attr(x, "elementId", net->roads[l->index].id);
        attr(x, "contactPoint", l->contact == SIM_CONTACT_START ? "start" : "end");
        end(x);
    } else if (l->kind == SIM_LINK_JUNCTION && l->index >= 0 && l->index < net->n_junctions) {
        start(x, name);
        attr(x, "elementType", "junction");
        attr(x, "elementId", net->junctions[l->index].id);
        end(x);
    }
}

/* Speed limits as road type records: one at each limit's start, and one without a
 * speed where a gap between limits begins (the limit ends there). */
static void road_types(xw *x, const sim_road *r)
{
    for (int i = 0; i < r->n_limits; i++) {
        const sim_speed_limit *l = &r->limits[i];
        start(x, "type");
        num(x, "s", l->s_start);
        attr(x, "type", "unknown");
        start(x, "speed");
        num(x, "max", l->speed);
        attr(x, "unit", "m/s");
        end(x);
        end(x);
        bool gap = i + 1 < r->n_limits ? r->limits[i + 1].s_start > l->s_end : l->s_end < r->length;
        if (gap) {
            start(x, "type");
            num(x, "s", l->s_end);
            attr(x, "type", "unknown");
            end(x);
        }
    }
}

static void plan_view(xw *x, const sim_road *r)
{
    start(x, "planView");
    for (int i = 0; i < r->n_geoms; i++) {
        const sim_geom *g = &r->geoms[i];
        start(x, "geometry");
        num(x, "s", g->s0);
        num(x, "x", g->x0);
        num(x, "y", g->y0);
        num(x, "hdg", g->hdg0);
        num(x, "length", g->length);
        switch (g->type) {
        case SIM_GEOM_LINE:
            start(x, "line");
            break;
        case SIM_GEOM_ARC:
            start(x, "arc");
            num(x, "curvature", g->k0);
            break;
        case SIM_GEOM_CLOTHOID:
            start(x, "spiral");
            num(x, "curvStart", g->k0);
            num(x, "curvEnd", g->k1);
            break;
        case SIM_GEOM_POLY3:
            start(x, "poly3");
            for (int k = 0; k < 4; k++) num(x, (const char *[]){"a", "b", "c", "d"}[k], g->poly[k]);
            break;
        case SIM_GEOM_PARAMPOLY3:
            start(x, "paramPoly3");
            for (int k = 0; k < 8; k++)
                num(x, (const char *[]){"aU", "bU", "cU", "dU", "aV", "bV", "cV", "dV"}[k], g->poly[k]);
            attr(x, "pRange", g->normalized ? "normalized" : "arcLength");
            break;
        }
        end(x);
        end(x);
    }
    end(x);
}

/* The lane linked to `id` at one end of section sec, following the lane graph
 * (sections of the road, or a road linked end to end; not junctions, whose
 * connections carry their own lane links): 0 when none. */
static int lane_link(const sim_roadnet *net, int road, int sec, int id, int dir)
{
    const sim_road *r = &net->roads[road];
    int next_sec = sec + dir;
    bool inside = next_sec >= 0 && next_sec < r->n_sections;
    const sim_road_link *rl = dir > 0 ? &r->succ : &r->pred;
    if (!inside && rl->kind != SIM_LINK_ROAD) return 0;
    sim_lane_ref from = {road, sec, id, dir}, out[4];
    int n = sim_roadnet_lane_next(net, &from, out, 4);
    int want_road = inside ? road : rl->index;
    for (int i = 0; i < n && i < 4; i++)
        if (out[i].road == want_road) return out[i].lane;
    return 0;
}

static void speed(xw *x, double s_offset, double max)
{
    start(x, "speed");
    num(x, "sOffset", s_offset);
    num(x, "max", max);
    attr(x, "unit", "m/s");
    end(x);
}

static void lane(xw *x, const sim_roadnet *net, int road, int sec, const sim_lane *l, int id)
{
    start(x, "lane");
    inum(x, "id", id);
    attr(x, "type", l->type == SIM_LANE_SPECIAL ? "special1" : sim_lane_type_name(l->type));
    attr(x, "level", l->level ? "true" : "false");
    if (id != 0) {
        int pred = lane_link(net, road, sec, id, -1), succ = lane_link(net, road, sec, id, +1);
        if (pred || succ) {
            start(x, "link");
            if (pred) {
                start(x, "predecessor");
                inum(x, "id", pred);
                end(x);
            }
            if (succ) {
                start(x, "successor");
                inum(x, "id", succ);
                end(x);
            }
            end(x);
        }
        if (l->n_widths == 0) {
            sim_poly3 w = {0, l->width, 0, 0, 0};
            poly(x, "width", "sOffset", &w);
        }
        for (int i = 0; i < l->n_widths; i++) poly(x, "width", "sOffset", &l->widths[i]);
    }
    if (l->n_marks == 0) {
        start(x, "roadMark");
        num(x, "sOffset", 0);
        attr(x, "type", mark_name(l->mark));
        attr(x, "color", "standard");
        end(x);
    }
    for (int i = 0; i < l->n_marks; i++) {
        const sim_road_mark *m = &l->marks[i];
        start(x, "roadMark");
        num(x, "sOffset", m->s_offset);
        attr(x, "type", mark_name(m->type));
        attr(x, "color", color_name(m->color));
        num(x, "width", m->width);
        end(x);
    }
    for (int i = 0; i < l->n_speeds; i++) speed(x, l->speeds[i].s_offset, l->speeds[i].speed);
    /* A lane without records of its own gets the road's limits: netconvert takes lane
     * speeds, not the road type's, and without them SUMO's cars drive at its type map's
     * default (50 km/h) on a motorway. */
    const sim_road *r = &net->roads[road];
    const sim_lane_section *ls = &r->sections[sec];
    for (int i = 0; id != 0 && l->n_speeds == 0 && i < r->n_limits; i++) {
        const sim_speed_limit *lim = &r->limits[i];
        if (lim->s_end > ls->s0 && lim->s_start < ls->s1) speed(x, fmax(lim->s_start - ls->s0, 0), lim->speed);
    }
    end(x);
}

static void lanes(xw *x, const sim_roadnet *net, int road)
{
    const sim_road *r = &net->roads[road];
    start(x, "lanes");
    for (int i = 0; i < r->n_lane_offset; i++) poly(x, "laneOffset", "s", &r->lane_offset[i]);
    for (int k = 0; k < r->n_sections; k++) {
        const sim_lane_section *ls = &r->sections[k];
        start(x, "laneSection");
        num(x, "s", ls->s0);
        if (ls->n_left) {
            start(x, "left");
            for (int i = ls->n_left; i >= 1; i--) lane(x, net, road, k, &ls->left[i - 1], i);
            end(x);
        }
        start(x, "center");
        lane(x, net, road, k, &ls->center, 0);
        end(x);
        if (ls->n_right) {
            start(x, "right");
            for (int i = 1; i <= ls->n_right; i++) lane(x, net, road, k, &ls->right[i - 1], -i);
            end(x);
        }
        end(x);
    }
    end(x);
}

static void road(xw *x, const sim_roadnet *net, int ri)
{
    const sim_road *r = &net->roads[ri];
    start(x, "road");
    if (r->name) attr(x, "name", r->name);
    num(x, "length", r->length);
    attr(x, "id", r->id);
    bool in_junction = r->junction >= 0 && r->junction < net->n_junctions;
    attr(x, "junction", in_junction ? net->junctions[r->junction].id : "-1");
    if (r->left_hand) attr(x, "rule", "LHT");
    start(x, "link");
    road_link(x, net, "predecessor", &r->pred);
    road_link(x, net, "successor", &r->succ);
    end(x);
    road_types(x, r);
    plan_view(x, r);
    start(x, "elevationProfile");
    if (r->elev_mode == SIM_ELEV_PROFILE)
        for (int i = 0; i < r->n_elevation; i++) poly(x, "elevation", "s", &r->elevation[i]);
    end(x);
    start(x, "lateralProfile");
    for (int i = 0; i < r->n_superelevation; i++) poly(x, "superelevation", "s", &r->superelevation[i]);
    end(x);
    lanes(x, net, ri);
    end(x);
}

static void junction(xw *x, const sim_roadnet *net, const sim_junction *j)
{
    start(x, "junction");
    if (j->name) attr(x, "name", j->name);
    attr(x, "id", j->id);
    for (int c = 0; c < j->n_conns; c++) {
        const sim_connection *cn = &j->conns[c];
        if (cn->incoming < 0 || cn->incoming >= net->n_roads || cn->connecting < 0 || cn->connecting >= net->n_roads)
            continue;
        start(x, "connection");
        inum(x, "id", c);
        attr(x, "incomingRoad", net->roads[cn->incoming].id);
        attr(x, "connectingRoad", net->roads[cn->connecting].id);
        attr(x, "contactPoint", cn->contact == SIM_CONTACT_START ? "start" : "end");
        for (int k = 0; k < cn->n_lanes; k++) {
            start(x, "laneLink");
            inum(x, "from", cn->lanes[k].from);
            inum(x, "to", cn->lanes[k].to);
            end(x);
        }
        end(x);
    }
    end(x);
}

int sim_xodr_write(const sim_roadnet *net, const char *name, char **out, size_t *len, sim_error *err)
{
    *out = NULL;
    *len = 0;
    for (int i = 0; i < net->n_roads; i++) {
        const sim_road *r = &net->roads[i];
        if (r->n_geoms == 0 || r->n_sections == 0)
            return sim_error_set(err, SIM_EINVAL, "road \"%s\": has no %s, which OpenDRIVE needs", r->id,
                                 r->n_geoms ? "lane section" : "geometry");
    }
    xmlBufferPtr buf = xmlBufferCreate();
    xw x = {buf ? xmlNewTextWriterMemory(buf, 0) : NULL, false};
    if (!x.w) {
        if (buf) xmlBufferFree(buf);
        return sim_error_set(err, SIM_ENOMEM, "out of memory for the OpenDRIVE text");
    }
    xmlTextWriterSetIndent(x.w, 1);
    xmlTextWriterSetIndentString(x.w, BAD_CAST "  ");
    if (xmlTextWriterStartDocument(x.w, NULL, "UTF-8", NULL) < 0) x.bad = true;
    start(&x, "OpenDRIVE");
    start(&x, "header");
    attr(&x, "revMajor", "1");
    attr(&x, "revMinor", "4");
    attr(&x, "name", name ? name : "");
    attr(&x, "version", "1.00");
    if (net->geo_reference) {
        start(&x, "geoReference");
        if (xmlTextWriterWriteCDATA(x.w, BAD_CAST net->geo_reference) < 0) x.bad = true;
        end(&x);
    }
    end(&x);
    for (int i = 0; i < net->n_roads; i++) road(&x, net, i);
    for (int j = 0; j < net->n_junctions; j++) junction(&x, net, &net->junctions[j]);
    end(&x);
    if (xmlTextWriterEndDocument(x.w) < 0) x.bad = true;
    xmlFreeTextWriter(x.w); /* flushes into buf */
    int rc = SIM_OK;
    if (x.bad) {
        rc = sim_error_set(err, SIM_ENOMEM, "out of memory writing the OpenDRIVE text");
    } else {
        size_t n = (size_t)xmlBufferLength(buf);
        *out = malloc(n + 1);
        if (!*out) {
            rc = sim_error_set(err, SIM_ENOMEM, "out of memory for %zu bytes of OpenDRIVE text", n);
        } else {
            memcpy(*out, xmlBufferContent(buf), n);
            (*out)[n] = 0;
            *len = n;
        }
    }
    xmlBufferFree(buf);
    return rc;
}
