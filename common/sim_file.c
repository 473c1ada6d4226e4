/* sim_file: whole-file reads (see sim_file.h). */
#include "sim_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_file_read(const char *path, size_t max_bytes, char **out, size_t *len_out, sim_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = SIM_OK;
    for (;;) {
        if (len + 1 >= cap) {
            if (cap > max_bytes) {
                rc = sim_error_set(err, SIM_ETOOBIG, "%s: expected at most %zu bytes", path,
                                   max_bytes);
                break;
            }
            size_t nc = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, nc);
            if (!nb) {
                rc = sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
                break;
            }
            buf = nb;
            cap = nc;
        }
        size_t n = fread(buf + len, 1, cap - 1 - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) rc = sim_error_set(err, SIM_EIO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (rc == SIM_OK && len > max_bytes)
        rc = sim_error_set(err, SIM_ETOOBIG, "%s: expected at most %zu bytes", path, max_bytes);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *out = buf;
    *len_out = len;
    return SIM_OK;
}
