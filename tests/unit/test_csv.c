/* Unit tests of sim_csv (common/base/sim_csv.h), the one CSV field writer: plain text
 * as is, commas, quotes and line breaks quoted with quotes doubled, NULL empty. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sim_csv.h"

static void fields(void **state)
{
    (void)state;
    static const char *const in[] = {"plain", "", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "é ü", NULL};
    static const char *const out[] = {"plain", "", "\"a,b\"", "\"say \"\"hi\"\"\"", "\"two\nlines\"",
                                      "\"cr\rhere\"", "é ü", ""};
    for (size_t i = 0; i < sizeof out / sizeof *out; i++) {
        char buf[64] = {0};
        FILE *f = fmemopen(buf, sizeof buf - 1, "w");
        assert_non_null(f);
        sim_csv_field(f, in[i]);
        fclose(f);
        assert_string_equal(buf, out[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(fields)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
