/* sim_xodr_objects: a road's OpenDRIVE <objects> and <signals> (see sim_xodr.h).
 *
 * Objects become sim_world_objects in net->objects: kind from their type, position
 * from (s, t) on the road, size from length/width/height (or radius), footprint from
 * <outline> corners; a <repeat> is expanded into one object per `distance` (or, with
 * distance 0, a continuous object such as a guard rail into segments of at most
 * SEGMENT_MAX m that follow the road).
 *
 * Signals: speed-limit signs (German 274, Swedish C31, Chinese "jin", OpenDRIVE 274,
 * or an esmini-style name "de_274-50") become the speed records of the lanes they
 * face, up to the next sign for those lanes, and drawn signs (sim_sign); stop, yield
 * and priority-road signs (206, 205, 306) become drawn signs, stop signs also the
 * junction rule; traffic-light heads (dynamic types 1000xxx) become net->lights heads
 * with their stop line at the signal's s. Other signals are counted per country and
 * type in the report. Runs once the network is built (poses need the geometry). */
#include "sim_xodr.h"
#include "sim_xodr_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEGMENT_MAX 10.0   /* m: longest piece of a continuous repeated object */
#define REPEAT_MAX 100000  /* objects one <repeat> may make (the file's budget is the road length) */

/* ---- objects ---------------------------------------------------------------------- */

static sim_object_kind object_kind(const char *type, const char *name)
{
    static const struct { const char *type; sim_object_kind kind; } map[] = {
        {"pole", SIM_OBJ_POLE},          {"rail-pole", SIM_OBJ_POLE},       {"guide-post", SIM_OBJ_DELINEATOR},
        {"delineator", SIM_OBJ_DELINEATOR}, {"railing", SIM_OBJ_GUARD_RAIL}, {"guardRail", SIM_OBJ_GUARD_RAIL},
        {"tree", SIM_OBJ_TREE},          {"vegetation", SIM_OBJ_BUSH},      {"building", SIM_OBJ_BUILDING},
        {"streetLamp", SIM_OBJ_STREET_LIGHT}, {"gantry", SIM_OBJ_GANTRY},   {"curb", SIM_OBJ_KERB},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(map[i].type, type) == 0) return map[i].kind;
    if (strcmp(type, "barrier") == 0) return strstr(name, "uard") ? SIM_OBJ_GUARD_RAIL : SIM_OBJ_BARRIER;
    return SIM_OBJ_BOX;
}

static int add_object(xodr_parser *P, const xmlNode *n, const sim_world_object *o)
{
    if (!sim_object_list_add(&P->net->objects, o)) return xodr_fail(P, n, SIM_ENOMEM, "out of memory");
    P->rep->n_objects_placed++;
    P->rep->n_by_kind[o->kind]++;
    return SIM_OK;
}

/* Base of an object at (s, t) on road ri with zoff over the surface. */
static void place(xodr_parser *P, int ri, double s, double t, double zoff, double hdg, sim_world_object *o)
{
    sim_road_pose pose;
    sim_road_pose_at(P->net, ri, s, t, &pose); /* s is clamped to the road: checked before */
    o->x = pose.x;
    o->y = pose.y;
    o->z = pose.z + zoff;
    o->heading = pose.heading + hdg;
}

/* <outline> corners (cornerLocal u, v relative to the object; cornerRoad s, t) as
 * world points. The first outline of an object (1.4: <outline> directly, 1.5+:
 * <outlines><outline>). */
