/* fuzz_recording: arbitrary lines through the recorder's message-to-row logic
 * (sim_recording_feed) into a drive-log writer, committed every 64 inputs. Input: one
 * or more lines; each that parses as a JSON object with a string topic is fed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sim_recording.h"

static sim_drivelog_writer *writer;
static sim_recording rec;
static unsigned inputs;
static char path[64];

static void remove_log(void)
{
    sim_drivelog_remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!writer) {
        snprintf(path, sizeof path, "/tmp/fuzz_recording.%d.sqlite", (int)getpid());
        remove_log();
        atexit(remove_log);
        sim_drivelog_write_options o = {.max_pending = 100000};
        if (sim_drivelog_writer_open(path, &o, &writer, NULL)) abort();
        sim_recording_init(&rec, true, -1);
    }
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        cJSON *msg = cJSON_Parse(line);
        const cJSON *topic = cJSON_GetObjectItemCaseSensitive(msg, "topic");
        if (cJSON_IsObject(msg) && cJSON_IsString(topic))
            sim_recording_feed(&rec, writer, topic->valuestring, msg, line, strlen(line), NULL);
        cJSON_Delete(msg);
    }
    free(text);
    if (++inputs % 64 == 0 && sim_drivelog_flush(writer, NULL)) abort();
    return 0;
}
