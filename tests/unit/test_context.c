/* The context database: poi.near equals brute force on random data, full-text search,
 * the town's POIs and their rebuild by sha256, the message stack and key-values across
 * reopening, CSV study tables with their errors, and table.query refusing unknown
 * tables and columns while SQL-injection strings stay plain data. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim_context.h"
#include "sim_context_impl.h"
#include "sim_scenario.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static const char *const INJECTIONS[] = {
    "'; DROP TABLE messages; --", "\" OR 1=1 --", "x') UNION SELECT * FROM kv --", "fuel\" OR \"1\"=\"1",
    "NEAR(a b)", "a* OR b", "Robert'); DELETE FROM pois;--"};
#define N_INJ (int)(sizeof INJECTIONS / sizeof INJECTIONS[0])

static uint64_t rng = 99;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static sim_context *open_mem(void)
{
    sim_context *c;
    sim_error err;
    assert_int_equal(sim_context_open(":memory:", &c, &err), 0);
    return c;
}

static void near_equals_brute_force(void **state)
{
    enum { N = 20000 };
    sim_context *c = open_mem();
    double *xy = malloc(2 * N * sizeof *xy);
    const char **cats = malloc(N * sizeof *cats);
    static const char *const kinds[] = {"fuel", "food", "parking"};
    for (int i = 0; i < N; i++) {
        /* positions are kept to the centimetre */
        xy[2 * i] = round((2000 * urand() - 1000) * 100) / 100;
        xy[2 * i + 1] = round((2000 * urand() - 1000) * 100) / 100;
        cats[i] = kinds[i % 3];
    }
    sim_error err;
    assert_int_equal(sim_context_poi_insert_many(c, xy, N, cats, &err), 0);
    sim_context_hit hits[50];
    for (int q = 0; q < 300; q++) {
        double x = 2400 * urand() - 1200, y = 2400 * urand() - 1200, r = 5 + 100 * urand();
        int limit = 1 + (int)(urand() * 50);
        const char *cat = q % 2 ? kinds[q % 3] : NULL;
        int n;
        assert_int_equal(sim_context_poi_near(c, x, y, r, cat, limit, hits, &n, &err), 0);
        /* brute force: every point within r, nearest first (ties by insertion order) */
        int within = 0, idx[N];
        for (int i = 0; i < N; i++)
            if ((!cat || strcmp(cats[i], cat) == 0) && hypot(xy[2 * i] - x, xy[2 * i + 1] - y) <= r) idx[within++] = i;
        for (int a = 1; a < within; a++) /* insertion sort by distance */
            for (int b = a; b > 0; b--) {
                double db = hypot(xy[2 * idx[b]] - x, xy[2 * idx[b] + 1] - y);
                double da = hypot(xy[2 * idx[b - 1]] - x, xy[2 * idx[b - 1] + 1] - y);
                if (db >= da) break;
                int t = idx[b];
                idx[b] = idx[b - 1];
                idx[b - 1] = t;
            }
        assert_int_equal(n, within < limit ? within : limit);
        for (int k = 0; k < n; k++) {
            assert_int_equal(hits[k].rowid, idx[k] + 1); /* pk = insertion order */
            NEAR(hits[k].distance, hypot(xy[2 * idx[k]] - x, xy[2 * idx[k] + 1] - y), 1e-9);
        }
    }
    free(xy);
    free(cats);
    sim_context_close(c);
}

static sim_scenario *town(void)
{
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load("scenarios/town.json", &sc, NULL), 0);
    return sc;
}

