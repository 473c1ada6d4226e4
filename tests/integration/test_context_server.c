/* Integration tests of context-server with real processes on loopback: guidance
 * announces each manoeuvre in order while the scripted driver drives the route (physics
 * and input nodes in lockstep), requests of every bad class are refused naming the
 * field while SQL-injection strings in every text field stay data, and what the server
 * acknowledged survives kill -9. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim_context.h"
#include "sim_file.h"
#include "test_support.h"

static pid_t start_server(const ts_dispatcher *d, const char *db, const char *extra1, const char *extra2)
{
    char bus[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d->port);
    char scen[1024];
    snprintf(scen, sizeof scen, "%s", ts_root("scenarios/town.json"));
    char *argv[] = {"context-server", "--scenario", scen, "--db", (char *)db, "--bus", bus,
                    (char *)extra1, (char *)extra2, NULL};
    return ts_spawn(argv, false);
}

/* Waits for the dispatcher to announce that `name` joined (seen by c). */
static void wait_joined(ts_conn *c, const char *name)
{
    double end = ts_now_ms() + 20000;
    while (ts_now_ms() < end) {
        cJSON *m = ts_expect_topic(c, "dispatcher.joined", 20000, NULL, 0);
        assert_non_null(m);
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "name");
        bool yes = cJSON_IsString(n) && strcmp(n->valuestring, name) == 0;
        cJSON_Delete(m);
        if (yes) return;
    }
    fail_msg("%s never joined", name);
}

static int seq;

/* Sends a request (JSON fields without topic/src/seq) and returns the reply to it. */
static cJSON *ask(ts_conn *c, const char *src, const char *fields)
{
    char line[20000];
    snprintf(line, sizeof line, "{\"topic\":\"context.request\",\"src\":\"%s\",\"seq\":%d,%s", src, ++seq, fields + 1);
    assert_true(ts_send_line(c, line));
    cJSON *req = cJSON_Parse(fields);
    assert_non_null(req);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    for (;;) {
        cJSON *m = ts_expect_topic(c, "context.reply", 10000, NULL, 0);
        assert_non_null(m);
        const cJSON *rid = cJSON_GetObjectItemCaseSensitive(m, "id");
        if (!id || cJSON_Compare(rid, id, true) || (cJSON_IsString(rid) && strcmp(rid->valuestring, "?") == 0)) {
            cJSON_Delete(req);
            return m;
        }
        cJSON_Delete(m);
    }
}

static bool ok(const cJSON *m)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "ok"));
}

static const char *error_of(const cJSON *m)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "error");
    return cJSON_IsString(e) ? e->valuestring : "";
}

static void expect_refused(ts_conn *c, const char *fields, const char *error)
{
    cJSON *r = ask(c, "hmi", fields);
    assert_false(ok(r));
    if (strcmp(error_of(r), error) != 0) print_error("%s\n got %s\n", fields, error_of(r));
    assert_string_equal(error_of(r), error);
    cJSON_Delete(r);
}

static void temp_db(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/test_context_server_%d_%d.db", (int)getpid(), ts_free_port());
}

static void remove_db(const char *path)
{
    assert_int_equal(sim_context_remove_files(path, NULL), 0);
}

/* A dispatcher, a client and the server on a fresh database, the server joined. */
typedef struct fixture {
    ts_dispatcher d;
    char db[256];
    ts_conn *c;
    pid_t srv;
} fixture;

static void fixture_start(fixture *f, const char *client, const char *extra1, const char *extra2)
{
    assert_true(ts_dispatcher_start(&f->d, NULL));
    temp_db(f->db, sizeof f->db);
    f->c = ts_join(f->d.port, client, "[\"context.reply\",\"dispatcher.joined\"]", NULL);
    assert_non_null(f->c);
    f->srv = start_server(&f->d, f->db, extra1, extra2);
    wait_joined(f->c, "context");
}

/* The server must still be there and stop cleanly. */
static void fixture_stop(fixture *f)
{
    ts_close(f->c);
    assert_int_equal(ts_stop(f->srv, SIGTERM, 5000), 0);
    ts_dispatcher_stop(&f->d);
    remove_db(f->db);
}

