/* ts_xodr: see ts_xodr.h. */
#include "ts_xodr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "test_support.h"

char *ts_fab_with_controllers(const char *controllers, const char *entries)
{
    char *text;
    size_t len;
    if (sim_file_read(ts_root(TS_FAB_LIGHTS), &text, &len, NULL)) return NULL;
    const char *j = strstr(text, "<junction name=\"\" id=\"4\">"), *end = strstr(text, "</OpenDRIVE>");
    char *out = NULL;
    if (j && end && (j = strchr(j, '>') + 1) <= end) {
        size_t n = len + strlen(controllers) + strlen(entries) + 1;
        if ((out = malloc(n)))
            snprintf(out, n, "%.*s%s%.*s%s%s", (int)(j - text), text, entries, (int)(end - j), j, controllers, end);
    }
    free(text);
    return out;
}

int ts_fab_write(const char *path, const char *controllers, const char *entries)
{
    char *text = ts_fab_with_controllers(controllers, entries);
    FILE *f = text ? fopen(path, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 ? 0 : -1;
    if (f && fclose(f) != 0) rc = -1;
    free(text);
    return rc;
}
