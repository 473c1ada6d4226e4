/* sim_xosc: OpenSCENARIO documents, parameters, catalogs, entities and positions read
 * with libxml2 (see sim_xosc.h; the storyboard in sim_xosc_story.c). */
#include "sim_xosc.h"
#include "sim_xosc_util.h"
#include "sim_route_roads.h"

#include <assert.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_xml_read.h"


/* ---- helpers ---------------------------------------------------------------------- */

bool xosc_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

const xmlNode *xosc_child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (xosc_is(c, name)) return c;
    return NULL;
}

const xmlNode *xosc_first(const xmlNode *n)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return c;
    return NULL;
}

/* The file a node comes from: a catalog's, or the scenario's. */
static const char *file_of(const xosc_parser *P, const xmlNode *n)
{
    for (int i = 0; n && i < P->n_cat_docs; i++)
        if (n->doc == P->cat_docs[i]) return P->cat_paths[i];
    return P->name;
}

int xosc_fail(xosc_parser *P, const xmlNode *n, int code, const char *fmt, ...)
{
    if (P->rc) return P->rc;
    char msg[SIM_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    P->rc = code;
    sim_error_set(P->err, code, "%s: %ld: <%s> %s", file_of(P, n), n ? xmlGetLineNo(n) : 0L,
                  n ? (const char *)n->name : "?", msg);
    return code;
}

void xosc_unsupported(xosc_parser *P, const xmlNode *n)
{
    assert(n); /* callers name an element: the one not taken, or its parent */
    sim_xosc_report *r = P->rep;
    const char *what = (const char *)n->name;
    for (int i = 0; i < r->n_unsupported; i++)
        if (strcmp(r->unsupported[i].name, what) == 0) {
            r->unsupported[i].count++;
            return;
        }
    if (r->n_unsupported == SIM_XOSC_MAX_UNSUPPORTED) {
        r->n_unsupported_more++;
        return;
    }
    sim_xosc_count *c = &r->unsupported[r->n_unsupported++];
    snprintf(c->name, sizeof c->name, "%s", what);
    c->count = 1;
    c->line = (int)xmlGetLineNo(n);
}

const char *xosc_param(const xosc_parser *P, const char *name)
{
    for (int i = P->n_params - 1; i >= 0; i--)
        if (strcmp(P->params[i].name, name) == 0) return P->params[i].value;
    return NULL;
}

/* `$name` is the parameter's value, `${expr}` the expression's, anything else itself. */
static bool substitute(xosc_parser *P, const xmlNode *n, const char *key, const char *raw, char *buf, size_t size)
{
    if (raw[0] == '$' && raw[1] == '{') {
        size_t len = strlen(raw);
        char body[512], msg[160];
        double v;
        if (raw[len - 1] != '}' || len - 3 >= sizeof body)
            return xosc_fail(P, n, SIM_EINVAL, "has %s \"%.60s\", expected an expression ${...}", key, raw), false;
        memcpy(body, raw + 2, len - 3);
        body[len - 3] = 0;
        if (!xosc_expr_eval(P, body, &v, msg, sizeof msg))
            return xosc_fail(P, n, SIM_EINVAL, "has %s \"%.60s\": %s", key, raw, msg), false;
        snprintf(buf, size, "%.17g", v);
        return true;
    }
    if (raw[0] == '$') {
        const char *v = xosc_param(P, raw + 1);
        if (!v) return xosc_fail(P, n, SIM_ENOTFOUND, "has %s \"%s\": no such parameter is declared", key, raw), false;
        snprintf(buf, size, "%s", v);
        return true;
    }
    snprintf(buf, size, "%s", raw);
    return true;
}

bool xosc_attr(xosc_parser *P, const xmlNode *n, const char *key, bool required, char *buf, size_t size)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)key);
    if (!v) {
        if (required) xosc_fail(P, n, SIM_EINVAL, "has no %s", key);
        buf[0] = 0;
        return false;
    }
    bool ok = substitute(P, n, key, (const char *)v, buf, size);
    xmlFree(v);
    return ok;
}

bool xosc_num(xosc_parser *P, const xmlNode *n, const char *key, bool required, double def, double *out)
{
    char buf[128];
    *out = def;
    if (!xosc_attr(P, n, key, required, buf, sizeof buf)) return !required && !P->rc;
    char *end;
    double x = strtod(buf, &end);
    while (*end == ' ') end++;
    if (end == buf || *end || !isfinite(x))
        return xosc_fail(P, n, SIM_EINVAL, "has %s \"%.40s\", expected a finite number", key, buf), false;
    *out = x;
    return true;
}

