/* sim_mcap: the MCAP writer (see sim_mcap.h). Records are built in growable buffers
 * and written whole; messages are gathered into a chunk until chunk_size bytes, then
 * the chunk (compressed with zstd, or not) and its message indexes go to the file. The
 * summary repeats what an indexed reader needs without reading the data section. */
#include "sim_mcap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

enum {
    OP_HEADER = 0x01, OP_FOOTER = 0x02, OP_SCHEMA = 0x03, OP_CHANNEL = 0x04, OP_MESSAGE = 0x05, OP_CHUNK = 0x06,
    OP_MESSAGE_INDEX = 0x07, OP_CHUNK_INDEX = 0x08, OP_STATISTICS = 0x0B, OP_SUMMARY_OFFSET = 0x0E, OP_DATA_END = 0x0F
};
static const uint8_t magic[8] = {0x89, 'M', 'C', 'A', 'P', 0x30, '\r', '\n'};

/* ---- little-endian byte buffers; a failed growth sets oom and later puts do nothing ---- */

typedef struct buf {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} buf;

static uint8_t *grow(buf *b, size_t n)
{
    if (b->oom) return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return NULL;
        }
        b->p = q;
        b->cap = cap;
    }
    uint8_t *at = b->p + b->len;
    b->len += n;
    return at;
}