static void bad_requests_and_injections(void **state)
{
    fixture f;
    fixture_start(&f, "hmi", NULL, NULL);
    ts_conn *c = f.c;

    /* the reply is addressed to the requester */
    cJSON *r = ask(c, "hmi", "{\"id\":\"n1\",\"op\":\"poi.near\",\"x\":30,\"y\":-1.5,\"category\":\"fuel\",\"limit\":1}");
    assert_true(ok(r));
    assert_string_equal(cJSON_GetObjectItem(r, "to")->valuestring, "hmi");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "pois"), 0), "id")->valuestring,
                        "fuel_east");
    cJSON_Delete(r);

    /* one of each class */
    expect_refused(c, "{\"id\":1,\"op\":\"drop.everything\"}",
                   "context.request: op: found \"drop.everything\", expected one of poi.near, poi.search, poi.get, "
                   "route, route.cancel, messages.push, messages.list, messages.pop, messages.ack, kv.get, kv.set, "
                   "table.query");
    expect_refused(c, "{\"id\":2,\"op\":\"poi.get\"}", "context.request: poi: missing, expected a string of 1..63 characters");
    expect_refused(c, "{\"id\":3,\"op\":\"poi.near\",\"x\":\"0\",\"y\":0}",
                   "context.request: x: found \"0\", expected a number in [-1e+07, 1e+07]");
    expect_refused(c, "{\"id\":4,\"op\":\"poi.near\",\"x\":0,\"y\":0,\"limit\":100000}",
                   "context.request: limit: found 100000, expected an integer in [1, 1000]");
    expect_refused(c, "{\"id\":5,\"op\":\"table.query\",\"table\":\"contacts\"}",
                   "context.request: table: no table 'contacts', expected one of: pois, roads, lanes, junctions, road_links, signs");
    expect_refused(c, "{\"id\":6,\"op\":\"table.query\",\"table\":\"pois\",\"where\":[{\"column\":\"owner\",\"op\":\"=\",\"value\":1}]}",
                   "context.request: where[0].column: table 'pois' has no column 'owner'");
    expect_refused(c, "{\"id\":7,\"op\":\"poi.near\"}",
                   "context.request: x: no ego position yet (no vehicle.state received): give a point");
    expect_refused(c, "{\"op\":\"kv.get\",\"key\":\"k\"}",
                   "context.request: id: missing, expected a string of 1..64 characters or an integer");

    /* injection strings in every text field: refused as names, or plain data. Each
     * case: the request (%1$s the string), whether it is ok, and then the size of the
     * result array it names, or a piece of the error. */
    static const struct {
        const char *fmt;
        bool ok;
        const char *array;
        int n;
        const char *error;
    } cases[] = {
        {"{\"id\":10,\"op\":\"poi.near\",\"x\":0,\"y\":0,\"radius\":100000,\"category\":\"%1$s\"}", true, "pois", 0, NULL},
        {"{\"id\":11,\"op\":\"poi.search\",\"text\":\"%1$s\"}", true, "pois", 0, NULL},
        {"{\"id\":12,\"op\":\"poi.get\",\"poi\":\"%1$s\"}", false, NULL, 0, "context.request: poi: no POI with id"},
        {"{\"id\":13,\"op\":\"route\",\"from\":{\"x\":30,\"y\":-1.5},\"to\":{\"poi\":\"%1$s\"}}", false, NULL, 0,
         "context.request: to.poi: no POI with id"},
        {"{\"id\":14,\"op\":\"messages.push\",\"text\":\"%1$s\",\"display\":\"%1$s\"}", true, NULL, 0, NULL},
        {"{\"id\":15,\"op\":\"messages.list\",\"display\":\"%1$s\"}", true, "messages", 1, NULL}, /* its own */
        {"{\"id\":16,\"op\":\"kv.set\",\"key\":\"%1$s\",\"value\":\"%1$s\"}", true, NULL, 0, NULL},
        {"{\"id\":17,\"op\":\"table.query\",\"table\":\"%1$s\"}", false, NULL, 0, "context.request: table: found"},
        {"{\"id\":18,\"op\":\"table.query\",\"table\":\"pois\",\"order\":\"%1$s\"}", false, NULL, 0,
         "context.request: order: found"},
        {"{\"id\":19,\"op\":\"table.query\",\"table\":\"pois\",\"where\":[{\"column\":\"name\",\"op\":\"=\","
         "\"value\":\"%1$s\"}]}", true, "rows", 0, NULL},
    };
    static const char *const inj[] = {"'; DROP TABLE kv; --", "\\\" OR 1=1 --", "x') UNION SELECT key, value FROM kv --"};
    for (int i = 0; i < 3; i++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            char q[1024];
            snprintf(q, sizeof q, cases[k].fmt, inj[i]);
            r = ask(c, "hmi", q);
            if (ok(r) != cases[k].ok) fail_msg("%s: %s", q, error_of(r));
            if (cases[k].array) assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, cases[k].array)), cases[k].n);
            if (cases[k].error) assert_non_null(strstr(error_of(r), cases[k].error));
            cJSON_Delete(r);
        }
    /* the scenario's lanes: h0_0 has two driving lanes each way, 3 m wide, 50 km/h */
    r = ask(c, "hmi", "{\"id\":30,\"op\":\"table.query\",\"table\":\"lanes\",\"where\":[{\"column\":\"road\",\"op\":\"=\","
                      "\"value\":\"h0_0\"},{\"column\":\"forward\",\"op\":\"=\",\"value\":true}],\"order\":\"lane\",\"desc\":true}");
    assert_true(ok(r));
    const cJSON *lanes = cJSON_GetObjectItem(r, "rows");
    assert_true(cJSON_GetArraySize(lanes) >= 1);
    assert_int_equal((int)cJSON_GetObjectItem(cJSON_GetArrayItem(lanes, 0), "lane")->valuedouble, -1);
    assert_true(fabs(cJSON_GetObjectItem(cJSON_GetArrayItem(lanes, 0), "speed_kmh")->valuedouble - 50) < 1e-9);
    cJSON_Delete(r);
    /* a route from one POI to another, not guided: the supermarket (v0_1) to the hotel */
    r = ask(c, "hmi", "{\"id\":31,\"op\":\"route\",\"from\":{\"poi\":\"supermarket\"},\"to\":{\"poi\":\"hotel\"}}");
    assert_true(ok(r));
    const cJSON *rt = cJSON_GetObjectItem(r, "route");
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(rt, "guided")));
    const cJSON *ms = cJSON_GetObjectItem(rt, "maneuvers");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(ms, 0), "type")->valuestring, "depart");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(ms, cJSON_GetArraySize(ms) - 1), "type")->valuestring,
                        "arrive");
    assert_true(cJSON_GetObjectItem(rt, "length")->valuedouble > 300); /* across the grid */
    cJSON_Delete(r);
    /* everything is still there, and the server still answers */
    r = ask(c, "hmi", "{\"id\":20,\"op\":\"table.query\",\"table\":\"pois\",\"limit\":1000}");
    assert_true(ok(r));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "rows")), 10);
    cJSON_Delete(r);
    r = ask(c, "hmi", "{\"id\":21,\"op\":\"messages.list\",\"limit\":1000}");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "messages")), 3);
    cJSON_Delete(r);
    /* a line that is not a request object at all */
    assert_true(ts_send_line(c, "{\"topic\":\"context.request\",\"src\":\"hmi\",\"seq\":999,\"id\":[1],\"op\":5}"));
    r = ts_expect_topic(c, "context.reply", 5000, NULL, 0);
    assert_non_null(r);
    assert_false(ok(r));
    cJSON_Delete(r);
    r = ask(c, "hmi", "{\"id\":22,\"op\":\"kv.get\",\"key\":\"'; DROP TABLE kv; --\"}");
    assert_true(ok(r));
    assert_string_equal(cJSON_GetObjectItem(r, "value")->valuestring, "'; DROP TABLE kv; --");
    cJSON_Delete(r);
    fixture_stop(&f);
}

