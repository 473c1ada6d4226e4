/* remote: `simctl __remote HOST EXE [ARGS...]`, what `simctl run --lab` runs on another
 * host through ssh (docs/lab.md). It reads the bus token and the session's secret from
 * its stdin (two lines; empty: none), so that neither is on a command line that `ps`
 * shows on either host, then starts the module with them in its environment and:
 *   - prefixes each line the module writes (stdout and stderr) with "HOST: ";
 *   - reads further stdin lines: "term" sends the module SIGTERM (the orderly stop),
 *     "kill" SIGKILL; the end of stdin (simctl or its ssh ended, kill -9 included, or
 *     the link went away) sends SIGTERM, then SIGKILL after REMOTE_KILL_MS;
 *   - exits with the module's status, or 128 + the signal that ended it (supervise.c
 *     reads it back as a signal). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "simctl.h"

#define REMOTE_KILL_MS 3000

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One line of stdin without stdio's buffering (what follows it stays in the pipe for
 * poll): 0, or -1 at its end. */
static int read_line(char *buf, size_t size)
{
    size_t n = 0;
    for (;;) {
        char ch;
        ssize_t r = read(0, &ch, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        if (ch == '\n') break;
        if (n + 1 < size) buf[n++] = ch;
    }
    buf[n] = '\0';
    return 0;
}

/* Writes the complete lines of buf[0..*len) prefixed; keeps the rest (or flushes all). */
static void prefix_lines(const char *host, char *buf, size_t *len, int flush)
{
    size_t start = 0;
    for (size_t i = 0; i < *len; i++)
        if (buf[i] == '\n') {
            fprintf(stderr, "%s: %.*s\n", host, (int)(i - start), buf + start);
            start = i + 1;
        }
    if (flush && start < *len) {
        fprintf(stderr, "%s: %.*s\n", host, (int)(*len - start), buf + start);
        start = *len;
    }
    memmove(buf, buf + start, *len - start);
    *len -= start;
}

static void set_secret(const char *name, const char *value)
{
    if (value[0]) setenv(name, value, 1);
    else unsetenv(name);
}

int simctl_exec_remote(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "simctl __remote: expected HOST EXE [ARGS...] and two lines (token, secret) on stdin\n");
        return 2;
    }
    const char *host = argv[2];
    char token[512], secret[512];
    if (read_line(token, sizeof token) || read_line(secret, sizeof secret)) {
        fprintf(stderr, "%s: simctl __remote: stdin ended before the token and secret lines\n", host);
        return 2;
    }
    set_secret("SIM_BUS_TOKEN", token);
    set_secret("SIM_BUS_SECRET", secret);
    int out[2];
    if (pipe(out) != 0) return 127;
    pid_t pid = fork();
    if (pid < 0) return 127;
    if (pid == 0) {
        int devnull = open("/dev/null", 0);
        dup2(devnull, 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        close(out[0]);
        close(out[1]);
        execv(argv[3], argv + 3);
        fprintf(stderr, "cannot start %s: %s\n", argv[3], strerror(errno));
        _exit(127);
    }
    close(out[1]);
    signal(SIGPIPE, SIG_IGN);
    char buf[8192];
    size_t len = 0;
    bool stdin_open = true, out_open = true;
    long long kill_at = -1;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (kill_at >= 0 && now_ms() >= kill_at) {
            kill(pid, SIGKILL);
            kill_at = -1;
        }
        struct pollfd fds[2] = {{.fd = stdin_open ? 0 : -1, .events = POLLIN}, {.fd = out_open ? out[0] : -1, .events = POLLIN}};
        if (poll(fds, 2, 100) < 0 && errno != EINTR) break;
        if (fds[0].revents) {
            char cmd[64];
            if (read_line(cmd, sizeof cmd) != 0) {
                stdin_open = false; /* simctl has gone: the module goes too */
                kill(pid, SIGTERM);
                kill_at = now_ms() + REMOTE_KILL_MS;
            } else if (strcmp(cmd, "term") == 0) {
                kill(pid, SIGTERM);
            } else if (strcmp(cmd, "kill") == 0) {
                kill(pid, SIGKILL);
            }
        }
        if (fds[1].revents) {
            ssize_t r = read(out[0], buf + len, sizeof buf - len);
            if (r <= 0) out_open = false;
            else len += (size_t)r;
            prefix_lines(host, buf, &len, len == sizeof buf);
        }
    }
    /* what the module wrote last (its grandchildren may hold the pipe: no blocking) */
    struct pollfd last = {.fd = out[0], .events = POLLIN};
    while (out_open && len < sizeof buf && poll(&last, 1, 0) > 0) {
        ssize_t r = read(out[0], buf + len, sizeof buf - len);
        if (r <= 0) break;
        len += (size_t)r;
    }
    prefix_lines(host, buf, &len, 1);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}
