/* ts_assert: assertions shared by the cmocka tests (see ts_assert.h). */
#include "ts_assert.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

void ts_assert_near(double expected, double got, double tol, const char *expr, const char *file,
                    int line)
{
    if (fabs(got - expected) <= tol) return;
    print_error("%s: expected %.17g, got %.17g (difference %.3g, tolerance %.3g)\n", expr, expected,
                got, got - expected, tol);
    _fail(file, line);
}
