/* Fuzz target: study-table CSV files as context-server --data loads them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim_context.h"

static sim_context *db;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_error err;
    if (!db && sim_context_open(":memory:", &db, &err)) abort();
    sim_context_load_csv_text(db, "t", "fuzz.csv", (const char *)data, size, &err);
    return 0;
}
