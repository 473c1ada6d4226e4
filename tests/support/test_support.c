/* test_support: process and socket helpers for integration tests (see header). */
#include "test_support.h"

#include <arpa/inet.h>
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double ts_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void ts_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A port the kernel has free now (bind to port 0), or -1. */
static int kernel_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

int ts_free_port(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/sim-test-ports", tmp && *tmp ? tmp : "/tmp");
    if (mkdir(dir, 01777) == 0) chmod(dir, 01777); /* shared by every user's tests */
    for (int attempt = 0; attempt < 200; attempt++) {
        int port = kernel_free_port();
        if (port < 0) return -1;
        snprintf(path, sizeof path, "%s/%d", dir, port);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return port; /* fd stays open: the reservation */
        close(fd); /* another test process holds it: try another */
    }
    return -1;
}

/* "$VAR/rel" in one of a few rotating buffers, so that a call can take several. */
static const char *env_path(const char *var, const char *fallback, const char *rel)
{
    static char slots[8][1024];
    static int next;
    char *out = slots[next++ % 8];
    const char *dir = getenv(var);
    snprintf(out, sizeof slots[0], "%s/%s", dir ? dir : fallback, rel);
    return out;
}

const char *ts_bin(const char *name) { return env_path("SIM_BIN", "bin", name); }

const char *ts_root(const char *rel) { return env_path("SIM_ROOT", ".", rel); }

int ts_run(const char *name, const char *const *args, char *out, size_t out_size)
{
    char cmd[8192];
    int n = snprintf(cmd, sizeof cmd, "'%s'", ts_bin(name));
    for (size_t i = 0; args[i] && n < (int)sizeof cmd; i++) {
        assert(!strchr(args[i], '\'')); /* quoted as they are */
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " '%s'", args[i]);
    }
    if (n < (int)sizeof cmd) snprintf(cmd + n, sizeof cmd - (size_t)n, " 2>&1");
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t got = 0, r;
    while (out_size > 1 && (r = fread(out + got, 1, out_size - 1 - got, p)) > 0) got += r;
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {}
    if (out_size) out[got] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

pid_t ts_child_of(pid_t parent, const char *exe)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = -1;
    while (d && (e = readdir(d)) && found < 0) {
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        char *open = strchr(buf, '('), *close = strrchr(buf, ')');
        if (!open || !close) continue;
        int ppid = 0;
        char st;
        if (sscanf(close + 1, " %c %d", &st, &ppid) != 2 || ppid != parent || st == 'Z') continue;
        *close = 0;
        if (strcmp(open + 1, exe) == 0) found = atoi(e->d_name);
    }
    if (d) closedir(d);
    return found;
}

pid_t ts_spawn(char *const argv[], bool keep_stdout)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", strchr(argv[0], '/') ? argv[0] : ts_bin(argv[0]));
    pid_t pid = fork();
    if (pid == 0) {
        /* A test that crashes or fails must not leave its processes behind (they
         * would hold make's output pipe open and hang the run). SIGTERM, not SIGKILL:
         * simctl run then stops the modules it started, which SIGKILL left running,
         * reconnecting forever (seen after a failed test_bus_keys under make asan). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (!keep_stdout) {
            int devnull = open("/dev/null", O_WRONLY);
            if (devnull >= 0) dup2(devnull, 1);
        }
        execv(path, argv);
        fprintf(stderr, "test: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    return pid;
}

int ts_stop(pid_t pid, int sig, int timeout_ms)
{
    if (pid <= 0) return -1;
    kill(pid, sig);
    double end = ts_now_ms() + timeout_ms;
    int status;
    while (ts_now_ms() < end) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r < 0) return -1;
        ts_sleep_ms(5);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

static int connect_once(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

bool ts_wait_port(int port, int timeout_ms)
{
    double end = ts_now_ms() + timeout_ms;
    while (ts_now_ms() < end) {
        int fd = connect_once(port);
        if (fd >= 0) {
            close(fd);
            return true;
        }
        ts_sleep_ms(10);
    }
    return false;
}

ts_conn *ts_connect(int port)
{
    int fd = connect_once(port);
    if (fd < 0) return NULL;
    ts_conn *c = calloc(1, sizeof *c);
    c->fd = fd;
    return c;
}

void ts_close(ts_conn *c)
{
    if (!c) return;
    close(c->fd);
    free(c);
}

bool ts_send(ts_conn *c, const char *data, size_t len)
{
    while (len) {
        ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

bool ts_send_line(ts_conn *c, const char *line)
{
    return ts_send(c, line, strlen(line)) && ts_send(c, "\n", 1);
}

int ts_read_line(ts_conn *c, char *out, size_t out_size, int timeout_ms)
{
    double end = ts_now_ms() + timeout_ms;
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            size_t copy = n < out_size - 1 ? n : out_size - 1;
            memcpy(out, c->buf, copy);
            out[copy] = '\0';
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return (int)(n ? n : 1);
        }
        if (c->len == sizeof c->buf) c->len = 0; /* an overlong line: drop it */
        int left = (int)(end - ts_now_ms());
        if (left <= 0) return 0;
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int r = poll(&p, 1, left);
        if (r == 0) return 0;
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
        if (n <= 0) return -1;
        c->len += (size_t)n;
    }
}

