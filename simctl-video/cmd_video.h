/* cmd_video: `simctl video LOG -o OUT.mp4`: a drive log's driver view as a video file on
 * the log's time base (docs/video.md). render-node draws the frames offscreen from the
 * log (--log, --frames-out -) into a pipe; common/video encodes them. */
#ifndef SIMCTL_CMD_VIDEO_H
#define SIMCTL_CMD_VIDEO_H

#include <stdint.h>

#include "sim_drivelog.h"

int simctl_cmd_video(int argc, char **argv);
/* The run a video of run (< 0: the first with a position) shows and its first and last
 * positioned sample's t: frame 0 of `simctl video` without --from is the drive at *first. */
int simctl_video_span(sim_drivelog_reader *r, int64_t run, int64_t *run_out, double *first, double *last,
                      sim_error *err);

#endif
