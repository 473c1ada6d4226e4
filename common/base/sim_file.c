/* sim_file: whole-file reads and path joining for the world model (see sim_file.h). */
#include "sim_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int sim_file_read(const char *path, char **data, size_t *len, sim_error *err)
{
    return sim_file_read_max(path, SIM_FILE_MAX, data, len, err);
}

FILE *sim_file_open_regular(const char *path, sim_error *err)
{
    /* O_NONBLOCK so that opening a FIFO does not itself wait for a writer before fstat
     * can tell; a regular file ignores the flag. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        sim_error_set(err, SIM_EIO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        sim_error_set(err, SIM_EIO, "%s: not a regular file", path);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int saved = errno;
        close(fd);
        sim_error_set(err, SIM_EIO, "%s: cannot open: %s", path, strerror(saved));
    }
    return f;
}

int sim_file_read_max(const char *path, size_t max, char **data, size_t *len, sim_error *err)
{
    *data = NULL;
    *len = 0;
    FILE *f = sim_file_open_regular(path, err);
    if (!f)
        return SIM_EIO;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
    }
    /* Read in growing chunks rather than trusting the size from stat, which may
     * change under us. */
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n > max) {
            free(buf);
            fclose(f);
            return sim_error_set(err, SIM_ETOOBIG, "%s: larger than %zu bytes", path, max);
        }
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return sim_error_set(err, SIM_EIO, "%s: read failed: %s", path, strerror(saved));
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return SIM_OK;
}

void sim_file_line_col(const char *text, size_t offset, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

char *sim_file_join(const char *dir, const char *rel)
{
    if (!dir || !*dir || rel[0] == '/') return strdup(rel);
    size_t a = strlen(dir), b = strlen(rel);
    char *out = malloc(a + b + 2);
    if (!out) return NULL;
    memcpy(out, dir, a);
    out[a] = '/';
    memcpy(out + a + 1, rel, b + 1);
    return out;
}

char *sim_file_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

int sim_file_mkdirs(const char *path, sim_error *err)
{
    char buf[4096];
    if (!path[0]) return sim_error_set(err, SIM_EINVAL, "empty directory name");
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return sim_error_set(err, SIM_ETOOBIG, "%.64s...: path too long", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            struct stat st;
            /* EEXIST also for a file of that name: only a directory will do. */
            if (mkdir(buf, 0777) != 0 && (errno != EEXIST || (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode))))
                return sim_error_set(err, SIM_EIO, "cannot create directory %s: %s", buf,
                                     errno == EEXIST ? "a file of that name exists" : strerror(errno));
            *p = c;
            if (c == '\0') break;
        }
    }
    return 0;
}
