/* sim_xodr_lanes: an OpenDRIVE road's <lanes> (laneOffset, laneSection, lane with link,
 * width, roadMark, speed) read into sim_lane_section / sim_lane (see sim_xodr.h). */
#include "sim_xodr_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int count_children(const xmlNode *n, const char *name)
{
    int k = 0;
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next) k += xodr_is(c, name);
    return k;
}

/* A <... s/sOffset a b c d> record. */
static bool read_poly(xodr_parser *P, const xmlNode *n, const char *skey, sim_poly3 *out)
{
    bool ok = xodr_num(P, n, skey, true, 0, &out->s0);
    ok = ok && xodr_num(P, n, "a", false, 0, &out->a) && xodr_num(P, n, "b", false, 0, &out->b);
    ok = ok && xodr_num(P, n, "c", false, 0, &out->c) && xodr_num(P, n, "d", false, 0, &out->d);
    return ok;
}

static int by_s0(const void *a, const void *b)
{
    double x = ((const sim_poly3 *)a)->s0, y = ((const sim_poly3 *)b)->s0;
    return x < y ? -1 : x > y;
}

/* All <name> children of n as records sorted by s (stable for equal s: the later
 * record wins, as in the file). */
int xodr_read_polys(xodr_parser *P, const xmlNode *n, const char *name, const char *skey,
                    sim_poly3 **out, int *n_out)
{
    int k = count_children(n, name);
    *out = NULL;
    *n_out = 0;
    if (k == 0) return SIM_OK;
    sim_poly3 *v = calloc((size_t)k, sizeof *v);
    if (!v) return xodr_fail(P, n, SIM_ENOMEM, "out of memory");
    int m = 0;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (!xodr_is(c, name)) continue;
        if (!read_poly(P, c, skey, &v[m])) {
            free(v);
            return P->rc;
        }
        m++;
    }
    /* Insertion sort keeps file order among equal s (qsort is not stable). */
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && by_s0(&v[j - 1], &v[j]) > 0; j--) {
            sim_poly3 t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    *out = v;
    *n_out = m;
    return SIM_OK;
}

static const struct {
    const char *name;
    sim_mark_type type;
} mark_types[] = {
    {"none", SIM_MARK_NONE},           {"solid", SIM_MARK_SOLID},
    {"broken", SIM_MARK_DASHED},       {"solid solid", SIM_MARK_SOLID_SOLID},
    {"solid broken", SIM_MARK_SOLID_DASHED}, {"broken solid", SIM_MARK_DASHED_SOLID},
    {"broken broken", SIM_MARK_DASHED_DASHED}, {"botts dots", SIM_MARK_BOTTS_DOTS},
    {"grass", SIM_MARK_GRASS},         {"curb", SIM_MARK_CURB},
    {"custom", SIM_MARK_OTHER},        {"edge", SIM_MARK_OTHER},
};
static const char *const colors[] = {"standard", "yellow", "blue", "green", "red", "orange", "white"};

static int read_marks(xodr_parser *P, const xmlNode *ln, sim_lane *l)
{
    int k = count_children(ln, "roadMark");
    if (k == 0) return SIM_OK;
    if (!(l->marks = calloc((size_t)k, sizeof *l->marks))) return xodr_fail(P, ln, SIM_ENOMEM, "out of memory");
    for (const xmlNode *c = ln->children; c; c = c->next) {
        if (!xodr_is(c, "roadMark")) continue;
        sim_road_mark *m = &l->marks[l->n_marks];
        char buf[40];
        if (!xodr_num(P, c, "sOffset", false, 0, &m->s_offset) || !xodr_num(P, c, "width", false, 0.12, &m->width))
            return P->rc;
        m->type = SIM_MARK_OTHER;
        if (xodr_str(c, "type", buf, sizeof buf)) {
            bool found = false;
            for (size_t i = 0; i < sizeof mark_types / sizeof mark_types[0]; i++)
                if (strcasecmp(buf, mark_types[i].name) == 0) m->type = mark_types[i].type, found = true;
            if (!found) xodr_unsupported(P, "roadMark type");
        }
        m->color = SIM_COLOR_WHITE;
        if (xodr_str(c, "color", buf, sizeof buf)) {
            int ci = -1;
            for (int i = 0; i < (int)(sizeof colors / sizeof colors[0]); i++)
                if (strcasecmp(buf, colors[i]) == 0) ci = i;
            if (ci < 0) xodr_unsupported(P, "roadMark color");
            m->color = ci <= 0 || ci == 6 ? SIM_COLOR_WHITE : (sim_mark_color)ci;
        }
        for (const xmlNode *d = c->children; d; d = d->next)
            if (d->type == XML_ELEMENT_NODE) xodr_unsupported(P, "roadMark detail");
        l->n_marks++;
    }
    l->mark = l->marks[0].type;
    return SIM_OK;
}

