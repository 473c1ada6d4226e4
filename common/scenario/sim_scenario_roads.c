/* sim_scenario_roads: the terrain, roads and junctions sections of a scenario file
 * (see sim_scenario_load.h for the helpers, docs/scenario.md for the format). */
#include "sim_scenario_load.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_file.h"
#include "sim_grid_image.h"
#include "sim_xodr.h"

/* ---- terrain -------------------------------------------------------------------- */

void scn_load_terrain(ld *L, const cJSON *t)
{
    static const char *const keys[] = {"heightmap", "format", "width", "height", "spacing",
                                       "origin", "height_scale", "height_offset", "friction",
                                       "surface", NULL};
    static const char *const formats[] = {"pgm", "f32", "png", NULL};
    const char *path = "terrain";
    if (!scn_is_obj(L, t, path)) return;
    scn_check_keys(L, t, path, keys);
    const char *file;
    double spacing, scale, offset, ox = 0, oy = 0;
    int w = 0, h = 0;
    char p[PATH_MAX_LEN];
    scn_get_str(L, t, path, "heightmap", true, NULL, &file);
    /* The format follows the name's extension, raw float32 for any other (a missing
     * name is already an error; do not pile width/height errors onto it). */
    size_t flen = file ? strlen(file) : 0;
    const char *ext = flen >= 4 ? file + flen - 4 : "";
    int fmt_default = !file || strcasecmp(ext, ".pgm") == 0   ? 0
                      : strcasecmp(ext, ".png") == 0 ? 2 : 1; /* index in formats[] */
    int fmt = scn_get_enum(L, t, path, "format", fmt_default, formats);
    if (fmt == 1) {
        scn_get_int(L, t, path, "width", true, 0, 1, SIM_GRID_MAX_SIDE, &w);
        scn_get_int(L, t, path, "height", true, 0, 1, SIM_GRID_MAX_SIDE, &h);
    }
    bool ok = scn_get_num(L, t, path, "spacing", true, 1, NUM_POS, 0, 0, &spacing);
    scn_get_num(L, t, path, "height_scale", false, 1, NUM_ANY, 0, 0, &scale);
    scn_get_num(L, t, path, "height_offset", false, 0, NUM_ANY, 0, 0, &offset);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(t, "origin");
    if (o) {
        if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) != 2 ||
            !cJSON_IsNumber(cJSON_GetArrayItem(o, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(o, 1)))
            scn_err_found(L, scn_kpath(p, path, "origin"), o, "[x, y] in metres");
        else
            ox = cJSON_GetArrayItem(o, 0)->valuedouble, oy = cJSON_GetArrayItem(o, 1)->valuedouble;
    }
    /* Friction: a constant or a map scaled to [min, max]. */
    /* Without one, each surface has its own friction (sim_surface_props_of). */
    double fconst = NAN, fmin_ = 0, fmax_ = 1;
    const char *fmap = NULL;
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(t, "friction");
    if (cJSON_IsObject(fr)) {
        static const char *const fkeys[] = {"map", "min", "max", NULL};
        scn_kpath(p, path, "friction");
        scn_check_keys(L, fr, p, fkeys);
        scn_get_str(L, fr, p, "map", true, NULL, &fmap);
        scn_get_num(L, fr, p, "min", false, 0.0, NUM_RANGE, 0, 3, &fmin_);
        scn_get_num(L, fr, p, "max", false, 1.0, NUM_RANGE, 0, 3, &fmax_);
    } else if (fr) {
        scn_get_num(L, t, path, "friction", false, 1.0, NUM_RANGE, 0, 3, &fconst);
    }
    static const char *const surf[] = {"asphalt", "grass", "gravel", "sand", "snow", "ice", "water", NULL};
    int surface = scn_get_enum(L, t, path, "surface", SIM_SURFACE_GRASS, surf);
    if (!file || fmt < 0 || (fmt == 1 && (w < 1 || h < 1))) return;

    /* Read the map even when other fields are wrong, so a missing file is reported
     * in the same run. */
    char *full = scn_file(L, SIM_SCN_FILE_HEIGHTMAP, file);
    sim_grid g;
    sim_error e = {0};
    int rc = !full ? sim_error_set(&e, SIM_ENOMEM, "out of memory")
             : fmt == 0 ? sim_grid_read_pgm(full, &g, &e)
             : fmt == 2 ? sim_grid_read_png(full, &g, &e)
                        : sim_grid_read_f32(full, w, h, &g, &e);
    free(full);
    if (rc) {
        scn_err_at(L, scn_kpath(p, path, "heightmap"), "found \"%s\", expected a readable %s height "
               "map (%s)", file, fmt == 0 ? "PGM" : fmt == 2 ? "PNG" : "float32", e.msg);
        return;
    }
    if (!ok) {
        sim_grid_free(&g);
        return;
    }
    for (size_t k = 0; k < (size_t)g.nx * (size_t)g.ny; k++) g.v[k] = offset + scale * g.v[k];
    sim_terrain *tr = calloc(1, sizeof *tr);
    if (!tr || sim_terrain_init(tr, &g, ox, oy, spacing, &e)) {
        sim_grid_free(&g);
        free(tr);
        scn_err_at(L, path, "%s", tr ? e.msg : "out of memory");
        return;
    }
    tr->friction_default = fconst;
    tr->surface_default = surface < 0 ? SIM_SURFACE_GRASS : surface;
    L->sc->terrain = tr;
    if (fmap) {
        full = scn_file(L, SIM_SCN_FILE_FRICTION_MAP, fmap);
        /* No format field here: PNG or PGM by the file's first bytes. */
        rc = full ? sim_grid_read_image(full, &g, &e) : sim_error_set(&e, SIM_ENOMEM, "out of memory");
        free(full);
        if (!rc) {
            for (size_t k = 0; k < (size_t)g.nx * (size_t)g.ny; k++)
                g.v[k] = fmin_ + (fmax_ - fmin_) * g.v[k];
            rc = sim_terrain_set_friction(tr, &g, &e);
        }
        if (rc) scn_err_at(L, "terrain.friction.map", "%s", e.msg);
    }
}

