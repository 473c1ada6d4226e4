/* sim_error: error codes and the message buffer every fallible function fills.
 *
 * Functions in libsim return 0 on success or a negative SIM_E* code, and when given a
 * non-NULL sim_error they write a message that names what was wrong (the file, field or
 * message and what was expected), ready to show to a person. The caller owns the
 * sim_error; it is plain storage, no allocation. */
#ifndef SIM_ERROR_H
#define SIM_ERROR_H

#include <stddef.h>

enum {
    SIM_OK = 0,
    SIM_EINVAL = -1,   /* bad argument or bad input (parse/validation failure) */
    SIM_EIO = -2,      /* file or socket I/O failed */
    SIM_ENOMEM = -3,   /* allocation failed */
    SIM_ENOTFOUND = -4,/* a named thing does not exist */
    SIM_ERANGE = -5,   /* a value outside its allowed range */
    SIM_ECLOSED = -6,  /* the peer or resource has gone away */
    SIM_EAGAIN = -7,   /* would block / try later */
    SIM_ETOOBIG = -8,  /* over a size limit */
    SIM_EDONE = -9,    /* not a failure: the request was answered and there is nothing more
                          to do (sim_cli_parse printed --help) */
};

#define SIM_ERROR_MSG_MAX 512

typedef struct sim_error {
    int code;
    char msg[SIM_ERROR_MSG_MAX];
} sim_error;

/* Sets err (if non-NULL) to code and the printf-style message; returns code so that
 * `return sim_error_set(err, SIM_EINVAL, "...")` reads naturally. */
int sim_error_set(sim_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to an existing message (e.g. a file name to a field error). */
void sim_error_prefix(sim_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* snprintf into a caller's buffer, for the pure components, which include no I/O
 * header (<stdio.h>) yet build the field paths and words of their messages. Returns
 * what snprintf returns. */
int sim_format(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A short constant name for a code ("invalid input", "I/O error", ...). */
const char *sim_error_name(int code);

#endif
