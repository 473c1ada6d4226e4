/* sim_msg_log: log.status, log.error and session.module (see sim_msg_log.h). */
#include "sim_msg_log.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "sim_msg_fields.h"

#define F(T, name, kind, lo, hi) {#name, kind, SIM_MF_AT(T, name, kind, 0), lo, hi, 0}
#define S(T, name) {#name, SIM_MF_STR, SIM_MF_AT(T, name, SIM_MF_STR, sizeof(((T *)0)->name)), 0, 0, sizeof(((T *)0)->name)}
static const sim_msg_field STATUS[] = {
    S(sim_msg_log_status, file),
    F(sim_msg_log_status, rows, SIM_MF_U64, 0, 0),
    F(sim_msg_log_status, synced, SIM_MF_U64, 0, 0),
    F(sim_msg_log_status, pending, SIM_MF_U64, 0, 0),
    F(sim_msg_log_status, samples, SIM_MF_U64, 0, 0),
    F(sim_msg_log_status, events, SIM_MF_U64, 0, 0),
    F(sim_msg_log_status, run, SIM_MF_NUM, -1, 1e15),
    F(sim_msg_log_status, bad_messages, SIM_MF_U64, 0, 0),
    S(sim_msg_log_status, error),
};
static const sim_msg_field ERROR[] = {
    S(sim_msg_log_error, file),
    S(sim_msg_log_error, error),
    F(sim_msg_log_error, pending, SIM_MF_U64, 0, 0),
};
static const sim_msg_field MODULE[] = {
    S(sim_msg_session_module, module),
    S(sim_msg_session_module, what),
    F(sim_msg_session_module, status, SIM_MF_NUM, -1e18, 1e18),
    F(sim_msg_session_module, signal, SIM_MF_INT, 0, 1024),
    F(sim_msg_session_module, run, SIM_MF_NUM, -1, 1e15),
};
static const sim_msg_field BUS_ERROR[] = {
    F(sim_msg_bus_error, dropped, SIM_MF_U64, 0, 0),
    S(sim_msg_bus_error, error),
};
#undef F
#undef S
#define N(t) (sizeof t / sizeof *t)

/* A string field written even when empty: "" (file) or null (log.status's error). */
static cJSON *with_string(cJSON *o, const char *key, const char *value, bool null_when_empty)
{
    if (!o) return NULL;
    bool ok = value[0] || !null_when_empty ? cJSON_AddStringToObject(o, key, value) != NULL
                                           : cJSON_AddNullToObject(o, key) != NULL;
    if (ok) return o;
    cJSON_Delete(o);
    return NULL;
}

/* The table writes fields in order but leaves empty strings out; the bus has always
 * carried them (file "", error null), at their place. */
static cJSON *in_order(const void *m, const sim_msg_field *f, size_t n, const char *null_key)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    for (size_t i = 0; i < n && o; i++) {
        if (f[i].kind == SIM_MF_STR) {
            o = with_string(o, f[i].name, (const char *)m + f[i].offset,
                            null_key && strcmp(f[i].name, null_key) == 0);
        } else if (sim_msg_fields_encode(o, m, &f[i], 1)) {
            cJSON_Delete(o);
            o = NULL;
        }
    }
    return o;
}

cJSON *sim_msg_log_status_encode(const sim_msg_log_status *m) { return in_order(m, STATUS, N(STATUS), "error"); }

int sim_msg_log_status_decode(const cJSON *msg, sim_msg_log_status *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_LOG_STATUS, .err = err};
    return sim_msg_fields_decode(&j, msg, out, STATUS, N(STATUS));
}

cJSON *sim_msg_log_error_encode(const sim_msg_log_error *m) { return in_order(m, ERROR, N(ERROR), NULL); }

int sim_msg_log_error_decode(const cJSON *msg, sim_msg_log_error *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_LOG_ERROR, .err = err};
    return sim_msg_fields_decode(&j, msg, out, ERROR, N(ERROR));
}

cJSON *sim_msg_session_module_encode(const sim_msg_session_module *m)
{
    return in_order(m, MODULE, N(MODULE), NULL);
}

int sim_msg_session_module_decode(const cJSON *msg, sim_msg_session_module *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_SESSION_MODULE, .err = err};
    return sim_msg_fields_decode(&j, msg, out, MODULE, N(MODULE));
}

cJSON *sim_msg_bus_error_encode(const sim_msg_bus_error *m) { return in_order(m, BUS_ERROR, N(BUS_ERROR), NULL); }

int sim_msg_bus_error_decode(const cJSON *msg, sim_msg_bus_error *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_BUS_ERROR, .err = err};
    return sim_msg_fields_decode(&j, msg, out, BUS_ERROR, N(BUS_ERROR));
}
