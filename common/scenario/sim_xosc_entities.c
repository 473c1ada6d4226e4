/* sim_xosc_entities: the OpenSCENARIO reader's catalogs (CatalogLocations, the entry a
 * CatalogReference names, with its parameters) and entities (Vehicle, Pedestrian,
 * MiscObject with their bounding boxes), see sim_xosc.h. */
#include "sim_xosc_util.h"

#include <dirent.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_xml_read.h"


/* ---- catalogs --------------------------------------------------------------------- */

int xosc_read_catalog_locations(xosc_parser *P, const xmlNode *cl)
{
    for (const xmlNode *c = cl ? cl->children : NULL; c && !P->rc; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        const xmlNode *d = xosc_child(c, "Directory");
        char path[512];
        if (!d) return xosc_fail(P, c, SIM_EINVAL, "has no <Directory>");
        if (!xosc_attr(P, d, "path", true, path, sizeof path)) return P->rc;
        if (P->n_cats == (int)(sizeof P->cats / sizeof *P->cats)) return xosc_fail(P, c, SIM_ETOOBIG, "is one catalog too many");
        xosc_catalog_dir *cd = &P->cats[P->n_cats++];
        snprintf(cd->kind, sizeof cd->kind, "%s", (const char *)c->name);
        cd->dir = sim_file_join(P->base_dir, path);
        cd->line = (int)xmlGetLineNo(c);
        if (!cd->dir) return xosc_fail(P, c, SIM_ENOMEM, "out of memory");
    }
    return P->rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Opens every .xosc of dir not open yet (in name order, so that the result does not
 * depend on the directory's order). */
static int open_catalog_dir(xosc_parser *P, const xmlNode *ref, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return xosc_fail(P, ref, SIM_EIO, "catalog directory \"%s\" cannot be opened", dir);
    char *names[XOSC_MAX_CATALOG_DOCS];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < XOSC_MAX_CATALOG_DOCS) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".xosc") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char *full = names[i] ? sim_file_join(dir, names[i]) : NULL;
        free(names[i]);
        bool have = false;
        for (int k = 0; full && k < P->n_cat_docs; k++) have |= strcmp(P->cat_paths[k], full) == 0;
        if (!full || have || P->n_cat_docs == XOSC_MAX_CATALOG_DOCS) {
            free(full);
            continue;
        }
        sim_error xe = {0};
        xmlDoc *doc = sim_xml_read_file(full, XML_PARSE_NOBLANKS, &xe);
        if (!doc) {
            xosc_fail(P, ref, SIM_EINVAL, "catalog file \"%s\" is refused: %s", full, xe.msg);
            free(full);
            for (int k = i + 1; k < n; k++) free(names[k]);
            return P->rc;
        }
        P->cat_docs[P->n_cat_docs] = doc;
        P->cat_paths[P->n_cat_docs++] = full;
    }
    return P->rc;
}

