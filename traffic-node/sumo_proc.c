/* sumo_proc: SUMO's programs, the SUMO process and its TraCI socket (see sumo.h).
 * Blocking calls on purpose: in lockstep the tick waits for SUMO's step anyway, and the
 * socket is loopback to a child of this process. */
#include "sumo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim_file.h"
#include "sim_xodr_write.h"

#define INSTALL_HINT "install Debian's SUMO with `apt-get install sumo sumo-tools` (`sh scripts/deps.sh` does)"
#define MAX_ANSWER (64u << 20)

static bool executable(const char *path) { return access(path, X_OK) == 0; }

/* name on $PATH (or name itself when it has a slash) into out */
static bool find_program(const char *name, char *out, size_t cap)
{
    if (strchr(name, '/')) {
        snprintf(out, cap, "%s", name);
        return executable(out);
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        snprintf(out, cap, "%.*s/%s", (int)n, n ? path : ".", name);
        if (executable(out)) return true;
        path += n + (colon ? 1 : 0);
    }
    return false;
}

static char netconvert_bin[1024], python_bin[1024], random_trips[1200];

int tn_sumo_find_tools(tn_sumo *s, sim_error *err)
{
    const char *sumo = getenv("SIM_SUMO");
    if (!sumo || !*sumo) sumo = "sumo";
    if (!find_program(sumo, s->sumo_bin, sizeof s->sumo_bin))
        return sim_error_set(err, SIM_ENOTFOUND,
                             "%s: \"traffic\": {\"engine\": \"sumo\"} needs SUMO, and %s%s is not there; " INSTALL_HINT
                             ", or set SIM_SUMO to the sumo program",
                             s->sc->path, strchr(sumo, '/') ? "" : "`sumo` on PATH: ", sumo);
    /* Debian's netconvert needs SUMO_HOME for its type maps, randomTrips.py for its
     * tools: the package's place unless the environment says otherwise. */
    const char *home = getenv("SUMO_HOME");
    if (!home || !*home) {
        struct stat st;
        if (stat("/usr/share/sumo/data", &st) == 0) setenv("SUMO_HOME", "/usr/share/sumo", 1);
        home = getenv("SUMO_HOME");
    }
    if (!s->sc->sumo.net) {
        if (!home)
            return sim_error_set(err, SIM_ENOTFOUND, "%s: SUMO's data (/usr/share/sumo/data) is not there and "
                                 "SUMO_HOME is not set; " INSTALL_HINT, s->sc->path);
        char near[1100];
        const char *slash = strrchr(s->sumo_bin, '/');
        snprintf(near, sizeof near, "%.*s/netconvert", (int)(slash ? slash - s->sumo_bin : 1),
                 slash ? s->sumo_bin : ".");
        if (!executable(near) && !find_program("netconvert", near, sizeof near))
            return sim_error_set(err, SIM_ENOTFOUND, "%s: making SUMO's network needs `netconvert` (package sumo), "
                                 "not found beside %s nor on PATH; " INSTALL_HINT, s->sc->path, s->sumo_bin);
        snprintf(netconvert_bin, sizeof netconvert_bin, "%.1023s", near);
    }
    if (s->sc->sumo.n_routes == 0) {
        snprintf(random_trips, sizeof random_trips, "%s/tools/randomTrips.py", home ? home : "/usr/share/sumo");
        if (access(random_trips, R_OK) != 0)
            return sim_error_set(err, SIM_ENOTFOUND, "%s: the scenario names no route files (traffic.sumo.routes), "
                                 "and generating them needs %s (package sumo-tools), not found; " INSTALL_HINT,
                                 s->sc->path, random_trips);
        if (!find_program("python3", python_bin, sizeof python_bin))
            return sim_error_set(err, SIM_ENOTFOUND, "%s: randomTrips.py needs python3, not found on PATH; install "
                                 "it with `apt-get install python3`", s->sc->path);
    }
    return SIM_OK;
}

