/* sim_file: reading a whole file into memory and making directories, with errors that
 * name the file.
 *
 * The world model loads scenario JSON and height maps through this one helper so that
 * every "cannot read" message looks the same. */
#ifndef SIM_FILE_H
#define SIM_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "sim_error.h"

/* Upper bound on what sim_file_read accepts (1 GiB): a guard against reading a device
 * or a wrong path into memory. */
#define SIM_FILE_MAX ((size_t)1 << 30)

/* Reads all of `path` into a new buffer (*data, NUL-terminated for convenience; *len
 * excludes the NUL). The caller owns *data and frees it with free(). Returns 0,
 * SIM_EIO (missing, unreadable or not a regular file; the message names the
 * file and the reason), SIM_ETOOBIG or
 * SIM_ENOMEM. */
int sim_file_read(const char *path, char **data, size_t *len, sim_error *err);

/* The same with a smaller bound: files over max bytes give SIM_ETOOBIG. */
int sim_file_read_max(const char *path, size_t max, char **data, size_t *len, sim_error *err);

/* Opens PATH for reading in binary mode only if it is a regular file: a device or FIFO
 * named by mistake (in a drive log's meta, say, or by a fuzzer) could block the open or
 * the reads for ever. Returns the stream (the caller owns it and fcloses it), or NULL
 * with ERR filled. */
FILE *sim_file_open_regular(const char *path, sim_error *err);

/* Line and column (both from 1, the column in bytes) of byte offset in text, for
 * messages about a syntax error in a file's contents. */
void sim_file_line_col(const char *text, size_t offset, int *line, int *col);

/* Joins a directory and a relative path into a new string ("dir/rel"); returns rel
 * copied when it is absolute or dir is NULL/empty. Caller frees; NULL when out of
 * memory. */
char *sim_file_join(const char *dir, const char *rel);

/* A new string holding the directory part of path ("." when it has none). Caller
 * frees; NULL when out of memory. */
char *sim_file_dirname(const char *path);

/* Creates path and every missing directory above it (mkdir -p), mode 0777 before the
 * umask. Returns 0, SIM_EINVAL for an empty path, SIM_ETOOBIG for a path over 4095
 * bytes, or SIM_EIO naming the directory that could not be made and why (a file in
 * the way included). */
int sim_file_mkdirs(const char *path, sim_error *err);

#endif
