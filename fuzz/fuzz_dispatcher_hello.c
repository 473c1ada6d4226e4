/* Fuzz target: the dispatcher's hello check and ownership rules (dispatcher/route.c),
 * as the hub runs them on a line that passed the bus header check (issue 21). The
 * first byte picks a token and a session secret (none, or one); the rest is the line.
 * Invariants: a verdict always comes with words; an accepted hello has a name of 1..64
 * bytes, claims the session only with the right secret, and its subscriptions are
 * usable; a topic's family is stable and words exist for it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "route.h"
#include "sim_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *token = (data[0] & 1) ? "tok" : NULL;
    const char *secret = (data[0] & 2) ? "0123456789abcdef" : NULL;
    const char *line = (const char *)data + 1;
    size_t len = size - 1;
    char topic[256];
    sim_error err = {0};
    if (sim_msg_scan(line, len, topic, sizeof topic, NULL, &err) != SIM_OK) return 0;
    route_family f = route_topic_family(topic);
    char words[ROUTE_FAMILY_WORDS];
    if (f != route_topic_family(topic)) __builtin_trap();
    if (f != ROUTE_FAMILY_NONE && strcmp(route_family_topics(f, words, sizeof words), "no family") == 0) __builtin_trap();
    if (!strcmp(topic, "sim.ack") || !strcmp(topic, "control.ack") || !strcmp(topic, "hud.text") ||
        !strcmp(topic, "log.mark") || !strcmp(topic, "context.request"))
        if (f != ROUTE_FAMILY_NONE) __builtin_trap(); /* free topics stay free */
    route_hello h;
    const char *why = NULL;
    route_verdict v = route_hello_parse(line, len, token, secret, &h, &why);
    if (v == ROUTE_OK) {
        size_t n = strlen(h.name);
        if (n == 0 || n > ROUTE_MAX_NAME) __builtin_trap();
        if (h.session && !secret) __builtin_trap();
        if (h.session && !memmem(line, len, "0123456789abcdef", 16)) __builtin_trap();
        (void)route_subs_match(h.subs, h.n_subs, h.all, topic);
        route_hello_free(&h);
    } else if (!why || !why[0]) {
        __builtin_trap();
    }
    return 0;
}
