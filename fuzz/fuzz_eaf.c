/* libFuzzer target: the ELAN .eaf reader (sim_codes_eaf_parse) on arbitrary bytes. Any
 * input must give either codes or an error naming the file, never a crash, leak or
 * sanitizer report, and never an entity expanded or a file or URL fetched; what parses
 * is written back as an .eaf and parsed again, which must give the same number of codes. */
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
    if (sim_codes_eaf_parse((const char *)data, size, "fuzz.eaf", &c, &err) != SIM_OK) return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sim_codes_media m = {.author = "fuzz", .date = "2026-01-01T00:00:00Z", .t0 = c.t0, .run = c.run};
    if (f) {
        sim_codes_eaf_write(f, &m, &c, &err);
        fclose(f);
        sim_codes back;
        if (sim_codes_eaf_parse(buf, len, "again.eaf", &back, &err) != SIM_OK || back.n != c.n) abort();
        sim_codes_free(&back);
    }
    free(buf);
    sim_codes_free(&c);
    return 0;
}