const xmlNode *xosc_catalog_entry(xosc_parser *P, const xmlNode *ref, int *mark)
{
    char cat[SIM_SB_NAME], entry[SIM_SB_NAME];
    *mark = P->n_params;
    if (!xosc_attr(P, ref, "catalogName", true, cat, sizeof cat) || !xosc_attr(P, ref, "entryName", true, entry, sizeof entry))
        return NULL;
    if (++P->depth > XOSC_MAX_DEPTH) return xosc_fail(P, ref, SIM_ETOOBIG, "nests catalog references too deep"), NULL;
    for (int i = 0; i < P->n_cats && !P->rc; i++) open_catalog_dir(P, ref, P->cats[i].dir);
    if (P->rc) return NULL;
    const xmlNode *found = NULL;
    bool have_catalog = false;
    for (int i = 0; i < P->n_cat_docs && !found; i++) {
        const xmlNode *root = xmlDocGetRootElement(P->cat_docs[i]);
        for (const xmlNode *c = root ? root->children : NULL; c && !found; c = c->next) {
            char name[SIM_SB_NAME];
            if (!xosc_is(c, "Catalog") || !xosc_attr(P, c, "name", false, name, sizeof name) || strcmp(name, cat)) continue;
            have_catalog = true;
            for (const xmlNode *e = c->children; e && !found; e = e->next) {
                char en[SIM_SB_NAME];
                if (e->type == XML_ELEMENT_NODE && xosc_attr(P, e, "name", false, en, sizeof en) && strcmp(en, entry) == 0)
                    found = e;
            }
        }
    }
    if (P->rc) return NULL;
    if (!have_catalog)
        return xosc_fail(P, ref, SIM_ENOTFOUND, "names catalog \"%s\", which is in none of the %d catalog directories "
                         "of <CatalogLocations>", cat, P->n_cats), NULL;
    if (!found) return xosc_fail(P, ref, SIM_ENOTFOUND, "names entry \"%s\", which catalog \"%s\" does not hold", entry, cat), NULL;
    /* the entry's declarations, then the reference's assignments over them */
    if (xosc_declare(P, xosc_child(found, "ParameterDeclarations"), false)) return NULL;
    const xmlNode *as = xosc_child(ref, "ParameterAssignments");
    for (const xmlNode *a = as ? as->children : NULL; a; a = a->next) {
        if (!xosc_is(a, "ParameterAssignment")) continue;
        char name[SIM_SB_NAME], value[SIM_SB_NAME];
        /* parameterRef names the parameter; written as a reference ("$Name", as esmini's
         * files do) it is that name too, not the value it has now */
        xmlChar *raw = xmlGetProp(a, (const xmlChar *)"parameterRef");
        bool dollar = raw && raw[0] == '$' && raw[1] != '{';
        if (dollar) snprintf(name, sizeof name, "%s", (const char *)raw + 1);
        xmlFree(raw);
        if ((!dollar && !xosc_attr(P, a, "parameterRef", true, name, sizeof name)) ||
            !xosc_attr(P, a, "value", true, value, sizeof value))
            return NULL;
        bool set = false;
        for (int i = P->n_params - 1; i >= *mark && !set; i--)
            if (strcmp(P->params[i].name, name) == 0) {
                snprintf(P->params[i].value, sizeof P->params[i].value, "%s", value);
                set = true;
            }
        if (!set) return xosc_fail(P, a, SIM_ENOTFOUND, "assigns \"%s\", which entry \"%s\" does not declare", name, entry), NULL;
    }
    return found;
}

/* ---- entities --------------------------------------------------------------------- */

static int read_bbox(xosc_parser *P, const xmlNode *obj, sim_sb_entity *e)
{
    const xmlNode *bb = xosc_child(obj, "BoundingBox");
    if (!bb) return xosc_fail(P, obj, SIM_EINVAL, "has no <BoundingBox>");
    const xmlNode *c = xosc_child(bb, "Center"), *d = xosc_child(bb, "Dimensions");
    if (!c || !d) return xosc_fail(P, bb, SIM_EINVAL, "needs <Center> and <Dimensions>");
    if (!xosc_num(P, c, "x", true, 0, &e->center[0]) || !xosc_num(P, c, "y", true, 0, &e->center[1]) ||
        !xosc_num(P, c, "z", true, 0, &e->center[2]) || !xosc_num(P, d, "length", true, 0, &e->length) ||
        !xosc_num(P, d, "width", true, 0, &e->width) || !xosc_num(P, d, "height", true, 0, &e->height))
        return P->rc;
    if (!(e->length >= 0 && e->width >= 0 && e->height >= 0))
        return xosc_fail(P, d, SIM_ERANGE, "has a negative size, expected length, width and height >= 0");
    return SIM_OK;
}

