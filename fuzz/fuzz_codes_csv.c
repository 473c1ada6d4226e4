/* libFuzzer target: the BORIS-style events table reader (sim_codes_boris_parse) on
 * arbitrary bytes: codes or an error naming file and line, never a crash, leak or
 * sanitizer report; what parses is written back as a table and parsed again, which must
 * give the same number of codes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_codes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_codes c;
    sim_error err = {0};
    if (sim_codes_boris_parse((const char *)data, size, "fuzz.csv", &c, &err) != SIM_OK) return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sim_codes_media m = {.author = "fuzz"};
    if (f) {
        sim_codes_boris_write(f, &m, "fuzz", &c, &err);
        fclose(f);
        sim_codes back;
        if (sim_codes_boris_parse(buf, len, "again.csv", &back, &err) != SIM_OK || back.n != c.n) abort();
        sim_codes_free(&back);
    }
    free(buf);
    sim_codes_free(&c);
    return 0;
}
