/*
 * --share K/N (core/share.h): the shares of a rate are whole units and add up to it exactly,
 * for rates that N divides and rates it does not; a share that would be 0 is refused; K/N
 * out of its domain is refused naming the value.
 */
#include <errno.h>
#include <string.h>

#include "core/share.h"
#include "tap.h"

static double total(double rate, int n)
{
	double sum = 0;

	for (int k = 1; k <= n; k++) {
		struct bp_share s = { k, n };
		double part = bp_share_of(&s, rate);

		/* whole units, within one of an even split */
		if (part != (double)(long long)part || part < rate / n - 1 || part > rate / n + 1)
			return -1;
		sum += part;
	}
	return sum;
}

int main(void)
{
	struct bp_share s = { 0, 0 };
	char err[256];

	CHECK(bp_share_of(&s, 1e8) == 1e8);
	CHECK(total(1e8, 3) == 1e8);
	CHECK(total(50000, 7) == 50000);
	CHECK(total(1e12, 1000) == 1e12);
	CHECK(total(10, 3) == 10);
	s = (struct bp_share){ 3, 3 };
	CHECK(bp_share_of(&s, 10) == 4);
	s = (struct bp_share){ 1, 3 };
	CHECK(bp_share_of(&s, 10) == 3);

	CHECK_INT(bp_share_parse("2/3", &s, err, sizeof(err)), 0);
	CHECK(s.k == 2 && s.n == 3);
	CHECK_INT(bp_share_parse("1000/1000", &s, err, sizeof(err)), 0);
	static const char *const bad[] = { "0/3", "4/3", "1/0", "1/1001", "a/3", "1/3x", "1/",
					   "/3", "-1/3", " 1/3", "1/+3", "", "3" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(bp_share_parse(bad[i], &s, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "expected K/N with 1 <= K <= N <= 1000") != NULL);
	}

	s = (struct bp_share){ 1, 3 };
	CHECK_INT(bp_share_check(&s, "1/3", 3, "--rate", err, sizeof(err)), 0);
	CHECK_INT(bp_share_check(&s, "1/3", 2, "--rate", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "--share 1/3: --rate 2 in 3 shares leaves some at 0; expected at least 3"));
	s = (struct bp_share){ 0, 0 };
	CHECK_INT(bp_share_check(&s, NULL, 0, "-b", err, sizeof(err)), 0);
	return tap_done();
}
