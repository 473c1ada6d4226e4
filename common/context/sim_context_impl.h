/* sim_context_impl: the handle's insides, shared by the files of the context component
 * (not for other components). */
#ifndef SIM_CONTEXT_IMPL_H
#define SIM_CONTEXT_IMPL_H

#include <sqlite3.h>

#include "sim_context.h"

struct sim_context {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *near, *near_cat;   /* R*Tree box queries */
    sqlite3_stmt *poi_row;           /* one POI by pk */
    sqlite3_stmt *poi_by_id;
    sqlite3_stmt *cat_id, *cat_add, *rtree_add; /* category numbers, R*Tree rows */
    /* Category numbers asked for lately: a lookup statement per query would cost a
     * fifth of a poi.near. Emptied whenever POIs are written. */
    struct { char name[64]; int64_t id; } cat_cache[32];
    int n_cat_cache;
};

/* Sets err from the database's last error: "context db PATH: WHAT: sqlite message". */
int sim_context_db_error(sim_context *c, int rc, const char *what, sim_error *err);
/* Runs SQL without parameters (schema statements). */
int sim_context_exec(sim_context *c, const char *sql, const char *what, sim_error *err);

#endif
