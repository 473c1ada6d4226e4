/* sim_video: the writer (sim_video.h): RGB24 frames to H.264 in MP4 or VP9 in WebM
 * through libavcodec, libavformat and libswscale. */
#include "sim_video.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

struct sim_video_writer {
    AVFormatContext *fc;
    AVCodecContext *cc;
    AVStream *st;
    AVFrame *frame;
    AVPacket *pkt;
    struct SwsContext *sws;
    int64_t next_pts;
    bool header;
    char path[4096], part[4200];
};

/* The container and codec of a file name. */
static bool kind_of(const char *path, const char **format, const char **codec)
{
    const char *dot = strrchr(path, '.');
    if (dot && strcasecmp(dot, ".mp4") == 0) {
        *format = "mp4";
        *codec = "libx264";
        return true;
    }
    if (dot && strcasecmp(dot, ".webm") == 0) {
        *format = "webm";
        *codec = "libvpx-vp9";
        return true;
    }
    return false;
}

const char *const sim_video_presets[] = {"ultrafast", "superfast", "veryfast", "faster", "fast",
                                         "medium", "slow", "slower", "veryslow", NULL};

const char *sim_video_codec_for(const char *path)
{
    const char *f, *c;
    return path && kind_of(path, &f, &c) ? c : NULL;
}

static int av_fail(sim_error *err, int code, const char *path, const char *what, int averr)
{
    char buf[AV_ERROR_MAX_STRING_SIZE] = "";
    av_strerror(averr, buf, sizeof buf);
    return sim_error_set(err, code, "%s: %s: %s", path, what, buf);
}

void sim_video_writer_abort(sim_video_writer *w)
{
    if (!w) return;
    if (w->fc && w->fc->pb) avio_closep(&w->fc->pb);
    if (w->part[0]) remove(w->part);
    avformat_free_context(w->fc);
    avcodec_free_context(&w->cc);
    av_frame_free(&w->frame);
    av_packet_free(&w->pkt);
    sws_freeContext(w->sws);
    free(w);
}

int sim_video_writer_open(const char *path, const sim_video_writer_opts *o, sim_video_writer **out,
                          sim_error *err)
{
    *out = NULL;
    const char *format, *codec_name;
    if (!kind_of(path, &format, &codec_name))
        return sim_error_set(err, SIM_EINVAL, "%s: expected a name ending in .mp4 (H.264) or .webm (VP9)", path);
    if (o->width < 16 || o->height < 16 || o->width > SIM_VIDEO_SIZE_MAX || o->height > SIM_VIDEO_SIZE_MAX ||
        o->width % 2 || o->height % 2)
        return sim_error_set(err, SIM_EINVAL, "%s: size %dx%d: expected even widths and heights from 16 to %d", path,
                             o->width, o->height, SIM_VIDEO_SIZE_MAX);
    if (o->fps < 1 || o->fps > SIM_VIDEO_FPS_MAX)
        return sim_error_set(err, SIM_EINVAL, "%s: frame rate %d: expected 1 to %d", path, o->fps, SIM_VIDEO_FPS_MAX);
    bool h264 = strcmp(codec_name, "libx264") == 0;
    if (o->crf < 0 || o->crf > (h264 ? 51 : 63))
        return sim_error_set(err, SIM_EINVAL, "%s: crf %d: expected 1 to %d (0: the default)", path, o->crf,
                             h264 ? 51 : 63);
    av_log_set_level(AV_LOG_ERROR); /* the encoder's own statistics are not ours to print */
    bool known = !o->preset;
    for (int i = 0; !known && sim_video_presets[i]; i++) known = !strcmp(o->preset, sim_video_presets[i]);
    if (!known || (o->preset && !h264))
        return sim_error_set(err, SIM_EINVAL, "%s: preset %s: %s", path, o->preset,
                             h264 ? "expected ultrafast, superfast, veryfast, faster, fast, medium, slow, slower or veryslow"
                                  : "presets are for H.264 (.mp4) only");
    const AVCodec *codec = avcodec_find_encoder_by_name(codec_name);
    if (!codec)
        return sim_error_set(err, SIM_ENOTFOUND, "%s: this libavcodec has no %s encoder", path, codec_name);
    sim_video_writer *w = calloc(1, sizeof *w);
    if (!w) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    snprintf(w->path, sizeof w->path, "%s", path);
    int rc = avformat_alloc_output_context2(&w->fc, NULL, format, NULL);
    if (rc < 0 || !w->fc) {
        sim_video_writer_abort(w);
        return av_fail(err, SIM_EIO, path, "no muxer", rc);
    }
    w->st = avformat_new_stream(w->fc, NULL);
    w->cc = avcodec_alloc_context3(codec);
    w->frame = av_frame_alloc();
    w->pkt = av_packet_alloc();
    w->sws = sws_getContext(o->width, o->height, AV_PIX_FMT_RGB24, o->width, o->height, AV_PIX_FMT_YUV420P,
                            SWS_BILINEAR, NULL, NULL, NULL);
    if (!w->st || !w->cc || !w->frame || !w->pkt || !w->sws) {
        sim_video_writer_abort(w);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
    }
    AVCodecContext *cc = w->cc;
    cc->width = o->width;
    cc->height = o->height;
    cc->pix_fmt = AV_PIX_FMT_YUV420P;
    cc->time_base = (AVRational){1, o->fps};
    cc->framerate = (AVRational){o->fps, 1};
    cc->gop_size = o->fps; /* a key frame every second: a player seeks to any second */
    /* swscale's RGB to YUV is BT.601, limited range: said in the stream */
    cc->color_range = AVCOL_RANGE_MPEG;
    cc->colorspace = AVCOL_SPC_SMPTE170M;
    if (w->fc->oformat->flags & AVFMT_GLOBALHEADER) cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *opt = NULL;
    char crf[16];
    snprintf(crf, sizeof crf, "%d", o->crf ? o->crf : h264 ? 23 : 32);
    av_dict_set(&opt, "crf", crf, 0);
    if (h264) {
        av_dict_set(&opt, "preset", o->preset ? o->preset : "veryfast", 0);
    } else {
        av_dict_set(&opt, "b", "0", 0); /* constant quality */
        av_dict_set(&opt, "deadline", "realtime", 0);
        av_dict_set(&opt, "cpu-used", "8", 0);
        av_dict_set(&opt, "row-mt", "1", 0);
    }
    rc = avcodec_open2(cc, codec, &opt);
    av_dict_free(&opt);
    if (rc < 0) {
        sim_video_writer_abort(w);
        return av_fail(err, SIM_EIO, path, "cannot open the encoder", rc);
    }
    avcodec_parameters_from_context(w->st->codecpar, cc);
    w->st->time_base = cc->time_base;
    w->st->avg_frame_rate = cc->framerate;
    if (o->comment) av_dict_set(&w->fc->metadata, "comment", o->comment, 0);
    w->frame->format = AV_PIX_FMT_YUV420P;
    w->frame->width = o->width;
    w->frame->height = o->height;
    if ((rc = av_frame_get_buffer(w->frame, 0)) < 0) {
        sim_video_writer_abort(w);
        return av_fail(err, SIM_ENOMEM, path, "frame buffer", rc);
    }
    snprintf(w->part, sizeof w->part, "%s.part", path);
    if ((rc = avio_open(&w->fc->pb, w->part, AVIO_FLAG_WRITE)) < 0) {
        w->part[0] = '\0'; /* not ours to remove */
        sim_video_writer_abort(w);
        return av_fail(err, SIM_EIO, path, "cannot create its .part file", rc);
    }
    if ((rc = avformat_write_header(w->fc, NULL)) < 0) {
        sim_video_writer_abort(w);
        return av_fail(err, SIM_EIO, path, "cannot write the header", rc);
    }
    w->header = true;
    *out = w;
    return SIM_OK;
}

