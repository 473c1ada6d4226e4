/* sim_grid_image: height and property maps read from and written to PGM, PNG and raw
 * float32 files (see sim_grid_image.h). The decoding lives here, apart from the pure
 * surface in world/sim_terrain, so that the geometry compiles without libpng. */
#include "sim_grid_image.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"

/* Skips whitespace and '#' comments in a PNM header; returns the new position. */
static size_t pgm_skip(const unsigned char *b, size_t len, size_t p)
{
    while (p < len) {
        if (b[p] == '#') {
            while (p < len && b[p] != '\n') p++;
        } else if (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r' ||
                   b[p] == '\v' || b[p] == '\f') {
            p++;
        } else {
            break;
        }
    }
    return p;
}

/* Reads one decimal header number (at most 65535*4 so it never overflows). */
static int pgm_number(const unsigned char *b, size_t len, size_t *p, long *out)
{
    *p = pgm_skip(b, len, *p);
    if (*p >= len || b[*p] < '0' || b[*p] > '9') return -1;
    long v = 0;
    while (*p < len && b[*p] >= '0' && b[*p] <= '9') {
        v = v * 10 + (b[*p] - '0');
        if (v > 1000000) return -1;
        (*p)++;
    }
    *out = v;
    return 0;
}

int sim_grid_parse_pgm(const unsigned char *buf, size_t len, const char *name, sim_grid *out,
                       sim_error *err)
{
    out->nx = out->ny = 0;
    out->v = NULL;
    if (len < 2 || buf[0] != 'P' || buf[1] != '5')
        return sim_error_set(err, SIM_EINVAL,
                             "%s: not a binary PGM: expected magic \"P5\" at the start", name);
    size_t p = 2;
    long w, h, maxval;
    if (pgm_number(buf, len, &p, &w) || pgm_number(buf, len, &p, &h) ||
        pgm_number(buf, len, &p, &maxval))
        return sim_error_set(err, SIM_EINVAL,
                             "%s: bad PGM header: expected width, height and maxval", name);
    if (w < 1 || h < 1 || w > SIM_GRID_MAX_SIDE || h > SIM_GRID_MAX_SIDE)
        return sim_error_set(err, SIM_ERANGE, "%s: PGM size %ldx%ld: expected 1..%d a side",
                             name, w, h, SIM_GRID_MAX_SIDE);
    if (maxval < 1 || maxval > 65535)
        return sim_error_set(err, SIM_EINVAL, "%s: PGM maxval %ld: expected 1..65535", name,
                             maxval);
    /* Exactly one whitespace byte separates the header from the samples. */
    if (p >= len || !(buf[p] == ' ' || buf[p] == '\n' || buf[p] == '\r' || buf[p] == '\t'))
        return sim_error_set(err, SIM_EINVAL, "%s: bad PGM header: no whitespace after maxval",
                             name);
    p++;
    size_t bps = maxval > 255 ? 2 : 1;
    size_t need = (size_t)w * (size_t)h * bps;
    if (len - p < need)
        return sim_error_set(err, SIM_EINVAL, "%s: PGM data truncated: found %zu bytes, "
                             "expected %zu for %ldx%ld at %zu byte(s) per sample",
                             name, len - p, need, w, h, bps);
    int rc = sim_grid_alloc(out, (int)w, (int)h, err);
    if (rc) return rc;
    const unsigned char *d = buf + p;
    double scale = 1.0 / (double)maxval;
    int bad = 0;
    for (long r = 0; r < h; r++) {
        double *row = out->v + (size_t)(h - 1 - r) * (size_t)w; /* top row = north */
        for (long c = 0; c < w; c++) {
            size_t k = (size_t)r * (size_t)w + (size_t)c;
            long s = bps == 2 ? ((long)d[2 * k] << 8 | d[2 * k + 1]) : d[k];
            if (s > maxval) bad = 1;
            row[c] = (double)s * scale;
        }
    }
    if (bad) {
        sim_grid_free(out);
        return sim_error_set(err, SIM_EINVAL, "%s: PGM sample above maxval %ld", name, maxval);
    }
    return SIM_OK;
}

/* ---- PNG (libpng) ----------------------------------------------------------------
 *
 * libpng reports errors by calling an error function that must not return; ours
 * copies the message and longjmps back to the setjmp in png_decode/png_encode. Those
 * two functions keep nothing they change after setjmp in their own locals: everything
 * that must survive the jump (the libpng structs, the row buffer, the output) lives in
 * a png_ctx owned by the caller, which frees it whichever way the call ends. */

