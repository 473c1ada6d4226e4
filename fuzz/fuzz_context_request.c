/* Fuzz target: context.request lines as the context server receives them. A request
 * that decodes must encode and decode to the same encoding, and runs against an
 * in-memory context database (study table queries, POI search, messages, kv) without
 * a crash or a leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_context.h"
#include "sim_msg_context.h"

static sim_context *db;

static void run(const sim_msg_context_request *q)
{
    sim_error err;
    sim_context_hit hits[SIM_CTX_LIMIT_MAX];
    int n;
    cJSON *out = NULL;
    int64_t id;
    switch (q->op) {
    case SIM_CTX_POI_NEAR: sim_context_poi_near(db, q->at.x, q->at.y, q->radius, q->category, q->limit, hits, &n, &err); break;
    case SIM_CTX_POI_SEARCH: sim_context_poi_search(db, q->text, q->category, q->limit, hits, &n, &err); break;
    case SIM_CTX_POI_GET: sim_context_poi_find(db, q->poi, hits, &err); break;
    case SIM_CTX_MSG_PUSH: sim_context_msg_push(db, q->priority, q->display, q->text, 0, &id, &err); break;
    case SIM_CTX_MSG_LIST: sim_context_msg_list(db, q->display, q->limit, &out, &err); break;
    case SIM_CTX_MSG_POP: sim_context_msg_pop(db, q->display, 0, &out, &err); break;
    case SIM_CTX_MSG_ACK: sim_context_msg_ack(db, q->message, 0, &err); break;
    case SIM_CTX_KV_SET: sim_context_kv_set(db, q->key, q->value, &err); break;
    case SIM_CTX_KV_GET: sim_context_kv_get(db, q->key, &out, &err); break;
    case SIM_CTX_TABLE_QUERY: sim_context_table_query(db, q, &out, &err); break;
    default: break;
    }
    cJSON_Delete(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db) {
        static const char csv[] = "title,year,rating\nA,1974,4.5\nB,1978,\n";
        sim_error err;
        if (sim_context_open(":memory:", &db, &err) ||
            sim_context_load_csv_text(db, "songs", "songs.csv", csv, sizeof csv - 1, &err))
            abort();
    }
    cJSON *msg = cJSON_ParseWithLength((const char *)data, size);
    if (!msg) return 0;
    sim_msg_context_request q, q2;
    sim_error err;
    if (sim_msg_context_request_decode(msg, &q, &err) == SIM_OK) {
        cJSON *e1 = sim_msg_context_request_encode(&q);
        char *s1 = cJSON_PrintUnformatted(e1);
        if (sim_msg_context_request_decode(e1, &q2, &err) != SIM_OK) __builtin_trap();
        cJSON *e2 = sim_msg_context_request_encode(&q2);
        char *s2 = cJSON_PrintUnformatted(e2);
        if (strcmp(s1, s2) != 0) __builtin_trap();
        run(&q);
        cJSON_free(s1);
        cJSON_free(s2);
        cJSON_Delete(e1);
        cJSON_Delete(e2);
        sim_msg_context_request_free(&q2);
    }
    sim_msg_context_request_free(&q);
    cJSON_Delete(msg);
    return 0;
}