static int read_outline(xodr_parser *P, const xmlNode *on, int ri, sim_world_object *o, double **pts, int *n)
{
    int cap = 0;
    for (const xmlNode *c = on->children; c; c = c->next) cap += xodr_is(c, "cornerLocal") || xodr_is(c, "cornerRoad");
    if (cap == 0) return SIM_OK;
    if (!(*pts = malloc((size_t)cap * 2 * sizeof **pts))) return xodr_fail(P, on, SIM_ENOMEM, "out of memory");
    double ch = cos(o->heading), sh = sin(o->heading);
    for (const xmlNode *c = on->children; c; c = c->next) {
        double a, b, h = 0;
        if (xodr_is(c, "cornerLocal")) {
            if (!xodr_num(P, c, "u", true, 0, &a) || !xodr_num(P, c, "v", true, 0, &b) ||
                !xodr_num(P, c, "height", false, 0, &h))
                return P->rc;
            (*pts)[2 * *n] = o->x + a * ch - b * sh;
            (*pts)[2 * *n + 1] = o->y + a * sh + b * ch;
        } else if (xodr_is(c, "cornerRoad")) {
            if (!xodr_num(P, c, "s", true, 0, &a) || !xodr_num(P, c, "t", true, 0, &b) ||
                !xodr_num(P, c, "height", false, 0, &h))
                return P->rc;
            sim_road_pose pose;
            sim_road_pose_at(P->net, ri, a, b, &pose);
            (*pts)[2 * *n] = pose.x;
            (*pts)[2 * *n + 1] = pose.y;
        } else {
            continue;
        }
        if (h > o->height) o->height = h;
        (*n)++;
    }
    return SIM_OK;
}

static int read_repeat(xodr_parser *P, const xmlNode *rp, int ri, const sim_world_object *proto, double hdg,
                       double zoff)
{
    const sim_road *r = &P->net->roads[ri];
    double s0, len, dist, t0, t1, h0, h1, w0, w1, z0, z1;
    bool ok = xodr_num(P, rp, "s", true, 0, &s0) && xodr_num(P, rp, "length", true, 0, &len) &&
              xodr_num(P, rp, "distance", true, 0, &dist) && xodr_num(P, rp, "tStart", true, 0, &t0) &&
              xodr_num(P, rp, "tEnd", true, 0, &t1) && xodr_num(P, rp, "heightStart", false, proto->height, &h0) &&
              xodr_num(P, rp, "heightEnd", false, proto->height, &h1) &&
              xodr_num(P, rp, "widthStart", false, proto->width, &w0) &&
              xodr_num(P, rp, "widthEnd", false, proto->width, &w1) &&
              xodr_num(P, rp, "zOffsetStart", false, zoff, &z0) && xodr_num(P, rp, "zOffsetEnd", false, zoff, &z1);
    if (!ok) return P->rc;
    if (len < 0 || dist < 0) return xodr_fail(P, rp, SIM_ERANGE, "has length %g, distance %g, expected both >= 0", len, dist);
    /* what lies beyond the road's end is not placed (files often say validLength 1000) */
    double end = fmin(s0 + len, r->length);
    if (s0 < 0 || s0 > r->length) return xodr_fail(P, rp, SIM_ERANGE, "has s %g, expected 0..%g (the road)", s0, r->length);
    double span = end - s0;
    if (dist > 0 && span / dist > REPEAT_MAX)
        return xodr_fail(P, rp, SIM_ETOOBIG, "makes %.0f objects, expected at most %d", span / dist, REPEAT_MAX);
    int n = dist > 0 ? (int)floor(span / dist + 1e-9) + 1 : (int)ceil(span / SEGMENT_MAX - 1e-9);
    if (dist <= 0 && n < 1) n = 1;
    for (int k = 0; k < n; k++) {
        double a = dist > 0 ? s0 + k * dist : s0 + span * k / n;
        double b = dist > 0 ? a : s0 + span * (k + 1) / n;
        double f = span > 0 ? (0.5 * (a + b) - s0) / span : 0;
        sim_world_object o = *proto;
        o.outline = NULL;
        o.n_outline = 0;
        o.height = h0 + f * (h1 - h0);
        o.width = w0 + f * (w1 - w0);
        double t = t0 + f * (t1 - t0), z = z0 + f * (z1 - z0);
        if (dist > 0) {
            place(P, ri, a, t, z, hdg, &o);
            /* a rail repeated without a length of its own reaches the next one */
            bool segment = o.kind == SIM_OBJ_GUARD_RAIL || o.kind == SIM_OBJ_BARRIER || o.kind == SIM_OBJ_KERB;
            if (segment && o.length == 0) o.length = dist;
        } else { /* a continuous piece from a to b: a chord of the road at t */
            sim_road_pose pa, pb;
            sim_road_pose_at(P->net, ri, a, t0 + (a - s0) / (span > 0 ? span : 1) * (t1 - t0), &pa);
            sim_road_pose_at(P->net, ri, b, t0 + (b - s0) / (span > 0 ? span : 1) * (t1 - t0), &pb);
            o.x = 0.5 * (pa.x + pb.x);
            o.y = 0.5 * (pa.y + pb.y);
            o.z = 0.5 * (pa.z + pb.z) + z;
            o.heading = atan2(pb.y - pa.y, pb.x - pa.x);
            o.length = hypot(pb.x - pa.x, pb.y - pa.y);
        }
        int rc = add_object(P, rp, &o);
        if (rc) return rc;
    }
    return SIM_OK;
}