typedef struct png_ctx {
    const char *name;          /* for messages */
    png_structp png;
    png_infop info;
    unsigned char *rows;       /* row buffer (owned, freed by the caller) */
    const unsigned char *in;   /* decoder input */
    size_t in_len, in_pos;
    unsigned char *out;        /* encoder output, grown as libpng writes */
    size_t out_len, out_cap;
    char msg[200];             /* libpng's message, copied before the jump */
} png_ctx;

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_ctx *c = png_get_error_ptr(png);
    snprintf(c->msg, sizeof c->msg, "%s", msg);
    png_longjmp(png, 1);
}

/* Warnings (an odd ancillary chunk, a bad sRGB profile) do not affect the samples. */
static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void png_read_mem(png_structp png, png_bytep dst, size_t n)
{
    png_ctx *c = png_get_io_ptr(png);
    if (n > c->in_len - c->in_pos) {
        char m[96];
        snprintf(m, sizeof m, "truncated: found %zu bytes, expected more", c->in_len);
        png_error(png, m);
    }
    memcpy(dst, c->in + c->in_pos, n);
    c->in_pos += n;
}

/* Decodes c->in into out; see sim_grid_parse_png for the rules. */
static int png_decode(png_ctx *c, sim_grid *out, sim_error *err)
{
    if (setjmp(png_jmpbuf(c->png)))
        return sim_error_set(err, SIM_EINVAL, "%s: bad PNG data: %s", c->name, c->msg);
    png_set_read_fn(c->png, c, png_read_mem);
    png_read_info(c->png, c->info);
    png_uint_32 w = png_get_image_width(c->png, c->info), h = png_get_image_height(c->png, c->info);
    if (w > SIM_GRID_MAX_SIDE || h > SIM_GRID_MAX_SIDE)
        return sim_error_set(err, SIM_ERANGE, "%s: PNG size %lux%lu: expected 1..%d a side",
                             c->name, (unsigned long)w, (unsigned long)h, SIM_GRID_MAX_SIDE);
    /* Deflate cannot expand one input byte into more than 1032 (a 258-byte match in
     * two bits), so a file too short for its header's size is refused here, before
     * allocating the grid that a 100-byte file could otherwise make us allocate. */
    size_t raw = (size_t)w * h * png_get_bit_depth(c->png, c->info) *
                 png_get_channels(c->png, c->info) / 8;
    if (raw / 1032 > c->in_len)
        return sim_error_set(err, SIM_EINVAL, "%s: PNG of %lux%lu needs %zu bytes of samples, "
                             "expected a file of at least %zu bytes, found %zu: truncated",
                             c->name, (unsigned long)w, (unsigned long)h, raw, raw / 1032,
                             c->in_len);
    int type = png_get_color_type(c->png, c->info);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(c->png);
    else if (png_get_bit_depth(c->png, c->info) < 8) png_set_expand_gray_1_2_4_to_8(c->png);
    int passes = png_set_interlace_handling(c->png);
    png_read_update_info(c->png, c->info);
    size_t rowbytes = png_get_rowbytes(c->png, c->info);
    int ch = png_get_channels(c->png, c->info), bps = png_get_bit_depth(c->png, c->info) / 8;
    /* Interlaced images arrive in seven passes over the whole image, so they need it
     * all in memory; others are converted a row at a time. */
    c->rows = malloc(rowbytes * (passes > 1 ? h : 1));
    if (!c->rows) return sim_error_set(err, SIM_ENOMEM, "%s: PNG rows: out of memory", c->name);
    int rc = sim_grid_alloc(out, (int)w, (int)h, err);
    if (rc) return rc;
    double scale = 1.0 / (bps == 2 ? 65535.0 : 255.0);
    for (int pass = 0; pass < passes; pass++)
        for (png_uint_32 r = 0; r < h; r++) {
            png_bytep row = c->rows + (passes > 1 ? r * rowbytes : 0);
            png_read_row(c->png, row, NULL);
            if (pass < passes - 1) continue;
            double *dst = out->v + (size_t)(h - 1 - r) * w; /* top row = north */
            for (png_uint_32 i = 0; i < w; i++) {
                /* Channels: grey[, alpha] or R, G, B[, alpha]; 16-bit is big-endian. */
                unsigned s[3];
                for (int k = 0; k < (ch >= 3 ? 3 : 1); k++) {
                    const unsigned char *p = row + ((size_t)i * ch + k) * bps;
                    s[k] = bps == 2 ? (unsigned)p[0] << 8 | p[1] : p[0];
                }
                if (ch >= 3 && (s[1] != s[0] || s[2] != s[0]))
                    return sim_error_set(err, SIM_EINVAL, "%s: PNG pixel at row %lu column %lu "
                                         "is not grey (R %u, G %u, B %u): expected R = G = B "
                                         "(save height maps as greyscale)", c->name,
                                         (unsigned long)r, (unsigned long)i, s[0], s[1], s[2]);
                dst[i] = s[0] * scale;
            }
        }
    png_read_end(c->png, NULL);
    return SIM_OK;
}