/* ---- roads ---------------------------------------------------------------------- */

static void load_segments(ld *L, sim_road *r, const cJSON *segs, const char *path,
                          double x, double y, double h)
{
    static const char *const keys[] = {"type", "length", "radius", "curvature",
                                       "curvature_start", "curvature_end", "x", "y",
                                       "heading_deg", NULL};
    static const char *const types[] = {"line", "arc", "clothoid", NULL};
    int n = cJSON_GetArraySize(segs);
    if (n == 0) scn_err_at(L, path, "found an empty array, expected at least one segment");
    r->geoms = scn_alloc_n(L, (size_t)n, sizeof *r->geoms);
    if (!r->geoms) return;
    double s = 0;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *sg = cJSON_GetArrayItem(segs, i);
        scn_ipath(p, path, i);
        if (!scn_is_obj(L, sg, p)) continue;
        scn_check_keys(L, sg, p, keys);
        sim_geom *g = &r->geoms[r->n_geoms];
        int type = scn_get_enum(L, sg, p, "type", -1, types);
        bool ok = scn_get_num(L, sg, p, "length", true, 1, NUM_POS, 0, 0, &g->length) && type >= 0;
        if (type == SIM_GEOM_ARC) {
            const cJSON *rad = cJSON_GetObjectItemCaseSensitive(sg, "radius");
            double v;
            if (rad) {
                if (!cJSON_IsNumber(rad) || !isfinite(rad->valuedouble) || rad->valuedouble == 0) {
                    scn_err_found(L, scn_kpath(q, p, "radius"), rad, "a non-zero number (positive turns left)");
                    ok = false;
                } else {
                    g->k0 = 1.0 / rad->valuedouble;
                }
            } else if (scn_get_num(L, sg, p, "curvature", true, 0, NUM_ANY, 0, 0, &v)) {
                g->k0 = v;
            } else {
                ok = false;
            }
        } else if (type == SIM_GEOM_CLOTHOID) {
            ok &= scn_get_num(L, sg, p, "curvature_start", true, 0, NUM_ANY, 0, 0, &g->k0);
            ok &= scn_get_num(L, sg, p, "curvature_end", true, 0, NUM_ANY, 0, 0, &g->k1);
        }
        /* An explicit start pose must continue the chain (as OpenDRIVE gives each
         * geometry's start): a gap over 1 cm is an error. */
        double ex, ey, eh_deg;
        bool hx = scn_get_num(L, sg, p, "x", false, NAN, NUM_ANY, 0, 0, &ex) && !isnan(ex);
        bool hy = scn_get_num(L, sg, p, "y", false, NAN, NUM_ANY, 0, 0, &ey) && !isnan(ey);
        bool hh = scn_get_num(L, sg, p, "heading_deg", false, NAN, NUM_ANY, 0, 0, &eh_deg) &&
                  !isnan(eh_deg);
        if (hx != hy) scn_err_at(L, p, "found only one of x and y, expected both or neither");
        if (hx && hy && i > 0 && hypot(ex - x, ey - y) > JOIN_TOL)
            scn_err_at(L, p, "found start (%.3f, %.3f), expected the previous segment's end "
                   "(%.3f, %.3f): gap %.3f m over %g m", ex, ey, x, y, hypot(ex - x, ey - y),
                   JOIN_TOL);
        if (hh && i > 0) {
            double dh = remainder(eh_deg * M_PI / 180.0 - h, 2 * M_PI);
            if (fabs(dh) > HEADING_TOL)
                scn_err_at(L, scn_kpath(q, p, "heading_deg"), "found %g, expected the previous "
                       "segment's end heading %.3f", eh_deg, h * 180.0 / M_PI);
        }
        if (!ok) continue;
        g->type = (sim_geom_type)type;
        g->s0 = s;
        g->x0 = x, g->y0 = y, g->hdg0 = h;
        double cost = sim_geom_cost(g);
        if (!(L->geom_cost + cost <= GEOM_BUDGET)) {
            scn_err_at(L, p, "found a geometry needing %.3g units (length %g m, curvature up to "
                   "%g 1/m), expected the scenario's roads to need at most %g in all",
                   cost, g->length, fmax(fabs(g->k0), fabs(g->k1)), GEOM_BUDGET);
            continue;
        }
        L->geom_cost += cost;
        sim_error e = {0};
        if (sim_geom_prepare(g, &e)) {
            scn_err_at(L, p, "%s", e.msg);
            continue;
        }
        sim_geom_eval(g, g->length, &x, &y, &h);
        s += g->length;
        r->n_geoms++;
    }
    r->length = s;
}

