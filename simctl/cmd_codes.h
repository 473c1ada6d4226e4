/* cmd_codes: `simctl codes export|import|list` (docs/codes.md): a drive log's events as
 * ELAN tiers (.eaf linked to the drive's video) and a BORIS-style events CSV, and coded
 * tiers from an .eaf back into the log's codes table. */
#ifndef SIMCTL_CMD_CODES_H
#define SIMCTL_CMD_CODES_H

#include <stddef.h>

#include "sim_codes.h"
#include "sim_drivelog.h"

int simctl_cmd_codes(int argc, char **argv);
/* One run's events (in time order) as tiers of codes on the media time line of a video
 * whose frame 0 is log time t0 and whose last frame is at t_end (docs/codes.md "Tiers"):
 * appended to out, annotator "sim". */
int simctl_codes_from_events(const sim_drivelog_event *ev, size_t n, double t0, double t_end, sim_codes *out,
                             sim_error *err);

#endif