int sim_grid_parse_png(const unsigned char *buf, size_t len, const char *name, sim_grid *out,
                       sim_error *err)
{
    out->nx = out->ny = 0;
    out->v = NULL;
    if (len < 8 || png_sig_cmp(buf, 0, 8) != 0)
        return sim_error_set(err, SIM_EINVAL,
                             "%s: not a PNG: expected the 8-byte PNG signature at the start", name);
    png_ctx c = {.name = name, .in = buf, .in_len = len};
    c.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, png_on_error, png_on_warning);
    c.info = c.png ? png_create_info_struct(c.png) : NULL;
    int rc = c.info ? png_decode(&c, out, err)
                    : sim_error_set(err, SIM_ENOMEM, "%s: PNG decoder: out of memory", name);
    png_destroy_read_struct(c.png ? &c.png : NULL, c.info ? &c.info : NULL, NULL);
    free(c.rows);
    if (rc) sim_grid_free(out);
    return rc;
}

int sim_grid_parse_image(const unsigned char *buf, size_t len, const char *name, sim_grid *out,
                         sim_error *err)
{
    if (len >= 8 && png_sig_cmp(buf, 0, 8) == 0)
        return sim_grid_parse_png(buf, len, name, out, err);
    return sim_grid_parse_pgm(buf, len, name, out, err);
}

typedef int (*grid_parser)(const unsigned char *buf, size_t len, const char *name,
                           sim_grid *out, sim_error *err);

/* Reads path whole and hands it to parse (one of the parsers above). */
static int grid_read(const char *path, grid_parser parse, sim_grid *out, sim_error *err)
{
    char *data;
    size_t len;
    out->nx = out->ny = 0;
    out->v = NULL;
    int rc = sim_file_read(path, &data, &len, err);
    if (rc) return rc;
    rc = parse((const unsigned char *)data, len, path, out, err);
    free(data);
    return rc;
}

int sim_grid_read_pgm(const char *path, sim_grid *out, sim_error *err)
{
    return grid_read(path, sim_grid_parse_pgm, out, err);
}

int sim_grid_read_png(const char *path, sim_grid *out, sim_error *err)
{
    return grid_read(path, sim_grid_parse_png, out, err);
}

int sim_grid_read_image(const char *path, sim_grid *out, sim_error *err)
{
    return grid_read(path, sim_grid_parse_image, out, err);
}

int sim_grid_read_f32(const char *path, int nx, int ny, sim_grid *out, sim_error *err)
{
    out->nx = out->ny = 0;
    out->v = NULL;
    if (nx < 1 || ny < 1 || nx > SIM_GRID_MAX_SIDE || ny > SIM_GRID_MAX_SIDE)
        return sim_error_set(err, SIM_ERANGE, "%s: raw grid size %dx%d: expected 1..%d a side",
                             path, nx, ny, SIM_GRID_MAX_SIDE);
    char *data;
    size_t len;
    int rc = sim_file_read(path, &data, &len, err);
    if (rc) return rc;
    size_t need = (size_t)nx * (size_t)ny * 4;
    if (len != need) {
        free(data);
        return sim_error_set(err, SIM_EINVAL,
                             "%s: raw float32 grid of %zu bytes: expected %zu (%dx%d x 4)", path,
                             len, need, nx, ny);
    }
    rc = sim_grid_alloc(out, nx, ny, err);
    if (rc) {
        free(data);
        return rc;
    }
    const unsigned char *d = (const unsigned char *)data;
    for (int r = 0; r < ny; r++) {
        double *row = out->v + (size_t)(ny - 1 - r) * (size_t)nx;
        for (int c = 0; c < nx; c++) {
            size_t k = ((size_t)r * (size_t)nx + (size_t)c) * 4;
            uint32_t bits = (uint32_t)d[k] | (uint32_t)d[k + 1] << 8 |
                            (uint32_t)d[k + 2] << 16 | (uint32_t)d[k + 3] << 24;
            float f;
            memcpy(&f, &bits, sizeof f);
            if (!isfinite(f)) {
                free(data);
                sim_grid_free(out);
                return sim_error_set(err, SIM_EINVAL,
                                     "%s: value at row %d column %d is not finite", path, r, c);
            }
            row[c] = f;
        }
    }
    free(data);
    return SIM_OK;
}

