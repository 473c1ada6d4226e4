/* Unit tests of the MCAP writer (common/mcap): a file of one schema, one channel and two
 * messages in one uncompressed chunk, against the bytes the MCAP specification
 * (https://mcap.dev/spec, version 0) gives record by record, written out here
 * independently of the writer; the summary's offsets and CRC; zstd chunks the same
 * after decompression; bad calls refused with the reason. tests/scripts/
 * test_export_mcap.sh reads real exports with @mcap/core. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "sim_file.h"
#include "sim_mcap.h"

/* The expected bytes, built field by field as the specification lists them. */
typedef struct { uint8_t b[4096]; size_t n; } bytes;
static void le(bytes *x, uint64_t v, int k) { for (int i = 0; i < k; i++) x->b[x->n++] = (uint8_t)(v >> (8 * i)); }
static void raw(bytes *x, const void *p, size_t k) { memcpy(x->b + x->n, p, k); x->n += k; }
static void str(bytes *x, const char *s) { le(x, strlen(s), 4); raw(x, s, strlen(s)); }
static size_t rec(bytes *x, uint8_t op) { x->b[x->n++] = op; size_t at = x->n; le(x, 0, 8); return at; }
static void end(bytes *x, size_t at) { uint64_t v = x->n - at - 8; for (int i = 0; i < 8; i++) x->b[at + i] = (uint8_t)(v >> (8 * i)); }
static uint64_t get(const uint8_t *p, int k) { uint64_t v = 0; for (int i = k - 1; i >= 0; i--) v = v << 8 | p[i]; return v; }

static const uint8_t magic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

/* Writes the file under test: schema "s" (jsonschema "{}"), channel "/a" (json), two
 * messages at 1 s and 2 s. */
static uint8_t *write_file(sim_mcap_compression comp, size_t *len)
{
    char path[] = "/tmp/test_mcap_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    sim_mcap_writer *w;
    sim_error err = {0};
    sim_mcap_options opt = {.profile = "p", .library = "l", .compression = comp};
    assert_int_equal(sim_mcap_open(path, &opt, &w, &err), 0);
    uint16_t schema, channel;
    assert_int_equal(sim_mcap_add_schema(w, "s", "jsonschema", "{}", 2, &schema, &err), 0);
    assert_int_equal(schema, 1);
    assert_int_equal(sim_mcap_add_channel(w, schema, "/a", "json", &channel, &err), 0);
    assert_int_equal(channel, 0);
    assert_int_equal(sim_mcap_write(w, channel, 1, 1000000000, 1000000001, "{\"v\":1}", 7, &err), 0);
    assert_int_equal(sim_mcap_write(w, channel, 2, 2000000000, 2000000000, "{\"v\":2}", 7, &err), 0);
    assert_int_equal(sim_mcap_close(w, &err), 0);
    char *text;
    assert_int_equal(sim_file_read(path, &text, len, &err), 0);
    remove(path);
    close(fd);
    return (uint8_t *)text;
}

/* The chunk's records: the two messages. */
static void chunk_records(bytes *c)
{
    size_t at = rec(c, 0x05);
    le(c, 0, 2), le(c, 1, 4), le(c, 1000000000, 8), le(c, 1000000001, 8), raw(c, "{\"v\":1}", 7);
    end(c, at);
    at = rec(c, 0x05);
    le(c, 0, 2), le(c, 2, 4), le(c, 2000000000, 8), le(c, 2000000000, 8), raw(c, "{\"v\":2}", 7);
    end(c, at);
}

static void data_section_is_the_specs(void **state)
{
    (void)state;
    size_t len;
    uint8_t *f = write_file(SIM_MCAP_NONE, &len);
    bytes x = {0}, c = {0};
    raw(&x, magic, 8);
    size_t at = rec(&x, 0x01); str(&x, "p"); str(&x, "l"); end(&x, at);                  /* Header */
    at = rec(&x, 0x03); le(&x, 1, 2); str(&x, "s"); str(&x, "jsonschema"); le(&x, 2, 4); raw(&x, "{}", 2); end(&x, at);
    at = rec(&x, 0x04); le(&x, 0, 2); le(&x, 1, 2); str(&x, "/a"); str(&x, "json"); le(&x, 0, 4); end(&x, at);
    chunk_records(&c);
    size_t chunk_at = x.n;
    at = rec(&x, 0x06);                                                                     /* Chunk */
    le(&x, 1000000000, 8), le(&x, 2000000000, 8), le(&x, c.n, 8);
    le(&x, crc32(crc32(0, Z_NULL, 0), c.b, (uInt)c.n), 4);
    str(&x, "");
    le(&x, c.n, 8), raw(&x, c.b, c.n);
    end(&x, at);
    size_t index_at = x.n;
    at = rec(&x, 0x07); le(&x, 0, 2); le(&x, 32, 4);                                      /* Message Index */
    le(&x, 1000000000, 8), le(&x, 0, 8), le(&x, 2000000000, 8), le(&x, c.n / 2, 8);
    end(&x, at);
    at = rec(&x, 0x0F); le(&x, 0, 4); end(&x, at);                                         /* Data End */
    assert_true(len > x.n);
    assert_memory_equal(f, x.b, x.n);
    /* Footer: the last 8 + 1 + 8 + 20 bytes; the summary begins right after Data End. */
    assert_memory_equal(f + len - 8, magic, 8);
    const uint8_t *foot = f + len - 8 - 29;
    assert_int_equal(foot[0], 0x02);
    assert_int_equal(get(foot + 1, 8), 20);
    uint64_t summary_start = get(foot + 9, 8), offsets_start = get(foot + 17, 8);
    assert_int_equal(summary_start, x.n);
    assert_int_equal(f[summary_start], 0x03); /* the summary repeats the schema first */
    assert_int_equal(f[offsets_start], 0x0E);
    uint32_t crc = (uint32_t)crc32(crc32(0, Z_NULL, 0), f + summary_start, (uInt)(foot + 25 - (f + summary_start)));
    assert_int_equal(get(foot + 25, 4), crc);
    /* The chunk index (opcode 0x08) points at the chunk and its message index. */
    const uint8_t *ci = NULL;
    for (const uint8_t *p = f + summary_start; p < f + offsets_start; p += 9 + get(p + 1, 8))
        if (*p == 0x08) ci = p;
    assert_non_null(ci);
    assert_int_equal(get(ci + 9 + 16, 8), chunk_at);           /* chunk_start_offset */
    assert_int_equal(get(ci + 9 + 24, 8), index_at - chunk_at); /* chunk_length */
    assert_int_equal(get(ci + 9 + 32, 4), 10);                 /* one (channel, offset) pair */
    assert_int_equal(get(ci + 9 + 38, 8), index_at);
    free(f);
}

