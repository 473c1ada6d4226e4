/* sim_sha256: SHA-256 (FIPS 180-4), for recording which exact scenario file a drive
 * used. Plain streaming implementation; no allocation. */
#ifndef SIM_SHA256_H
#define SIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"

typedef struct sim_sha256 {
    uint32_t h[8];
    uint64_t bytes;     /* total length so far */
    uint8_t block[64];  /* partial block */
    size_t used;
} sim_sha256;

void sim_sha256_init(sim_sha256 *c);
void sim_sha256_update(sim_sha256 *c, const void *data, size_t len);
void sim_sha256_final(sim_sha256 *c, uint8_t digest[32]);

/* Hex digest (64 lowercase characters and a NUL) of len bytes. */
void sim_sha256_hex(const void *data, size_t len, char hex[65]);
/* Hex digest of a whole file; SIM_EIO with the file and the cause when unreadable. */
int sim_sha256_file(const char *path, char hex[65], sim_error *err);

#endif