/* Writes image row r (r = 0 the northern edge) of g as big-endian 16-bit samples,
 * values clamped to [0, 1] and scaled to 0..65535: the one quantisation both
 * encoders use. */
static void grid_row16(const sim_grid *g, int r, unsigned char *d)
{
    const double *row = g->v + (size_t)(g->ny - 1 - r) * (size_t)g->nx;
    for (int c = 0; c < g->nx; c++) {
        unsigned s = (unsigned)lround(fmin(fmax(row[c], 0.0), 1.0) * 65535.0);
        *d++ = (unsigned char)(s >> 8);
        *d++ = (unsigned char)(s & 0xff);
    }
}

int sim_grid_encode_pgm16(const sim_grid *g, unsigned char **buf, size_t *len, sim_error *err)
{
    char head[48];
    int hn = snprintf(head, sizeof head, "P5\n%d %d\n65535\n", g->nx, g->ny);
    size_t n = (size_t)hn + (size_t)g->nx * (size_t)g->ny * 2;
    unsigned char *b = malloc(n);
    if (!b) return sim_error_set(err, SIM_ENOMEM, "PGM encoding: out of memory");
    memcpy(b, head, (size_t)hn);
    for (int r = 0; r < g->ny; r++) grid_row16(g, r, b + hn + (size_t)r * (size_t)g->nx * 2);
    *buf = b;
    *len = n;
    return SIM_OK;
}

static void png_write_mem(png_structp png, png_bytep data, size_t n)
{
    png_ctx *c = png_get_io_ptr(png);
    if (n > c->out_cap - c->out_len) {
        size_t cap = c->out_cap * 2 > c->out_len + n ? c->out_cap * 2 : c->out_len + n + 4096;
        unsigned char *b = realloc(c->out, cap);
        if (!b) png_error(png, "out of memory");
        c->out = b;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, data, n);
    c->out_len += n;
}

static void png_flush_mem(png_structp png)
{
    (void)png;
}

/* Encodes g into c->out; see sim_grid_encode_png16. */
static int png_encode(png_ctx *c, const sim_grid *g, sim_error *err)
{
    /* The grid is checked below, so what libpng can still fail on is memory. */
    if (setjmp(png_jmpbuf(c->png)))
        return sim_error_set(err, SIM_ENOMEM, "PNG encoding: %s", c->msg);
    png_set_write_fn(c->png, c, png_write_mem, png_flush_mem);
    png_set_IHDR(c->png, c->info, (png_uint_32)g->nx, (png_uint_32)g->ny, 16, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(c->png, c->info);
    c->rows = malloc((size_t)g->nx * 2);
    if (!c->rows) return sim_error_set(err, SIM_ENOMEM, "PNG encoding: out of memory");
    for (int r = 0; r < g->ny; r++) {
        grid_row16(g, r, c->rows);
        png_write_row(c->png, c->rows);
    }
    png_write_end(c->png, NULL);
    return SIM_OK;
}

int sim_grid_encode_png16(const sim_grid *g, unsigned char **buf, size_t *len, sim_error *err)
{
    if (!g->v || g->nx < 1 || g->ny < 1 || g->nx > SIM_GRID_MAX_SIDE || g->ny > SIM_GRID_MAX_SIDE)
        return sim_error_set(err, SIM_EINVAL, "PNG encoding: grid %dx%d: expected 1..%d points "
                             "a side", g->nx, g->ny, SIM_GRID_MAX_SIDE);
    png_ctx c = {.name = "PNG encoding"};
    c.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, png_on_error, png_on_warning);
    c.info = c.png ? png_create_info_struct(c.png) : NULL;
    int rc = c.info ? png_encode(&c, g, err)
                    : sim_error_set(err, SIM_ENOMEM, "PNG encoder: out of memory");
    png_destroy_write_struct(c.png ? &c.png : NULL, c.info ? &c.info : NULL);
    free(c.rows);
    if (rc) {
        free(c.out);
        return rc;
    }
    *buf = c.out;
    *len = c.out_len;
    return SIM_OK;
}