/* A study table from --data, queried over the bus with filters and order. */
static void study_table_over_the_bus(void **state)
{
    char csv[256];
    snprintf(csv, sizeof csv, "/tmp/test_context_songs_%d.csv", (int)getpid());
    FILE *fp = fopen(csv, "w");
    assert_non_null(fp);
    fputs("title,artist,year\nAutobahn,Kraftwerk,1974\nDas Model,Kraftwerk,1978\nBohemian,Queen,1975\n", fp);
    fclose(fp);
    char data[300];
    snprintf(data, sizeof data, "songs=%s", csv);
    fixture f;
    fixture_start(&f, "radio", "--data", data);
    cJSON *r = ask(f.c, "radio", "{\"id\":1,\"op\":\"table.query\",\"table\":\"songs\",\"where\":[{\"column\":\"year\","
                                  "\"op\":\">=\",\"value\":1975}],\"order\":\"year\",\"desc\":true}");
    assert_true(ok(r));
    const cJSON *rows = cJSON_GetObjectItem(r, "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "title")->valuestring, "Das Model");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "title")->valuestring, "Bohemian");
    cJSON_Delete(r);
    fixture_stop(&f);
    unlink(csv);
}

static void acknowledged_survives_kill_9(void **state)
{
    fixture f;
    fixture_start(&f, "obc", NULL, NULL);
    ts_conn *c = f.c;
    enum { N = 40 };
    for (int i = 0; i < N; i++) {
        char q[200];
        snprintf(q, sizeof q, "{\"id\":%d,\"op\":\"messages.push\",\"text\":\"fault %d\",\"priority\":%d}", i + 1, i, i % 10);
        cJSON *r = ask(c, "obc", q);
        assert_true(ok(r));
        cJSON_Delete(r);
    }
    cJSON *r = ask(c, "obc", "{\"id\":100,\"op\":\"kv.set\",\"key\":\"mileage\",\"value\":{\"km\":12345.5}}");
    assert_true(ok(r));
    cJSON_Delete(r);
    r = ask(c, "obc", "{\"id\":101,\"op\":\"messages.ack\",\"message\":7}");
    assert_true(ok(r));
    cJSON_Delete(r);
    /* killed the hard way right after the last reply */
    kill(f.srv, SIGKILL);
    ts_stop(f.srv, SIGKILL, 5000);
    f.srv = start_server(&f.d, f.db, NULL, NULL);
    wait_joined(c, "context");
    r = ask(c, "obc", "{\"id\":200,\"op\":\"messages.list\",\"limit\":1000}");
    assert_true(ok(r));
    const cJSON *list = cJSON_GetObjectItem(r, "messages");
    assert_int_equal(cJSON_GetArraySize(list), N - 1); /* all but the acknowledged one */
    /* highest priority first: 9s are fault 9, 19, 29, 39 */
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "text")->valuestring, "fault 9");
    cJSON_Delete(r);
    r = ask(c, "obc", "{\"id\":201,\"op\":\"kv.get\",\"key\":\"mileage\"}");
    assert_true(ok(r));
    assert_true(fabs(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "value"), "km")->valuedouble - 12345.5) < 1e-9);
    cJSON_Delete(r);
    fixture_stop(&f);
}