static void put_le(buf *b, uint64_t v, int bytes)
{
    uint8_t *p = grow(b, (size_t)bytes);
    for (int i = 0; p && i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u8(buf *b, uint8_t v) { put_le(b, v, 1); }
static void put_u16(buf *b, uint16_t v) { put_le(b, v, 2); }
static void put_u32(buf *b, uint32_t v) { put_le(b, v, 4); }
static void put_u64(buf *b, uint64_t v) { put_le(b, v, 8); }
static void put_bytes(buf *b, const void *d, size_t n)
{
    uint8_t *p = grow(b, n);
    if (p && n) memcpy(p, d, n);
}
static void put_str(buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u32(b, (uint32_t)n);
    put_bytes(b, s, n);
}
/* Overwrites 4 or 8 bytes at off (a length written before its content was known). */
static void patch_le(buf *b, size_t off, uint64_t v, int bytes)
{
    for (int i = 0; !b->oom && i < bytes; i++) b->p[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}
/* Starts a record: opcode and a length patched by record_end. */
static size_t record_begin(buf *b, uint8_t op)
{
    put_u8(b, op);
    size_t at = b->len;
    put_u64(b, 0);
    return at;
}
static void record_end(buf *b, size_t at) { patch_le(b, at, b->len - at - 8, 8); }

/* ---- the writer ---- */

typedef struct index_entry {
    uint64_t time, offset;
} index_entry;

typedef struct channel_info {
    uint16_t schema;
    char *topic, *encoding;
    uint64_t count;                 /* messages in the file */
    index_entry *idx;               /* this chunk's messages: log time, offset in the chunk's records */
    size_t n_idx, cap_idx;
} channel_info;

typedef struct schema_info {
    char *name, *encoding;
    uint8_t *data;
    size_t len;
} schema_info;

typedef struct chunk_index {
    uint64_t start, end, offset, length, index_offset, index_length, compressed, uncompressed;
    uint64_t *channel_offsets; /* per channel: its message index record's file offset, 0: none */
    size_t n_channels;         /* ... of the channels there were when the chunk was written */
} chunk_index;

struct sim_mcap_writer {
    FILE *f;
    char *path;
    uint64_t pos; /* bytes written to f */
    bool failed;  /* a write failed: close reports it */
    sim_mcap_options opt;
    schema_info *schemas;
    size_t n_schemas;
    channel_info *channels;
    size_t n_channels;
    buf chunk; /* the open chunk's records, uncompressed */
    uint64_t chunk_start, chunk_end;
    size_t chunk_messages;
    chunk_index *chunks;
    size_t n_chunks, cap_chunks;
    uint64_t messages, first_time, last_time;
};

static int out(sim_mcap_writer *w, const buf *b, sim_error *err)
{
    if (b->oom) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory writing MCAP", w->path);
    if (b->len && fwrite(b->p, 1, b->len, w->f) != b->len) {
        w->failed = true;
        return sim_error_set(err, SIM_EIO, "%s: write failed: %s", w->path, strerror(errno));
    }
    w->pos += b->len;
    return SIM_OK;
}

int sim_mcap_open(const char *path, const sim_mcap_options *opts, sim_mcap_writer **outp, sim_error *err)
{
    *outp = NULL;
    sim_mcap_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
    }
    if (opts) w->opt = *opts;
    if (!w->opt.chunk_size) w->opt.chunk_size = 1 << 20;
    w->f = fopen(path, "wb");
    if (!w->f) {
        int rc = sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
        free(w->path);
        free(w);
        return rc;
    }
    buf b = {0};
    put_bytes(&b, magic, sizeof magic);
    size_t at = record_begin(&b, OP_HEADER);
    put_str(&b, w->opt.profile);
    put_str(&b, w->opt.library);
    record_end(&b, at);
    int rc = out(w, &b, err);
    free(b.p);
    if (rc) {
        fclose(w->f);
        free(w->path);
        free(w);
        return rc;
    }
    *outp = w;
    return SIM_OK;
}

static void schema_record(buf *b, uint16_t id, const schema_info *s)
{
    size_t at = record_begin(b, OP_SCHEMA);
    put_u16(b, id);
    put_str(b, s->name);
    put_str(b, s->encoding);
    put_u32(b, (uint32_t)s->len);
    put_bytes(b, s->data, s->len);
    record_end(b, at);
}

static void channel_record(buf *b, uint16_t id, const channel_info *c)
{
    size_t at = record_begin(b, OP_CHANNEL);
    put_u16(b, id);
    put_u16(b, c->schema);
    put_str(b, c->topic);
    put_str(b, c->encoding);
    put_u32(b, 0); /* metadata: an empty map */
    record_end(b, at);
}

int sim_mcap_add_schema(sim_mcap_writer *w, const char *name, const char *encoding, const void *data, size_t len,
                        uint16_t *id, sim_error *err)
{
    if (w->n_schemas >= UINT16_MAX - 1) return sim_error_set(err, SIM_ERANGE, "%s: too many schemas", w->path);
    schema_info *s = realloc(w->schemas, (w->n_schemas + 1) * sizeof *s);
    if (!s) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
    w->schemas = s;
    schema_info *x = &s[w->n_schemas];
    *x = (schema_info){.name = strdup(name), .encoding = strdup(encoding), .data = malloc(len ? len : 1), .len = len};
    if (!x->name || !x->encoding || !x->data) {
        free(x->name), free(x->encoding), free(x->data);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
    }
    if (len) memcpy(x->data, data, len);
    *id = (uint16_t)++w->n_schemas; /* 0 means "no schema" */
    buf b = {0};
    schema_record(&b, *id, x);
    int rc = out(w, &b, err);
    free(b.p);
    return rc;
}

int sim_mcap_add_channel(sim_mcap_writer *w, uint16_t schema_id, const char *topic, const char *message_encoding,
                         uint16_t *id, sim_error *err)
{
    if (schema_id > w->n_schemas)
        return sim_error_set(err, SIM_EINVAL, "%s: channel %s: no schema %u", w->path, topic, (unsigned)schema_id);
    if (w->n_channels >= UINT16_MAX) return sim_error_set(err, SIM_ERANGE, "%s: too many channels", w->path);
    channel_info *c = realloc(w->channels, (w->n_channels + 1) * sizeof *c);
    if (!c) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
    w->channels = c;
    channel_info *x = &c[w->n_channels];
    *x = (channel_info){.schema = schema_id, .topic = strdup(topic), .encoding = strdup(message_encoding)};
    if (!x->topic || !x->encoding) {
        free(x->topic), free(x->encoding);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
    }
    *id = (uint16_t)w->n_channels++;
    buf b = {0};
    channel_record(&b, *id, x);
    int rc = out(w, &b, err);
    free(b.p);
    return rc;
}

/* The open chunk to the file, then one message index per channel that has messages in
 * it; the chunk's index is kept for the summary. */
static int flush_chunk(sim_mcap_writer *w, sim_error *err)
{
    if (!w->chunk_messages) return SIM_OK;
    if (w->chunk.oom) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
    const buf *raw = &w->chunk;
    uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), raw->p, (uInt)raw->len);
    bool zst = w->opt.compression == SIM_MCAP_ZSTD;
    uint8_t *packed = raw->p;
    size_t packed_len = raw->len;
    if (zst) {
        size_t bound = ZSTD_compressBound(raw->len);
        packed = malloc(bound);
        if (!packed) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
        packed_len = ZSTD_compress(packed, bound, raw->p, raw->len, 3);
        if (ZSTD_isError(packed_len)) {
            free(packed);
            return sim_error_set(err, SIM_EIO, "%s: zstd: %s", w->path, ZSTD_getErrorName(packed_len));
        }
    }
    if (w->n_chunks == w->cap_chunks) {
        size_t cap = w->cap_chunks ? 2 * w->cap_chunks : 16;
        chunk_index *c = realloc(w->chunks, cap * sizeof *c);
        if (!c) {
            if (zst) free(packed);
            return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
        }
        w->chunks = c;
        w->cap_chunks = cap;
    }
    chunk_index *ci = &w->chunks[w->n_chunks];
    *ci = (chunk_index){.start = w->chunk_start, .end = w->chunk_end, .offset = w->pos,
                        .compressed = packed_len, .uncompressed = raw->len,
                        .channel_offsets = calloc(w->n_channels ? w->n_channels : 1, sizeof(uint64_t)),
                        .n_channels = w->n_channels};
    if (!ci->channel_offsets) {
        if (zst) free(packed);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
    }
    w->n_chunks++;
    buf b = {0};
    size_t at = record_begin(&b, OP_CHUNK);
    put_u64(&b, w->chunk_start);
    put_u64(&b, w->chunk_end);
    put_u64(&b, raw->len);
    put_u32(&b, crc);
    put_str(&b, zst ? "zstd" : "");
    put_u64(&b, packed_len);
    put_bytes(&b, packed, packed_len);
    record_end(&b, at);
    if (zst) free(packed);
    ci->length = b.len;
    ci->index_offset = w->pos + b.len;
    uint64_t off = ci->index_offset;
    for (size_t c = 0; c < w->n_channels; c++) {
        channel_info *ch = &w->channels[c];
        if (!ch->n_idx) continue;
        size_t start = b.len;
        size_t r = record_begin(&b, OP_MESSAGE_INDEX);
        put_u16(&b, (uint16_t)c);
        put_u32(&b, (uint32_t)(ch->n_idx * 16));
        for (size_t i = 0; i < ch->n_idx; i++) {
            put_u64(&b, ch->idx[i].time);
            put_u64(&b, ch->idx[i].offset);
        }
        record_end(&b, r);
        ci->channel_offsets[c] = off;
        off += b.len - start;
        ch->n_idx = 0;
    }
    ci->index_length = off - ci->index_offset;
    int rc = out(w, &b, err);
    free(b.p);
    w->chunk.len = 0;
    w->chunk_messages = 0;
    return rc;
}

