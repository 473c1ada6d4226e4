/* lab: the lab file for simctl run, and ssh's command line (see lab.h). */
#include "lab.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_file.h"
#include "simctl.h"

int lab_load(const char *path, sim_lab *lab)
{
    char *text = NULL;
    size_t len = 0;
    sim_error err = {0};
    int rc = sim_file_read_max(path, 1 << 20, &text, &len, &err);
    if (!rc) rc = sim_lab_parse(text, len, path, lab, &err);
    free(text);
    if (rc) fprintf(stderr, "simctl run: --lab: %s\n", err.msg);
    return rc ? -1 : 0;
}

bool lab_host_is_here(const sim_lab_host *h)
{
    struct addrinfo hints = {.ai_family = AF_INET}, *ai = NULL;
    if (getaddrinfo(h->address, NULL, &hints, &ai) != 0 || !ai) return false;
    struct in_addr want = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
    freeaddrinfo(ai);
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0) return false;
    bool here = false;
    for (struct ifaddrs *i = ifs; i && !here; i = i->ifa_next)
        here = i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
               ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == want.s_addr;
    freeifaddrs(ifs);
    return here;
}

/* Appends ' word' to cmd, single-quoted for the remote shell ("'" as '\''); false when
 * it does not fit. */
static bool quote(char *cmd, size_t size, const char *word)
{
    size_t n = strlen(cmd);
    char q[2048];
    size_t k = 0;
    q[k++] = '\'';
    for (const char *p = word; *p && k + 6 < sizeof q; p++) {
        if (*p == '\'') {
            memcpy(q + k, "'\\''", 4);
            k += 4;
        } else {
            q[k++] = *p;
        }
    }
    q[k++] = '\'';
    if (n + k + 2 > size || k + 2 > sizeof q) return false;
    snprintf(cmd + n, size - n, "%s%.*s", n ? " " : "", (int)k, q);
    return true;
}

int lab_ssh_args(const sim_lab_host *h, const char *ssh_config, const char *exe, char *const *argv, int argc,
                 char **args, int max, char *cmd, size_t cmdsize)
{
    static char port[16];
    char here[1024], path[1200];
    const char *dir = h->dir[0] ? h->dir : getcwd(here, sizeof here);
    if (!dir) return -1;
    /* the same checkout when the lab names none: simctl's own bin folder there */
    const char *bin = h->dir[0] ? "bin" : simctl_bin_dir();
    snprintf(port, sizeof port, "%d", h->port);
    int n = 0;
    /* BatchMode: keys only, never a password prompt; keep-alives: a host gone is an
     * ended ssh within seconds (supervise.c restarts what ran there) */
    const char *fixed[] = {"ssh", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5", "-o",
                           "ServerAliveInterval=1", "-o", "ServerAliveCountMax=3", "-p", port};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) args[n++] = (char *)fixed[i];
    if (ssh_config) {
        args[n++] = "-F";
        args[n++] = (char *)ssh_config;
    }
    if (h->user[0]) {
        args[n++] = "-l";
        args[n++] = (char *)h->user;
    }
    args[n++] = (char *)h->address;
    args[n++] = "--";
    cmd[0] = '\0';
    bool ok = quote(cmd, cmdsize, "cd");
    ok = ok && quote(cmd, cmdsize, dir);
    size_t used = strlen(cmd);
    ok = ok && used + 8 < cmdsize;
    if (ok) strcat(cmd, " && exec");
    snprintf(path, sizeof path, "%s/simctl", bin);
    ok = ok && quote(cmd, cmdsize, path) && quote(cmd, cmdsize, "__remote") && quote(cmd, cmdsize, h->name);
    snprintf(path, sizeof path, "%s/%s", bin, exe);
    ok = ok && quote(cmd, cmdsize, path);
    for (int i = 1; ok && i < argc; i++) ok = quote(cmd, cmdsize, argv[i]);
    if (!ok || n + 2 > max) return -1;
    args[n++] = cmd;
    args[n] = NULL;
    return 0;
}
