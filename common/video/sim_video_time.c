/* sim_video_time: the frames of a video on a drive log's time base (sim_video.h). No
 * FFmpeg here, so that the renderer links it without the codec libraries. */
#include <math.h>

#include "sim_video.h"

long sim_video_frame_count(double t0, double t1, double fps)
{
    if (!(fps > 0) || !(t1 >= t0) || !isfinite(t0) || !isfinite(t1)) return 0;
    return (long)floor((t1 - t0) * fps + 1e-6) + 1;
}

double sim_video_frame_time(double t0, double fps, long k)
{
    return t0 + (double)k / fps;
}
