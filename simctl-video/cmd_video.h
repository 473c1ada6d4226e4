/* cmd_video: `simctl video LOG -o OUT.mp4`: a drive log's driver view as a video file on
 * the log's time base (docs/video.md). render-node draws the frames offscreen from the
 * log (--log, --frames-out -) into a pipe; common/video encodes them. */
#ifndef SIMCTL_CMD_VIDEO_H
#define SIMCTL_CMD_VIDEO_H

/* argv[0] is the command's name, the options follow. */
int simctl_cmd_video(int argc, char **argv);
/* The directory of the running executable (render-node is found beside it; main.c). */
const char *simctl_bin_dir(void);

#endif