int sim_mcap_write(sim_mcap_writer *w, uint16_t channel, uint32_t sequence, uint64_t log_time, uint64_t publish_time,
                   const void *data, size_t len, sim_error *err)
{
    if (channel >= w->n_channels) return sim_error_set(err, SIM_EINVAL, "%s: no channel %u", w->path, (unsigned)channel);
    channel_info *ch = &w->channels[channel];
    if (ch->n_idx == ch->cap_idx) {
        size_t cap = ch->cap_idx ? 2 * ch->cap_idx : 64;
        index_entry *e = realloc(ch->idx, cap * sizeof *e);
        if (!e) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
        ch->idx = e;
        ch->cap_idx = cap;
    }
    ch->idx[ch->n_idx++] = (index_entry){.time = log_time, .offset = w->chunk.len};
    size_t at = record_begin(&w->chunk, OP_MESSAGE);
    put_u16(&w->chunk, channel);
    put_u32(&w->chunk, sequence);
    put_u64(&w->chunk, log_time);
    put_u64(&w->chunk, publish_time);
    put_bytes(&w->chunk, data, len);
    record_end(&w->chunk, at);
    if (w->chunk.oom) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", w->path);
    if (!w->chunk_messages || log_time < w->chunk_start) w->chunk_start = log_time;
    if (!w->chunk_messages || log_time > w->chunk_end) w->chunk_end = log_time;
    if (!w->messages || log_time < w->first_time) w->first_time = log_time;
    if (!w->messages || log_time > w->last_time) w->last_time = log_time;
    w->chunk_messages++;
    w->messages++;
    ch->count++;
    return w->chunk.len >= w->opt.chunk_size ? flush_chunk(w, err) : SIM_OK;
}

/* The summary section: schemas, channels, statistics, chunk indexes; each group's
 * start and length in offsets (for the summary offset section). */
