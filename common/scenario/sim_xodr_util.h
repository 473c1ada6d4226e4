/* sim_xodr_util: the OpenDRIVE reader's shared parsing state and attribute helpers
 * (sim_xodr.c reads the document, roads and junctions; sim_xodr_lanes.c the lanes). */
#ifndef SIM_XODR_UTIL_H
#define SIM_XODR_UTIL_H

#include <libxml/tree.h>
#include <stdbool.h>

#include "sim_xodr.h"

typedef struct xodr_parser {
    const char *name;        /* file name for messages */
    sim_roadnet *net;
    sim_xodr_report *rep;
    sim_error *err;
    int rc;                  /* first error, SIM_OK until then */
    double geom_cost;        /* sum of sim_geom_cost, bounded */
} xodr_parser;

/* Element named name? */
bool xodr_is(const xmlNode *n, const char *name);
/* Records the first error as "file: line: <element> ..." and returns its code. */
int xodr_fail(xodr_parser *P, const xmlNode *n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Counts an element the model does not take. */
void xodr_unsupported(xodr_parser *P, const char *what);
/* Counts an element the model does not take by its name (a container by what it
 * holds; an empty element without attributes drops nothing and is not counted). */
void xodr_skip(xodr_parser *P, const xmlNode *n);
/* Number attribute: false (error recorded) when required and missing or not a finite
 * number; *out = def when optional and missing. */
bool xodr_num(xodr_parser *P, const xmlNode *n, const char *key, bool required, double def, double *out);
/* Integer attribute, likewise. */
bool xodr_int(xodr_parser *P, const xmlNode *n, const char *key, bool required, int def, int *out);
/* String attribute copied into buf (truncated to size); false when missing. */
bool xodr_str(const xmlNode *n, const char *key, char *buf, size_t size);
/* Speed in m/s from a max value and OpenDRIVE unit ("m/s", "km/h", "mph"); false for
 * an unknown unit (error recorded). */
bool xodr_speed(xodr_parser *P, const xmlNode *n, double *out);

/* All <name> children of n as polynomial records (start at attribute skey), sorted by s. */
int xodr_read_polys(xodr_parser *P, const xmlNode *n, const char *name, const char *skey,
                    sim_poly3 **out, int *n_out);
/* Reads road ri's <objects> and <signals> once the network is built (poses need it):
 * objects into net->objects, speed signs into lane limits and signs, traffic-light
 * heads into net->lights (sim_xodr_objects.c). */
int xodr_read_roadside(xodr_parser *P, const xmlNode *rn, int ri);
/* Reads the top-level <controller>s into net->lights groups, the junctions' controller
 * entries (jnodes: the <junction> elements in net->junctions order), and gives the
 * groups their default programs (sim_xodr_controllers.c). After xodr_read_roadside. */
int xodr_read_controllers(xodr_parser *P, const xmlNode *root, const xmlNode *const *jnodes);
/* Reads a road's <lanes> (laneOffset and laneSections) into r. */
int xodr_read_lanes(xodr_parser *P, const xmlNode *lanes, sim_road *r);

#endif
