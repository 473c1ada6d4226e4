/* ts_assert: assertions shared by the cmocka tests.
 *
 * assert_near(expected, got, tol) (or NEAR(got, expected, tol)) fails the running test unless |got - expected| <= tol,
 * printing the expression, expected, got, their difference and the tolerance. A NAN
 * on either side fails (a missing value is never "near"). */
#ifndef TS_ASSERT_H
#define TS_ASSERT_H

void ts_assert_near(double expected, double got, double tol, const char *expr, const char *file,
                    int line);

#define assert_near(expected, got, tol) \
    ts_assert_near((double)(expected), (double)(got), (double)(tol), #got, __FILE__, __LINE__)
/* The same with what was got first, as most tests write it. */
#define NEAR(got, expected, tol) \
    ts_assert_near((double)(expected), (double)(got), (double)(tol), #got, __FILE__, __LINE__)

#endif
