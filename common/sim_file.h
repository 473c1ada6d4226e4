/* sim_file: reading a whole (text) file into memory, for the loaders in libsim. */
#ifndef SIM_FILE_H
#define SIM_FILE_H

#include <stddef.h>

#include "sim_error.h"

/* Reads the file at path into a new buffer (*out, NUL-terminated, length *len without
 * the NUL; the caller frees it with free()). Files over max_bytes are refused with
 * SIM_ETOOBIG. Errors name the path. */
int sim_file_read(const char *path, size_t max_bytes, char **out, size_t *len, sim_error *err);

#endif
