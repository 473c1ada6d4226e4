/* sim_msg_fields: the table-driven codec under the message definitions (sim_msg_*.c):
 * each message lists its payload fields once (name, kind, offset in its struct, range),
 * and encoding and decoding both walk that list, so a field's name is written in one
 * place. Private to common/protocol.
 *
 * Absent values: a double is NAN, an int SIM_MSG_NO_INT, a string "". Encoding omits
 * an absent field, or writes null for the kinds marked _NULL. Decoding reads a missing
 * field or null as absent, fills every well-formed field, and returns the first error
 * ("TOPIC: FIELD: found X, expected Y"). */
#ifndef SIM_MSG_FIELDS_H
#define SIM_MSG_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_json.h"

#include "sim_msg.h"
#include "sim_offset.h"

typedef enum {
    SIM_MF_NUM,      /* double */
    SIM_MF_NUM_NULL, /* double, written as null when absent */
    SIM_MF_CLAMP,    /* double clamped into [lo, hi] on decode (overshoot means "the most") */
    SIM_MF_VEC3,     /* double[3], absent when [0] is NAN */
    SIM_MF_INT,      /* int */
    SIM_MF_INT_NULL, /* int, written as null when absent */
    SIM_MF_U64,      /* uint64_t, always written (decoded: 0 when absent) */
    SIM_MF_BOOL,     /* bool, always written (decoded: false when absent) */
    SIM_MF_STR,      /* char[size] */
} sim_msg_kind;

typedef struct sim_msg_field {
    const char *name;
    sim_msg_kind kind;
    size_t offset;
    double lo, hi;   /* allowed range on decode (numbers and ints) */
    size_t size;     /* SIM_MF_STR: the buffer's size */
} sim_msg_field;

/* The size a member of this kind has (SIM_MF_STR: str_size, its buffer's). */
#define SIM_MF_SIZE(kind, str_size)                                                                       \
    ((kind) == SIM_MF_STR                                    ? (size_t)(str_size)                        \
     : (kind) == SIM_MF_VEC3                                 ? 3 * sizeof(double)                        \
     : (kind) == SIM_MF_INT || (kind) == SIM_MF_INT_NULL     ? sizeof(int)                               \
     : (kind) == SIM_MF_U64                                  ? sizeof(uint64_t)                          \
     : (kind) == SIM_MF_BOOL                                 ? sizeof(bool)                              \
                                                             : sizeof(double))
/* A field's offset in T, refused at compile time when the member does not have the
 * kind's size (every table entry goes through it). */
#define SIM_MF_AT(T, name, kind, str_size) SIM_OFFSETOF(T, name, SIM_MF_SIZE(kind, str_size))

/* Adds the fields of m to o in table order; SIM_ENOMEM when cJSON cannot allocate. */
int sim_msg_fields_encode(cJSON *o, const void *m, const sim_msg_field *f, size_t n);
/* A new object holding the fields of m (caller owns; NULL when out of memory). */
cJSON *sim_msg_fields_object(const void *m, const sim_msg_field *f, size_t n);
/* Sets every field of m absent (NAN, SIM_MSG_NO_INT, "", 0, false). */
void sim_msg_fields_clear(void *m, const sim_msg_field *f, size_t n);
/* Reads the fields of msg into m (cleared first); j names the topic. */
int sim_msg_fields_decode(sim_json *j, const cJSON *msg, void *m, const sim_msg_field *f, size_t n);

#endif
