/* ts_filter: TEST_FILTER=PATTERN runs only the cmocka cases whose names match it
 * (cmocka's own filter: * and ? as wildcards), in every test linked with tests/support:
 * one flaky case run again and again (scripts/stress.sh) without the rest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

__attribute__((constructor)) static void ts_filter_from_env(void)
{
    const char *p = getenv("TEST_FILTER");
    if (p && *p) cmocka_set_test_filter(p);
}