static int read_object(xodr_parser *P, const xmlNode *on, int ri)
{
    const sim_road *r = &P->net->roads[ri];
    char type[64] = "none", name[128] = "", id[128] = "";
    xodr_str(on, "type", type, sizeof type);
    xodr_str(on, "name", name, sizeof name);
    xodr_str(on, "id", id, sizeof id);
    double s, t, zoff, hdg, len, wid, hgt, rad;
    bool ok = xodr_num(P, on, "s", true, 0, &s) && xodr_num(P, on, "t", true, 0, &t) &&
              xodr_num(P, on, "zOffset", false, 0, &zoff) && xodr_num(P, on, "hdg", false, 0, &hdg) &&
              xodr_num(P, on, "length", false, 0, &len) && xodr_num(P, on, "width", false, 0, &wid) &&
              xodr_num(P, on, "height", false, 0, &hgt) && xodr_num(P, on, "radius", false, 0, &rad);
    if (!ok) return P->rc;
    if (s < 0 || s > r->length + 1e-6)
        return xodr_fail(P, on, SIM_ERANGE, "id %s has s %g, expected 0..%g (the road's length)", id, s, r->length);
    if (len < 0 || wid < 0 || hgt < 0 || rad < 0)
        return xodr_fail(P, on, SIM_ERANGE, "id %s has a negative size, expected length, width, height, radius >= 0", id);
    if (rad > 0 && len == 0 && wid == 0) len = wid = 2 * rad;
    P->rep->n_objects++;
    sim_world_object o = {.kind = object_kind(type, name), .id = id, .length = len, .width = wid, .height = hgt};
    place(P, ri, fmin(s, r->length), t, zoff, hdg, &o);
    double *pts = NULL;
    int n_pts = 0, rc = SIM_OK;
    bool repeated = false;
    for (const xmlNode *c = on->children; c && !rc; c = c->next) {
        if (xodr_is(c, "repeat")) {
            rc = read_repeat(P, c, ri, &o, hdg, zoff);
            repeated = true;
        } else if (xodr_is(c, "outline") && !pts) {
            rc = read_outline(P, c, ri, &o, &pts, &n_pts);
        } else if (xodr_is(c, "outlines")) {
            for (const xmlNode *k = c->children; k && !rc && !pts; k = k->next)
                if (xodr_is(k, "outline")) rc = read_outline(P, k, ri, &o, &pts, &n_pts);
        } else if (xodr_is(c, "validity") || xodr_is(c, "userData")) {
            continue; /* which lanes it concerns: nothing to draw */
        } else if (c->type == XML_ELEMENT_NODE) {
            xodr_skip(P, c); /* material, parkingSpace, markings, borders... */
        }
    }
    if (!rc && !repeated) {
        o.outline = pts;
        o.n_outline = n_pts;
        rc = add_object(P, on, &o);
    }
    free(pts);
    return rc;
}

/* ---- signals ---------------------------------------------------------------------- */

