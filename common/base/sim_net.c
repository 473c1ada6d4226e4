/* sim_net: loopback checks and token comparison (see sim_net.h). */
#include "sim_net.h"

#include <string.h>
#include <strings.h>

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

/* Whether name is in the comma-separated list (exact, case-insensitive as DNS is). */
static bool in_list(const char *name, size_t len, const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == len && strncasecmp(p, name, len) == 0) return true;
        p = e ? e + 1 : p + n;
    }
    return false;
}

static bool is_ipv4(const char *s, size_t len)
{
    int dots = 0, digits = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (!digits) return false;
            dots++, digits = 0;
        } else if (s[i] >= '0' && s[i] <= '9') {
            if (++digits > 3) return false;
        } else {
            return false;
        }
    }
    return dots == 3 && digits;
}

bool sim_net_host_ok(const char *host_hdr, int port, const char *allow)
{
    if (!host_hdr || !*host_hdr) return false;
    const char *end = host_hdr + strlen(host_hdr), *colon;
    size_t name_len;
    if (host_hdr[0] == '[') {
        const char *rb = strchr(host_hdr, ']');
        if (!rb) return false;
        name_len = (size_t)(rb - host_hdr) + 1;
        colon = rb[1] == ':' ? rb + 1 : NULL;
        if (!colon && rb[1]) return false;
    } else {
        colon = strchr(host_hdr, ':');
        name_len = colon ? (size_t)(colon - host_hdr) : (size_t)(end - host_hdr);
    }
    if (!name_len) return false;
    int given = 80;
    if (colon) {
        if (!colon[1] || strlen(colon + 1) > 5) return false;
        given = 0;
        for (const char *p = colon + 1; *p; p++) {
            if (*p < '0' || *p > '9') return false;
            given = given * 10 + (*p - '0');
        }
    }
    if (given != port) return false;
    if (host_hdr[0] == '[') {
        /* an IPv6 literal: hex digits, colons and dots only */
        for (size_t i = 1; i + 1 < name_len; i++) {
            char c = host_hdr[i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.'))
                return false;
        }
        return name_len > 2;
    }
    if (is_ipv4(host_hdr, name_len)) return true;
    if (name_len == 9 && strncasecmp(host_hdr, "localhost", 9) == 0) return true;
    return in_list(host_hdr, name_len, allow);
}

bool sim_net_origin_ok(const char *origin, const char *host_hdr, const char *allow)
{
    if (!origin || !*origin || strcmp(origin, "null") == 0) return false;
    if (in_list(origin, strlen(origin), allow)) return true;
    if (!host_hdr || strncmp(origin, "http://", 7) != 0) return false;
    return strcasecmp(origin + 7, host_hdr) == 0;
}
