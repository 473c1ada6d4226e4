/* sim_grid_image: sim_grid values read from and written to image files: 8/16-bit binary
 * PGM, greyscale PNG (libpng, in memory) and raw little-endian float32. Images are maps
 * with north up: the first row is the northern edge, j = ny-1. Every function returns
 * SIM_OK or a negative SIM_E* code with err naming the file and what was wrong; on
 * success *out owns new storage (free with sim_grid_free). */
#ifndef SIM_GRID_IMAGE_H
#define SIM_GRID_IMAGE_H

#include <stddef.h>

#include "sim_error.h"
#include "sim_terrain.h"


/* Parses a binary PGM (P5, maxval 1..65535; 16-bit samples are big-endian as the
 * format says) from memory. Values are normalised to [0, 1] (sample / maxval) and
 * flipped so that the image's top row becomes j = ny-1. `name` is used in messages.
 * On success *out owns new storage (free with sim_grid_free). */
int sim_grid_parse_pgm(const unsigned char *buf, size_t len, const char *name, sim_grid *out,
                       sim_error *err);
/* Reads a PGM file (see sim_grid_parse_pgm). */
int sim_grid_read_pgm(const char *path, sim_grid *out, sim_error *err);
/* Parses a PNG from memory, with the PGM reader's conventions: values are sample /
 * (2^depth - 1) in [0, 1] (16-bit at full precision), the top row becomes j = ny-1.
 * Accepted: greyscale of 1, 2, 4, 8 or 16 bits, with or without alpha; RGB(A) and
 * palette images only when every pixel is grey (R = G = B, the value being that
 * grey). Alpha and transparency are ignored, and so are gamma and colour-profile
 * chunks: samples are read as stored (a height map is data, not a picture).
 * Interlaced files are accepted. Errors (SIM_EINVAL) name `name` and what was wrong:
 * no PNG signature, libpng's message for a corrupt or truncated stream, the first
 * non-grey pixel; a size above SIM_GRID_MAX_SIDE is SIM_ERANGE. On success *out owns
 * new storage; on error it is empty. */
int sim_grid_parse_png(const unsigned char *buf, size_t len, const char *name, sim_grid *out,
                       sim_error *err);
/* Reads a PNG file (see sim_grid_parse_png). */
int sim_grid_read_png(const char *path, sim_grid *out, sim_error *err);
/* PNG or PGM, told apart by the first bytes (the 8-byte PNG signature, else PGM). */
int sim_grid_parse_image(const unsigned char *buf, size_t len, const char *name, sim_grid *out,
                         sim_error *err);
int sim_grid_read_image(const char *path, sim_grid *out, sim_error *err);
/* Reads a raw grid of nx*ny little-endian IEEE float32, row-major with the first row
 * the northern edge (as an image). The file size must be exactly nx*ny*4 bytes, and
 * every value finite. */
int sim_grid_read_f32(const char *path, int nx, int ny, sim_grid *out, sim_error *err);

/* Encodes g (values clamped to [0, 1]) as a 16-bit binary PGM (maxval 65535, top row
 * = northern edge) into a new buffer the caller frees. */
int sim_grid_encode_pgm16(const sim_grid *g, unsigned char **buf, size_t *len, sim_error *err);
/* The same samples as a 16-bit greyscale PNG (not interlaced, default compression).
 * The pixels are exact; the compressed bytes depend on the zlib version. */
int sim_grid_encode_png16(const sim_grid *g, unsigned char **buf, size_t *len, sim_error *err);

#endif