/* Issue 21: a restarted context-server dropped the active route guidance. A server
 * killed while guiding is replaced (as simctl run does) and, at the first vehicle.state,
 * goes on guiding to the same destination under the same route number, marked
 * rerouted; a clean stop forgets the guidance. */
static void guidance_resumes_after_kill_9(void **state)
{
    fixture f;
    fixture_start(&f, "hmi", NULL, NULL);
    ts_conn *car = ts_join(f.d.port, "car", "[\"context.guidance\",\"dispatcher.joined\"]", NULL);
    assert_non_null(car);
    const char *pose = "{\"topic\":\"vehicle.state\",\"src\":\"car\",\"seq\":1,\"t\":1,\"pos\":[30,-1.5,0],"
                       "\"heading\":0,\"speed\":10}";
    ts_send_line(car, pose);
    cJSON *r = ask(f.c, "hmi", "{\"id\":1,\"op\":\"route\",\"to\":{\"poi\":\"hotel\"}}");
    assert_true(ok(r));
    int number = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "route"), "number")->valueint;
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "route"), "guided")));
    cJSON_Delete(r);
    cJSON *g = ts_expect_topic(car, "context.guidance", 20000, NULL, 0);
    assert_non_null(g);
    cJSON_Delete(g);
    kill(f.srv, SIGKILL);
    ts_stop(f.srv, SIGKILL, 5000);
    f.srv = start_server(&f.d, f.db, NULL, NULL);
    wait_joined(car, "context");
    ts_send_line(car, "{\"topic\":\"vehicle.state\",\"src\":\"car\",\"seq\":2,\"t\":2,\"pos\":[40,-1.5,0],"
                      "\"heading\":0,\"speed\":10}");
    g = ts_expect_topic(car, "context.guidance", 20000, NULL, 0);
    assert_non_null(g);
    assert_int_equal(cJSON_GetObjectItem(g, "route")->valueint, number);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(g, "rerouted")));
    cJSON_Delete(g);
    /* A clean stop forgets it: the next server does not guide. */
    assert_int_equal(ts_stop(f.srv, SIGTERM, 5000), 0);
    f.srv = start_server(&f.d, f.db, NULL, NULL);
    wait_joined(car, "context");
    ts_send_line(car, pose);
    r = ask(f.c, "hmi", "{\"id\":2,\"op\":\"kv.get\",\"key\":\"context-server.guidance\"}");
    assert_true(ok(r));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "value")));
    cJSON_Delete(r);
    ts_close(car);
    fixture_stop(&f);
}

