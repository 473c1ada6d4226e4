/* sim_modules: the modules of a session, from the one table in sim_modules.def: what
 * `simctl run` starts, when, with which of the session's options, and the bus names
 * only the session's modules may take. Pure lookups, no I/O.
 * docs/protocol.md, "How to add a module". */
#ifndef SIM_MODULES_H
#define SIM_MODULES_H

#include <stdbool.h>

typedef enum sim_module_when {
    SIM_MODULE_ALWAYS,
    SIM_MODULE_VIEW,  /* a window to show it in, or --render-offscreen */
    SIM_MODULE_SOUND, /* not headless */
    SIM_MODULE_TASK,  /* the scenario runs a secondary task */
    SIM_MODULE_MOTION, /* a motion base was asked for (simctl run --motion) */
    SIM_MODULE_OSI,    /* OSI consumers were asked for (simctl run --osi, --osi-udp) */
} sim_module_when;

/* The session's options a module takes (sim_modules.def's TAKES). */
#define SIM_MODULE_LOCKSTEP 1u
#define SIM_MODULE_VEHICLE 2u
#define SIM_MODULE_START 4u
#define SIM_MODULE_EGO 8u
#define SIM_MODULE_PARAMS 16u
#define SIM_MODULE_PER_CAB 32u /* not an option: every cab has its own (docs/cabs.md) */

typedef enum sim_module_id {
#define SIM_MODULE(id, ...) SIM_MODULE_ID_##id,
#include "sim_modules.def"
#undef SIM_MODULE
    SIM_MODULE_COUNT
} sim_module_id;

typedef struct sim_module {
    sim_module_id id;
    const char *exe, *bus_name;
    sim_module_when when;
    bool clock_waits;
    unsigned takes;      /* SIM_MODULE_LOCKSTEP | ... */
    const char *acts_on; /* operator commands, space-separated */
} sim_module;

/* The table in start order (sim_modules[SIM_MODULE_ID_X] is X's row). */
extern const sim_module sim_modules[SIM_MODULE_COUNT];

/* Whether name is a bus name only a session's modules may take: a row's, "simctl", or
 * "render-VIEW" (the render nodes of a screens file's other views), or one of those as a
 * cab's module, "NAME@CAB" (docs/cabs.md). */
bool sim_module_session_name(const char *name);

#endif