static void town_pois_search_and_rebuild(void **state)
{
    sim_context *c = open_mem();
    sim_scenario *sc = town();
    sim_error err;
    bool rebuilt;
    assert_int_equal(sim_context_load_scenario(c, sc, "aaaa", &rebuilt, &err), 0);
    assert_true(rebuilt);
    assert_int_equal(sim_context_load_scenario(c, sc, "aaaa", &rebuilt, &err), 0);
    assert_false(rebuilt);
    assert_int_equal(sim_context_load_scenario(c, sc, "bbbb", &rebuilt, &err), 0);
    assert_true(rebuilt);
    /* nearest fuel station to the start point "home" (30, -1.5): Ost at (309, 70) is
     * 288.0 m away, Nord at (70, 309) 313.1 m */
    sim_context_hit hits[10];
    int n;
    assert_int_equal(sim_context_poi_near(c, 30, -1.5, 1000, "fuel", 10, hits, &n, &err), 0);
    assert_int_equal(n, 2);
    NEAR(hits[0].distance, hypot(279, 71.5), 1e-9);
    NEAR(hits[1].distance, hypot(40, 310.5), 1e-9);
    cJSON *p = sim_context_poi_json(c, hits[0].rowid, hits[0].distance);
    assert_string_equal(cJSON_GetObjectItem(p, "id")->valuestring, "fuel_east");
    assert_string_equal(cJSON_GetObjectItem(p, "road")->valuestring, "v2_0");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "attributes"), "ev_charging")));
    cJSON_Delete(p);
    /* full text: words and a prefix; category filter */
    assert_int_equal(sim_context_poi_search(c, "fuel stat", NULL, 10, hits, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(sim_context_poi_search(c, "apoth", NULL, 10, hits, &n, &err), 0);
    assert_int_equal(n, 1);
    p = sim_context_poi_json(c, hits[0].rowid, -1);
    assert_string_equal(cJSON_GetObjectItem(p, "id")->valuestring, "pharmacy");
    assert_null(cJSON_GetObjectItem(p, "distance"));
    cJSON_Delete(p);
    assert_int_equal(sim_context_poi_search(c, "station", "fuel", 1, hits, &n, &err), 0);
    assert_int_equal(n, 1);
    /* injection strings are searched for as words and find nothing */
    for (int i = 0; i < N_INJ; i++) {
        assert_int_equal(sim_context_poi_search(c, INJECTIONS[i], NULL, 10, hits, &n, &err), 0);
        assert_int_equal(n, 0);
        assert_int_equal(sim_context_poi_near(c, 0, 0, 1e5, INJECTIONS[i], 10, hits, &n, &err), 0);
        assert_int_equal(n, 0);
        assert_int_equal(sim_context_poi_find(c, INJECTIONS[i], hits, &err), SIM_ENOTFOUND);
    }
    assert_int_equal(sim_context_poi_search(c, "--- ;", NULL, 10, hits, &n, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "context.request: text: expected at least one letter or digit");
    assert_int_equal(sim_context_poi_find(c, "hotel", hits, &err), 0);
    NEAR(hits[0].y, 210, 1e-9);
    /* the POIs are all still there */
    assert_int_equal(sim_context_poi_near(c, 150, 150, 1e5, NULL, 50, hits, &n, &err), 0);
    assert_int_equal(n, 10);
    sim_scenario_free(sc);
    sim_context_close(c);
}

static void messages_and_kv_persist(void **state)
{
    char path[] = "/tmp/test_context_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    sim_context *c;
    sim_error err;
    assert_int_equal(sim_context_open(path, &c, &err), 0);
    int64_t a, b, d;
    assert_int_equal(sim_context_msg_push(c, 3, "cluster", "Tyre pressure low", 1.0, &a, &err), 0);
    assert_int_equal(sim_context_msg_push(c, 8, "hud", "Ice warning", 2.0, &b, &err), 0);
    assert_int_equal(sim_context_msg_push(c, 8, "cluster", INJECTIONS[0], 3.0, &d, &err), 0);
    cJSON *v = cJSON_Parse("{\"volume\": 7, \"names\": [\"a\", \"b\"]}");
    assert_int_equal(sim_context_kv_set(c, "radio", v, &err), 0);
    assert_int_equal(sim_context_kv_set(c, INJECTIONS[1], v, &err), 0);
    sim_context_close(c);

    assert_int_equal(sim_context_open(path, &c, &err), 0);
    cJSON *list;
    assert_int_equal(sim_context_msg_list(c, NULL, 50, &list, &err), 0);
    assert_int_equal(cJSON_GetArraySize(list), 3);
    /* priority first, then age */
    assert_int_equal((int)cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "id")->valuedouble, (int)b);
    assert_int_equal((int)cJSON_GetObjectItem(cJSON_GetArrayItem(list, 1), "id")->valuedouble, (int)d);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 1), "text")->valuestring, INJECTIONS[0]);
    cJSON_Delete(list);
    cJSON *m;
    assert_int_equal(sim_context_msg_pop(c, "cluster", 4.0, &m, &err), 0);
    assert_int_equal((int)cJSON_GetObjectItem(m, "id")->valuedouble, (int)d);
    assert_string_equal(cJSON_GetObjectItem(m, "state")->valuestring, "shown");
    cJSON_Delete(m);
    assert_int_equal(sim_context_msg_ack(c, d, 5.0, &err), 0);
    assert_int_equal(sim_context_msg_ack(c, 999, 5.0, &err), SIM_ENOTFOUND);
    assert_string_equal(err.msg, "context.request: message: no message with id 999");
    assert_int_equal(sim_context_msg_list(c, "cluster", 50, &list, &err), 0);
    assert_int_equal(cJSON_GetArraySize(list), 1);
    cJSON_Delete(list);
    assert_int_equal(sim_context_msg_pop(c, "cluster", 6, &m, &err), 0);
    assert_non_null(m); /* the tyre message */
    cJSON_Delete(m);
    assert_int_equal(sim_context_msg_pop(c, "cluster", 6, &m, &err), 0);
    assert_null(m); /* nothing pending there any more */
    cJSON *got;
    assert_int_equal(sim_context_kv_get(c, "radio", &got, &err), 0);
    assert_true(cJSON_Compare(got, v, true));
    cJSON_Delete(got);
    assert_int_equal(sim_context_kv_get(c, INJECTIONS[1], &got, &err), 0);
    assert_true(cJSON_Compare(got, v, true));
    cJSON_Delete(got);
    assert_int_equal(sim_context_kv_get(c, "unset", &got, &err), 0);
    assert_null(got);
    cJSON_Delete(v);
    sim_context_close(c);

    /* someone else's SQLite file is refused, naming it */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA application_id=7; CREATE TABLE x(a)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(sim_context_open(path, &c, &err), SIM_EINVAL);
    char want[400];
    snprintf(want, sizeof want, "context db %s: not a context database (application_id 0x7, expected 0x53494d43)", path);
    assert_string_equal(err.msg, want);
    assert_int_equal(sim_context_remove_files(path, &err), 0);
    assert_int_equal(access(path, F_OK), -1);
}