static void load_road_extras(ld *L, sim_road *r, int ri, const cJSON *ro, const char *path)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    const cJSON *arr;
    /* Speed limits. */
    if ((arr = scn_get_arr(L, ro, path, "speed_limits", false))) {
        static const char *const keys[] = {"s_start", "s_end", "speed_kmh", NULL};
        int n = cJSON_GetArraySize(arr);
        if ((r->limits = scn_alloc_n(L, (size_t)n, sizeof *r->limits))) {
            for (int i = 0; i < n; i++) {
                const cJSON *o = cJSON_GetArrayItem(arr, i);
                scn_ipath(q, scn_kpath(p, path, "speed_limits"), i);
                if (!scn_is_obj(L, o, q)) continue;
                scn_check_keys(L, o, q, keys);
                sim_speed_limit *sl = &r->limits[r->n_limits];
                double kmh;
                bool ok = scn_get_range(L, o, q, ri, false, &sl->s_start, &sl->s_end);
                ok &= scn_get_num(L, o, q, "speed_kmh", true, 0, NUM_RANGE, 1, SIM_SCENARIO_MAX_KMH, &kmh);
                sl->speed = kmh / 3.6;
                if (ok) r->n_limits++;
            }
        }
    }
    /* Signs. */
    if ((arr = scn_get_arr(L, ro, path, "signs", false))) {
        static const char *const keys[] = {"s", "d", "type", "lane", "speed_kmh", "text", "legible_m", NULL};
        static const char *const types[] = {"speed_limit", "lane_change", "stop",
                                            "yield", "priority", "text", NULL};
        int n = cJSON_GetArraySize(arr);
        if ((r->signs = scn_alloc_n(L, (size_t)n, sizeof *r->signs))) {
            for (int i = 0; i < n; i++) {
                const cJSON *o = cJSON_GetArrayItem(arr, i);
                scn_ipath(q, scn_kpath(p, path, "signs"), i);
                if (!scn_is_obj(L, o, q)) continue;
                scn_check_keys(L, o, q, keys);
                sim_sign *sg = &r->signs[r->n_signs];
                int t = scn_get_enum(L, o, q, "type", -1, types);
                bool ok = scn_get_s(L, o, q, "s", true, 0, ri, &sg->s) && t >= 0;
                scn_get_num(L, o, q, "d", false, -(r->right_width + 1.0), NUM_ANY, 0, 0, &sg->d);
                if (t == SIM_SIGN_LANE_CHANGE) ok &= scn_get_lane(L, o, q, "lane", true, ri, &sg->lane);
                if (t == SIM_SIGN_LANE_CHANGE)
                    scn_get_num(L, o, q, "legible_m", false, 0, NUM_NONNEG, 0, 0, &sg->legible_m);
                else if (cJSON_GetObjectItemCaseSensitive(o, "legible_m"))
                    scn_err_at(L, q, "legible_m is for lane_change signs only (their boards are blank until then)");
                if (t == SIM_SIGN_SPEED_LIMIT) {
                    ok &= scn_get_num(L, o, q, "speed_kmh", true, 0, NUM_RANGE, 1, SIM_SCENARIO_MAX_KMH, &sg->value);
                    sg->value /= 3.6;
                }
                sg->text = scn_dup_str(L, o, q, "text", t == SIM_SIGN_TEXT, NULL);
                sg->type = t < 0 ? SIM_SIGN_TEXT : (sim_sign_type)t;
                if (ok) r->n_signs++;
                else {
                    free(sg->text);
                    sg->text = NULL;
                }
            }
        }
    }
    /* Surface zones. */
    if ((arr = scn_get_arr(L, ro, path, "surface", false))) {
        static const char *const keys[] = {"s_start", "s_end", "friction", "type", NULL};
        static const char *const surf[] = {"asphalt", "grass", "gravel", "sand", "snow", "ice", "water", NULL};
        int n = cJSON_GetArraySize(arr);
        if ((r->zones = scn_alloc_n(L, (size_t)n, sizeof *r->zones))) {
            for (int i = 0; i < n; i++) {
                const cJSON *o = cJSON_GetArrayItem(arr, i);
                scn_ipath(q, scn_kpath(p, path, "surface"), i);
                if (!scn_is_obj(L, o, q)) continue;
                scn_check_keys(L, o, q, keys);
                sim_surface_zone *z = &r->zones[r->n_zones];
                bool ok = scn_get_range(L, o, q, ri, true, &z->s_start, &z->s_end);
                ok &= scn_get_num(L, o, q, "friction", true, 1, NUM_RANGE, 0, 3, &z->friction);
                int t = scn_get_enum(L, o, q, "type", SIM_SURFACE_ASPHALT, surf);
                z->surface = t < 0 ? SIM_SURFACE_ASPHALT : t;
                if (ok) r->n_zones++;
            }
        }
    }
    /* Elevation: "terrain" (default) or {"profile": [[s, z], ...]}. */
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(ro, "elevation");
    scn_kpath(p, path, "elevation");
    if (!el || (cJSON_IsString(el) && strcmp(el->valuestring, "terrain") == 0)) {
        r->elev_mode = SIM_ELEV_TERRAIN;
    } else if (cJSON_IsObject(el)) {
        static const char *const keys[] = {"profile", NULL};
        scn_check_keys(L, el, p, keys);
        const cJSON *pr = scn_get_arr(L, el, p, "profile", true);
        r->elev_mode = SIM_ELEV_PROFILE;
        int n = pr ? cJSON_GetArraySize(pr) : 0;
        if (pr && n == 0) scn_err_at(L, scn_kpath(q, p, "profile"), "found an empty array, expected [s, z] points");
        r->elev_s = scn_alloc_n(L, (size_t)n, sizeof(double));
        r->elev_z = scn_alloc_n(L, (size_t)n, sizeof(double));
        for (int i = 0; pr && r->elev_s && r->elev_z && i < n; i++) {
            char e[PATH_MAX_LEN];
            const cJSON *pt = cJSON_GetArrayItem(pr, i);
            scn_ipath(e, scn_kpath(q, p, "profile"), i);
            if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2 ||
                !cJSON_IsNumber(cJSON_GetArrayItem(pt, 0)) ||
                !cJSON_IsNumber(cJSON_GetArrayItem(pt, 1))) {
                scn_err_found(L, e, pt, "[s, z] in metres");
                continue;
            }
            double s = cJSON_GetArrayItem(pt, 0)->valuedouble, z = cJSON_GetArrayItem(pt, 1)->valuedouble;
            if (r->n_elev > 0 && !(s > r->elev_s[r->n_elev - 1])) {
                scn_err_at(L, e, "found s = %g, expected s > %g (ascending)", s, r->elev_s[r->n_elev - 1]);
                continue;
            }
            r->elev_s[r->n_elev] = s;
            r->elev_z[r->n_elev] = z;
            r->n_elev++;
        }
    } else {
        scn_err_found(L, p, el, "\"terrain\" or {\"profile\": [[s, z], ...]}");
    }
}