static void summary(const sim_mcap_writer *w, buf *b, uint64_t base, uint64_t group[4][3])
{
    size_t g0 = b->len;
    for (size_t i = 0; i < w->n_schemas; i++) schema_record(b, (uint16_t)(i + 1), &w->schemas[i]);
    group[0][0] = OP_SCHEMA, group[0][1] = base + g0, group[0][2] = b->len - g0;
    size_t g1 = b->len;
    for (size_t i = 0; i < w->n_channels; i++) channel_record(b, (uint16_t)i, &w->channels[i]);
    group[1][0] = OP_CHANNEL, group[1][1] = base + g1, group[1][2] = b->len - g1;
    size_t g2 = b->len;
    size_t at = record_begin(b, OP_STATISTICS);
    put_u64(b, w->messages);
    put_u16(b, (uint16_t)w->n_schemas);
    put_u32(b, (uint32_t)w->n_channels);
    put_u32(b, 0); /* attachments */
    put_u32(b, 0); /* metadata */
    put_u32(b, (uint32_t)w->n_chunks);
    put_u64(b, w->messages ? w->first_time : 0);
    put_u64(b, w->messages ? w->last_time : 0);
    put_u32(b, (uint32_t)(w->n_channels * 10));
    for (size_t i = 0; i < w->n_channels; i++) {
        put_u16(b, (uint16_t)i);
        put_u64(b, w->channels[i].count);
    }
    record_end(b, at);
    group[2][0] = OP_STATISTICS, group[2][1] = base + g2, group[2][2] = b->len - g2;
    size_t g3 = b->len;
    for (size_t k = 0; k < w->n_chunks; k++) {
        const chunk_index *ci = &w->chunks[k];
        at = record_begin(b, OP_CHUNK_INDEX);
        put_u64(b, ci->start);
        put_u64(b, ci->end);
        put_u64(b, ci->offset);
        put_u64(b, ci->length);
        size_t n = 0;
        for (size_t c = 0; c < ci->n_channels; c++) n += ci->channel_offsets[c] != 0;
        put_u32(b, (uint32_t)(n * 10));
        for (size_t c = 0; c < ci->n_channels; c++)
            if (ci->channel_offsets[c]) {
                put_u16(b, (uint16_t)c);
                put_u64(b, ci->channel_offsets[c]);
            }
        put_u64(b, ci->index_length);
        put_str(b, w->opt.compression == SIM_MCAP_ZSTD ? "zstd" : "");
        put_u64(b, ci->compressed);
        put_u64(b, ci->uncompressed);
        record_end(b, at);
    }
    group[3][0] = OP_CHUNK_INDEX, group[3][1] = base + g3, group[3][2] = b->len - g3;
}

static void writer_free(sim_mcap_writer *w)
{
    for (size_t i = 0; i < w->n_schemas; i++) free(w->schemas[i].name), free(w->schemas[i].encoding), free(w->schemas[i].data);
    for (size_t i = 0; i < w->n_channels; i++) free(w->channels[i].topic), free(w->channels[i].encoding), free(w->channels[i].idx);
    for (size_t k = 0; k < w->n_chunks; k++) free(w->chunks[k].channel_offsets);
    free(w->schemas);
    free(w->channels);
    free(w->chunks);
    free(w->chunk.p);
    free(w->path);
    free(w);
}

int sim_mcap_close(sim_mcap_writer *w, sim_error *err)
{
    if (!w) return SIM_OK;
    int rc = flush_chunk(w, err);
    buf b = {0};
    if (!rc) {
        /* The data end's CRC is optional (0: not given); the summary's is given. */
        size_t at = record_begin(&b, OP_DATA_END);
        put_u32(&b, 0);
        record_end(&b, at);
        uint64_t summary_start = w->pos + b.len;
        size_t s0 = b.len;
        uint64_t group[4][3];
        summary(w, &b, summary_start, group);
        uint64_t offsets_start = w->pos + b.len;
        for (int g = 0; g < 4; g++) {
            if (!group[g][2]) continue;
            at = record_begin(&b, OP_SUMMARY_OFFSET);
            put_u8(&b, (uint8_t)group[g][0]);
            put_u64(&b, group[g][1]);
            put_u64(&b, group[g][2]);
            record_end(&b, at);
        }
        put_u8(&b, OP_FOOTER);
        put_u64(&b, 8 + 8 + 4);
        put_u64(&b, summary_start);
        put_u64(&b, offsets_start);
        /* summary_crc: from the summary's first byte through summary_offset_start */
        uint32_t crc = b.oom ? 0 : (uint32_t)crc32(crc32(0L, Z_NULL, 0), b.p + s0, (uInt)(b.len - s0));
        put_u32(&b, crc);
        put_bytes(&b, magic, sizeof magic);
        rc = out(w, &b, err);
    }
    free(b.p);
    if (fclose(w->f) && !rc) rc = sim_error_set(err, SIM_EIO, "%s: write failed: %s", w->path, strerror(errno));
    writer_free(w);
    return rc;
}
