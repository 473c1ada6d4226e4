/* Unit tests of sim_sha256 against the FIPS 180-4 example vectors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_sha256.h"

static void known_vectors(void **state)
{
    char hex[65];
    sim_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sim_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sim_sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* One million 'a' fed in uneven pieces, through a file: exercises block carry-over. */
static void million_a_from_file(void **state)
{
    char path[] = "/tmp/test_sha256.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char *buf = malloc(1000000);
    memset(buf, 'a', 1000000);
    assert_int_equal(write(fd, buf, 1000000), 1000000);
    close(fd);
    char hex[65];
    sim_error err = {0};
    assert_int_equal(sim_sha256_file(path, hex, &err), 0);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    sim_sha256 c;
    uint8_t d[32];
    sim_sha256_init(&c);
    for (size_t off = 0, step = 1; off < 1000000; off += step, step = step % 97 + 13)
        sim_sha256_update(&c, buf + off, off + step > 1000000 ? 1000000 - off : step);
    sim_sha256_final(&c, d);
    assert_int_equal(d[0], 0xcd);
    assert_int_equal(d[31], 0xd0);
    unlink(path);
    free(buf);
    assert_int_equal(sim_sha256_file(path, hex, &err), SIM_EIO);
    assert_non_null(strstr(err.msg, path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_vectors),
        cmocka_unit_test(million_a_from_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