/* Reads a road's predecessor/successor link (roads and junctions must be named
 * already; geometry of every road built). */
static void load_link(ld *L, int ri, const cJSON *ro, const char *path, const char *key,
                      sim_road_link *lk)
{
    static const char *const keys[] = {"road", "contact", "junction", NULL};
    static const char *const contacts[] = {"start", "end", NULL};
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(ro, key);
    lk->kind = SIM_LINK_NONE;
    lk->index = -1;
    if (!o) return;
    scn_kpath(p, path, key);
    if (!scn_is_obj(L, o, p)) return;
    scn_check_keys(L, o, p, keys);
    bool has_road = cJSON_GetObjectItemCaseSensitive(o, "road") != NULL;
    bool has_junction = cJSON_GetObjectItemCaseSensitive(o, "junction") != NULL;
    if (has_road == has_junction) {
        scn_err_at(L, p, "found %s, expected exactly one of road and junction",
               has_road ? "both" : "neither");
        return;
    }
    if (has_junction) {
        const char *id;
        if (!scn_get_str(L, o, p, "junction", true, NULL, &id)) return;
        int j = sim_roadnet_find_junction(&L->sc->net, id);
        if (j < 0) {
            scn_err_at(L, scn_kpath(q, p, "junction"), "found \"%s\", expected the id of a junction", id);
            return;
        }
        lk->kind = SIM_LINK_JUNCTION;
        lk->index = j;
        return;
    }
    int other = scn_get_road_ref(L, o, p, "road", true);
    int c = scn_get_enum(L, o, p, "contact", strcmp(key, "successor") == 0 ? SIM_CONTACT_START
                                                                          : SIM_CONTACT_END,
                     contacts);
    if (other < 0 || c < 0) return;
    lk->kind = SIM_LINK_ROAD;
    lk->index = other;
    lk->contact = (sim_contact)c;
    /* The two ends must meet. */
    const sim_road *a = &L->sc->net.roads[ri], *b = &L->sc->net.roads[other];
    if (a->n_geoms == 0 || b->n_geoms == 0) return;
    sim_road_pose pa, pb;
    bool succ = strcmp(key, "successor") == 0;
    sim_road_pose_at(&L->sc->net, ri, succ ? a->length : 0, 0, &pa);
    sim_road_pose_at(&L->sc->net, other, c == SIM_CONTACT_END ? b->length : 0, 0, &pb);
    double ax = pa.x, ay = pa.y, bx = pb.x, by = pb.y;
    double gap = hypot(ax - bx, ay - by);
    if (gap > JOIN_TOL)
        scn_err_at(L, p, "road \"%s\" %s is at (%.3f, %.3f), expected it to meet this road's %s at "
               "(%.3f, %.3f): gap %.3f m over %g m", b->id, c == SIM_CONTACT_END ? "end" : "start",
               bx, by, succ ? "end" : "start", ax, ay, gap, JOIN_TOL);
}

