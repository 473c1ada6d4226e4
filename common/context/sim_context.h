/* sim_context: the context server's database (docs/context.md), one SQLite file.
 *
 * Built from the scenario (POIs, positions kept to the centimetre, with an R*Tree and
 * an FTS5 index; roads, junctions,
 * signs, the road graph's links), rebuilt only when the scenario's SHA-256 differs
 * from the one the file was built from; study tables loaded from CSV files; the
 * in-car message stack and a key-value store, which persist: the file is in WAL mode
 * with synchronous=FULL and every write is its own committed transaction before the
 * call returns, so what a caller was told succeeded survives a kill -9.
 *
 * Every statement is prepared with parameters. The only SQL assembled from names is
 * in table queries, and only from table and column names found in the database's own
 * schema (sqlite_schema and pragma_table_info), quoted as identifiers.
 *
 * Ownership: sim_context_open returns a handle freed by sim_context_close. JSON
 * returned through cJSON ** out-parameters is new and belongs to the caller. The
 * scenario passed to sim_context_load_scenario is only read during the call. */
#ifndef SIM_CONTEXT_H
#define SIM_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_msg_context.h"
#include "sim_scenario.h"

#define SIM_CONTEXT_SCHEMA_VERSION 1
#define SIM_CONTEXT_APP_ID 0x53494d43 /* "SIMC" */

typedef struct sim_context sim_context;

/* Opens or creates the database at path (":memory:" for tests), WAL, schema created
 * or checked. A file of another application or a newer schema is refused. */
int sim_context_open(const char *path, sim_context **out, sim_error *err);
void sim_context_close(sim_context *c);
/* Deletes a closed database file with its -wal and -shm files (those missing are
 * fine); SIM_EIO naming the file that could not be removed. */
int sim_context_remove_files(const char *path, sim_error *err);

/* Fills the scenario's tables unless the file already holds this scenario (same
 * sha256 hex); *rebuilt says which. Messages and key-values are kept either way. */
int sim_context_load_scenario(sim_context *c, const sim_scenario *sc, const char *sha256, bool *rebuilt,
                              sim_error *err);

/* POIs within radius of (x, y), optionally of one category, nearest first, at most
 * limit (hits has room for limit). Uses the R*Tree. */
typedef struct sim_context_hit {
    int64_t rowid;
    double x, y, distance;
} sim_context_hit;
/* The work cap of one poi.near: SQLite VM instructions, counted in steps
 * of SIM_CONTEXT_WORK_STEP; over it the request fails with SIM_ETOOBIG saying what to
 * ask instead (about 120000 POIs in the box; some 50 ms). */
#define SIM_CONTEXT_WORK_MAX 1000000
#define SIM_CONTEXT_WORK_STEP 1000
/* poi.search: over this many matches it fails with SIM_ETOOBIG (type more). */
#define SIM_CONTEXT_SEARCH_MAX 20000

int sim_context_poi_near(sim_context *c, double x, double y, double radius, const char *category, int limit,
                         sim_context_hit *hits, int *n, sim_error *err);
/* Calls fn with the rowid of every POI whose point lies in the box [x0, x1] x [y0, y1]
 * (m), through the R*Tree, in no particular order. */
int sim_context_poi_box(sim_context *c, double x0, double y0, double x1, double y1,
                        void (*fn)(int64_t rowid, void *user), void *user, sim_error *err);
/* What one box query cost, for tests that it goes through the R*Tree and not over every
 * POI: SQLite's virtual-machine steps grow with the rows it looks at. Caller owns it. */
typedef struct sim_context_box_stats {
    uint64_t vm_steps; /* SQLITE_STMTSTATUS_VM_STEP of the query */
    int hits;          /* POIs handed to fn */
} sim_context_box_stats;
/* sim_context_poi_box, filling *stats (when not NULL). */
int sim_context_poi_box_counted(sim_context *c, double x0, double y0, double x1, double y1,
                                void (*fn)(int64_t rowid, void *user), void *user, sim_context_box_stats *stats,
                                sim_error *err);
/* Full-text search over name and category (FTS5; every word of text must match, the
 * last as a prefix), best match first. text is data, never FTS query syntax. */
int sim_context_poi_search(sim_context *c, const char *text, const char *category, int limit,
                           sim_context_hit *hits, int *n, sim_error *err);
/* A POI by its scenario id: SIM_ENOTFOUND when there is none. */
int sim_context_poi_find(sim_context *c, const char *id, sim_context_hit *hit, sim_error *err);
/* The POI as JSON {id, name, category, x, y, z, road, attributes} (+ distance when
 * distance >= 0); NULL when it does not exist or out of memory. */
cJSON *sim_context_poi_json(sim_context *c, int64_t rowid, double distance);
/* Every POI's rowid, position and radius of interest (attributes.radius_m, default
 * def_radius), for the nearby events. Arrays are new (free them). */
int sim_context_poi_all(sim_context *c, double def_radius, int64_t **rowids, double **xyr, int *n, sim_error *err);
/* Inserts POIs directly (benchmarks and tests): n points, category cat. */
int sim_context_poi_insert_many(sim_context *c, const double *xy, int n, const char *const *cats,
                                sim_error *err);

/* Message stack. push: new message, *id its id (committed before return). list:
 * messages not yet acknowledged, highest priority first then oldest. pop: the top
 * pending message, now marked shown (NULL *out when none). ack: SIM_ENOTFOUND for an
 * unknown id. */
int sim_context_msg_push(sim_context *c, int priority, const char *display, const char *text, double t,
                         int64_t *id, sim_error *err);
int sim_context_msg_list(sim_context *c, const char *display, int limit, cJSON **out, sim_error *err);
int sim_context_msg_pop(sim_context *c, const char *display, double t, cJSON **out, sim_error *err);
int sim_context_msg_ack(sim_context *c, int64_t id, double t, sim_error *err);

/* Key-value store: values are any JSON. get: *out NULL when the key is unset. */
int sim_context_kv_set(sim_context *c, const char *key, const cJSON *value, sim_error *err);
int sim_context_kv_get(sim_context *c, const char *key, cJSON **out, sim_error *err);

/* Loads FILE.csv into study table `name` (header row: column names; INTEGER, REAL or
 * TEXT per column from its values; empty fields NULL), replacing an older copy unless
 * the file's sha256 is the same (*reloaded says which). Errors name file, line and
 * field. */
int sim_context_load_csv(sim_context *c, const char *name, const char *path, bool *reloaded, sim_error *err);
/* The same from memory (tests, fuzzing); file names the data in messages. */
int sim_context_load_csv_text(sim_context *c, const char *name, const char *file, const char *text, size_t len,
                              sim_error *err);

/* table.query: table a study table or one of pois, roads, lanes, junctions, road_links, signs; filters,
 * order, limit and offset from the request (already checked as identifiers). Unknown
 * table or column: SIM_ENOTFOUND naming the field. *rows: an array of objects. */
int sim_context_table_query(sim_context *c, const sim_msg_context_request *q, cJSON **rows, sim_error *err);

#endif
