/* labclock: a lab session's clocks and host watch (docs/lab.md, "Clocks and lost
 * hosts"). simctl run --lab starts a clock agent (`simctl __clock HOST`, clock_agent.c)
 * on each other host that runs a module; every SIM_CLOCK_PING_MS it sends each a
 * clock.ping and reads its clock.pong (four time stamps); every SIM_CLOCK_REPORT_PINGS
 * pings it publishes session.clock with the best exchange of them (smallest round
 * trip), which the drive log keeps (events kind "clock"). A host whose agent has not
 * answered for SIM_CLOCK_LOST_MS, or whose agent's bus connection closed, is announced
 * lost (session.host, and a line on stderr naming what ran there); "back" when it
 * answers again. Runs on the session's loop. */
#ifndef SIMCTL_LABCLOCK_H
#define SIMCTL_LABCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "sim_lab.h"
#include "sim_msg_clock.h"

struct session;

typedef struct lab_clock_host {
    const char *name;
    sim_clock_sample samples[SIM_CLOCK_REPORT_PINGS];
    bool answered[SIM_CLOCK_REPORT_PINGS];
    uint64_t window_id;   /* id of the window's first ping */
    int pings;            /* sent in this window */
    uint64_t last_answer_ms; /* loop time of its newest pong; 0: none yet */
    bool lost;
    char sync[SIM_CLOCK_SYNC_MAX]; /* the newest pong's */
    bool synced;
    bool printed;
    double printed_offset_ms, printed_mono_ms;
} lab_clock_host;

typedef struct lab_clock {
    struct session *s;
    uv_timer_t timer;
    lab_clock_host hosts[SIM_LAB_HOSTS_MAX];
    int n;
    uint64_t next_id;
    bool started;
} lab_clock;

/* Adds a host to watch (name: the lab's, kept by the caller). */
void lab_clock_add(lab_clock *c, const char *name);
/* Starts the pings on the session's loop (once; the timer does not keep the loop alive). */
void lab_clock_start(lab_clock *c, struct session *s);
/* After the loop: closes the timer. */
void lab_clock_close(lab_clock *c);
/* The session's bus messages: clock.pong and dispatcher.left. */
void lab_clock_on_message(lab_clock *c, const char *topic, const cJSON *msg);

#endif