/* "roads": {"opendrive": "file.xodr"}: the whole network from an OpenDRIVE file
 * (relative to the scenario's folder); its junctions come with it. */
static void load_opendrive(ld *L, const cJSON *root, const cJSON *ro)
{
    static const char *const keys[] = {"opendrive", NULL};
    scn_check_keys(L, ro, "roads", keys);
    if (cJSON_GetObjectItemCaseSensitive(root, "junctions"))
        scn_err_at(L, "junctions", "found junctions beside an OpenDRIVE file, expected none (they come from the file)");
    const char *file;
    if (!scn_get_str(L, ro, "roads", "opendrive", true, NULL, &file) || !file) return;
    char *full = scn_file(L, SIM_SCN_FILE_OPENDRIVE, file);
    if (!full) return;
    sim_xodr_report rep;
    sim_error e = {0};
    sim_scenario *sc = L->sc;
    if (sim_xodr_load(full, &sc->net, &rep, &e)) {
        scn_err_at(L, "roads.opendrive", "%s", e.msg);
        free(full);
        return;
    }
    sc->net.terrain = sc->terrain;
    sc->opendrive = full;
    char buf[1024];
    sim_xodr_unsupported_text(&rep, buf, sizeof buf);
    if (buf[0] && !(sc->roads_warning = strdup(buf))) scn_err_at(L, "roads.opendrive", "out of memory");
}