typedef struct speed_sign {
    double s, speed;          /* m, m/s (0: the limit ends) */
    int dir;                  /* +1 along s, -1 against, 0 both */
    int from, to;             /* lane ids it is valid for (both 0: all) */
} speed_sign;

/* Speed in km/h of a speed-limit sign, or -1 when the signal is no such sign. */
static double speed_sign_kmh(const char *country, const char *type, const char *subtype, double value,
                             const char *name)
{
    bool de = !strcmp(country, "de") || !strcmp(country, "DE") || !strcmp(country, "DEU");
    if ((de || !strcmp(country, "OpenDRIVE") || !country[0]) && !strcmp(type, "274")) return value;
    if ((!strcmp(country, "se") || !strcmp(country, "SE")) && !strcmp(type, "c") && !strcmp(subtype, "31"))
        return value < 20 ? value * 10 : value; /* C31-5 is 50 km/h */
    if ((!strcmp(country, "cn") || !strcmp(country, "CN")) && !strcmp(type, "jin")) return value;
    int kmh;
    char tail;
    if (!type[0] && sscanf(name, "%*2[a-z]_274-%d%c", &kmh, &tail) == 1 && kmh > 0) return kmh;
    return -1;
}

static int sign_kind(const char *type)
{
    if (!strcmp(type, "206")) return SIM_SIGN_STOP;
    if (!strcmp(type, "205")) return SIM_SIGN_YIELD;
    if (!strcmp(type, "306")) return SIM_SIGN_PRIORITY;
    return -1;
}

static bool is_light(const char *type, bool dynamic)
{
    return dynamic && strlen(type) == 7 && strncmp(type, "1000", 4) == 0;
}

static int add_sign(xodr_parser *P, const xmlNode *n, sim_road *r, const sim_sign *g)
{
    sim_sign *signs = realloc(r->signs, (size_t)(r->n_signs + 1) * sizeof *signs);
    if (!signs) return xodr_fail(P, n, SIM_ENOMEM, "out of memory");
    r->signs = signs;
    r->signs[r->n_signs++] = *g;
    return SIM_OK;
}