/* The last non-empty line of a log, for an error message. */
static void last_line(const char *path, char *out, size_t cap)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t n = strcspn(line, "\r\n");
        line[n] = 0;
        if (n) snprintf(out, cap, "%s", line);
    }
    fclose(f);
}

static void describe_exit(int status, char *out, size_t cap)
{
    if (WIFSIGNALED(status)) snprintf(out, cap, "was killed by signal %d", WTERMSIG(status));
    else snprintf(out, cap, "exited with status %d", WEXITSTATUS(status));
}

/* A child with stdout and stderr into log; it dies with this process. */
static pid_t spawn(char *const argv[], const char *log)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

int tn_sumo_run_tool(const tn_sumo *s, char *const argv[], const char *log_name, sim_error *err)
{
    char log[1100];
    snprintf(log, sizeof log, "%s/%s", s->dir, log_name);
    pid_t pid = spawn(argv, log);
    if (pid < 0) return sim_error_set(err, SIM_EIO, "cannot start %s: %s", argv[0], strerror(errno));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return sim_error_set(err, SIM_EIO, "waiting for %s: %s", argv[0], strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return SIM_OK;
    char how[64], line[512];
    describe_exit(status, how, sizeof how);
    last_line(log, line, sizeof line);
    return sim_error_set(err, SIM_EIO, "%s: %s %s (%s: \"%s\")", s->sc->path, argv[0], how, log, line);
}

/* netOffset="X,Y" from the net's <location>: SUMO's coordinates are the input's plus it. */
static int read_offset(tn_sumo *s, sim_error *err)
{
    FILE *f = fopen(s->net, "r");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot read SUMO's network: %s", s->net, strerror(errno));
    static char head[1 << 16];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = 0;
    const char *p = strstr(head, "netOffset=\"");
    if (!p || sscanf(p + 11, "%lf,%lf", &s->off_x, &s->off_y) != 2)
        return sim_error_set(err, SIM_EINVAL, "%s: no <location netOffset=\"X,Y\"> in its first 64 KiB, expected a "
                             "SUMO network", s->net);
    return SIM_OK;
}

/* netconvert's lane types for OpenDRIVE, so that SUMO's lanes are the lanes the
 * scenario's road model calls drivable (sim_lane_type_drivable): SUMO's own map also
 * drives on "parking" and "stop" lanes, where the render, physics and `simctl where`
 * see no lane. */
static const char typemap[] =
    "<types>\n"
    "  <type id=\"driving\" priority=\"1\" speed=\"13.89\" width=\"3.65\" disallow=\"pedestrian rail rail_urban rail_electric "
    "rail_fast tram ship\"/>\n"
    "  <type id=\"entry\" priority=\"1\" speed=\"22.22\" width=\"3.65\" disallow=\"pedestrian rail rail_urban rail_electric "
    "rail_fast tram ship\"/>\n"
    "  <type id=\"exit\" priority=\"1\" speed=\"22.22\" width=\"3.65\" disallow=\"pedestrian rail rail_urban rail_electric "
    "rail_fast tram ship\"/>\n"
    "  <type id=\"onRamp\" priority=\"1\" speed=\"22.22\" width=\"3.65\" disallow=\"pedestrian bicycle moped rail rail_urban "
    "rail_electric rail_fast tram ship\"/>\n"
    "  <type id=\"offRamp\" priority=\"1\" speed=\"22.22\" width=\"3.65\" disallow=\"pedestrian bicycle moped rail rail_urban "
    "rail_electric rail_fast tram ship\"/>\n"
    "  <type id=\"connectingRamp\" priority=\"1\" speed=\"22.22\" width=\"3.65\" disallow=\"pedestrian bicycle moped rail "
    "rail_urban rail_electric rail_fast tram ship\"/>\n"
    "  <type id=\"bidirectional\" priority=\"1\" speed=\"1.39\" width=\"3.65\" disallow=\"pedestrian rail rail_urban "
    "rail_electric rail_fast tram ship\"/>\n"
    "  <type id=\"stop\" priority=\"0\" speed=\"1.39\" width=\"3.65\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"parking\" priority=\"0\" speed=\"1.39\" width=\"2.50\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"restricted\" priority=\"0\" speed=\"1.39\" width=\"3.65\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"none\" priority=\"0\" speed=\"1.39\" width=\"1.0\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"shoulder\" priority=\"0\" speed=\"1.39\" width=\"1.0\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"border\" priority=\"0\" speed=\"1.39\" width=\"0.1\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"median\" priority=\"0\" speed=\"1.39\" width=\"0.1\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"sidewalk\" priority=\"0\" speed=\"1.39\" width=\"2.0\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"biking\" priority=\"0\" speed=\"1.39\" width=\"1.5\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"curb\" priority=\"0\" speed=\"1.39\" width=\"0.1\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"roadWorks\" priority=\"0\" speed=\"1.39\" width=\"3.65\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"tram\" priority=\"0\" speed=\"1.39\" width=\"3.65\" disallow=\"all\" discard=\"true\"/>\n"
    "  <type id=\"rail\" priority=\"0\" speed=\"1.39\" width=\"3.65\" disallow=\"all\" discard=\"true\"/>\n"
    "</types>\n";

static int write_file(const char *path, const char *text, sim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot write: %s", path, strerror(errno));
    bool ok = fputs(text, f) >= 0;
    ok = fclose(f) == 0 && ok;
    return ok ? SIM_OK : sim_error_set(err, SIM_EIO, "%s: cannot write: %s", path, strerror(errno));
}

/* A JSON scenario's roads as OpenDRIVE (sim_xodr_write), for netconvert to read the
 * same lane types and offsets it reads from an OpenDRIVE scenario. */
static int export_roads(const tn_sumo *s, char *path, size_t cap, sim_error *err)
{
    snprintf(path, cap, "%s/roads.xodr", s->dir);
    char *text;
    size_t len;
    sim_error e = {0};
    if (sim_xodr_write(&s->sc->net, s->sc->name, &text, &len, &e))
        return sim_error_set(err, e.code, "%s: exporting its roads for SUMO: %s", s->sc->path, e.msg);
    int rc = write_file(path, text, err);
    free(text);
    return rc;
}

int tn_sumo_make_inputs(tn_sumo *s, sim_error *err)
{
    const sim_sumo_config *c = &s->sc->sumo;
    if (mkdir(s->dir, 0755) != 0 && errno != EEXIST)
        return sim_error_set(err, SIM_EIO, "%s: cannot make the folder for SUMO's files: %s", s->dir, strerror(errno));
    int rc;
    if (c->net) {
        snprintf(s->net, sizeof s->net, "%s", c->net);
    } else {
        char types[1100];
        snprintf(types, sizeof types, "%s/opendrive.typ.xml", s->dir);
        char *owned;
        const char *map = tn_sumo_persons_typemap(s, typemap, &owned); /* sidewalks for pedestrians */
        rc = map ? write_file(types, map, err) : sim_error_set(err, SIM_ENOMEM, "out of memory");
        free(owned);
        if (rc) return rc;
        snprintf(s->net, sizeof s->net, "%s/net.net.xml", s->dir);
        char exported[1100];
        if (!s->sc->opendrive && (rc = export_roads(s, exported, sizeof exported, err))) return rc;
        char *xodr = s->sc->opendrive ? s->sc->opendrive : exported;
        char *argv[16] = {netconvert_bin, "--opendrive-files", xodr, "--type-files", types,
                          "--offset.disable-normalization", "true", "--output-file", s->net};
        int k = 9;
        /* A JSON scenario's open road ends are ends: without --no-turnarounds SUMO turns
           its cars round there, across the median where our road model has no lane */
        if (!s->sc->opendrive) argv[k++] = "--no-turnarounds", argv[k++] = "true";
        if (c->tls_guess) argv[k++] = "--tls.guess", argv[k++] = "true"; /* lights where netconvert sees a need */
        tn_sumo_persons_netconvert(s, argv, &k);                          /* sumo_persons.c */
        argv[k] = NULL;
        if ((rc = tn_sumo_run_tool(s, argv, "netconvert.log", err))) return rc;
    }
    if ((rc = read_offset(s, err))) return rc;
    if (c->n_routes) {
        size_t used = 0;
        for (int i = 0; i < c->n_routes; i++) {
            if (access(c->routes[i], R_OK) != 0)
                return sim_error_set(err, SIM_ENOTFOUND, "%s: traffic.sumo.routes[%d]: %s: %s", s->sc->path, i,
                                     c->routes[i], strerror(errno));
            used += (size_t)snprintf(s->routes + used, sizeof s->routes - used, "%s%s", i ? "," : "", c->routes[i]);
            if (used >= sizeof s->routes) return sim_error_set(err, SIM_ETOOBIG, "traffic.sumo.routes: too long");
        }
        return SIM_OK;
    }
    char trips[1100], seed[24], end[32], period[32], fringe[32];
    snprintf(s->routes, sizeof s->routes, "%s/random.rou.xml", s->dir);
    snprintf(trips, sizeof trips, "%s/random.trips.xml", s->dir);
    snprintf(seed, sizeof seed, "%u", (unsigned)s->sc->traffic_seed);
    snprintf(end, sizeof end, "%.17g", c->end_s);
    snprintf(period, sizeof period, "%.17g", c->period_s);
    snprintf(fringe, sizeof fringe, "%.17g", c->fringe_factor);
    char *argv[] = {python_bin, random_trips, "--net-file", s->net, "--output-trip-file", trips, "--route-file",
                    s->routes, "--seed", seed, "--begin", "0", "--end", end, "--period", period, "--fringe-factor",
                    fringe, "--validate", NULL};
    if ((rc = tn_sumo_run_tool(s, argv, "randomTrips.log", err))) return rc;
    return tn_sumo_persons_make(s, python_bin, random_trips, err); /* sumo_persons.c */
}

static int free_port(sim_error *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return sim_error_set(err, SIM_EIO, "cannot find a free loopback port for SUMO: %s", strerror(e));
    }
    close(fd);
    return ntohs(a.sin_port);
}