void scn_load_roads(ld *L, const cJSON *root)
{
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "roads");
    if (cJSON_IsObject(src)) {
        load_opendrive(L, root, src);
        return;
    }
    static const char *const keys[] = {"id", "name", "start", "segments", "lanes",
                                       "speed_limits", "signs", "surface", "elevation",
                                       "predecessor", "successor", "junction", NULL};
    static const char *const skeys[] = {"x", "y", "heading_deg", NULL};
    const cJSON *roads = scn_get_arr(L, root, "", "roads", true);
    const cJSON *juncs = scn_get_arr(L, root, "", "junctions", false);
    sim_roadnet *net = &L->sc->net;
    int n = roads ? cJSON_GetArraySize(roads) : 0, nj = juncs ? cJSON_GetArraySize(juncs) : 0;
    if (roads && n == 0) scn_err_at(L, "roads", "found an empty array, expected at least one road");
    net->roads = scn_alloc_n(L, (size_t)n, sizeof *net->roads);
    net->junctions = scn_alloc_n(L, (size_t)nj, sizeof *net->junctions);
    if (!net->roads || !net->junctions) return;
    net->n_roads = n;
    net->n_junctions = nj;
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    /* Ids first, so that links can refer forwards. */
    for (int i = 0; i < n; i++) {
        const cJSON *ro = cJSON_GetArrayItem(roads, i);
        net->roads[i].junction = -1;
        net->roads[i].pred.index = net->roads[i].succ.index = -1;
        scn_ipath(p, "roads", i);
        if (!cJSON_IsObject(ro)) continue;
        net->roads[i].id = scn_dup_str(L, ro, p, "id", true, NULL);
        CHECK_UNIQUE(L, scn_kpath(q, p, "id"), "road id", net->roads, i, id);
    }
    for (int i = 0; i < nj; i++) {
        const cJSON *jo = cJSON_GetArrayItem(juncs, i);
        scn_ipath(p, "junctions", i);
        if (!cJSON_IsObject(jo)) continue;
        net->junctions[i].id = scn_dup_str(L, jo, p, "id", true, NULL);
        CHECK_UNIQUE(L, scn_kpath(q, p, "id"), "junction id", net->junctions, i, id);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *ro = cJSON_GetArrayItem(roads, i);
        sim_road *r = &net->roads[i];
        scn_ipath(p, "roads", i);
        if (!scn_is_obj(L, ro, p)) continue;
        scn_check_keys(L, ro, p, keys);
        r->name = scn_dup_str(L, ro, p, "name", false, NULL);
        double x = 0, y = 0, hd = 0;
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(ro, "start");
        scn_kpath(q, p, "start");
        if (scn_is_obj(L, st, q)) {
            scn_check_keys(L, st, q, skeys);
            /* Bounded so that extents and the spatial index stay finite. */
            scn_get_num(L, st, q, "x", true, 0, NUM_RANGE, -WORLD_MAX, WORLD_MAX, &x);
            scn_get_num(L, st, q, "y", true, 0, NUM_RANGE, -WORLD_MAX, WORLD_MAX, &y);
            scn_get_num(L, st, q, "heading_deg", false, 0, NUM_ANY, 0, 0, &hd);
        }
        const cJSON *segs = scn_get_arr(L, ro, p, "segments", true);
        if (segs) load_segments(L, r, segs, scn_kpath(q, p, "segments"), x, y, hd * M_PI / 180.0);
        const cJSON *lanes = cJSON_GetObjectItemCaseSensitive(ro, "lanes");
        scn_load_lanes(L, r, lanes, scn_kpath(q, p, "lanes"));
        load_road_extras(L, r, i, ro, p);
        const char *jid;
        if (scn_get_str(L, ro, p, "junction", false, NULL, &jid) && jid) {
            r->junction = sim_roadnet_find_junction(net, jid);
            if (r->junction < 0)
                scn_err_at(L, scn_kpath(q, p, "junction"), "found \"%s\", expected the id of a junction", jid);
        }
    }
    for (int i = 0; i < n; i++) {
        const cJSON *ro = cJSON_GetArrayItem(roads, i);
        if (!cJSON_IsObject(ro)) continue;
        scn_ipath(p, "roads", i);
        load_link(L, i, ro, p, "predecessor", &net->roads[i].pred);
        load_link(L, i, ro, p, "successor", &net->roads[i].succ);
    }
}

