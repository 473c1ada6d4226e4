/* sim_enum: enum names (see sim_enum.h). */
#include "sim_enum.h"

#include <stdio.h>
#include <string.h>

int sim_enum_count(const char *const *names, int n)
{
    if (n >= 0) return n;
    int k = 0;
    while (names[k]) k++;
    return k;
}

const char *sim_enum_list(const char *const *names, int n, char *buf, size_t size)
{
    n = sim_enum_count(names, n);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
    return buf;
}

int sim_enum_parse(const char *s, const char *const *names, int n)
{
    n = sim_enum_count(names, n);
    for (int i = 0; s && i < n; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}