static int read_signal(xodr_parser *P, const xmlNode *sn, int ri, speed_sign **ss, int *n_ss)
{
    sim_road *r = &P->net->roads[ri];
    char id[128] = "", name[128] = "", country[32] = "", type[32] = "", subtype[32] = "", orient[8] = "+",
         dyn[8] = "no", unit[16] = "";
    xodr_str(sn, "id", id, sizeof id);
    xodr_str(sn, "name", name, sizeof name);
    xodr_str(sn, "country", country, sizeof country);
    xodr_str(sn, "type", type, sizeof type);
    xodr_str(sn, "subtype", subtype, sizeof subtype);
    xodr_str(sn, "orientation", orient, sizeof orient);
    xodr_str(sn, "dynamic", dyn, sizeof dyn);
    xodr_str(sn, "unit", unit, sizeof unit);
    double s, t, value, zoff, hoff, height, width;
    bool ok = xodr_num(P, sn, "s", true, 0, &s) && xodr_num(P, sn, "t", true, 0, &t) &&
              xodr_num(P, sn, "value", false, 0, &value) && xodr_num(P, sn, "zOffset", false, 0, &zoff) &&
              xodr_num(P, sn, "hOffset", false, 0, &hoff) && xodr_num(P, sn, "height", false, 0.3, &height) &&
              xodr_num(P, sn, "width", false, 0.3, &width);
    if (!ok) return P->rc;
    if (s < 0 || s > r->length + 1e-6)
        return xodr_fail(P, sn, SIM_ERANGE, "id %s has s %g, expected 0..%g (the road's length)", id, s, r->length);
    s = fmin(s, r->length);
    int dir = !strcmp(orient, "+") ? 1 : !strcmp(orient, "-") ? -1 : 0;
    P->rep->n_signals++;
    int from = 0, to = 0;
    for (const xmlNode *c = sn->children; c; c = c->next) {
        if (!xodr_is(c, "validity")) {
            if (c->type == XML_ELEMENT_NODE && !xodr_is(c, "userData")) xodr_skip(P, c);
            continue;
        }
        /* several <validity> ranges: the span of those on the sign's own side */
        int a, b;
        if (!xodr_int(P, c, "fromLane", true, 0, &a) || !xodr_int(P, c, "toLane", true, 0, &b)) return P->rc;
        if (a > b) return xodr_fail(P, c, SIM_EINVAL, "has fromLane %d > toLane %d", a, b);
        int lane = a != 0 ? a : b;
        if (dir != 0 && lane != 0 && sim_road_lane_forward(r, lane) != (dir > 0)) continue;
        bool first = from == 0 && to == 0;
        from = first ? a : (a < from ? a : from);
        to = first ? b : (b > to ? b : to);
    }
    if (is_light(type, !strcmp(dyn, "yes"))) {
        sim_road_pose pose;
        sim_road_pose_at(P->net, ri, s, t, &pose);
        sim_light_head h = {.id = id, .kind = !strcmp(type, "1000002") || !strcmp(type, "1000007") ? SIM_HEAD_PEDESTRIAN
                                                                                                     : SIM_HEAD_VEHICLE,
                            .road = ri, .s = s, .t = t, .orientation = dir, .lane_from = from, .lane_to = to,
                            .stop_s = s, .x = pose.x, .y = pose.y, .z = pose.z,
                            /* "+" faces the traffic coming along s */
                            .heading = pose.heading + (dir >= 0 ? M_PI : 0) + hoff, .z_offset = zoff,
                            .height = height, .width = width};
        sim_error e = {0};
        if (sim_lights_add_head(&P->net->lights, &h, &e) < 0) return xodr_fail(P, sn, e.code, "%s", e.msg);
        P->rep->n_light_heads++;
        return SIM_OK;
    }
    double kmh = speed_sign_kmh(country, type, subtype, value, name);
    if (kmh > 0) {
        double v = kmh / 3.6;
        if (!strcmp(unit, "m/s")) v = kmh;
        else if (!strcmp(unit, "mph")) v = kmh * 0.44704;
        else if (unit[0] && strcmp(unit, "km/h") != 0)
            return xodr_fail(P, sn, SIM_EINVAL, "id %s has unit \"%s\", expected km/h, m/s or mph", id, unit);
        speed_sign *g = realloc(*ss, (size_t)(*n_ss + 1) * sizeof *g);
        if (!g) return xodr_fail(P, sn, SIM_ENOMEM, "out of memory");
        *ss = g;
        g[(*n_ss)++] = (speed_sign){s, v, dir, from, to};
        P->rep->n_speed_signs++;
        return add_sign(P, sn, r, &(sim_sign){.type = SIM_SIGN_SPEED_LIMIT, .s = s, .d = t, .value = v, .facing = dir});
    }
    int k = sign_kind(type);
    if (k >= 0) {
        P->rep->n_rule_signs++;
        return add_sign(P, sn, r, &(sim_sign){.type = (sim_sign_type)k, .s = s, .d = t, .facing = dir});
    }
    char what[112]; /* "signal " and three fields of at most 31 characters each */
    snprintf(what, sizeof what, "signal %s/%s%s%s", country[0] ? country : "-", type[0] ? type : "-",
             subtype[0] && strcmp(subtype, "-1") ? "-" : "", subtype[0] && strcmp(subtype, "-1") ? subtype : "");
    xodr_unsupported(P, what);
    return SIM_OK;
}

static bool sign_applies(const sim_road *r, const speed_sign *g, int lane, int dir)
{
    if (g->dir != 0 && g->dir != dir) return false;
    if ((g->from || g->to) && (lane < g->from || lane > g->to)) return false;
    (void)r;
    return true;
}

/* The limit a driver on lane `lane` (travelling dir) has just after road s = x, from
 * the signs it passed; orig when it passed none. */
