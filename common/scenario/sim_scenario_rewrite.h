/* sim_scenario_rewrite: a JSON scenario rewritten for a study condition so that its copy
 * may live in another folder (a drive's folder): the condition's start point, traffic
 * and light (sim_study_scenario_overlay), and every file the scenario names made
 * absolute. The fields that name files are one list, sim_scenario_file_fields: the
 * loader joins exactly these to the scenario's folder (sim_scenario_fields.c), so a
 * field added there is rewritten here too. */
#ifndef SIM_SCENARIO_REWRITE_H
#define SIM_SCENARIO_REWRITE_H

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_study.h"

/* The fields of a JSON scenario that name a file, relative to the scenario's folder
 * unless absolute (docs/scenario.md). */
typedef enum {
    SIM_SCN_FILE_HEIGHTMAP,    /* terrain.heightmap */
    SIM_SCN_FILE_FRICTION_MAP, /* terrain.friction.map */
    SIM_SCN_FILE_OPENDRIVE,    /* roads.opendrive */
    SIM_SCN_FILE_SUMO_NET,     /* traffic.sumo.net */
    SIM_SCN_FILE_SUMO_ROUTES,  /* traffic.sumo.routes[] */
    SIM_SCN_FILE_COUNT
} sim_scenario_file_field;

/* Each field's dotted path; "[]" at the end: an array of file names. */
extern const char *const sim_scenario_file_fields[SIM_SCN_FILE_COUNT];

/* Every relative file name under sim_scenario_file_fields in scenario (parsed JSON,
 * changed in place) joined to dir, the scenario's folder. Fields of the wrong type are
 * left for the loader to report. Pure; SIM_ENOMEM only. */
int sim_scenario_rewrite_paths(cJSON *scenario, const char *dir, sim_error *err);

/* The scenario file at path as condition c makes it, as JSON text that loads the same
 * from any folder: overlay, then paths joined to path's real folder. *text is the
 * caller's (free). Errors name the file: unreadable, not JSON, no such start point. */
int sim_scenario_rewrite(const char *path, const sim_study_condition *c, char **text, sim_error *err);

#endif
