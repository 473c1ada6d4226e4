/* sim_video_read: the reader (sim_video.h): the first video stream of a file decoded
 * to RGB24 frames with their times. */
#include "sim_video.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>

struct sim_video_reader {
    AVFormatContext *fc;
    AVCodecContext *cc;
    AVFrame *frame;
    AVPacket *pkt;
    struct SwsContext *sws;
    int stream;
    bool flushed;
    char path[4096];
};

static int av_fail(sim_error *err, int code, const char *path, const char *what, int averr)
{
    char buf[AV_ERROR_MAX_STRING_SIZE] = "";
    av_strerror(averr, buf, sizeof buf);
    return sim_error_set(err, code, "%s: %s: %s", path, what, buf);
}

void sim_video_reader_close(sim_video_reader *r)
{
    if (!r) return;
    avcodec_free_context(&r->cc);
    avformat_close_input(&r->fc);
    av_frame_free(&r->frame);
    av_packet_free(&r->pkt);
    sws_freeContext(r->sws);
    free(r);
}

int sim_video_reader_open(const char *path, sim_video_reader **out, sim_video_info *info, sim_error *err)
{
    *out = NULL;
    sim_video_reader *r = calloc(1, sizeof *r);
    if (!r) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    snprintf(r->path, sizeof r->path, "%s", path);
    av_log_set_level(AV_LOG_ERROR);
    int rc = avformat_open_input(&r->fc, path, NULL, NULL);
    if (rc < 0) {
        sim_video_reader_close(r);
        return av_fail(err, SIM_EIO, path, "cannot open", rc);
    }
    if ((rc = avformat_find_stream_info(r->fc, NULL)) < 0) {
        sim_video_reader_close(r);
        return av_fail(err, SIM_EINVAL, path, "not a media file", rc);
    }
    const AVCodec *codec = NULL;
    r->stream = av_find_best_stream(r->fc, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (r->stream < 0 || !codec) {
        sim_video_reader_close(r);
        return sim_error_set(err, SIM_EINVAL, "%s: no video stream this libavcodec decodes", path);
    }
    AVStream *st = r->fc->streams[r->stream];
    r->cc = avcodec_alloc_context3(codec);
    r->frame = av_frame_alloc();
    r->pkt = av_packet_alloc();
    if (!r->cc || !r->frame || !r->pkt) {
        sim_video_reader_close(r);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    avcodec_parameters_to_context(r->cc, st->codecpar);
    if ((rc = avcodec_open2(r->cc, codec, NULL)) < 0) {
        sim_video_reader_close(r);
        return av_fail(err, SIM_EIO, path, "cannot open the decoder", rc);
    }
    memset(info, 0, sizeof *info);
    info->width = r->cc->width;
    info->height = r->cc->height;
    AVRational fr = st->avg_frame_rate.num ? st->avg_frame_rate : st->r_frame_rate;
    info->fps = fr.num && fr.den ? av_q2d(fr) : 0;
    info->duration = r->fc->duration > 0 ? (double)r->fc->duration / AV_TIME_BASE : 0;
    snprintf(info->codec, sizeof info->codec, "%s", codec->name);
    snprintf(info->format, sizeof info->format, "%s", r->fc->iformat->name);
    *out = r;
    return SIM_OK;
}

/* The decoded frame as RGB24 (the frame's own size must be the stream's). */
static int to_rgb(sim_video_reader *r, uint8_t *rgb, double *t, sim_error *err)
{
    AVFrame *f = r->frame;
    if (f->width != r->cc->width || f->height != r->cc->height) {
        av_frame_unref(f);
        return sim_error_set(err, SIM_EINVAL, "%s: a frame of %dx%d in a stream of %dx%d", r->path, f->width,
                             f->height, r->cc->width, r->cc->height);
    }
    r->sws = sws_getCachedContext(r->sws, f->width, f->height, f->format, f->width, f->height, AV_PIX_FMT_RGB24,
                                  SWS_BILINEAR, NULL, NULL, NULL);
    if (!r->sws) {
        av_frame_unref(f);
        return sim_error_set(err, SIM_EINVAL, "%s: cannot convert its pixel format to RGB", r->path);
    }
    uint8_t *dst[1] = {rgb};
    int stride[1] = {f->width * 3};
    sws_scale(r->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, dst, stride);
    int64_t ts = f->best_effort_timestamp;
    *t = ts == AV_NOPTS_VALUE ? 0 : (double)ts * av_q2d(r->fc->streams[r->stream]->time_base);
    av_frame_unref(f);
    return 1;
}

int sim_video_reader_next(sim_video_reader *r, uint8_t *rgb, double *t, sim_error *err)
{
    for (;;) {
        int rc = avcodec_receive_frame(r->cc, r->frame);
        if (rc == 0) return to_rgb(r, rgb, t, err);
        if (rc == AVERROR_EOF) return 0;
        if (rc != AVERROR(EAGAIN)) return av_fail(err, SIM_EIO, r->path, "decoding", rc);
        if (r->flushed) return 0;
        rc = av_read_frame(r->fc, r->pkt);
        if (rc == AVERROR_EOF) {
            r->flushed = true;
            avcodec_send_packet(r->cc, NULL); /* drain what the decoder holds */
            continue;
        }
        if (rc < 0) return av_fail(err, SIM_EIO, r->path, "reading", rc);
        if (r->pkt->stream_index == r->stream) rc = avcodec_send_packet(r->cc, r->pkt);
        else rc = 0;
        av_packet_unref(r->pkt);
        if (rc < 0 && rc != AVERROR(EAGAIN)) return av_fail(err, SIM_EIO, r->path, "decoding", rc);
    }
}