/* A zstd chunk holds the same records once decompressed, and says "zstd". */
static void zstd_chunk_decompresses_to_the_records(void **state)
{
    (void)state;
    size_t len;
    uint8_t *f = write_file(SIM_MCAP_ZSTD, &len);
    bytes c = {0};
    chunk_records(&c);
    const uint8_t *p = f + 8;
    while (*p != 0x06) p += 9 + get(p + 1, 8);
    const uint8_t *q = p + 9 + 24;
    assert_int_equal(get(q, 4), crc32(crc32(0, Z_NULL, 0), c.b, (uInt)c.n));
    assert_int_equal(get(q + 4, 4), 4);
    assert_memory_equal(q + 8, "zstd", 4);
    uint64_t packed = get(q + 12, 8);
    uint8_t out[512];
    size_t n = ZSTD_decompress(out, sizeof out, q + 20, packed);
    assert_false(ZSTD_isError(n));
    assert_int_equal(n, c.n);
    assert_memory_equal(out, c.b, c.n);
    free(f);
}

/* A channel added after a chunk was written: that chunk's index names only the channels
 * it had (reading past them pointed a reader at garbage: found by @mcap/core on an
 * --all export, whose topics become channels as they first appear). */
static void later_channels_stay_out_of_earlier_chunks(void **state)
{
    (void)state;
    char path[] = "/tmp/test_mcap_XXXXXX";
    int fd = mkstemp(path);
    sim_mcap_writer *w;
    sim_error err = {0};
    sim_mcap_options opt = {.compression = SIM_MCAP_NONE, .chunk_size = 64};
    assert_int_equal(sim_mcap_open(path, &opt, &w, &err), 0);
    uint16_t a, b;
    assert_int_equal(sim_mcap_add_channel(w, 0, "/a", "json", &a, &err), 0);
    for (uint32_t i = 0; i < 4; i++) assert_int_equal(sim_mcap_write(w, a, i, i, i, "{}", 2, &err), 0);
    assert_int_equal(sim_mcap_add_channel(w, 0, "/b", "json", &b, &err), 0);
    for (uint32_t i = 0; i < 4; i++) assert_int_equal(sim_mcap_write(w, b, i, 10 + i, 10 + i, "{}", 2, &err), 0);
    assert_int_equal(sim_mcap_close(w, &err), 0);
    size_t len;
    char *text;
    assert_int_equal(sim_file_read(path, &text, &len, &err), 0);
    const uint8_t *f = (const uint8_t *)text, *foot = f + len - 8 - 29;
    uint64_t summary_start = get(foot + 9, 8), offsets_start = get(foot + 17, 8);
    int chunks = 0;
    for (const uint8_t *p = f + summary_start; p < f + offsets_start; p += 9 + get(p + 1, 8)) {
        if (*p != 0x08) continue;
        uint64_t pairs = get(p + 9 + 32, 4) / 10;
        assert_int_equal(pairs, 1); /* each chunk holds one channel's messages */
        uint16_t ch = (uint16_t)get(p + 9 + 36, 2);
        uint64_t at = get(p + 9 + 38, 8);
        assert_int_equal(f[at], 0x07);          /* a message index ... */
        assert_int_equal(get(f + at + 9, 2), ch); /* ... of that channel */
        chunks++;
    }
    assert_true(chunks >= 2);
    free(text);
    remove(path);
    close(fd);
}

static void bad_calls_say_why(void **state)
{
    (void)state;
    sim_mcap_writer *w;
    sim_error err = {0};
    assert_int_equal(sim_mcap_open("/nonexistent/dir/x.mcap", NULL, &w, &err), SIM_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/dir/x.mcap: cannot create"));
    char path[] = "/tmp/test_mcap_XXXXXX";
    int fd = mkstemp(path);
    assert_int_equal(sim_mcap_open(path, NULL, &w, &err), 0);
    uint16_t id;
    assert_int_equal(sim_mcap_add_channel(w, 3, "/x", "json", &id, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "channel /x: no schema 3"));
    assert_int_equal(sim_mcap_write(w, 0, 1, 0, 0, "x", 1, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "no channel 0"));
    assert_int_equal(sim_mcap_close(w, &err), 0);
    remove(path);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_section_is_the_specs),
        cmocka_unit_test(zstd_chunk_decompresses_to_the_records),
        cmocka_unit_test(later_channels_stay_out_of_earlier_chunks),
        cmocka_unit_test(bad_calls_say_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
