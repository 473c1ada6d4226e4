/* sim_context_store: the in-car message stack and the key-value store (sim_context.h).
 * Each call is one committed transaction (WAL, synchronous=FULL) before it returns. */
#include "sim_context_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bind_display(sqlite3_stmt *st, int i, const char *display)
{
    return display && display[0] ? sqlite3_bind_text(st, i, display, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

int sim_context_msg_push(sim_context *c, int priority, const char *display, const char *text, double t,
                         int64_t *id, sim_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "INSERT INTO messages(priority, display, text, t_pushed) VALUES(?,?,?,?)", -1,
                                &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "messages.push", err);
    sqlite3_bind_int(st, 1, priority);
    sqlite3_bind_text(st, 2, display, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 4, t);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return sim_context_db_error(c, rc, "messages.push", err);
    *id = sqlite3_last_insert_rowid(c->db);
    return SIM_OK;
}

static cJSON *message_json(sqlite3_stmt *st)
{
    cJSON *m = cJSON_CreateObject();
    if (!m) return NULL;
    cJSON_AddNumberToObject(m, "id", (double)sqlite3_column_int64(st, 0));
    cJSON_AddNumberToObject(m, "priority", sqlite3_column_int(st, 1));
    cJSON_AddStringToObject(m, "display", (const char *)sqlite3_column_text(st, 2));
    cJSON_AddStringToObject(m, "text", (const char *)sqlite3_column_text(st, 3));
    cJSON_AddStringToObject(m, "state", (const char *)sqlite3_column_text(st, 4));
    cJSON_AddNumberToObject(m, "t", sqlite3_column_double(st, 5));
    return m;
}

#define MSG_COLUMNS "id, priority, display, text, state, t_pushed"

int sim_context_msg_list(sim_context *c, const char *display, int limit, cJSON **out, sim_error *err)
{
    *out = NULL;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "SELECT " MSG_COLUMNS " FROM messages WHERE state <> 'acked' "
                                       "AND (?1 IS NULL OR display = ?1) ORDER BY priority DESC, id LIMIT ?2", -1, &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "messages.list", err);
    bind_display(st, 1, display);
    sqlite3_bind_int(st, 2, limit);
    cJSON *arr = cJSON_CreateArray();
    while (arr && (rc = sqlite3_step(st)) == SQLITE_ROW) cJSON_AddItemToArray(arr, message_json(st));
    sqlite3_finalize(st);
    if (!arr) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (rc != SQLITE_DONE) {
        cJSON_Delete(arr);
        return sim_context_db_error(c, rc, "messages.list", err);
    }
    *out = arr;
    return SIM_OK;
}

int sim_context_msg_pop(sim_context *c, const char *display, double t, cJSON **out, sim_error *err)
{
    *out = NULL;
    sqlite3_stmt *sel = NULL, *upd = NULL;
    int rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "SELECT " MSG_COLUMNS " FROM messages WHERE state = 'pending' "
                                       "AND (?1 IS NULL OR display = ?1) ORDER BY priority DESC, id LIMIT 1", -1, &sel, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "UPDATE messages SET state = 'shown', t_shown = ?2 WHERE id = ?1", -1, &upd, NULL);
    cJSON *m = NULL;
    if (rc == SQLITE_OK) {
        bind_display(sel, 1, display);
        rc = sqlite3_step(sel);
        if (rc == SQLITE_ROW) {
            m = message_json(sel);
            sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
            sqlite3_bind_double(upd, 2, t);
            rc = sqlite3_step(upd) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(c->db);
            if (m) cJSON_ReplaceItemInObject(m, "state", cJSON_CreateString("shown"));
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    if (rc == SQLITE_OK) rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int ret = sim_context_db_error(c, rc, "messages.pop", err);
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        cJSON_Delete(m);
        return ret;
    }
    *out = m;
    return SIM_OK;
}

int sim_context_msg_ack(sim_context *c, int64_t id, double t, sim_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "UPDATE messages SET state = 'acked', t_acked = coalesce(t_acked, ?2) "
                                       "WHERE id = ?1", -1, &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "messages.ack", err);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_double(st, 2, t);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return sim_context_db_error(c, rc, "messages.ack", err);
    if (sqlite3_changes(c->db) == 0)
        return sim_error_set(err, SIM_ENOTFOUND, "context.request: message: no message with id %lld", (long long)id);
    return SIM_OK;
}

int sim_context_kv_set(sim_context *c, const char *key, const cJSON *value, sim_error *err)
{
    char *text = cJSON_PrintUnformatted(value);
    if (!text) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "INSERT INTO kv(key, value) VALUES(?1, ?2) "
                                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(c->db);
        sqlite3_finalize(st);
    }
    cJSON_free(text);
    return rc == SQLITE_OK ? SIM_OK : sim_context_db_error(c, rc, "kv.set", err);
}

int sim_context_kv_get(sim_context *c, const char *key, cJSON **out, sim_error *err)
{
    *out = NULL;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "SELECT value FROM kv WHERE key = ?", -1, &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "kv.get", err);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *out = cJSON_Parse((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sim_context_db_error(c, rc, "kv.get", err);
    if (rc == SQLITE_ROW && !*out) return sim_error_set(err, SIM_ENOMEM, "kv.get: out of memory");
    return SIM_OK;
}
