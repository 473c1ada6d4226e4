/* sim_mcap: writes MCAP files (the MCAP format specification, major version 0, as at
 * https://mcap.dev/spec): the header, schemas, channels and messages in chunks (zstd or
 * uncompressed) each followed by its message indexes, the data end, and a summary
 * (schemas, channels, statistics, chunk indexes) with its summary offsets, so that an
 * indexed reader (Foxglove, @mcap/core, the mcap CLI) opens it without a scan.
 *
 * Ownership: sim_mcap_writer owns its FILE and buffers; sim_mcap_close writes the
 * summary and footer and frees it (also after an error: the file is then incomplete
 * and the error says so). Not thread-safe; one writer per file. */
#ifndef SIM_MCAP_H
#define SIM_MCAP_H

#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"

typedef struct sim_mcap_writer sim_mcap_writer;

typedef enum { SIM_MCAP_ZSTD, SIM_MCAP_NONE } sim_mcap_compression;

typedef struct sim_mcap_options {
    const char *profile;              /* the header's profile ("" when NULL) */
    const char *library;              /* the header's library ("" when NULL) */
    sim_mcap_compression compression; /* of the chunks */
    size_t chunk_size;                /* uncompressed bytes of a chunk before it is written (0: 1 MiB) */
} sim_mcap_options;

/* Creates path (truncating) and writes the magic and header. */
int sim_mcap_open(const char *path, const sim_mcap_options *opts, sim_mcap_writer **out, sim_error *err);
/* A schema: its id (1, 2, ...) in *id. encoding e.g. "jsonschema"; data is copied. */
int sim_mcap_add_schema(sim_mcap_writer *w, const char *name, const char *encoding, const void *data, size_t len,
                        uint16_t *id, sim_error *err);
/* A channel on schema_id (0: none): its id (0, 1, ...) in *id. message_encoding e.g. "json". */
int sim_mcap_add_channel(sim_mcap_writer *w, uint16_t schema_id, const char *topic, const char *message_encoding,
                         uint16_t *id, sim_error *err);
/* One message; times in ns. Messages may come in any time order (the chunk and summary
 * record each chunk's time range). */
int sim_mcap_write(sim_mcap_writer *w, uint16_t channel, uint32_t sequence, uint64_t log_time, uint64_t publish_time,
                   const void *data, size_t len, sim_error *err);
/* Writes the last chunk, the data end, the summary and the footer, closes the file and
 * frees w (NULL is a no-op). */
int sim_mcap_close(sim_mcap_writer *w, sim_error *err);

#endif
