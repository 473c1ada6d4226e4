/* sim_lab: the lab file (config/labs/NAME.json, docs/lab.md): the PCs of a lab (name,
 * address, ssh user and port, the checkout's folder there), where the dispatcher
 * listens, which module runs on which host, and the render channels (host, display,
 * viewport). `simctl run --lab FILE` starts the session from it. Pure: text in, a
 * filled struct out, every error naming the file and the field's JSON path. */
#ifndef SIM_LAB_H
#define SIM_LAB_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"
#include "sim_modules.h"

#define SIM_LAB_HOSTS_MAX 16
#define SIM_LAB_CHANNELS_MAX 16

typedef struct sim_lab_host {
    char name[32];     /* [A-Za-z0-9_.-], not starting with '-' (it reaches ssh's command line) */
    char address[64];  /* IPv4 literal or host name, as ssh and the bus take it */
    char user[32];     /* ssh user; "": ssh's default */
    int port;          /* ssh port (default 22) */
    char dir[512];     /* the checkout on that host (absolute); "": the same folder as simctl's */
} sim_lab_host;

typedef struct sim_lab_channel {
    char name[32];     /* its render node's bus name ("render" for the front view) */
    char view[16];     /* front, left, right, ... (render-node --view) */
    int host;          /* index into hosts */
    int display;       /* -1: the host's default */
    int viewport[4];   /* x, y, width, height in pixels; width 0: the default window */
} sim_lab_channel;

typedef struct sim_lab {
    sim_lab_host hosts[SIM_LAB_HOSTS_MAX];
    int n_hosts;
    int dispatcher_host;                 /* index into hosts */
    int bus_port;                        /* the dispatcher's bus port (default 7700) */
    int module_host[SIM_MODULE_COUNT];   /* index into hosts: the dispatcher's unless "modules" says */
    sim_lab_channel channels[SIM_LAB_CHANNELS_MAX];
    int n_channels;
} sim_lab;

/* Parses a lab file's text (len bytes; file names it in errors, may be NULL) into *out
 * (the caller's storage). SIM_OK, or a negative SIM_E* code with err saying
 * "FILE: PATH: found X, expected Y". */
int sim_lab_parse(const char *text, size_t len, const char *file, sim_lab *out, sim_error *err);
/* The index of the host called name, -1 when there is none. */
int sim_lab_host_index(const sim_lab *lab, const char *name);

#endif