static const char SONGS[] = "title,artist,year,length_s,rating\r\n"
                            "\"Autobahn\",Kraftwerk,1974,1365,4.5\r\n"
                            "\"Das Model\",Kraftwerk,1978,220,\r\n"
                            "\"Say \"\"Hi\"\"\",\"Smith, J.\",2001,180.5,3\r\n"
                            "\n"
                            "Bohemian,Queen,1975,355,5\n";

static cJSON *query(sim_context *c, const char *json, int want_rc, sim_error *err)
{
    cJSON *msg = cJSON_Parse(json);
    assert_non_null(msg);
    sim_msg_context_request r;
    assert_int_equal(sim_msg_context_request_decode(msg, &r, err), 0);
    cJSON *rows = NULL;
    assert_int_equal(sim_context_table_query(c, &r, &rows, err), want_rc);
    sim_msg_context_request_free(&r);
    cJSON_Delete(msg);
    return rows;
}

static void study_tables(void **state)
{
    sim_context *c = open_mem();
    sim_error err;
    assert_int_equal(sim_context_load_csv_text(c, "songs", "songs.csv", SONGS, strlen(SONGS), &err), 0);
    cJSON *rows = query(c, "{\"id\":1,\"op\":\"table.query\",\"table\":\"songs\",\"where\":[{\"column\":\"artist\","
                           "\"op\":\"=\",\"value\":\"Kraftwerk\"}],\"order\":\"year\",\"desc\":true}", 0, &err);
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "title")->valuestring, "Das Model");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "rating")));
    NEAR(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "year")->valuedouble, 1974, 0);
    cJSON_Delete(rows);
    /* ranges, a quoted comma and quotes, REAL column */
    rows = query(c, "{\"id\":2,\"op\":\"table.query\",\"table\":\"songs\",\"where\":[{\"column\":\"length_s\",\"op\":\">\","
                    "\"value\":100},{\"column\":\"length_s\",\"op\":\"<=\",\"value\":355}],\"order\":\"length_s\"}", 0, &err);
    assert_int_equal(cJSON_GetArraySize(rows), 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "title")->valuestring, "Say \"Hi\"");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "artist")->valuestring, "Smith, J.");
    NEAR(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "length_s")->valuedouble, 180.5, 0);
    cJSON_Delete(rows);
    rows = query(c, "{\"id\":3,\"op\":\"table.query\",\"table\":\"songs\",\"where\":[{\"column\":\"rating\",\"op\":\"=\","
                    "\"value\":null}]}", 0, &err);
    assert_int_equal(cJSON_GetArraySize(rows), 1);
    cJSON_Delete(rows);
    rows = query(c, "{\"id\":4,\"op\":\"table.query\",\"table\":\"songs\",\"limit\":2,\"offset\":3,\"order\":\"year\"}", 0, &err);
    assert_int_equal(cJSON_GetArraySize(rows), 1);
    cJSON_Delete(rows);
    /* unknown table and column */
    query(c, "{\"id\":5,\"op\":\"table.query\",\"table\":\"contacts\"}", SIM_ENOTFOUND, &err);
    assert_string_equal(err.msg, "context.request: table: no table 'contacts', expected one of: pois, roads, lanes, junctions, "
                                 "road_links, signs, songs");
    query(c, "{\"id\":6,\"op\":\"table.query\",\"table\":\"songs\",\"where\":[{\"column\":\"genre\",\"op\":\"=\",\"value\":1}]}",
          SIM_ENOTFOUND, &err);
    assert_string_equal(err.msg, "context.request: where[0].column: table 'songs' has no column 'genre'");
    query(c, "{\"id\":7,\"op\":\"table.query\",\"table\":\"songs\",\"order\":\"genre\"}", SIM_ENOTFOUND, &err);
    assert_string_equal(err.msg, "context.request: order: table 'songs' has no column 'genre'");
    /* injection strings as values are data: no row matches, every table survives */
    for (int i = 0; i < N_INJ; i++) {
        char json[512];
        cJSON *s = cJSON_CreateString(INJECTIONS[i]);
        char *q = cJSON_PrintUnformatted(s);
        snprintf(json, sizeof json, "{\"id\":8,\"op\":\"table.query\",\"table\":\"songs\",\"where\":[{\"column\":\"title\","
                                    "\"op\":\"=\",\"value\":%s}]}", q);
        rows = query(c, json, 0, &err);
        assert_int_equal(cJSON_GetArraySize(rows), 0);
        cJSON_Delete(rows);
        cJSON_free(q);
        cJSON_Delete(s);
    }
    rows = query(c, "{\"id\":9,\"op\":\"table.query\",\"table\":\"songs\"}", 0, &err);
    assert_int_equal(cJSON_GetArraySize(rows), 4);
    cJSON_Delete(rows);

    /* CSV errors name file, line and what was expected */
    const char *bad_rows = "a,b\n1,2\n3\n";
    assert_int_equal(sim_context_load_csv_text(c, "t", "t.csv", bad_rows, strlen(bad_rows), &err), SIM_EINVAL);
    assert_string_equal(err.msg, "t.csv:3: found 1 fields, expected 2 as in the header");
    const char *bad_head = "a,b c\n1,2\n";
    assert_int_equal(sim_context_load_csv_text(c, "t", "t.csv", bad_head, strlen(bad_head), &err), SIM_EINVAL);
    assert_string_equal(err.msg, "t.csv:1: column 2 'b c': expected a name [A-Za-z_][A-Za-z0-9_]*, at most 63 characters");
    const char *open_quote = "a\n\"x\n";
    assert_int_equal(sim_context_load_csv_text(c, "t", "t.csv", open_quote, strlen(open_quote), &err), SIM_EINVAL);
    assert_string_equal(err.msg, "t.csv:2: quoted field never closed, expected a closing \"");
    const char *dup = "a,A\n1,2\n";
    assert_int_equal(sim_context_load_csv_text(c, "t", "t.csv", dup, strlen(dup), &err), SIM_EINVAL);
    assert_string_equal(err.msg, "t.csv:1: column 'A' named twice");
    assert_int_equal(sim_context_load_csv_text(c, "pois", "p.csv", "a\n1\n", 4, &err), SIM_EINVAL);
    assert_int_equal(sim_context_load_csv_text(c, "x;drop", "p.csv", "a\n1\n", 4, &err), SIM_EINVAL);
    sim_context_close(c);
}

