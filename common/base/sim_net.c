/* sim_net: loopback checks and token comparison (see sim_net.h). */
#include "sim_net.h"

#include <string.h>

bool sim_net_is_loopback(const char *host)
{
    if (!host) return false;
    if (strcmp(host, "localhost") == 0 || strcmp(host, "::1") == 0 || strcmp(host, "[::1]") == 0) return true;
    /* 127.x.y.z: the whole 127/8 block is loopback. */
    if (strncmp(host, "127.", 4) != 0) return false;
    int dots = 0;
    for (const char *p = host + 4; *p; p++) {
        if (*p == '.') dots++;
        else if (*p < '0' || *p > '9') return false;
    }
    return dots == 2;
}

bool sim_net_url_is_loopback(const char *url)
{
    if (strncmp(url, "ipc://", 6) == 0 || strncmp(url, "inproc://", 9) == 0) return true;
    const char *p = strstr(url, "://");
    if (!p) return false;
    p += 3;
    /* nanomsg's tcp://IFACE;HOST:PORT form names a local interface first. */
    const char *semi = strchr(p, ';');
    if (semi) p = semi + 1;
    char host[256];
    size_t n;
    if (*p == '[') {
        const char *close = strchr(p, ']');
        if (!close) return false;
        n = (size_t)(close - p - 1);
        p++;
    } else {
        const char *colon = strrchr(p, ':');
        n = colon ? (size_t)(colon - p) : strlen(p);
    }
    if (n >= sizeof host) return false;
    memcpy(host, p, n);
    host[n] = '\0';
    return sim_net_is_loopback(host);
}

bool sim_net_token_equal(const char *expected, const char *presented)
{
    if (!expected || !presented) return false;
    size_t le = strlen(expected), lp = strlen(presented);
    unsigned char diff = le != lp;
    for (size_t i = 0; i < le; i++) diff |= (unsigned char)(expected[i] ^ (i < lp ? presented[i] : 0));
    return diff == 0;
}