static double signed_limit(const sim_road *r, const speed_sign *ss, int n, int lane, int dir, double x, double orig)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!sign_applies(r, &ss[i], lane, dir)) continue;
        bool passed = dir > 0 ? ss[i].s <= x : ss[i].s > x;
        if (!passed) continue;
        if (best < 0 || (dir > 0 ? ss[i].s > ss[best].s : ss[i].s < ss[best].s)) best = i;
    }
    return best < 0 ? orig : ss[best].speed;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Speed signs become the lane speed records of the lanes they face, from the sign on
 * in the direction of travel; elsewhere the lane keeps what the file said. */
static int apply_speed_signs(xodr_parser *P, const xmlNode *at, sim_road *r, const speed_sign *ss, int n)
{
    if (n == 0) return SIM_OK;
    for (int si = 0; si < r->n_sections; si++) {
        sim_lane_section *sec = &r->sections[si];
        for (int side = 0; side < 2; side++) {
            sim_lane *lanes = side ? sec->left : sec->right;
            int nl = side ? sec->n_left : sec->n_right;
            for (int k = 0; k < nl; k++) {
                sim_lane *l = &lanes[k];
                int dir = sim_road_lane_forward(r, l->id) ? 1 : -1;
                int cap = 2 + n + l->n_speeds + 2 * r->n_limits, nb = 0;
                double *bp = malloc((size_t)cap * sizeof *bp);
                sim_lane_speed *out = malloc((size_t)cap * sizeof *out);
                if (!bp || !out) {
                    free(bp);
                    free(out);
                    return xodr_fail(P, at, SIM_ENOMEM, "out of memory");
                }
                bp[nb++] = sec->s0;
                for (int i = 0; i < n; i++)
                    if (ss[i].s > sec->s0 && ss[i].s < sec->s1) bp[nb++] = ss[i].s;
                for (int i = 0; i < l->n_speeds; i++) bp[nb++] = sec->s0 + l->speeds[i].s_offset;
                for (int i = 0; i < r->n_limits; i++) {
                    bp[nb++] = r->limits[i].s_start;
                    bp[nb++] = r->limits[i].s_end;
                }
                qsort(bp, (size_t)nb, sizeof *bp, cmp_double);
                int no = 0;
                for (int i = 0; i < nb; i++) {
                    if (bp[i] < sec->s0 || bp[i] >= sec->s1 || (i > 0 && bp[i] == bp[i - 1])) continue;
                    double probe = fmin(bp[i] + 1e-6, sec->s1);
                    double orig = sim_road_lane_speed_limit(r, probe, l->id);
                    double v = signed_limit(r, ss, n, l->id, dir, bp[i], orig);
                    if (no > 0 && out[no - 1].speed == v) continue;
                    out[no++] = (sim_lane_speed){bp[i] - sec->s0, v};
                }
                free(bp);
                /* replaced only after every record was computed from the old ones */
                free(l->speeds);
                l->speeds = out;
                l->n_speeds = no;
            }
        }
    }
    return SIM_OK;
}

int xodr_read_roadside(xodr_parser *P, const xmlNode *rn, int ri)
{
    speed_sign *ss = NULL;
    int n_ss = 0, rc = SIM_OK;
    for (const xmlNode *c = rn->children; c && !rc; c = c->next) {
        if (xodr_is(c, "objects")) {
            P->rep->n_object_containers++;
            for (const xmlNode *k = c->children; k && !rc; k = k->next) {
                if (xodr_is(k, "object")) rc = read_object(P, k, ri);
                else if (k->type == XML_ELEMENT_NODE) xodr_skip(P, k); /* objectReference, tunnel, bridge */
            }
        } else if (xodr_is(c, "signals")) {
            P->rep->n_signal_containers++;
            for (const xmlNode *k = c->children; k && !rc; k = k->next) {
                if (xodr_is(k, "signal")) rc = read_signal(P, k, ri, &ss, &n_ss);
                else if (k->type == XML_ELEMENT_NODE) xodr_skip(P, k); /* signalReference */
            }
        }
    }
    if (!rc) rc = apply_speed_signs(P, rn, &P->net->roads[ri], ss, n_ss);
    free(ss);
    return rc;
}