/* One request cannot hold the server: poi.near over a box holding 300000 POIs, and
 * poi.search for a prefix all their names share, stop at the work cap with an error saying
 * what to ask instead; the same data answers a small radius and a precise name. Before,
 * they scanned every POI (0.5 s for a million). */
static void requests_are_bounded_in_work(void **state)
{
    enum { N = 300000 };
    sim_context *c = open_mem();
    double *xy = malloc(2 * N * sizeof *xy);
    const char **cats = malloc(N * sizeof *cats);
    for (int i = 0; i < N; i++) {
        xy[2 * i] = (i % 1000) * 0.1;
        xy[2 * i + 1] = (i / 1000) * 0.3;
        cats[i] = "fuel";
    }
    sim_error err = {0};
    assert_int_equal(sim_context_poi_insert_many(c, xy, N, cats, &err), 0);
    /* their names in the full-text index, as loading a scenario puts them */
    assert_int_equal(sim_context_exec(c, "INSERT INTO pois_fts(rowid, name, category) SELECT pk, name, category FROM pois",
                                      "fts", &err), 0);
    sim_context_hit hits[10];
    int n = -1;
    assert_int_equal(sim_context_poi_near(c, 50, 50, 1000, NULL, 10, hits, &n, &err), SIM_ETOOBIG);
    assert_non_null(strstr(err.msg, "poi.near: more than the work cap"));
    assert_non_null(strstr(err.msg, "smaller radius"));
    assert_int_equal(sim_context_poi_near(c, 50, 50, 0.5, NULL, 10, hits, &n, &err), SIM_OK);
    assert_true(n > 0 && hits[0].distance <= 0.5);
    assert_int_equal(sim_context_poi_search(c, "p", NULL, 10, hits, &n, &err), SIM_ETOOBIG); /* every name is "POI <i>" */
    assert_non_null(strstr(err.msg, "poi.search: more than 20000 POIs match 'p'"));
    assert_int_equal(sim_context_poi_search(c, "poi 299999", NULL, 10, hits, &n, &err), SIM_OK);
    assert_int_equal(n, 1);
    free(xy);
    free(cats);
    sim_context_close(c);
}