/* Why SUMO is gone (it has exited or is about to). */
static int sumo_gone(tn_sumo *s, const char *doing, sim_error *err)
{
    char how[64] = "closed its connection", line[512], log[1100];
    int status;
    for (int k = 0; k < 200 && s->pid > 0; k++) { /* up to 2 s for it to be reaped */
        pid_t r = waitpid(s->pid, &status, WNOHANG);
        if (r == s->pid) {
            describe_exit(status, how, sizeof how);
            s->pid = 0;
            break;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    snprintf(log, sizeof log, "%s/sumo.log", s->dir);
    last_line(log, line, sizeof line);
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    return sim_error_set(err, SIM_ECLOSED, "SUMO %s while %s (its log %s: \"%s\")", how, doing, log, line);
}

int tn_sumo_start(tn_sumo *s, sim_error *err)
{
    int port = free_port(err);
    if (port < 0) return port;
    s->port = port;
    char port_s[16], step[32], seed[24], log[1100];
    snprintf(port_s, sizeof port_s, "%d", port);
    snprintf(step, sizeof step, "%.17g", s->step_s);
    snprintf(seed, sizeof seed, "%u", (unsigned)s->sc->traffic_seed);
    snprintf(log, sizeof log, "%s/sumo.log", s->dir);
    char *argv[24] = {s->sumo_bin, "--net-file", s->net, "--route-files", s->routes, "--step-length", step, "--seed",
                      seed, "--begin", "0", "--no-step-log", "true", "--duration-log.disable", "true",
                      /* routes read 2 s ahead (not 200): simctl traffic density (the demand's scale, applied
                         as vehicles are read) acts within seconds */
                      "--route-steps", "2"};
    int n_args = 17;
    tn_sumo_persons_sumo_options(s, argv, &n_args); /* sumo_persons.c */
    argv[n_args++] = "--remote-port", argv[n_args++] = port_s, argv[n_args] = NULL;
    size_t used = 0;
    for (int i = 0; argv[i] && strcmp(argv[i], "--remote-port") != 0; i++)
        used += (size_t)snprintf(s->options + used, sizeof s->options - used, "%s%s", i ? " " : "", argv[i]);
    if (used < sizeof s->options) snprintf(s->options + used, sizeof s->options - used, " --remote-port (free)");
    s->pid = spawn(argv, log);
    if (s->pid < 0) {
        s->pid = 0;
        return sim_error_set(err, SIM_EIO, "cannot start %s: %s", s->sumo_bin, strerror(errno));
    }
    /* SUMO listens once it has read the network and routes: try until it does, or dies */
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    s->fd = -1;
    for (int k = 0; k < 6000; k++) { /* 60 s */
        int status;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            char how[64], line[512];
            describe_exit(status, how, sizeof how);
            last_line(log, line, sizeof line);
            s->pid = 0;
            return sim_error_set(err, SIM_EIO, "%s: SUMO %s before it took a connection (its log %s: \"%s\")",
                                 s->sc->path, how, log, line);
        }
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return sim_error_set(err, SIM_EIO, "socket: %s", strerror(errno));
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            s->fd = fd;
            break;
        }
        close(fd);
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    if (s->fd < 0) {
        tn_sumo_stop(s);
        return sim_error_set(err, SIM_EIO, "%s: SUMO took no connection on 127.0.0.1:%d within 60 s (its log %s)",
                             s->sc->path, port, log);
    }
    int one = 1;
    setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {.tv_sec = 120}; /* a SUMO that hangs is an error, not a frozen session */
    setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return SIM_OK;
}

void tn_sumo_stop(tn_sumo *s)
{
    if (s->fd >= 0) {
        sim_traci_msg_begin(&s->out);
        sim_traci_cmd_close(&s->out);
        size_t len;
        sim_error e = {0};
        if (sim_traci_msg_end(&s->out, &e) == SIM_OK) tn_sumo_exchange(s, &len, &e);
        if (s->fd >= 0) close(s->fd);
        s->fd = -1;
    }
    if (s->pid > 0) {
        int status;
        for (int k = 0; k < 300; k++) { /* 3 s to end by itself after close, then SIGKILL */
            if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
                s->pid = 0;
                return;
            }
            if (k == 100) kill(s->pid, SIGTERM);
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        }
        kill(s->pid, SIGKILL);
        waitpid(s->pid, &status, 0);
        s->pid = 0;
    }
}

