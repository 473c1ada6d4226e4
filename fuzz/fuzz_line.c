/* Fuzz target: the bus's line framing and header check, as the dispatcher runs them
 * on bytes from a socket. The input is split into reads at positions taken from its
 * first byte, so that lines crossing read boundaries are exercised too. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim_line.h"

/* Differential check: whatever the dispatcher's allocation-free scanner accepts,
 * cJSON accepts too, with the same topic (compared when it has no escapes). */
static int on_line(const char *line, size_t len, void *user)
{
    size_t *count = user;
    cJSON *msg;
    const char *topic;
    char scanned[256];
    double t;
    sim_error err = {0}, err2 = {0};
    int full = sim_msg_parse(line, len, &msg, &topic, &err);
    int fast = sim_msg_scan(line, len, scanned, sizeof scanned, &t, &err2);
    if (fast == SIM_OK) {
        if (full != SIM_OK) __builtin_trap();
        if (!memchr(line, '\\', len) && strlen(topic) < sizeof scanned && strcmp(topic, scanned) != 0) __builtin_trap();
    } else if (err2.msg[0] == '\0') {
        __builtin_trap(); /* every rejection explains itself */
    }
    if (full == SIM_OK) cJSON_Delete(msg);
    else if (err.msg[0] == '\0') __builtin_trap();
    (*count)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    sim_linebuf lb;
    /* A small limit so that the over-long path is reached by small inputs. */
    size_t limit = 64 + (data[0] & 0x3f) * 16;
    if (sim_linebuf_init(&lb, limit) != SIM_OK) return 0;
    size_t step = 1 + (data[0] >> 3);
    size_t count = 0;
    for (size_t pos = 1; pos < size; pos += step) {
        size_t n = size - pos < step ? size - pos : step;
        if (sim_linebuf_feed(&lb, (const char *)data + pos, n, on_line, &count) == SIM_LINE_TOO_LONG) break;
        if (lb.len > lb.max_line) __builtin_trap();
    }
    sim_linebuf_free(&lb);
    return 0;
}