bool xosc_int(xosc_parser *P, const xmlNode *n, const char *key, bool required, int def, int *out)
{
    double x;
    *out = def;
    if (!xosc_num(P, n, key, required, def, &x)) return false;
    if (x != floor(x) || fabs(x) > 1e6)
        return xosc_fail(P, n, SIM_EINVAL, "has %s %g, expected an integer", key, x), false;
    *out = (int)x;
    return true;
}

bool xosc_bool(xosc_parser *P, const xmlNode *n, const char *key, bool required, bool def, bool *out)
{
    static const char *const names[] = {"false", "true", NULL};
    int v;
    if (!xosc_enum(P, n, key, required, names, def, &v)) return false;
    *out = v == 1;
    return true;
}

bool xosc_enum(xosc_parser *P, const xmlNode *n, const char *key, bool required, const char *const *names,
               int def, int *out)
{
    char buf[64];
    *out = def;
    if (!xosc_attr(P, n, key, required, buf, sizeof buf)) return !required && !P->rc;
    for (int i = 0; names[i]; i++)
        if (strcmp(buf, names[i]) == 0) {
            *out = i;
            return true;
        }
    char list[400] = "";
    for (int i = 0; names[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return xosc_fail(P, n, SIM_EINVAL, "has %s \"%.40s\", expected one of: %s", key, buf, list), false;
}

bool xosc_entity(xosc_parser *P, const xmlNode *n, const char *key, int *out)
{
    char buf[SIM_SB_NAME];
    *out = -1;
    if (!xosc_attr(P, n, key, true, buf, sizeof buf)) return false;
    *out = sim_sb_model_find_entity(&P->x->model, buf);
    if (*out >= 0) return true;
    char list[400] = "";
    for (int i = 0; i < P->x->model.n_entities; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 P->x->model.entities[i].name);
    return xosc_fail(P, n, SIM_ENOTFOUND, "names entity \"%s\", expected one of: %s", buf, list), false;
}

void *xosc_push(xosc_parser *P, const xmlNode *n, void **arr, int *count, size_t size)
{
    if (*count >= 100000) return xosc_fail(P, n, SIM_ETOOBIG, "is one too many (100000 at most)"), NULL;
    char *a = realloc(*arr, (size_t)(*count + 1) * size);
    if (!a) return xosc_fail(P, n, SIM_ENOMEM, "out of memory"), NULL;
    *arr = a;
    memset(a + (size_t)*count * size, 0, size);
    return a + (size_t)(*count)++ * size;
}

/* ---- parameters ------------------------------------------------------------------- */

int xosc_declare(xosc_parser *P, const xmlNode *decls, bool global)
{
    for (const xmlNode *d = decls ? decls->children : NULL; d && !P->rc; d = d->next) {
        if (d->type != XML_ELEMENT_NODE) continue;
        if (!xosc_is(d, "ParameterDeclaration")) {
            xosc_unsupported(P, d);
            continue;
        }
        static const char *const types[] = {"integer", "double", "string", "unsignedInt", "unsignedShort",
                                            "boolean", "dateTime", "int", NULL};
        int type;
        sim_sb_param p = {0};
        if (!xosc_attr(P, d, "name", true, p.name, sizeof p.name) ||
            !xosc_enum(P, d, "parameterType", true, types, 2, &type) ||
            !xosc_attr(P, d, "value", true, p.value, sizeof p.value))
            return P->rc;
        if (xosc_child(d, "ConstraintGroup")) xosc_unsupported(P, xosc_child(d, "ConstraintGroup"));
        for (int i = 0; global && i < P->n_ov; i++)
            if (strcmp(P->ov[i].name, p.name) == 0) snprintf(p.value, sizeof p.value, "%s", P->ov[i].value);
        if (P->n_params == XOSC_MAX_PARAMS)
            return xosc_fail(P, d, SIM_ETOOBIG, "is one parameter too many (%d at most)", XOSC_MAX_PARAMS);
        P->params[P->n_params++] = p;
        if (global) {
            sim_sb_param *m = xosc_push(P, d, (void **)&P->x->model.params, &P->x->model.n_params, sizeof *m);
            if (!m) return P->rc;
            *m = p;
        }
    }
    return P->rc;
}

/* ---- positions -------------------------------------------------------------------- */

int xosc_read_orientation(xosc_parser *P, const xmlNode *pn, sim_sb_position *pos)
{
    const xmlNode *o = xosc_child(pn, "Orientation");
    if (!o) return SIM_OK;
    static const char *const types[] = {"relative", "absolute", NULL};
    int type;
    double h;
    if (!xosc_enum(P, o, "type", false, types, 0, &type) || !xosc_num(P, o, "h", false, 0, &h)) return P->rc;
    if (type == 1 || h != 0) {
        pos->has_h = true;
        pos->h_abs = type == 1;
        pos->h = h;
    }
    return SIM_OK;
}

int xosc_position(xosc_parser *P, const xmlNode *n, sim_sb_position *pos)
{
    memset(pos, 0, sizeof *pos);
    pos->entity = pos->road_index = -1;
    const xmlNode *p = xosc_first(n);
    if (!p) return xosc_fail(P, n, SIM_EINVAL, "is empty, expected a position");
    pos->line = (int)xmlGetLineNo(p);
    if (xosc_is(p, "WorldPosition")) {
        pos->kind = SIM_SB_POS_WORLD;
        if (!xosc_num(P, p, "x", true, 0, &pos->x) || !xosc_num(P, p, "y", true, 0, &pos->y)) return P->rc;
        pos->has_h = pos->h_abs = xmlHasProp(p, (const xmlChar *)"h") != NULL;
        xosc_num(P, p, "h", false, 0, &pos->h);
    } else if (xosc_is(p, "LanePosition")) {
        pos->kind = SIM_SB_POS_LANE;
        if (!xosc_attr(P, p, "roadId", true, pos->road, sizeof pos->road) || !xosc_int(P, p, "laneId", true, 0, &pos->lane) ||
            !xosc_num(P, p, "s", true, 0, &pos->s) || !xosc_num(P, p, "offset", false, 0, &pos->offset))
            return P->rc;
        xosc_read_orientation(P, p, pos);
    } else if (xosc_is(p, "RoadPosition")) {
        pos->kind = SIM_SB_POS_ROAD;
        if (!xosc_attr(P, p, "roadId", true, pos->road, sizeof pos->road) || !xosc_num(P, p, "s", true, 0, &pos->s) ||
            !xosc_num(P, p, "t", true, 0, &pos->t))
            return P->rc;
        xosc_read_orientation(P, p, pos);
    } else if (xosc_is(p, "RelativeLanePosition")) {
        pos->kind = SIM_SB_POS_REL_LANE;
        if (!xosc_entity(P, p, "entityRef", &pos->entity) || !xosc_int(P, p, "dLane", true, 0, &pos->dlane) ||
            !xosc_num(P, p, "offset", false, 0, &pos->offset))
            return P->rc;
        if (xmlHasProp(p, (const xmlChar *)"ds")) xosc_num(P, p, "ds", true, 0, &pos->ds);
        else xosc_num(P, p, "dsLane", false, 0, &pos->ds);
        xosc_read_orientation(P, p, pos);
    } else if (xosc_is(p, "RelativeRoadPosition")) {
        pos->kind = SIM_SB_POS_REL_ROAD;
        if (!xosc_entity(P, p, "entityRef", &pos->entity) || !xosc_num(P, p, "ds", true, 0, &pos->ds) ||
            !xosc_num(P, p, "dt", true, 0, &pos->t))
            return P->rc;
        xosc_read_orientation(P, p, pos);
    } else if (xosc_is(p, "RelativeWorldPosition") || xosc_is(p, "RelativeObjectPosition")) {
        pos->kind = xosc_is(p, "RelativeWorldPosition") ? SIM_SB_POS_REL_WORLD : SIM_SB_POS_REL_OBJECT;
        if (!xosc_entity(P, p, "entityRef", &pos->entity) || !xosc_num(P, p, "dx", true, 0, &pos->dx) ||
            !xosc_num(P, p, "dy", true, 0, &pos->dy))
            return P->rc;
        xosc_read_orientation(P, p, pos);
    } else if (xosc_is(p, "RoutePosition")) {
        return xosc_route_position(P, p, pos);
    } else {
        xosc_unsupported(P, p); /* GeoPosition, TrajectoryPosition */
        pos->kind = SIM_SB_POS_NONE;
    }
    return P->rc;
}

/* ---- the document ----------------------------------------------------------------- */

static int read_road_network(xosc_parser *P, const xmlNode *rn)
{
    for (const xmlNode *c = rn ? rn->children : NULL; c && !P->rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (xosc_is(c, "LogicFile")) {
            char path[512];
            if (!xosc_attr(P, c, "filepath", true, path, sizeof path)) return P->rc;
            free(P->x->xodr);
            P->x->xodr = sim_file_join(P->base_dir, path);
            if (!P->x->xodr) return xosc_fail(P, c, SIM_ENOMEM, "out of memory");
        } else if (xosc_is(c, "TrafficSignals")) {
            xosc_read_signal_controllers(P, c);
        } else if (!xosc_is(c, "SceneGraphFile")) { /* the render node draws from the roads itself */
            xosc_unsupported(P, c);
        }
    }
    return P->rc;
}

static int read_document(xosc_parser *P, const xmlNode *root)
{
    if (!xosc_is(root, "OpenSCENARIO")) return xosc_fail(P, root, SIM_EINVAL, "is not an OpenSCENARIO document");
    const xmlNode *fh = xosc_child(root, "FileHeader");
    if (!fh) return xosc_fail(P, root, SIM_EINVAL, "has no <FileHeader>");
    if (!xosc_int(P, fh, "revMajor", true, 1, &P->rep->rev_major) || !xosc_int(P, fh, "revMinor", true, 0, &P->rep->rev_minor))
        return P->rc;
    if (P->rep->rev_major != 1)
        return xosc_fail(P, fh, SIM_EINVAL, "has revMajor %d, expected 1 (OpenSCENARIO 1.x)", P->rep->rev_major);
    xosc_attr(P, fh, "description", false, P->x->description, sizeof P->x->description);
    if (P->rc) return P->rc;
    if (xosc_child(root, "Catalog")) return xosc_fail(P, root, SIM_EINVAL, "is a catalog, expected a scenario");
    if (xosc_child(root, "ParameterValueDistribution"))
        return xosc_fail(P, root, SIM_EINVAL, "is a parameter distribution, expected a scenario");
    for (const xmlNode *c = root->children; c && !P->rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || xosc_is(c, "FileHeader")) continue;
        if (xosc_is(c, "ParameterDeclarations")) xosc_declare(P, c, true);
        else if (xosc_is(c, "CatalogLocations")) xosc_read_catalog_locations(P, c);
        else if (xosc_is(c, "RoadNetwork")) read_road_network(P, c);
        else if (xosc_is(c, "Entities")) xosc_read_entities(P, c);
        else if (xosc_is(c, "Storyboard")) xosc_read_storyboard(P, c);
        else xosc_unsupported(P, c); /* VariableDeclarations, MonitorDeclarations, License */
    }
    for (int i = 0; i < P->n_ov && !P->rc; i++)
        if (sim_sb_model_find_param(&P->x->model, P->ov[i].name) < 0)
            return xosc_fail(P, root, SIM_ENOTFOUND, "declares no parameter \"%s\" to override", P->ov[i].name);
    if (!P->rc && !xosc_child(root, "Storyboard")) return xosc_fail(P, root, SIM_EINVAL, "has no <Storyboard>");
    if (!P->rc && !xosc_child(root, "Entities")) return xosc_fail(P, root, SIM_EINVAL, "has no <Entities>");
    return P->rc;
}

void sim_xosc_free(sim_xosc *x)
{
    free(x->path);
    free(x->xodr);
    free(x->ctls);
    free(x->phases);
    free(x->sets);
    sim_sb_model_free(&x->model);
    memset(x, 0, sizeof *x);
    x->model.ego = -1;
}

int sim_xosc_parse(const char *buf, size_t len, const char *name, const char *base_dir,
                   const sim_xosc_override *ov, int n_ov, sim_xosc *x, sim_xosc_report *rep, sim_error *err)
{
    sim_xosc_report local;
    if (!rep) rep = &local;
    memset(rep, 0, sizeof *rep);
    memset(x, 0, sizeof *x);
    x->model.ego = -1;
    xosc_parser *P = calloc(1, sizeof *P);
    if (!P) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", name);
    *P = (xosc_parser){.name = name, .base_dir = base_dir ? base_dir : ".", .x = x, .rep = rep, .err = err,
                       .ov = ov, .n_ov = n_ov};
    if (len > (size_t)1 << 28) {
        free(P);
        return sim_error_set(err, SIM_ETOOBIG, "%s: %zu bytes, expected at most 256 MiB", name, len);
    }
    sim_error local_err;
    P->doc = sim_xml_read(buf, len, name, XML_PARSE_NOBLANKS, err ? err : &local_err);
    if (!P->doc) {
        free(P);
        return (err ? err : &local_err)->code;
    }
    int rc = read_document(P, xmlDocGetRootElement(P->doc));
    xmlFreeDoc(P->doc);
    for (int i = 0; i < P->n_cat_docs; i++) {
        xmlFreeDoc(P->cat_docs[i]);
        free(P->cat_paths[i]);
    }
    for (int i = 0; i < P->n_cats; i++) free(P->cats[i].dir);
    free(P);
    if (!rc && !(x->path = strdup(name))) rc = sim_error_set(err, SIM_ENOMEM, "%s: out of memory", name);
    if (rc) {
        sim_xosc_free(x);
        return rc;
    }
    x->model.ego = sim_sb_model_pick_ego(&x->model, NULL);
    return SIM_OK;
}

int sim_xosc_load(const char *path, const sim_xosc_override *ov, int n_ov, sim_xosc *x, sim_xosc_report *rep,
                  sim_error *err)
{
    char *text;
    size_t len;
    memset(x, 0, sizeof *x);
    x->model.ego = -1;
    int rc = sim_file_read(path, &text, &len, err);
    if (rc) return rc;
    char *dir = sim_file_dirname(path);
    rc = dir ? sim_xosc_parse(text, len, path, dir, ov, n_ov, x, rep, err)
             : sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
    free(dir);
    free(text);
    return rc;
}

/* A lane position s past its road's end continues onto the road its end links to
 * (esmini does; the standard is silent): s less the length, or counted back from the
 * far end of a road joined end to end (its lanes, offsets and s run the other way),
 * the lane by the last section's link. A junction's roads are not guessed at. */
static void continue_on_successor(const sim_roadnet *net, sim_sb_position *p)
{
    for (int hop = 0; hop < 16; hop++) {
        const sim_road *r = &net->roads[p->road_index];
        if (!(p->s > r->length + 1e-6) || r->succ.kind != SIM_LINK_ROAD) return;
        const sim_road *n = &net->roads[r->succ.index];
        const sim_lane *ln = p->kind == SIM_SB_POS_LANE ? sim_road_lane(r, r->n_sections - 1, p->lane) : NULL;
        double over = p->s - r->length;
        if (ln && ln->succ) p->lane = ln->succ;
        if (r->succ.contact == SIM_CONTACT_START) {
            p->s = over;
        } else {
            p->s = n->length - over;
            p->offset = -p->offset;
            p->t = -p->t;
        }
        p->road_index = r->succ.index;
        snprintf(p->road, sizeof p->road, "%s", n->id);
    }
}

static int resolve(const sim_xosc *x, sim_sb_position *p, const sim_roadnet *net, sim_error *err)
{
    if (p->kind != SIM_SB_POS_LANE && p->kind != SIM_SB_POS_ROAD) return SIM_OK;
    p->road_index = sim_roadnet_find_road(net, p->road);
    if (p->road_index < 0)
        return sim_error_set(err, SIM_ENOTFOUND, "%s: %d: <%s> has roadId \"%s\", which the road network does not have",
                             x->path, p->line, p->kind == SIM_SB_POS_LANE ? "LanePosition" : "RoadPosition", p->road);
    continue_on_successor(net, p);
    const sim_road *r = &net->roads[p->road_index];
    if (p->s < 0 || p->s > r->length + 1e-6)
        return sim_error_set(err, SIM_ERANGE, "%s: %d: <%s> has s %g, expected [0, %g] on road \"%s\"", x->path, p->line,
                             p->kind == SIM_SB_POS_LANE ? "LanePosition" : "RoadPosition", p->s, r->length, p->road);
    if (p->kind == SIM_SB_POS_LANE && !sim_road_has_lane(r, p->lane))
        return sim_error_set(err, SIM_ENOTFOUND, "%s: %d: <LanePosition> has laneId %d, which road \"%s\" does not have",
                             x->path, p->line, p->lane, p->road);
    if (p->kind == SIM_SB_POS_LANE) {
        sim_road_pose pose;
        if (sim_road_lane_pose(net, p->road_index, p->s, p->lane, p->offset, &pose) >= 0) {
            p->has_xy = true;
            p->x = pose.x;
            p->y = pose.y;
            double lane_h = pose.heading + (p->lane > 0 ? M_PI : 0);
            p->h = p->has_h ? (p->h_abs ? p->h : lane_h + p->h) : lane_h;
        }
    }
    if (p->kind == SIM_SB_POS_ROAD) { /* the engine has no road model: a road point is a world point */
        sim_road_pose pose;
        if (sim_road_pose_at(net, p->road_index, p->s, p->t, &pose) < 0)
            return sim_error_set(err, SIM_EINVAL, "%s: %d: <RoadPosition> s %g t %g cannot be placed on road \"%s\"",
                                 x->path, p->line, p->s, p->t, p->road);
        if (!p->has_h) p->h = pose.heading;
        else if (!p->h_abs) p->h += pose.heading; /* relative to the road */
        p->has_h = p->h_abs = true;
        p->kind = SIM_SB_POS_WORLD;
        p->x = pose.x;
        p->y = pose.y;
    }
    return SIM_OK;
}

/* A route position becomes a lane or road position first (sim_xosc_route.c). */
static int resolve_any(const sim_xosc *x, sim_sb_position *p, const sim_roadnet *net, sim_route_map *map,
                       bool *have_map, sim_error *err)
{
    int rc = xosc_route_resolve(x->path, &x->model, p, net, map, have_map, err);
    return rc ? rc : resolve(x, p, net, err);
}

int sim_xosc_resolve_roads(sim_xosc *x, const sim_roadnet *net, sim_error *err)
{
    sim_route_map map;
    bool have_map = false;
    int rc = SIM_OK;
    for (int i = 0; i < x->model.n_route_pts && !rc; i++) rc = resolve(x, &x->model.route_pts[i], net, err);
    for (int i = 0; i < x->model.n_actions && !rc; i++) {
        sim_sb_action *a = &x->model.actions[i];
        rc = resolve_any(x, &a->pos, net, &map, &have_map, err);
        if (!rc) rc = resolve_any(x, &a->pos2, net, &map, &have_map, err);
        for (int k = 0; !rc && k < a->n_route; k++) rc = resolve_any(x, &a->route[k], net, &map, &have_map, err);
        for (int k = 0; !rc && k < a->n_ctrl; k++) rc = resolve_any(x, &a->ctrl[k], net, &map, &have_map, err);
    }
    for (int i = 0; i < x->model.n_conds && !rc; i++) rc = resolve_any(x, &x->model.conds[i].pos, net, &map, &have_map, err);
    if (have_map) sim_route_map_free(&map);
    return rc;
}

void sim_xosc_unsupported_text(const sim_xosc_report *rep, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < rep->n_unsupported && n < size; i++) {
        int w = snprintf(buf + n, size - n, "%s%s (%d, line %d)", i ? ", " : "", rep->unsupported[i].name,
                         rep->unsupported[i].count, rep->unsupported[i].line);
        n += w > 0 ? (size_t)w : 0;
    }
    if (rep->n_unsupported_more && n < size) snprintf(buf + n, size - n, " and %d more", rep->n_unsupported_more);
}

int sim_xosc_parse_overrides(const char *text, sim_xosc_override *ov, int max, sim_error *err)
{
    int n = 0;
    const char *p = text;
    while (p && *p) {
        const char *end = strchr(p, ','), *eq = strchr(p, '=');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!eq || eq >= p + len || eq == p)
            return sim_error_set(err, SIM_EINVAL, "parameter \"%.*s\": expected NAME=VALUE", (int)len, p);
        size_t nl = (size_t)(eq - p), vl = len - nl - 1;
        if (n == max) return sim_error_set(err, SIM_ETOOBIG, "more than %d parameters", max);
        if (nl >= SIM_SB_NAME || vl >= SIM_SB_NAME)
            return sim_error_set(err, SIM_EINVAL, "parameter \"%.*s\": name or value longer than %d", (int)len, p,
                                 SIM_SB_NAME - 1);
        memcpy(ov[n].name, p, nl);
        ov[n].name[nl] = 0;
        memcpy(ov[n].value, eq + 1, vl);
        ov[n].value[vl] = 0;
        n++;
        p = end ? end + 1 : NULL;
    }
    return n;
}