/* Sends a frame (NULL: the end) and writes the packets the encoder has ready. */
static int encode(sim_video_writer *w, AVFrame *f, sim_error *err)
{
    int rc = avcodec_send_frame(w->cc, f);
    if (rc < 0) return av_fail(err, SIM_EIO, w->path, "encoding", rc);
    for (;;) {
        rc = avcodec_receive_packet(w->cc, w->pkt);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return SIM_OK;
        if (rc < 0) return av_fail(err, SIM_EIO, w->path, "encoding", rc);
        av_packet_rescale_ts(w->pkt, w->cc->time_base, w->st->time_base);
        w->pkt->stream_index = w->st->index;
        rc = av_interleaved_write_frame(w->fc, w->pkt);
        if (rc < 0) return av_fail(err, SIM_EIO, w->path, "writing", rc);
    }
}

int sim_video_writer_frame(sim_video_writer *w, const uint8_t *rgb, sim_error *err)
{
    int rc = av_frame_make_writable(w->frame);
    if (rc < 0) return av_fail(err, SIM_ENOMEM, w->path, "frame buffer", rc);
    const uint8_t *src[1] = {rgb};
    int stride[1] = {w->cc->width * 3};
    sws_scale(w->sws, src, stride, 0, w->cc->height, w->frame->data, w->frame->linesize);
    w->frame->pts = w->next_pts++;
    return encode(w, w->frame, err);
}

int sim_video_writer_close(sim_video_writer *w, sim_error *err)
{
    if (!w) return SIM_OK;
    int rc = encode(w, NULL, err);
    if (!rc) {
        int r = av_write_trailer(w->fc);
        if (r < 0) rc = av_fail(err, SIM_EIO, w->path, "cannot write the trailer", r);
    }
    if (!rc) {
        int r = avio_closep(&w->fc->pb);
        if (r < 0) rc = av_fail(err, SIM_EIO, w->path, "cannot write", r);
    }
    if (!rc && rename(w->part, w->path) != 0)
        rc = sim_error_set(err, SIM_EIO, "%s: cannot rename %s to it", w->path, w->part);
    if (!rc) w->part[0] = '\0';
    sim_video_writer_abort(w); /* frees; removes the .part only after a failure */
    return rc;
}