cJSON *ts_expect_topic(ts_conn *c, const char *topic, int timeout_ms, char *raw, size_t raw_size)
{
    static char line[1 << 17];
    double end = ts_now_ms() + timeout_ms;
    for (;;) {
        int left = (int)(end - ts_now_ms());
        if (left <= 0) return NULL;
        int n = ts_read_line(c, line, sizeof line, left);
        if (n <= 0) return NULL;
        cJSON *msg = cJSON_Parse(line);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "topic");
        if (cJSON_IsString(t) && strcmp(t->valuestring, topic) == 0) {
            if (raw) snprintf(raw, raw_size, "%s", line);
            return msg;
        }
        cJSON_Delete(msg);
    }
}

ts_conn *ts_join(int port, const char *name, const char *subscribe_json, const char *extra_json)
{
    ts_conn *c = ts_connect(port);
    if (!c) return NULL;
    char hello[2048];
    snprintf(hello, sizeof hello, "{\"topic\":\"hello\",\"name\":\"%s\"%s%s%s%s}", name,
             subscribe_json ? ",\"subscribe\":" : "", subscribe_json ? subscribe_json : "",
             extra_json ? "," : "", extra_json ? extra_json : "");
    ts_send_line(c, hello);
    cJSON *w = ts_expect_topic(c, "dispatcher.welcome", 20000, NULL, 0);
    if (!w) {
        ts_close(c);
        return NULL;
    }
    cJSON_Delete(w);
    return c;
}

bool ts_dispatcher_start(ts_dispatcher *d, const char *const *extra_args)
{
    char listen[64];
    d->port = ts_free_port();
    d->control_port = ts_free_port();
    snprintf(listen, sizeof listen, "127.0.0.1:%d", d->port);
    snprintf(d->control_url, sizeof d->control_url, "tcp://127.0.0.1:%d", d->control_port);
    char *argv[32] = {"dispatcher", "--listen", listen, "--control", d->control_url};
    int n = 5;
    for (size_t i = 0; extra_args && extra_args[i] && n < 31; i++) argv[n++] = (char *)extra_args[i];
    argv[n] = NULL;
    d->pid = ts_spawn(argv, false);
    return d->pid > 0 && ts_wait_port(d->port, 20000);
}

int ts_dispatcher_stop(ts_dispatcher *d)
{
    int st = ts_stop(d->pid, SIGTERM, 20000);
    d->pid = 0;
    return st;
}

void ts_children_without_leak_detection(void)
{
    const char *asan = getenv("ASAN_OPTIONS");
    char opts[512];
    snprintf(opts, sizeof opts, "%s%sdetect_leaks=0", asan ? asan : "", asan && *asan ? ":" : "");
    setenv("ASAN_OPTIONS", opts, 1);
}

bool ts_boxes_overlap(const double a[5], const double b[5])
{
    const double *box[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (int e = 0; e < 2; e++) {
            double h = box[k][2] + e * M_PI / 2, ax = cos(h), ay = sin(h);
            double lo[2], hi[2];
            for (int m = 0; m < 2; m++) {
                const double *q = box[m];
                double c = q[0] * ax + q[1] * ay;
                double r = fabs(q[3] / 2 * cos(q[2] - h)) + fabs(q[4] / 2 * sin(q[2] - h));
                lo[m] = c - r, hi[m] = c + r;
            }
            if (hi[0] <= lo[1] || hi[1] <= lo[0]) return false;
        }
    return true;
}