/* A Vehicle, Pedestrian or MiscObject element into e. */
static int read_object(xosc_parser *P, const xmlNode *o, sim_sb_entity *e)
{
    static const char *const vcat[] = {"car", "van", "truck", "trailer", "semitrailer", "bus", "motorbike",
                                       "bicycle", "train", "tram", NULL};
    static const char *const pcat[] = {"pedestrian", "wheelchair", "animal", NULL};
    static const char *const mcat[] = {"none", "obstacle", "pole", "tree", "vegetation", "barrier", "building",
                                       "parkingSpace", "patch", "railing", "trafficIsland", "crosswalk",
                                       "streetLamp", "gantry", "soundBarrier", "wind", "roadMark", NULL};
    int k;
    if (xosc_is(o, "Vehicle")) {
        e->category = SIM_SB_VEHICLE;
        if (!xosc_enum(P, o, "vehicleCategory", true, vcat, 0, &k)) return P->rc;
        snprintf(e->type, sizeof e->type, "%s", vcat[k]);
        const xmlNode *perf = xosc_child(o, "Performance");
        if (perf && (!xosc_num(P, perf, "maxSpeed", true, 0, &e->max_speed) ||
                     !xosc_num(P, perf, "maxAcceleration", true, 0, &e->max_accel) ||
                     !xosc_num(P, perf, "maxDeceleration", true, 0, &e->max_decel)))
            return P->rc;
    } else if (xosc_is(o, "Pedestrian")) {
        e->category = SIM_SB_PEDESTRIAN;
        if (!xosc_enum(P, o, "pedestrianCategory", true, pcat, 0, &k)) return P->rc;
        snprintf(e->type, sizeof e->type, "%s", pcat[k]);
    } else if (xosc_is(o, "MiscObject")) {
        e->category = SIM_SB_MISC;
        if (!xosc_enum(P, o, "miscObjectCategory", true, mcat, 0, &k)) return P->rc;
        snprintf(e->type, sizeof e->type, "%s", mcat[k]);
    } else {
        return xosc_fail(P, o, SIM_EINVAL, "is no entity, expected <Vehicle>, <Pedestrian>, <MiscObject> or "
                         "<CatalogReference>");
    }
    return read_bbox(P, o, e);
}

int xosc_read_entities(xosc_parser *P, const xmlNode *ents)
{
    sim_sb_model *m = &P->x->model;
    for (const xmlNode *so = ents ? ents->children : NULL; so && !P->rc; so = so->next) {
        if (so->type != XML_ELEMENT_NODE) continue;
        if (!xosc_is(so, "ScenarioObject")) {
            xosc_unsupported(P, so); /* EntitySelection */
            continue;
        }
        char name[SIM_SB_NAME];
        if (!xosc_attr(P, so, "name", true, name, sizeof name)) return P->rc;
        if (sim_sb_model_find_entity(m, name) >= 0) return xosc_fail(P, so, SIM_EINVAL, "repeats the name \"%s\"", name);
        sim_sb_entity *e = xosc_push(P, so, (void **)&m->entities, &m->n_entities, sizeof *e);
        if (!e) return P->rc;
        snprintf(e->name, sizeof e->name, "%s", name);
        e->line = (int)xmlGetLineNo(so);
        for (const xmlNode *c = so->children; c && !P->rc; c = c->next) {
            if (c->type != XML_ELEMENT_NODE) continue;
            if (xosc_is(c, "CatalogReference")) {
                int mark;
                const xmlNode *o = xosc_catalog_entry(P, c, &mark);
                if (o) read_object(P, o, e);
                P->n_params = mark;
                P->depth--;
            } else if (xosc_is(c, "Vehicle") || xosc_is(c, "Pedestrian") || xosc_is(c, "MiscObject")) {
                read_object(P, c, e);
            } else {
                xosc_unsupported(P, c); /* ObjectController: the ego is the person's, the others the storyboard's */
            }
        }
        if (!P->rc && e->length == 0 && e->width == 0 && !xosc_first(so))
            return xosc_fail(P, so, SIM_EINVAL, "has no object, expected <Vehicle>, <Pedestrian>, <MiscObject> or "
                             "<CatalogReference>");
    }
    return P->rc;
}