void scn_load_junctions(ld *L, const cJSON *root)
{
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "roads"))) return; /* from OpenDRIVE */
    static const char *const keys[] = {"id", "name", "connections", NULL};
    static const char *const ckeys[] = {"incoming", "connecting", "contact", "lanes", NULL};
    static const char *const contacts[] = {"start", "end", NULL};
    const cJSON *juncs = scn_get_arr(L, root, "", "junctions", false);
    sim_roadnet *net = &L->sc->net;
    for (int i = 0; juncs && i < net->n_junctions; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN], c[PATH_MAX_LEN];
        const cJSON *jo = cJSON_GetArrayItem(juncs, i);
        sim_junction *j = &net->junctions[i];
        scn_ipath(p, "junctions", i);
        if (!scn_is_obj(L, jo, p)) continue;
        scn_check_keys(L, jo, p, keys);
        j->name = scn_dup_str(L, jo, p, "name", false, NULL);
        const cJSON *cs = scn_get_arr(L, jo, p, "connections", true);
        int nc = cs ? cJSON_GetArraySize(cs) : 0;
        if (!(j->conns = scn_alloc_n(L, (size_t)nc, sizeof *j->conns))) continue;
        for (int k = 0; k < nc; k++) {
            const cJSON *co = cJSON_GetArrayItem(cs, k);
            scn_ipath(q, scn_kpath(c, p, "connections"), k);
            if (!scn_is_obj(L, co, q)) continue;
            scn_check_keys(L, co, q, ckeys);
            sim_connection *cn = &j->conns[j->n_conns];
            cn->incoming = scn_get_road_ref(L, co, q, "incoming", true);
            cn->connecting = scn_get_road_ref(L, co, q, "connecting", true);
            int ct = scn_get_enum(L, co, q, "contact", SIM_CONTACT_START, contacts);
            if (cn->incoming < 0 || cn->connecting < 0 || ct < 0) continue;
            cn->contact = (sim_contact)ct;
            const sim_road *in = &net->roads[cn->incoming];
            if (!(in->succ.kind == SIM_LINK_JUNCTION && in->succ.index == i) &&
                !(in->pred.kind == SIM_LINK_JUNCTION && in->pred.index == i))
                scn_err_at(L, scn_kpath(c, q, "incoming"), "road \"%s\" links to no junction \"%s\", "
                       "expected its predecessor or successor to be {\"junction\": \"%s\"}",
                       in->id, j->id ? j->id : "?", j->id ? j->id : "?");
            if (net->roads[cn->connecting].junction != i)
                scn_err_at(L, scn_kpath(c, q, "connecting"), "road \"%s\" has no \"junction\": \"%s\", "
                       "expected a connecting road of this junction",
                       net->roads[cn->connecting].id, j->id ? j->id : "?");
            const cJSON *ls = scn_get_arr(L, co, q, "lanes", false);
            int nl = ls ? cJSON_GetArraySize(ls) : 0;
            if (!(cn->lanes = scn_alloc_n(L, (size_t)nl, sizeof *cn->lanes))) continue;
            for (int m = 0; m < nl; m++) {
                const cJSON *pr = cJSON_GetArrayItem(ls, m);
                char e[PATH_MAX_LEN];
                scn_ipath(e, scn_kpath(c, q, "lanes"), m);
                int from, to;
                if (!cJSON_IsArray(pr) || cJSON_GetArraySize(pr) != 2 ||
                    !scn_json_lane(cJSON_GetArrayItem(pr, 0), &from) ||
                    !scn_json_lane(cJSON_GetArrayItem(pr, 1), &to)) {
                    scn_err_found(L, e, pr, "[from_lane, to_lane] (lane ids)");
                    continue;
                }
                if (!sim_road_has_lane(&net->roads[cn->incoming], from)) {
                    scn_err_at(L, e, "found lane %d, expected a lane of road \"%s\"", from,
                           net->roads[cn->incoming].id);
                    continue;
                }
                if (!sim_road_has_lane(&net->roads[cn->connecting], to)) {
                    scn_err_at(L, e, "found lane %d, expected a lane of road \"%s\"", to,
                           net->roads[cn->connecting].id);
                    continue;
                }
                cn->lanes[cn->n_lanes++] = (sim_lane_link){from, to};
            }
            j->n_conns++;
            /* The connecting road must start where the incoming road ends. */
            double gap = sim_roadnet_connection_gap(net, i, cn);
            if (isfinite(gap) && gap > JOIN_TOL && net->roads[cn->incoming].n_geoms && net->roads[cn->connecting].n_geoms)
                scn_err_at(L, q, "connecting road \"%s\" (%s) lies %.3f m from incoming road \"%s\", expected "
                           "within %g m", net->roads[cn->connecting].id, cn->contact == SIM_CONTACT_END ? "end" : "start",
                           gap, net->roads[cn->incoming].id, JOIN_TOL);
        }
    }
}
