/* sim_scenery.c - placing roadside objects by rule along the roads (sim_scenery.h). */
#include "sim_scenery.h"

#include <math.h>
#include <string.h>

#include "sim_terrain.h"
#include "sim_rand.h"

static const char *const style_names[SIM_SCENERY_STYLE_COUNT] = {"auto", "rural", "motorway", "town", "none"};
static const char *const rule_names[SIM_RULE_COUNT] = {
    [SIM_RULE_TREES] = "trees",         [SIM_RULE_BUSHES] = "bushes",     [SIM_RULE_DELINEATORS] = "delineators",
    [SIM_RULE_GUARD_RAILS] = "guard_rails", [SIM_RULE_BARRIER] = "barrier", [SIM_RULE_MARKERS] = "markers",
    [SIM_RULE_KERBS] = "kerbs",         [SIM_RULE_BUILDINGS] = "buildings", [SIM_RULE_STREET_LIGHTS] = "street_lights",
    [SIM_RULE_SUPPORTS] = "supports", [SIM_RULE_GANTRIES] = "gantries",
};

const char *const *sim_scenery_style_names(void) { return style_names; }

const char *sim_scenery_style_name(sim_scenery_style s)
{
    return (unsigned)s < SIM_SCENERY_STYLE_COUNT ? style_names[s] : NULL;
}

const char *sim_scenery_rule_name(sim_scenery_rule_id r)
{
    return (unsigned)r < SIM_RULE_COUNT ? rule_names[r] : NULL;
}

/* Defaults: {on, spacing, offset, depth} per style (rural, motorway, town). Delineator
 * posts stand every 50 m (German guideline), 0.5 m outside the paved edge; trees keep
 * 4.5 m from rural edges and more from motorways (safety zones), buildings stand behind
 * the sidewalk. */
static const sim_scenery_rule defaults[3][SIM_RULE_COUNT] = {
    /* rural */
    {[SIM_RULE_TREES] = {false, true, 14, 4.5, 30}, [SIM_RULE_BUSHES] = {false, true, 25, 2.5, 6},
     [SIM_RULE_DELINEATORS] = {false, true, 50, 0.5, 0}, [SIM_RULE_GUARD_RAILS] = {false, false, 4, 1.0, 0},
     [SIM_RULE_BARRIER] = {false, false, 6, 0, 0}, [SIM_RULE_MARKERS] = {false, false, 500, 1.5, 0},
     [SIM_RULE_KERBS] = {false, false, 4, 0, 0}, [SIM_RULE_BUILDINGS] = {false, false, 30, 4, 8},
     [SIM_RULE_STREET_LIGHTS] = {false, false, 30, 0.5, 0}, [SIM_RULE_SUPPORTS] = {false, true, 25, 0, 0},
     [SIM_RULE_GANTRIES] = {false, false, 2000, 1.5, 0}},
    /* motorway */
    {[SIM_RULE_TREES] = {false, true, 18, 12, 40}, [SIM_RULE_BUSHES] = {false, true, 30, 6, 6},
     [SIM_RULE_DELINEATORS] = {false, true, 50, 0.5, 0}, [SIM_RULE_GUARD_RAILS] = {false, true, 4, 0.3, 0},
     [SIM_RULE_BARRIER] = {false, true, 6, 0, 0}, [SIM_RULE_MARKERS] = {false, true, 500, 1.5, 0},
     [SIM_RULE_KERBS] = {false, false, 4, 0, 0}, [SIM_RULE_BUILDINGS] = {false, false, 30, 4, 8},
     [SIM_RULE_STREET_LIGHTS] = {false, false, 40, 1.0, 0}, [SIM_RULE_SUPPORTS] = {false, true, 25, 0, 0},
     [SIM_RULE_GANTRIES] = {false, true, 2000, 1.5, 0}},
    /* town */
    {[SIM_RULE_TREES] = {false, false, 20, 3, 4}, [SIM_RULE_BUSHES] = {false, false, 25, 1, 2},
     [SIM_RULE_DELINEATORS] = {false, false, 50, 0.5, 0}, [SIM_RULE_GUARD_RAILS] = {false, false, 4, 0.5, 0},
     [SIM_RULE_BARRIER] = {false, false, 6, 0, 0}, [SIM_RULE_MARKERS] = {false, false, 500, 1.5, 0},
     [SIM_RULE_KERBS] = {false, true, 4, 0, 0}, [SIM_RULE_BUILDINGS] = {false, true, 22, 3, 8},
     [SIM_RULE_STREET_LIGHTS] = {false, true, 30, 0.4, 0}, [SIM_RULE_SUPPORTS] = {false, true, 25, 0, 0},
     [SIM_RULE_GANTRIES] = {false, false, 2000, 1.5, 0}},
};