static int read_exact(int fd, unsigned char *p, size_t n)
{
    while (n) {
        ssize_t r = recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int tn_sumo_exchange(tn_sumo *s, size_t *len, sim_error *err)
{
    if (s->fd < 0) return sim_error_set(err, SIM_ECLOSED, "SUMO is not connected");
    const unsigned char *p = s->out.data;
    size_t n = s->out.len;
    while (n) {
        ssize_t w = send(s->fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return sumo_gone(s, "taking a command", err);
        p += w;
        n -= (size_t)w;
    }
    unsigned char head[4];
    int waited = 0;
    while (read_exact(s->fd, head, 4)) {
        bool timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
        /* The warm-up runs minutes of SUMO in one step: patient while SUMO lives */
        if (timed_out && s->patient && s->pid > 0 && waitpid(s->pid, &(int){0}, WNOHANG) == 0) {
            waited += 120;
            continue;
        }
        if (timed_out)
            return sim_error_set(err, SIM_EIO, "SUMO did not answer within %d s (its log %s/sumo.log)", waited + 120,
                                 s->dir);
        return sumo_gone(s, "answering", err);
    }
    size_t total;
    int rc = sim_traci_msg_length(head, MAX_ANSWER, &total, err);
    if (rc) return rc;
    if (total > s->in_cap) {
        unsigned char *b = realloc(s->in, total);
        if (!b) return sim_error_set(err, SIM_ENOMEM, "out of memory for SUMO's answer of %zu bytes", total);
        s->in = b;
        s->in_cap = total;
    }
    memcpy(s->in, head, 4);
    if (read_exact(s->fd, s->in + 4, total - 4)) return sumo_gone(s, "answering", err);
    *len = total;
    return SIM_OK;
}
