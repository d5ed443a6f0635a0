/*
 * The per-connection byte budget of `serve --http`: what fits goes out whole, the last reply
 * after which another alike would not fit closes, what does not fit is refused, and nothing
 * overflows near the top of the range.
 */
#include <stdint.h>

#include "http/http_serve_limit.h"
#include "tap.h"

static void test_budget(void)
{
	const uint64_t g = 1ULL << 30, cap = BP_HTTP_MAX_BYTES_DEFAULT, one = g + 256;
	uint64_t committed = 0;
	int served = 0;

	/* The report's 32 pipelined /1g against the default: three go out, the third closes. */
	for (int i = 0; i < 32; i++) {
		enum bp_http_budget b = bp_http_budget_check(committed, one, cap);

		if (b == BP_HTTP_BUDGET_OVER)
			break;
		committed += one;
		served++;
		CHECK_INT(b, served == 3 ? BP_HTTP_BUDGET_LAST : BP_HTTP_BUDGET_OK);
		if (b == BP_HTTP_BUDGET_LAST)
			break;
	}
	CHECK_INT(served, 3);
	CHECK(committed <= cap);

	CHECK_INT(bp_http_budget_check(0, 100, 1000), BP_HTTP_BUDGET_OK);
	CHECK_INT(bp_http_budget_check(0, 500, 1000), BP_HTTP_BUDGET_OK);      /* two fit exactly */
	CHECK_INT(bp_http_budget_check(500, 500, 1000), BP_HTTP_BUDGET_LAST);  /* the cap exactly */
	CHECK_INT(bp_http_budget_check(0, 501, 1000), BP_HTTP_BUDGET_LAST);
	CHECK_INT(bp_http_budget_check(0, 1000, 1000), BP_HTTP_BUDGET_LAST);
	CHECK_INT(bp_http_budget_check(0, 1001, 1000), BP_HTTP_BUDGET_OVER);   /* one body above */
	CHECK_INT(bp_http_budget_check(900, 200, 1000), BP_HTTP_BUDGET_OVER);  /* a bigger one late */
	CHECK_INT(bp_http_budget_check(1000, 0, 1000), BP_HTTP_BUDGET_OK);    /* nothing costs nothing */
	CHECK_INT(bp_http_budget_check(2000, 1, 1000), BP_HTTP_BUDGET_OVER);
	/* No limit (UINT64_MAX) and sizes near it: no wrap-around. */
	CHECK_INT(bp_http_budget_check(UINT64_MAX - 10, 5, UINT64_MAX), BP_HTTP_BUDGET_OK);
	CHECK_INT(bp_http_budget_check(UINT64_MAX - 10, 6, UINT64_MAX), BP_HTTP_BUDGET_LAST);
	CHECK_INT(bp_http_budget_check(UINT64_MAX - 10, 11, UINT64_MAX), BP_HTTP_BUDGET_OVER);
	CHECK_INT(bp_http_budget_check(0, UINT64_MAX, UINT64_MAX), BP_HTTP_BUDGET_LAST);
	CHECK_INT(bp_http_budget_check(1ULL << 40, g, UINT64_MAX), BP_HTTP_BUDGET_OK);
}

int main(void)
{
	test_budget();
	return tap_done();
}