/* What guidance said during one drive. */
typedef struct drive_log {
    char seq[16][16];     /* the distinct manoeuvres announced, in order, with route numbers */
    int n_seq, events, max_route, entered;
    bool replied, arrived, off, rerouted;
    double sim_t;
} drive_log;

/* A session on the town in lockstep (physics, scripted driver from "home", the server,
 * this client): asks for a route from the ego to `poi` at the first vehicle.state and
 * follows context.guidance until arrival (or 120 s of simulation time). */
/* scenarios/town.json without its task and sector, for the scripted driver: with a
 * task it routes towards the task (input-node/route_goal.c); these tests need the
 * driver that goes straight on where it can, whose routes they work out. */
static void town_without_tasks(char *path, size_t size)
{
    char *text;
    size_t len;
    sim_error err = {0};
    assert_int_equal(sim_file_read(ts_root("scenarios/town.json"), &text, &len, &err), 0);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    cJSON_DeleteItemFromObjectCaseSensitive(root, "tasks");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "sectors");
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    snprintf(path, size, "/tmp/test_context_town_%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(out, f);
    fclose(f);
    free(out);
}

static void drive_to(const char *poi, drive_log *out)
{
    memset(out, 0, sizeof *out);
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    char db[256], bus[32], scen[1024];
    temp_db(db, sizeof db);
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    snprintf(scen, sizeof scen, "%s", ts_root("scenarios/town.json"));
    ts_conn *c = ts_join(d.port, "nav", "[\"sim.tick\",\"vehicle.state\",\"context.\",\"dispatcher.joined\"]",
                         "\"lockstep\":true");
    assert_non_null(c);
    pid_t srv = start_server(&d, db, NULL, NULL);
    wait_joined(c, "context");
    char straight[256];
    town_without_tasks(straight, sizeof straight);
    char *in_argv[] = {"input-node", "--driver", "script", "--scenario", straight, "--lockstep", "--bus", bus, NULL};
    pid_t input = ts_spawn(in_argv, false);
    char *ph_argv[] = {"physics-node", "--scenario", scen, "--vehicle", (char *)ts_root("vehicles/bmw-318i.json"),
                       "--lockstep", "--wait-for", "input,context,nav", "--bus", bus, NULL};
    pid_t phys = ts_spawn(ph_argv, false);
    assert_true(input > 0 && phys > 0);
    bool asked = false;
    char line[70000];
    double end = ts_now_ms() + 120000;
    while (!out->arrived && ts_now_ms() < end && out->sim_t < 120) {
        int n = ts_read_line(c, line, sizeof line, 10000);
        assert_true(n > 0);
        cJSON *m = cJSON_Parse(line);
        assert_non_null(m);
        const char *topic = cJSON_GetObjectItem(m, "topic")->valuestring;
        if (strcmp(topic, "sim.tick") == 0) {
            char ack[160];
            out->sim_t = cJSON_GetObjectItem(m, "t")->valuedouble;
            snprintf(ack, sizeof ack, "{\"topic\":\"sim.ack\",\"src\":\"nav\",\"seq\":%d,\"n\":%.0f}", ++seq,
                     cJSON_GetObjectItem(m, "n")->valuedouble);
            assert_true(ts_send_line(c, ack));
        } else if (strcmp(topic, "vehicle.state") == 0 && !asked) {
            /* the first state reaches the server before our request does */
            char req[200];
            snprintf(req, sizeof req, "{\"topic\":\"context.request\",\"src\":\"nav\",\"seq\":%d,\"id\":\"r1\","
                                      "\"op\":\"route\",\"to\":{\"poi\":\"%s\"}}", ++seq, poi);
            assert_true(ts_send_line(c, req));
            asked = true;
        } else if (strcmp(topic, "context.reply") == 0) {
            assert_true(ok(m));
            out->replied = true;
        } else if (strcmp(topic, "context.nearby") == 0) {
            if (strcmp(cJSON_GetObjectItem(m, "poi")->valuestring, poi) == 0 &&
                strcmp(cJSON_GetObjectItem(m, "event")->valuestring, "enter") == 0)
                out->entered++;
        } else if (strcmp(topic, "context.guidance") == 0) {
            out->events++;
            int route = (int)cJSON_GetObjectItem(m, "route")->valuedouble;
            if (route > out->max_route) out->max_route = route;
            out->off |= cJSON_IsTrue(cJSON_GetObjectItem(m, "off_route"));
            out->rerouted |= cJSON_IsTrue(cJSON_GetObjectItem(m, "rerouted"));
            char step[16];
            snprintf(step, sizeof step, "%d:%s", route, cJSON_GetObjectItem(m, "next")->valuestring);
            if (!out->off || route > 1) { /* while off the old route its next says nothing */
                if (out->n_seq == 0 || strcmp(out->seq[out->n_seq - 1], step) != 0) {
                    assert_true(out->n_seq < 16);
                    snprintf(out->seq[out->n_seq++], sizeof out->seq[0], "%s", step);
                }
            }
            out->arrived = cJSON_IsTrue(cJSON_GetObjectItem(m, "arrived"));
        }
        cJSON_Delete(m);
    }
    printf("# guidance to %s: %d events, arrived at t %.2f s:", poi, out->events, out->sim_t);
    for (int i = 0; i < out->n_seq; i++) printf(" %s", out->seq[i]);
    printf("\n");
    ts_close(c);
    ts_stop(phys, SIGTERM, 5000);
    ts_stop(input, SIGTERM, 5000);
    unlink(straight);
    assert_int_equal(ts_stop(srv, SIGTERM, 5000), 0);
    ts_dispatcher_stop(&d);
    remove_db(db);
}

