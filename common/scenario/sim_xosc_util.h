/* sim_xosc_util: the OpenSCENARIO reader's shared state (sim_xosc.c: document,
 * parameters, positions; sim_xosc_entities.c: catalogs and entities; sim_xosc_story.c:
 * actions and the storyboard; sim_xosc_cond.c: conditions and triggers;
 * sim_xosc_expr.c: `${...}` expressions). Private to the reader. */
#ifndef SIM_XOSC_UTIL_H
#define SIM_XOSC_UTIL_H

#include <libxml/tree.h>
#include <stdbool.h>

#include "sim_xosc.h"

#define XOSC_MAX_PARAMS 512
#define XOSC_MAX_CATALOG_DOCS 32
#define XOSC_MAX_DEPTH 8          /* nested catalog references */

typedef struct xosc_catalog_dir {
    char kind[32];                /* "VehicleCatalog", ... */
    char *dir;                    /* joined to the scenario's folder */
    int line;
} xosc_catalog_dir;

typedef struct xosc_parser {
    const char *name;
    const char *base_dir;
    xmlDoc *doc;
    sim_xosc *x;
    sim_xosc_report *rep;
    sim_error *err;
    int rc;
    sim_sb_param params[XOSC_MAX_PARAMS]; /* a stack: later ones shadow earlier ones */
    int n_params;
    const sim_xosc_override *ov;
    int n_ov;
    xosc_catalog_dir cats[16];
    int n_cats;
    xmlDoc *cat_docs[XOSC_MAX_CATALOG_DOCS];
    char *cat_paths[XOSC_MAX_CATALOG_DOCS];
    int n_cat_docs;
    int depth;
} xosc_parser;

bool xosc_is(const xmlNode *n, const char *name);
const xmlNode *xosc_child(const xmlNode *n, const char *name);
/* First element child, whatever its name. */
const xmlNode *xosc_first(const xmlNode *n);
int xosc_fail(xosc_parser *P, const xmlNode *n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void xosc_unsupported(xosc_parser *P, const xmlNode *n);
/* Attribute with parameters substituted into buf; false when missing (an error is
 * recorded when required, and whenever a reference or expression fails). */
bool xosc_attr(xosc_parser *P, const xmlNode *n, const char *key, bool required, char *buf, size_t size);
bool xosc_num(xosc_parser *P, const xmlNode *n, const char *key, bool required, double def, double *out);
bool xosc_int(xosc_parser *P, const xmlNode *n, const char *key, bool required, int def, int *out);
bool xosc_bool(xosc_parser *P, const xmlNode *n, const char *key, bool required, bool def, bool *out);
/* Enumeration attribute: index into names (NULL-terminated), def when optional and
 * missing; a value not in the list is an error naming the ones expected. */
bool xosc_enum(xosc_parser *P, const xmlNode *n, const char *key, bool required, const char *const *names,
               int def, int *out);
/* An entity named by attribute key: its index, or an error naming the entities. */
bool xosc_entity(xosc_parser *P, const xmlNode *n, const char *key, int *out);
/* Reads a ParameterDeclarations element onto the stack. */
int xosc_declare(xosc_parser *P, const xmlNode *decls, bool global);
/* Reads a <Position> (its one child) into pos; an unsupported kind is counted and
 * gives SIM_SB_POS_NONE. */
int xosc_position(xosc_parser *P, const xmlNode *n, sim_sb_position *pos);
/* A position's <Orientation> child, when there is one. */
int xosc_read_orientation(xosc_parser *P, const xmlNode *pn, sim_sb_position *pos);
/* sim_xosc_route.c: the waypoints of the <Route> that parent holds inline or names by
 * <CatalogReference>, appended to *arr (*n grows); *ignored when one cannot be placed. */
int xosc_route_waypoints(xosc_parser *P, const xmlNode *parent, sim_sb_position **arr, int *n, bool *ignored);
/* A <RoutePosition> into pos (its waypoints into the model's route_pts). */
int xosc_route_position(xosc_parser *P, const xmlNode *p, sim_sb_position *pos);
/* With the roads: a route position becomes the lane (or road) position pathS metres
 * along its route; map is built on first use (*have_map), the caller frees it. */
struct sim_route_map;
int xosc_route_resolve(const char *path, const sim_sb_model *m, sim_sb_position *p, const sim_roadnet *net,
                       struct sim_route_map *map, bool *have_map, sim_error *err);
/* The catalog entry a CatalogReference names (in a catalog document kept by P), with
 * its ParameterDeclarations and the reference's ParameterAssignments pushed; *mark gets
 * the stack height to restore. NULL on error (recorded). */
const xmlNode *xosc_catalog_entry(xosc_parser *P, const xmlNode *ref, int *mark);
/* Grows an array by one (zeroed); NULL when out of memory (error recorded). */
void *xosc_push(xosc_parser *P, const xmlNode *n, void **arr, int *count, size_t size);

/* Evaluates a `${...}` body with P's parameters; false with msg filled on error. */
bool xosc_expr_eval(xosc_parser *P, const char *expr, double *out, char *msg, size_t size);
/* A parameter's value by name (NULL when undeclared). */
const char *xosc_param(const xosc_parser *P, const char *name);

int xosc_read_storyboard(xosc_parser *P, const xmlNode *sb);
int xosc_read_catalog_locations(xosc_parser *P, const xmlNode *cl);
int xosc_read_entities(xosc_parser *P, const xmlNode *ents);
int xosc_read_private_action(xosc_parser *P, const xmlNode *pa, int *action);
/* sim_xosc_dynamics.c: DynamicConstraints' limits (NAN: not given; dc may be NULL), a
 * SpeedProfileAction into a, a FollowTrajectoryAction's TimeReference, its Clothoid
 * shape c (*ignored when its Position is of a kind not taken). */
int xosc_read_constraints(xosc_parser *P, const xmlNode *dc, sim_sb_limits *lim);
int xosc_read_speed_profile(xosc_parser *P, const xmlNode *sp, sim_sb_action *a);
int xosc_read_timing(xosc_parser *P, const xmlNode *fa, sim_sb_action *a);
int xosc_read_clothoid(xosc_parser *P, const xmlNode *fa, const xmlNode *c, sim_sb_action *a, bool *ignored);
int xosc_read_nurbs(xosc_parser *P, const xmlNode *fa, const xmlNode *c, sim_sb_action *a, bool *ignored);
/* A StartTrigger or StopTrigger into t (groups with a condition not taken dropped). */
int xosc_read_trigger(xosc_parser *P, const xmlNode *tn, sim_sb_trigger *t);
/* sim_xosc_signal.c: a TrafficSignalStateAction under an InfrastructureAction into a
 * (others counted as unsupported, a left SIM_SB_A_IGNORED); a TrafficSignalCondition. */
int xosc_read_signal_action(xosc_parser *P, const xmlNode *infra, sim_sb_action *a);
int xosc_read_signal_condition(xosc_parser *P, const xmlNode *k, sim_sb_condition *c);
/* RoadNetwork <TrafficSignals> into P->x's ctls, phases and sets. */
int xosc_read_signal_controllers(xosc_parser *P, const xmlNode *ts);

#endif
