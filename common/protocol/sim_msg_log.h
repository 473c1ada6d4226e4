/* sim_msg_log: the drive log's and the session's messages (docs/protocol.md).
 *
 *   log.status {file, rows, synced, pending, samples, events, run, bad_messages, error}
 *                                          recorder, every second and on joining
 *   log.error {file, error, pending}       recorder, on a write error
 *   log.mark {name}                        any module: a mark in the drive log
 *   session.module {module, what, status, signal, run}
 *                                          simctl run, when a module it supervises fails
 *   bus.error {dropped, error}             any module on the skeleton (sim_node), when it
 *                                          is back on the bus after dropping messages
 *
 * Encoding writes every field ("" for an unknown file; log.status's error is null
 * when writing works); decoding takes each field as optional (absent as in sim_msg.h,
 * counts 0) and refuses one of the wrong type, naming it. */
#ifndef SIM_MSG_LOG_H
#define SIM_MSG_LOG_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_msg.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_MSG_PATH_MAX 4096
#define SIM_MSG_TEXT_MAX 512 /* an error's words (sim_error's size) */

typedef struct sim_msg_log_status {
    char file[SIM_MSG_PATH_MAX];
    uint64_t rows, pending, samples, events;
    uint64_t synced;             /* of rows, those known on disk (last checkpoint) */
    double run;                  /* the current run (-1 before the first tick) */
    uint64_t bad_messages;
    char error[SIM_MSG_TEXT_MAX]; /* "" when writing works (null on the bus) */
} sim_msg_log_status;

cJSON *sim_msg_log_status_encode(const sim_msg_log_status *m);
int sim_msg_log_status_decode(const cJSON *msg, sim_msg_log_status *out, sim_error *err);

typedef struct sim_msg_log_error {
    char file[SIM_MSG_PATH_MAX];
    char error[SIM_MSG_TEXT_MAX];
    uint64_t pending;
} sim_msg_log_error;

cJSON *sim_msg_log_error_encode(const sim_msg_log_error *m);
int sim_msg_log_error_decode(const cJSON *msg, sim_msg_log_error *out, sim_error *err);

typedef struct sim_msg_session_module {
    char module[64];   /* executable name */
    char what[32];     /* crashed, restarted, config_error */
    double status;     /* exit status (uv's int64) */
    int signal;        /* terminating signal, 0: none */
    double run;        /* the newest run simctl saw */
} sim_msg_session_module;

cJSON *sim_msg_session_module_encode(const sim_msg_session_module *m);
int sim_msg_session_module_decode(const cJSON *msg, sim_msg_session_module *out, sim_error *err);

typedef struct sim_msg_bus_error {
    uint64_t dropped;  /* messages this module's bus dropped since it started (sim_bus_dropped) */
    char error[SIM_MSG_TEXT_MAX];
} sim_msg_bus_error;

cJSON *sim_msg_bus_error_encode(const sim_msg_bus_error *m);
int sim_msg_bus_error_decode(const cJSON *msg, sim_msg_bus_error *out, sim_error *err);

#endif
