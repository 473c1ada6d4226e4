/* sim_error: the shared error-message buffer (see sim_error.h). */
#include "sim_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int sim_error_set(sim_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void sim_error_prefix(sim_error *err, const char *fmt, ...)
{
    if (!err) return;
    char prefix[SIM_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* Truncation is fine: the start (the prefix and the message's beginning) matters most. */
    char joined[2 * SIM_ERROR_MSG_MAX + 2];
    snprintf(joined, sizeof joined, "%s: %s", prefix, err->msg);
    snprintf(err->msg, sizeof err->msg, "%.*s", (int)(sizeof err->msg - 1), joined);
}

const char *sim_error_name(int code)
{
    switch (code) {
    case SIM_OK: return "ok";
    case SIM_EINVAL: return "invalid input";
    case SIM_EIO: return "I/O error";
    case SIM_ENOMEM: return "out of memory";
    case SIM_ENOTFOUND: return "not found";
    case SIM_ERANGE: return "out of range";
    case SIM_ECLOSED: return "closed";
    case SIM_EAGAIN: return "try again";
    case SIM_ETOOBIG: return "too big";
    case SIM_EDONE: return "done";
    default: return "unknown error";
    }
}

int sim_format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
