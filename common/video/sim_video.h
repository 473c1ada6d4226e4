/* sim_video: drive videos as files (docs/video.md).
 *
 * Time base: a video made from a drive log shows at video time k / fps (frame k) the
 * drive at log time t0 + k / fps; sim_video_frame_count and sim_video_frame_time are
 * the one definition of those frames, used by the renderer that draws them and by
 * simctl video that encodes them (they need no FFmpeg: sim_video_time.c).
 *
 * The writer encodes RGB24 frames (width * height * 3 bytes, top row first) with
 * Debian's libavcodec: H.264 (libx264, yuv420p) in MP4 for a name ending in .mp4, VP9
 * (libvpx) in WebM for .webm; one frame lasts 1 / fps (stream time base 1 / fps, frame
 * k has pts k). The file is written as PATH.part and renamed by sim_video_writer_close,
 * so a failed or aborted encoding leaves no half file.
 *
 * The reader decodes the first video stream of any file libavformat opens into RGB24
 * frames of the stream's size, with each frame's presentation time in seconds.
 *
 * libav's own log is set to errors only by the open functions (the encoder's
 * statistics went to stderr). Ownership: open functions allocate, close functions free
 * (NULL is fine). */
#ifndef SIM_VIDEO_H
#define SIM_VIDEO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"

#define SIM_VIDEO_FPS_MAX 240
#define SIM_VIDEO_SIZE_MAX 8192

/* Frames of a video on [t0, t1] at fps: t0 + k / fps for every k with that time <= t1
 * (to a microsecond): floor((t1 - t0) * fps + 1e-6) + 1; 0 when t1 < t0 or fps <= 0. */
long sim_video_frame_count(double t0, double t1, double fps);
/* The log time of frame k. */
double sim_video_frame_time(double t0, double fps, long k);

typedef struct sim_video_writer sim_video_writer;

typedef struct sim_video_writer_opts {
    int width, height;       /* even, 16..SIM_VIDEO_SIZE_MAX (4:2:0 needs even sizes) */
    int fps;                 /* 1..SIM_VIDEO_FPS_MAX */
    int crf;                 /* constant quality: lower is better; 0: the codec's default
                                (H.264 23, VP9 32); 1..51 for H.264, 1..63 for VP9 */
    const char *comment;     /* the container's comment tag (the log and its t0); may be NULL */
    const char *preset;      /* H.264 only: x264's speed preset, ultrafast .. veryslow
                                (sim_video_presets); NULL: veryfast */
} sim_video_writer_opts;

/* x264's presets, fastest first, NULL-terminated. */
extern const char *const sim_video_presets[];

/* The codec a file name gets ("libx264", "libvpx-vp9"), NULL for an unknown extension. */
const char *sim_video_codec_for(const char *path);

int sim_video_writer_open(const char *path, const sim_video_writer_opts *o, sim_video_writer **out,
                          sim_error *err);
/* Encodes one frame (RGB24, width * height * 3 bytes, top row first). */
int sim_video_writer_frame(sim_video_writer *w, const uint8_t *rgb, sim_error *err);
/* Flushes the encoder, writes the trailer, renames PATH.part to PATH and frees w. */
int sim_video_writer_close(sim_video_writer *w, sim_error *err);
/* Frees w and removes PATH.part. */
void sim_video_writer_abort(sim_video_writer *w);

typedef struct sim_video_reader sim_video_reader;

typedef struct sim_video_info {
    int width, height;
    double fps;              /* the stream's average frame rate; 0 when unknown */
    double duration;         /* s, from the container; 0 when unknown */
    char codec[32];          /* libavcodec's name: "h264", "vp9", ... */
    char format[64];         /* libavformat's: "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm" */
} sim_video_info;

int sim_video_reader_open(const char *path, sim_video_reader **out, sim_video_info *info, sim_error *err);
/* The next frame as RGB24 into rgb (width * height * 3 bytes) and its time (s).
 * Returns 1 with a frame, 0 at the end, < 0 on an error. */
int sim_video_reader_next(sim_video_reader *r, uint8_t *rgb, double *t, sim_error *err);
void sim_video_reader_close(sim_video_reader *r);

#endif