sim_scenery_rule sim_scenery_rule_for(const sim_scenery_config *c, sim_scenery_style style, sim_scenery_rule_id r)
{
    sim_scenery_rule out = {0};
    if (style < SIM_SCENERY_RURAL || style > SIM_SCENERY_TOWN || (unsigned)r >= SIM_RULE_COUNT)
        return out;
    out = defaults[style - SIM_SCENERY_RURAL][r];
    const sim_scenery_rule *o = &c->rules[r];
    if (o->set) {
        out.on = o->on;
        if (o->spacing > 0) out.spacing = o->spacing;
        if (o->offset >= 0) out.offset = o->offset;
        if (o->depth >= 0) out.depth = o->depth;
    }
    return out;
}

sim_scenery_style sim_scenery_road_style(const sim_road *r)
{
    bool median = false;
    for (int k = 0; k < r->n_sections; k++) {
        const sim_lane_section *sec = &r->sections[k];
        for (int side = 0; side < 2; side++) {
            const sim_lane *l = side ? sec->left : sec->right;
            int n = side ? sec->n_left : sec->n_right;
            for (int i = 0; i < n; i++) {
                if (l[i].type == SIM_LANE_SIDEWALK || l[i].type == SIM_LANE_CURB)
                    return SIM_SCENERY_TOWN;
                median |= l[i].type == SIM_LANE_MEDIAN;
            }
        }
    }
    return median ? SIM_SCENERY_MOTORWAY : SIM_SCENERY_RURAL;
}