static void count_hit(int64_t rowid, void *user)
{
    (void)rowid;
    ++*(int *)user;
}

/* Issue 20: the ego's nearby detection (context-server's context.nearby) asks for the
 * POIs in a box around it on every vehicle.state. Through the R*Tree the work follows
 * the POIs in the box; a scan of the table would step the virtual machine at least
 * once per POI (here 40 000 per query). */
static void box_query_works_only_on_the_box(void **state)
{
    (void)state;
    enum { SIDE = 200, N = SIDE * SIDE }; /* a grid of POIs 10 m apart */
    sim_context *c = open_mem();
    double *xy = malloc(2 * N * sizeof *xy);
    const char **cats = malloc(N * sizeof *cats);
    for (int i = 0; i < N; i++) {
        xy[2 * i] = (i % SIDE) * 10.0;
        xy[2 * i + 1] = (i / SIDE) * 10.0;
        cats[i] = "fuel";
    }
    sim_error err = {0};
    assert_int_equal(sim_context_poi_insert_many(c, xy, N, cats, &err), 0);
    /* [995, 1025] x [495, 515]: x 1000, 1010, 1020 by y 500, 510 */
    int calls = 0;
    sim_context_box_stats st = {0};
    assert_int_equal(sim_context_poi_box_counted(c, 995, 495, 1025, 515, count_hit, &calls, &st, &err), SIM_OK);
    assert_int_equal(calls, 6);
    assert_int_equal(st.hits, 6);
    assert_true(st.vm_steps > 0);
    assert_true(st.vm_steps < 1000); /* a scan: >= 40 000 */
    /* an empty box costs as little, and a box of everything steps at least once per POI */
    assert_int_equal(sim_context_poi_box_counted(c, 1001, 501, 1009, 509, count_hit, &calls, &st, &err), SIM_OK);
    assert_int_equal(st.hits, 0);
    assert_true(st.vm_steps < 1000);
    assert_int_equal(sim_context_poi_box_counted(c, -1, -1, 2000, 2000, count_hit, &calls, &st, &err), SIM_OK);
    assert_int_equal(st.hits, N);
    assert_true(st.vm_steps >= (uint64_t)N);
    free(xy);
    free(cats);
    sim_context_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(near_equals_brute_force),
        cmocka_unit_test(requests_are_bounded_in_work),
        cmocka_unit_test(box_query_works_only_on_the_box),
        cmocka_unit_test(town_pois_search_and_rebuild),
        cmocka_unit_test(messages_and_kv_persist),
        cmocka_unit_test(study_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
