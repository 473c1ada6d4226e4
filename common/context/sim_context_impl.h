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
/* The first column of the first row of sql (0 when none); *rc the SQLite result. */
int64_t sim_context_query_int(sim_context *c, const char *sql, int *rc);
/* Steps a prepared insert and resets it: SQLITE_OK or the error. */
int sim_context_step_reset(sqlite3_stmt *st);
int sim_context_bind_text_or_null(sqlite3_stmt *st, int i, const char *s);
/* Positions are kept to the centimetre, in the pois table as in the R*Tree. */
double sim_context_cm(double v);
/* POI pk at (x, y) of category into the R*Tree (adding the category's number). */
int sim_context_rtree_add(sim_context *c, int64_t pk, double x, double y, const char *category);

#endif
