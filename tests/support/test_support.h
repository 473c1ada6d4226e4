/* test_support: helpers for tests that start the real executables: free loopback
 * ports, spawning and stopping processes, and line-oriented TCP clients with
 * timeouts. Executables are found in $SIM_BIN (set by make), repo files under
 * $SIM_ROOT. */
#ifndef TEST_SUPPORT_H
#define TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

/* A port free on 127.0.0.1 and reserved for this process until it exits: no other
 * test process gets it from ts_free_port (under make -j2 test, two tests handed the
 * same port reached each other's dispatcher). The reservation is an flock on
 * $TMPDIR/sim-test-ports/PORT, which the kernel drops when the process ends, however
 * it ends. -1 when no port could be had. */
int ts_free_port(void);
/* Path of an executable in $SIM_BIN (static buffer per call slot; copy if kept). */
const char *ts_bin(const char *name);
/* Path of a file under $SIM_ROOT. */
const char *ts_root(const char *rel);
/* fork+exec argv[0] resolved through ts_bin; stdout to /dev/null unless keep_stdout;
 * stderr inherited. Returns the pid or -1. */
pid_t ts_spawn(char *const argv[], bool keep_stdout);
/* Runs the executable `name` from $SIM_BIN with args (NULL-terminated), stdout and
 * stderr together into out (NUL-terminated, truncated to out_size); returns the exit
 * status, or -1 when it did not exit normally. */
int ts_run(const char *name, const char *const *args, char *out, size_t out_size);
/* The pid of a live child of parent whose command name is exe (as in
 * /proc/PID/stat), or -1: for killing one module of a `simctl run`. */
pid_t ts_child_of(pid_t parent, const char *exe);
/* Sends sig and waits up to timeout_ms; returns the exit status as from waitpid
 * (or -1 on timeout, after which the process is killed with SIGKILL). With sig 0 it
 * only waits for the process to end by itself. */
int ts_stop(pid_t pid, int sig, int timeout_ms);

/* How long a headless session that ends by itself (--until) may take before a test
 * calls it hung. Only a hang guard, never an ordering: lockstep sessions under ASan on a
 * loaded 2-core machine took 42-70 s for a 60 s town drive, past the 60 s used before. */
#define TS_SESSION_HANG_MS 240000
/* Waits until something accepts TCP connections on 127.0.0.1:port. */
bool ts_wait_port(int port, int timeout_ms);
/* Milliseconds from a monotonic clock. */
double ts_now_ms(void);
void ts_sleep_ms(int ms);

typedef struct ts_conn {
    int fd;
    size_t len;
    char buf[1 << 17];
} ts_conn;

/* Connects to 127.0.0.1:port; NULL on failure. Free with ts_close. */
ts_conn *ts_connect(int port);
void ts_close(ts_conn *c);
/* Writes all bytes; false on error. */
bool ts_send(ts_conn *c, const char *data, size_t len);
bool ts_send_line(ts_conn *c, const char *line);
/* Reads one line (without newline) into out; returns its length, 0 on timeout,
 * -1 when the peer closed. Lines longer than out_size are truncated. */
int ts_read_line(ts_conn *c, char *out, size_t out_size, int timeout_ms);
/* Reads lines until one has the given topic; returns it parsed (caller frees) or NULL
 * on timeout/close. If raw is non-NULL the line is copied there. */
cJSON *ts_expect_topic(ts_conn *c, const char *topic, int timeout_ms, char *raw, size_t raw_size);
/* Connects, says hello and waits for the welcome. subscribe_json may be NULL (all). */
ts_conn *ts_join(int port, const char *name, const char *subscribe_json, const char *extra_json);

/* A dispatcher on free ports, started and waited for. */
typedef struct ts_dispatcher {
    pid_t pid;
    int port;
    int control_port;
    char control_url[64];
} ts_dispatcher;
bool ts_dispatcher_start(ts_dispatcher *d, const char *const *extra_args);
int ts_dispatcher_stop(ts_dispatcher *d);

/* Adds detect_leaks=0 to ASAN_OPTIONS for the processes started from now on (for
 * executables whose graphics libraries leak at exit from modules they unload). */
void ts_children_without_leak_detection(void);

/* Two boxes on the ground, each {centre x, y, heading, length, width}: do they overlap
 * (no separating axis among their four edge normals)? Touching is not overlapping. */
bool ts_boxes_overlap(const double a[5], const double b[5]);

#endif
