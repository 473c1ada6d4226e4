/* sim_page: a browser page's message as the console's gateway checks it before it
 * becomes a bus line (docs/console.md, "Pages on the bus"). Pure: no I/O, fuzzed by
 * fuzz/fuzz_page.c.
 *
 * The gateway checks only what the dispatcher cannot see: the message is one JSON
 * object with a non-empty string topic, at most SIM_PAGE_MAX_LINE bytes as a line, and
 * its src (once the page is welcomed) is the page's own name; a missing src gets the
 * page's name. A hello has its token replaced by the gateway's bus token. Topics
 * beginning with "console." are for the gateway itself. */
#ifndef SIM_PAGE_H
#define SIM_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_PAGE_MAX_LINE 65536

typedef enum {
    SIM_PAGE_FORWARD,  /* line: send it to the dispatcher */
    SIM_PAGE_COMMAND,  /* console.command: msg */
    SIM_PAGE_ROADS,    /* console.roads: msg */
    SIM_PAGE_REFUSED,  /* err says why, in words for the page */
} sim_page_action;

typedef struct sim_page_result {
    sim_page_action action;
    char *line;            /* FORWARD: the line, one JSON object without a newline (owned) */
    cJSON *msg;            /* COMMAND, ROADS: the message (owned) */
    char hello_name[65];   /* FORWARD of a hello: its name ("" when it has none) */
    char topic[256];       /* the message's topic (every action but REFUSED) */
    bool hello;
} sim_page_result;

/* Checks one message of len bytes from a page whose name is `name` ("" before its
 * hello) and that the dispatcher has welcomed or not. bus_token: put in a hello (NULL:
 * none). Returns SIM_OK with out filled (free with sim_page_result_free), whatever the
 * action; SIM_ENOMEM when out of memory. */
int sim_page_check(const char *data, size_t len, const char *name, bool welcomed, const char *bus_token,
                   sim_page_result *out, sim_error *err);
void sim_page_result_free(sim_page_result *r);

/* A page's role (docs/console.md, "Page roles"): what it may send besides its hello,
 * console.roads and context requests, which every role may. The operator's page may
 * publish anything (the dispatcher's ownership rules still apply) and command; an HMI
 * page only hmi.* topics, a SuRT page only surt.response, a questionnaire page only
 * study.answer; a page that named no role (SIM_PAGE_ROLE_PAGE) nothing more. */
typedef enum {
    SIM_PAGE_ROLE_PAGE,
    SIM_PAGE_ROLE_OPERATOR,
    SIM_PAGE_ROLE_HMI,
    SIM_PAGE_ROLE_SURT,
    SIM_PAGE_ROLE_QUESTIONNAIRE,
} sim_page_role;

/* The role named text ("operator", "hmi", "surt", "questionnaire"); SIM_EINVAL with
 * err naming the roles for any other. */
int sim_page_role_parse(const char *text, sim_page_role *out, sim_error *err);
const char *sim_page_role_name(sim_page_role role);
/* SIM_OK when a page of this role may send a message of this topic (not a hello),
 * else SIM_EINVAL with err saying what the role may send, in words for the page. */
int sim_page_role_allows(sim_page_role role, const char *topic, sim_error *err);

#endif