/* The route from home to the fuel station on v2_0 is straight on at J10, left at J20,
 * arrive (test_route works it out). The scripted driver goes straight on where it can
 * and turns at the corner J20, i.e. it drives that route: guidance must announce the
 * three in this order, never off the route, and the car must pass the station. */
static void guidance_follows_the_scripted_driver(void **state)
{
    drive_log g;
    drive_to("fuel_east", &g);
    assert_true(g.replied);
    assert_true(g.arrived);
    assert_int_equal(g.n_seq, 3);
    assert_string_equal(g.seq[0], "1:straight");
    assert_string_equal(g.seq[1], "1:left");
    assert_string_equal(g.seq[2], "1:arrive");
    assert_false(g.off);
    assert_int_equal(g.max_route, 1); /* never re-routed */
    assert_int_equal(g.entered, 1);
}

/* To the hotel (v2_1 s 50) the shortest way turns left at J10; the scripted driver goes
 * straight on. Guidance must see the car leave the route, re-route from where it is
 * (along h0_1: left at the corner J20, straight on at J21) and bring it to the hotel. */
static void guidance_reroutes_when_the_driver_goes_another_way(void **state)
{
    drive_log g;
    drive_to("hotel", &g);
    assert_true(g.replied);
    assert_true(g.arrived);
    assert_true(g.off);
    assert_true(g.rerouted);
    assert_int_equal(g.max_route, 2);
    assert_string_equal(g.seq[0], "1:left"); /* the first route's turn at J10, never taken */
    assert_int_equal(g.n_seq, 4);
    assert_string_equal(g.seq[1], "2:left");
    assert_string_equal(g.seq[2], "2:straight");
    assert_string_equal(g.seq[3], "2:arrive");
}

/* simctl run starts the context server with the session; its database goes to OUT. */
static void simctl_run_starts_the_server(void **state)
{
    char out[] = "/tmp/test_context_simctl_XXXXXX";
    assert_non_null(mkdtemp(out));
    char bus[64], control[64], scen[1024];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", ts_free_port());
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", ts_free_port());
    snprintf(scen, sizeof scen, "%s", ts_root("scenarios/town.json"));
    char *argv[] = {"simctl", "run", scen, "--headless", "--driver", "script", "--until", "2", "--no-analysis",
                    "--out", out, "--bus", bus, "--control", control, NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    int st = ts_stop(pid, 0, TS_SESSION_HANG_MS); /* the session ends by itself at --until */
    assert_true(st != -1 && WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/context.db", out);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM pois WHERE category = 'fuel'", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 2);
    sqlite3_finalize(q);
    sqlite3_close(db);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_requests_and_injections),
        cmocka_unit_test(study_table_over_the_bus),
        cmocka_unit_test(acknowledged_survives_kill_9),
        cmocka_unit_test(guidance_resumes_after_kill_9),
        cmocka_unit_test(guidance_follows_the_scripted_driver),
        cmocka_unit_test(guidance_reroutes_when_the_driver_goes_another_way),
        cmocka_unit_test(simctl_run_starts_the_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