/* splitmix64: a small, well-mixed generator; one stream per road, side and rule */
typedef struct rng { uint64_t s; } rng;
static double rng_unit(rng *g) { return sim_rand_unit(sim_rand_splitmix(&g->s)); }
static rng rng_for(uint32_t seed, const char *road_id, int side, int rule)
{
    uint64_t h = 1469598103934665603ull ^ seed;
    for (const char *c = road_id ? road_id : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    rng g = {h ^ ((uint64_t)(side + 2) << 40) ^ ((uint64_t)(rule + 1) << 48)};
    sim_rand_splitmix(&g.s);
    return g;
}

/* The cross-section on one side (+1 left, -1 right) at s: the outer edge (t of the
 * outermost lane's outer border), the kerb (inner border of the first sidewalk or curb
 * lane; NAN when none) and whether the innermost lane is a median. */
typedef struct side_info {
    double edge, kerb;
    bool median, any;
} side_info;

static void side_at(const sim_road *r, double s, int side, side_info *out)
{
    const sim_lane_section *sec = &r->sections[sim_road_section_at(r, s)];
    double ds = s - sec->s0, t = sim_road_lane_offset(r, s);
    const sim_lane *l = side > 0 ? sec->left : sec->right;
    int n = side > 0 ? sec->n_left : sec->n_right;
    out->kerb = NAN;
    out->median = n > 0 && l[0].type == SIM_LANE_MEDIAN;
    out->any = n > 0;
    for (int i = 0; i < n; i++) {
        if (isnan(out->kerb) && (l[i].type == SIM_LANE_SIDEWALK || l[i].type == SIM_LANE_CURB))
            out->kerb = t;
        t += side * sim_lane_width(&l[i], ds);
    }
    out->edge = t;
}

typedef struct placer {
    const sim_roadnet *net;
    sim_object_list *out;
    int added, max;
    bool nomem;
} placer;

static double ground(const sim_roadnet *net, double x, double y)
{
    return net->terrain ? sim_terrain_height(net->terrain, x, y) : 0.0;
}

static bool on_road(const sim_roadnet *net, double x, double y)
{
    sim_road_loc loc;
    return sim_roadnet_locate_on_road(net, x, y, &loc) == SIM_OK && loc.on_road;
}

static void add(placer *P, sim_object_kind kind, double x, double y, double z, double heading, double l, double w,
                double h, const char *id)
{
    if (P->nomem || P->added >= P->max)
        return;
    sim_world_object o = {.kind = kind, .id = (char *)id, .x = x, .y = y, .z = z, .heading = heading,
                          .length = l, .width = w, .height = h};
    if (!sim_object_list_add(P->out, &o)) {
        P->nomem = true;
        return;
    }
    P->added++;
}

/* A free-standing object at (s, t_edge + side * off): skipped where a road is (its
 * footprint's corners too). */
static void add_free(placer *P, int road, double s, double t, sim_object_kind kind, double heading, double l, double w,
                     double h)
{
    sim_road_pose p;
    if (sim_road_pose_at(P->net, road, s, t, &p))
        return;
    double hd = p.heading + heading, c = cos(hd), sn = sin(hd);
    for (int k = 0; k < 5; k++) {
        double u = k == 4 ? 0 : (k & 1 ? 0.5 : -0.5) * l, v = k == 4 ? 0 : (k & 2 ? 0.5 : -0.5) * w;
        if (on_road(P->net, p.x + c * u - sn * v, p.y + sn * u + c * v))
            return;
    }
    add(P, kind, p.x, p.y, ground(P->net, p.x, p.y), hd, l, w, h, NULL);
}

/* A segment from s0 to s1 at lateral t(s) = border + side * off: pose at its start,
 * heading and length towards its end (the sim_objects.h convention for rails). */
static void add_segment(placer *P, const sim_road *r, int road, double s0, double s1, double t0, double t1,
                        sim_object_kind kind, double w, double h)
{
    sim_road_pose a, b;
    if (sim_road_pose_at(P->net, road, s0, t0, &a) || sim_road_pose_at(P->net, road, s1, t1, &b))
        return;
    (void)r;
    double dx = b.x - a.x, dy = b.y - a.y, len = hypot(dx, dy);
    if (len < 0.05)
        return;
    /* A guard rail is a body the car hits: none across another road's lanes (where an
     * on-ramp merges, the rail of the road it joins stops). */
    if (kind == SIM_OBJ_GUARD_RAIL &&
        (on_road(P->net, a.x, a.y) || on_road(P->net, b.x, b.y) || on_road(P->net, a.x + dx / 2, a.y + dy / 2)))
        return;
    add(P, kind, a.x, a.y, a.z, atan2(dy, dx), len, w, h, NULL);
}

/* A sign of the road stands within margin (m along s) on this side: nothing is put in
 * front of it. */
static bool near_sign(const sim_road *r, double s, int side, double margin)
{
    for (int i = 0; i < r->n_signs; i++)
        if (fabs(r->signs[i].s - s) < margin && (r->signs[i].d > 0) == (side > 0))
            return true;
    return false;
}

#define SUPPORT_CLEARANCE 3.0 /* m between the ground and a road's surface before it needs piers */
#define DECK 0.8              /* m: the pier stops under the deck */

/* Piers every `spacing` along the reference line where the road runs high above the
 * ground; junction roads too (Town03's elevated junctions). */
static void place_supports(placer *P, const sim_scenery_rule *R, int road)
{
    const sim_road *r = &P->net->roads[road];
    for (double s = R->spacing / 2; s < r->length; s += R->spacing) {
        sim_road_pose p;
        if (sim_road_pose_at(P->net, road, s, sim_road_lane_offset(r, s), &p))
            continue;
        double g = ground(P->net, p.x, p.y), h = p.z - DECK - g;
        if (p.z - g < SUPPORT_CLEARANCE)
            continue;
        add(P, SIM_OBJ_BOX, p.x, p.y, g, p.heading, 1.2, 1.6, h, NULL);
    }
}

#define GANTRY_DEPTH 1.0   /* m along the road: the truss and its boards */
#define GANTRY_HEIGHT 7.0  /* m: the top; the boards' lower edge at 0.68 of it, 4.76 m, over the
                            * 4.70 m clear height German motorways are built to (RAA) */
#define GANTRY_POST 0.5    /* m: a post's side, for the check that it stands off every road */

/* Sign gantries across the whole road, every `spacing` from spacing / 2 on: one object
 * whose pose is the middle between the two outer edges at that s, heading along the
 * road, `width` the span from post to post (each post `offset` outside its edge). A
 * gantry is left out where a post would stand on any road's lanes (a ramp beside,
 * another road's crossing) or within 10 m of a sign of the road: it never straddles a
 * post on the pavement and never hides a sign. */
static void place_gantries(placer *P, const sim_scenery_rule *R, int road)
{
    const sim_road *r = &P->net->roads[road];
    for (double s = R->spacing / 2; s < r->length; s += R->spacing) {
        side_info L, Rt;
        side_at(r, s, 1, &L);
        side_at(r, s, -1, &Rt);
        double tl = L.edge + R->offset + GANTRY_POST / 2, tr = Rt.edge - R->offset - GANTRY_POST / 2;
        sim_road_pose a, b, m;
        if (near_sign(r, s, 1, 10) || near_sign(r, s, -1, 10) || sim_road_pose_at(P->net, road, s, tl, &a) ||
            sim_road_pose_at(P->net, road, s, tr, &b) || sim_road_pose_at(P->net, road, s, (tl + tr) / 2, &m))
            continue;
        bool clear = true;
        for (int k = 0; k < 8 && clear; k++) {
            const sim_road_pose *p = k < 4 ? &a : &b;
            double c = cos(p->heading), sn = sin(p->heading);
            double u = (k & 1 ? 0.5 : -0.5) * GANTRY_POST, v = (k & 2 ? 0.5 : -0.5) * GANTRY_POST;
            clear = !on_road(P->net, p->x + c * u - sn * v, p->y + sn * u + c * v);
        }
        if (clear) /* the feet: the lower of the two edges' surfaces */
            add(P, SIM_OBJ_GANTRY, m.x, m.y, fmin(a.z, b.z), m.heading, GANTRY_DEPTH, tl - tr, GANTRY_HEIGHT, NULL);
    }
}

static void place_road(placer *P, const sim_scenery_config *c, int road)
{
    const sim_road *r = &P->net->roads[road];
    sim_scenery_style style = c->style == SIM_SCENERY_AUTO ? sim_scenery_road_style(r) : c->style;
    sim_scenery_rule sup = sim_scenery_rule_for(c, style, SIM_RULE_SUPPORTS);
    if (sup.on && sup.spacing > 0 && r->length >= 1)
        place_supports(P, &sup, road);
    if (r->junction >= 0 || r->n_sections <= 0 || r->length < 1)
        return;
    sim_scenery_rule gan = sim_scenery_rule_for(c, style, SIM_RULE_GANTRIES);
    if (gan.on && gan.spacing > 0)
        place_gantries(P, &gan, road);
    for (int rule = 0; rule < SIM_RULE_SUPPORTS; rule++) {
        sim_scenery_rule R = sim_scenery_rule_for(c, style, (sim_scenery_rule_id)rule);
        if (!R.on || R.spacing <= 0)
            continue;
        for (int side = -1; side <= 1; side += 2) {
            /* the barrier is one line: placed once, from the right side's pass */
            if (rule == SIM_RULE_BARRIER && side > 0)
                continue;
            rng g = rng_for(c->seed, r->id, side, rule);
            side_info si;
            /* a side facing the other way: posts and lights turn to its traffic */
            double face = side > 0 ? M_PI : 0;
            switch (rule) {
            case SIM_RULE_TREES:
            case SIM_RULE_BUSHES:
                for (double s = R.spacing * rng_unit(&g); s < r->length; s += R.spacing * (0.5 + rng_unit(&g))) {
                    if (near_sign(r, s, side, 6))
                        continue;
                    side_at(r, s, side, &si);
                    double off = R.offset + R.depth * rng_unit(&g);
                    bool tree = rule == SIM_RULE_TREES;
                    double h = tree ? 7 + 9 * rng_unit(&g) : 0.8 + 1.2 * rng_unit(&g);
                    double d = tree ? 0.35 * h + 1.0 * rng_unit(&g) : 1.2 * h + rng_unit(&g);
                    add_free(P, road, s, si.edge + side * (off + d / 2), tree ? SIM_OBJ_TREE : SIM_OBJ_BUSH,
                             2 * M_PI * rng_unit(&g), d, d, h);
                }
                break;
            case SIM_RULE_DELINEATORS:
            case SIM_RULE_MARKERS:
            case SIM_RULE_STREET_LIGHTS: {
                /* the right side's posts start at the road's start, the left's half a
                 * spacing on (posts opposite each other in pairs otherwise) */
                double s0 = rule == SIM_RULE_DELINEATORS ? fmod(R.spacing / 2, R.spacing) * (side > 0) : R.spacing / 2;
                for (double s = s0; s < r->length; s += R.spacing) {
                    side_at(r, s, side, &si);
                    if (!si.any || near_sign(r, s, side, 3))
                        continue;
                    sim_road_pose p;
                    double t = si.edge + side * R.offset;
                    if (rule == SIM_RULE_STREET_LIGHTS && !isnan(si.kerb))
                        t = si.edge - side * R.offset; /* on the sidewalk, near its outer edge */
                    if (sim_road_pose_at(P->net, road, s, t, &p))
                        continue;
                    if (rule == SIM_RULE_DELINEATORS)
                        add(P, SIM_OBJ_DELINEATOR, p.x, p.y, p.z, p.heading + face, 0.12, 0.12, 1.0, NULL);
                    else if (rule == SIM_RULE_MARKERS)
                        add(P, SIM_OBJ_POLE, p.x, p.y, p.z, p.heading + face, 0.1, 0.6, 1.8, NULL);
                    else
                        add(P, SIM_OBJ_STREET_LIGHT, p.x, p.y, p.z, p.heading + M_PI / 2 * -side, 1.5, 0.2, 8.0, NULL);
                }
                break;
            }
            case SIM_RULE_GUARD_RAILS:
            case SIM_RULE_KERBS:
            case SIM_RULE_BARRIER:
                for (double s = 0; s < r->length - 0.05; s += R.spacing) {
                    double e = fmin(r->length, s + R.spacing);
                    side_info sa, sb;
                    side_at(r, s, side, &sa);
                    side_at(r, e, side, &sb);
                    if (rule == SIM_RULE_GUARD_RAILS && sa.any)
                        add_segment(P, r, road, s, e, sa.edge + side * R.offset, sb.edge + side * R.offset,
                                    SIM_OBJ_GUARD_RAIL, 0.3, 0.75);
                    else if (rule == SIM_RULE_KERBS && !isnan(sa.kerb) && !isnan(sb.kerb))
                        add_segment(P, r, road, s, e, sa.kerb, sb.kerb, SIM_OBJ_KERB, 0.15, 0.12);
                    else if (rule == SIM_RULE_BARRIER) {
                        side_info la, lb;
                        side_at(r, s, 1, &la);
                        side_at(r, e, 1, &lb);
                        if ((sa.median || la.median) && (sb.median || lb.median))
                            add_segment(P, r, road, s, e, sim_road_lane_offset(r, s), sim_road_lane_offset(r, e),
                                        SIM_OBJ_BARRIER, 0.5, 0.9);
                    }
                }
                break;
            case SIM_RULE_BUILDINGS:
                for (double s = 2 + 4 * rng_unit(&g); s < r->length - 2;) {
                    double len = 8 + 10 * rng_unit(&g);
                    double depth = 8 + R.depth * rng_unit(&g), h = 6 + 15 * rng_unit(&g);
                    if (s + len > r->length - 2)
                        break;
                    side_at(r, s + len / 2, side, &si);
                    add_free(P, road, s + len / 2, si.edge + side * (R.offset + depth / 2), SIM_OBJ_BUILDING, 0, len,
                             depth, h);
                    s += len + R.spacing * 0.2 * rng_unit(&g) + 1.5;
                }
                break;
            }
        }
    }
}

int sim_scenery_place(const sim_roadnet *net, const sim_scenery_config *c, sim_object_list *out)
{
    placer P = {.net = net, .out = out, .max = c->max_objects > 0 ? c->max_objects : 200000};
    if (c->style != SIM_SCENERY_NONE)
        for (int i = 0; i < net->n_roads && !P.nomem; i++)
            place_road(&P, c, i);
    for (int i = 0; i < c->objects.n && !P.nomem; i++) {
        sim_world_object o = c->objects.items[i];
        if (isnan(o.z)) /* not given: on the ground there */
            o.z = ground(net, o.x, o.y);
        if (!sim_object_list_add(out, &o))
            P.nomem = true;
        else
            P.added++;
    }
    return P.nomem ? SIM_ENOMEM : P.added;
}
