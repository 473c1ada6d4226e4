/* cmd_video: `simctl video LOG -o OUT.mp4`: a drive log's driver view as a video file on
 * the log's time base (docs/video.md). render-node draws the frames offscreen from the
 * log (--log, --frames-out -) into a pipe; common/video encodes them. */
#ifndef SIMCTL_CMD_VIDEO_H
#define SIMCTL_CMD_VIDEO_H

int simctl_cmd_video(int argc, char **argv);

#endif
