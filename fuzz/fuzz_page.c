/* Fuzz target: messages from browser pages as the console's gateway checks them
 * (sim_page). What is forwarded is one line of at most 65536 bytes holding one JSON
 * object with a string topic, and once the page is welcomed its src is the page's. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim_line.h"
#include "sim_page.h"

static void check(const uint8_t *data, size_t size, const char *name, bool welcomed)
{
    sim_page_result r;
    sim_error err = {0};
    if (sim_page_check((const char *)data, size, name, welcomed, "tok", &r, &err) != SIM_OK) return;
    if (r.action == SIM_PAGE_REFUSED && strncmp(err.msg, "frame refused: ", 15) != 0) __builtin_trap();
    if (r.action == SIM_PAGE_FORWARD) {
        size_t n = strlen(r.line);
        char topic[256];
        if (n > SIM_PAGE_MAX_LINE || memchr(r.line, '\n', n)) __builtin_trap();
        if (sim_msg_scan(r.line, n, topic, sizeof topic, NULL, NULL) != SIM_OK && n < 60000) {
            /* a topic over 255 bytes is the dispatcher's to refuse; anything else must scan */
            cJSON *o = cJSON_Parse(r.line);
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "topic");
            if (!cJSON_IsString(t) || strlen(t->valuestring) < 255) __builtin_trap();
            cJSON_Delete(o);
        }
        if (welcomed && !r.hello) {
            cJSON *o = cJSON_Parse(r.line);
            const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "src");
            if (!cJSON_IsString(src) || strcmp(src->valuestring, name) != 0) __builtin_trap();
            cJSON_Delete(o);
        }
    }
    sim_page_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size, "", false);
    check(data, size, "surt", true);
    return 0;
}
