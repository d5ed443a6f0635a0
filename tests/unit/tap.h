/*
 * A minimal TAP producer for unit tests: meson runs each test binary with protocol 'tap'
 * and counts every check, so a failing check names itself in the test log.
 *
 *   int main(void) { CHECK(1 + 1 == 2); CHECK_STR(s, "x"); return tap_done(); }
 */
#ifndef BP_TESTS_TAP_H
#define BP_TESTS_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_n;
static int tap_failed;

static inline void tap_result(int ok, const char *file, int line, const char *what)
{
	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%sok %d - %s:%d: %s\n", ok ? "" : "not ", tap_n, file, line, what);
}

#define CHECK(cond) tap_result(!!(cond), __FILE__, __LINE__, #cond)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	int ok_ = g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_; \
	tap_result(ok_, __FILE__, __LINE__, #got " == " #want); \
	if (!ok_) \
		printf("#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

#define CHECK_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	tap_result(g_ == w_, __FILE__, __LINE__, #got " == " #want); \
	if (g_ != w_) \
		printf("#   got:  %lld\n#   want: %lld\n", g_, w_); \
} while (0)

/* |got - want| <= tol */
#define CHECK_NEAR(got, want, tol) do { \
	double g_ = (double)(got), w_ = (double)(want); \
	int ok_ = fabs(g_ - w_) <= (double)(tol); \
	tap_result(ok_, __FILE__, __LINE__, #got " ~= " #want); \
	if (!ok_) \
		printf("#   got:  %.17g\n#   want: %.17g (tol %g)\n", g_, w_, (double)(tol)); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