static int read_lane(xodr_parser *P, const xmlNode *ln, sim_lane *l)
{
    char buf[40];
    l->type = SIM_LANE_NONE;
    if (xodr_str(ln, "type", buf, sizeof buf)) {
        int t = -1;
        for (int i = 0; i < SIM_LANE_TYPE_COUNT && t < 0; i++)
            if (strcasecmp(buf, sim_lane_type_name((sim_lane_type)i)) == 0) t = i;
        if (t < 0 && strncasecmp(buf, "special", 7) == 0) t = SIM_LANE_SPECIAL;
        if (t < 0 && (strcasecmp(buf, "walking") == 0)) t = SIM_LANE_SIDEWALK;
        if (t < 0) xodr_unsupported(P, "lane type");
        l->type = t < 0 ? SIM_LANE_NONE : (sim_lane_type)t;
    }
    l->level = xodr_str(ln, "level", buf, sizeof buf) && (strcmp(buf, "true") == 0 || strcmp(buf, "1") == 0);
    int rc = xodr_read_polys(P, ln, "width", "sOffset", &l->widths, &l->n_widths);
    if (rc) return rc;
    if ((rc = read_marks(P, ln, l))) return rc;
    int ns = count_children(ln, "speed");
    if (ns && !(l->speeds = calloc((size_t)ns, sizeof *l->speeds))) return xodr_fail(P, ln, SIM_ENOMEM, "out of memory");
    for (const xmlNode *c = ln->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (xodr_is(c, "link")) {
            for (const xmlNode *k = c->children; k; k = k->next) {
                if (xodr_is(k, "predecessor") && !xodr_int(P, k, "id", true, 0, &l->pred)) return P->rc;
                if (xodr_is(k, "successor") && !xodr_int(P, k, "id", true, 0, &l->succ)) return P->rc;
            }
        } else if (xodr_is(c, "speed")) {
            sim_lane_speed *sp = &l->speeds[l->n_speeds];
            if (!xodr_num(P, c, "sOffset", false, 0, &sp->s_offset) || !xodr_speed(P, c, &sp->speed)) return P->rc;
            l->n_speeds++;
        } else if (!xodr_is(c, "width") && !xodr_is(c, "roadMark")) {
            xodr_skip(P, c);
        }
    }
    if (l->n_widths == 0 && l->id != 0) {
        /* A lane without width records has width 0 (libOpenDRIVE and esmini agree). */
        l->width = 0.0;
    }
    return SIM_OK;
}

