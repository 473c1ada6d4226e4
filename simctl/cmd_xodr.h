/* cmd_xodr: `simctl import-xodr FILE.xodr [--out SCENARIO.json]`: reads an OpenDRIVE
 * file, reports what it holds and what was ignored, and writes a starter scenario. */
#ifndef SIMCTL_CMD_XODR_H
#define SIMCTL_CMD_XODR_H

int simctl_cmd_import_xodr(int argc, char **argv);
/* simctl lct-track (cmd_lct.c) */
int simctl_cmd_lct_track(int argc, char **argv);
/* The scenario of an LCT track (lct_scenario.c); NULL when out of memory. */
struct sim_lct_params;
struct sim_lct_track;
struct cJSON *lct_scenario_json(const struct sim_lct_params *p, const struct sim_lct_track *t);

#endif