/* The lanes of <left> or <right>: ids must be 1..n (or -1..-n) in any order. */
static int read_side(xodr_parser *P, const xmlNode *side, int sign, sim_lane **out, int *n_out)
{
    int n = count_children(side, "lane");
    *out = NULL;
    *n_out = 0;
    if (n == 0) return SIM_OK;
    sim_lane *v = calloc((size_t)n, sizeof *v);
    if (!v) return xodr_fail(P, side, SIM_ENOMEM, "out of memory");
    *out = v;
    *n_out = n; /* freed by the road even when a lane fails half read */
    bool *seen = calloc((size_t)n, sizeof *seen);
    if (!seen) return xodr_fail(P, side, SIM_ENOMEM, "out of memory");
    int rc = SIM_OK;
    for (const xmlNode *c = side->children; c && !rc; c = c->next) {
        if (!xodr_is(c, "lane")) continue;
        int id;
        if (!xodr_int(P, c, "id", true, 0, &id)) {
            rc = P->rc;
            break;
        }
        int k = id * sign; /* 1..n expected */
        if (k < 1 || k > n || seen[k - 1]) {
            rc = xodr_fail(P, c, SIM_EINVAL, "has id %d, expected one of %d..%d once in <%s>", id, sign,
                           sign * n, side->name);
            break;
        }
        seen[k - 1] = true;
        v[k - 1].id = id;
        rc = read_lane(P, c, &v[k - 1]);
    }
    free(seen);
    return rc;
}

static int read_section(xodr_parser *P, const xmlNode *sec, sim_lane_section *ls)
{
    if (!xodr_num(P, sec, "s", true, 0, &ls->s0)) return P->rc;
    int rc = SIM_OK;
    bool left = false, right = false, center = false;
    for (const xmlNode *c = sec->children; c && !rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        bool *once = xodr_is(c, "left") ? &left : xodr_is(c, "right") ? &right : xodr_is(c, "center") ? &center : NULL;
        if (once && *once) return xodr_fail(P, c, SIM_EINVAL, "again, expected one per <laneSection>");
        if (once) *once = true;
        if (xodr_is(c, "left")) rc = read_side(P, c, 1, &ls->left, &ls->n_left);
        else if (xodr_is(c, "right")) rc = read_side(P, c, -1, &ls->right, &ls->n_right);
        else if (xodr_is(c, "center")) {
            int n = 0;
            for (const xmlNode *k = c->children; k && !rc; k = k->next) {
                if (!xodr_is(k, "lane")) continue;
                if (n++) return xodr_fail(P, k, SIM_EINVAL, "again in <center>, expected the one centre lane");
                rc = read_lane(P, k, &ls->center);
            }
        } else xodr_skip(P, c);
    }
    if (!rc) P->rep->n_lanes += ls->n_left + ls->n_right;
    return rc;
}

int xodr_read_lanes(xodr_parser *P, const xmlNode *lanes, sim_road *r)
{
    int rc = xodr_read_polys(P, lanes, "laneOffset", "s", &r->lane_offset, &r->n_lane_offset);
    if (rc) return rc;
    P->rep->n_lane_offset += r->n_lane_offset;
    int n = count_children(lanes, "laneSection");
    if (n == 0) return xodr_fail(P, lanes, SIM_EINVAL, "has no <laneSection>, expected at least one");
    if (!(r->sections = calloc((size_t)n, sizeof *r->sections))) return xodr_fail(P, lanes, SIM_ENOMEM, "out of memory");
    for (const xmlNode *c = lanes->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || xodr_is(c, "laneOffset")) continue;
        if (!xodr_is(c, "laneSection")) {
            xodr_skip(P, c);
            continue;
        }
        sim_lane_section *ls = &r->sections[r->n_sections++];
        if ((rc = read_section(P, c, ls))) return rc;
        if (r->n_sections == 1 && fabs(ls->s0) < 1e-9) ls->s0 = 0.0;
        if (r->n_sections == 1 && ls->s0 != 0.0)
            return xodr_fail(P, c, SIM_EINVAL, "has s %g, expected the first lane section at s 0", ls->s0);
        if (r->n_sections > 1 && ls->s0 < r->sections[r->n_sections - 2].s0)
            return xodr_fail(P, c, SIM_EINVAL, "has s %g, expected s >= %g (the lane section before it)", ls->s0,
                             r->sections[r->n_sections - 2].s0);
    }
    P->rep->n_sections += r->n_sections;
    return SIM_OK;
}
