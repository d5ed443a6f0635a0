/*
 * --start-at's instants (core/start_at.h): RFC 3339 in UTC, with a fraction, with offsets
 * either side, a leap day, a leap second; epoch seconds with and without a fraction; the
 * format back; and each refusal naming the value: not an instant, a day that does not
 * exist, the past, more than a day ahead. The records and warnings of a start are
 * test_start_at_result's (tests/unit/board).
 */
#include <errno.h>
#include <string.h>

#include "core/start_at.h"
#include "tap.h"

/* 2026-12-06T00:00:00Z */
#define DAY0 (1796515200LL * 1000000000LL)

static int64_t at(const char *s, int64_t now)
{
	char err[256] = "";
	int64_t v = -1;

	if (bp_start_at_parse(s, now, &v, err, sizeof(err)))
		printf("# %s\n", err);
	return v;
}

static void instants(void)
{
	char buf[40];

	CHECK(at("2026-12-06T23:30:00Z", DAY0) == DAY0 + 84600LL * 1000000000LL);
	CHECK(at("2026-12-06t23:30:00.25z", DAY0) == DAY0 + 84600LL * 1000000000LL + 250000000);
	CHECK(at("2026-12-06 23:30:00Z", DAY0) == DAY0 + 84600LL * 1000000000LL);
	/* the same instant east and west of Greenwich */
	CHECK(at("2026-12-07T00:30:00+01:00", DAY0) == DAY0 + 84600LL * 1000000000LL);
	CHECK(at("2026-12-06T18:00:00-05:30", DAY0) == DAY0 + 84600LL * 1000000000LL);
	CHECK(at("1796600000", DAY0) == 1796600000LL * 1000000000LL);
	CHECK(at("1796600000.000001", DAY0) == 1796600000LL * 1000000000LL + 1000);
	/* a leap day, and a leap second that reads as the next second's start */
	CHECK(at("2028-02-29T12:00:00Z", 1835438400LL * 1000000000LL - 1) == 1835438400LL * 1000000000LL);
	CHECK(at("2026-12-06T23:59:60Z", DAY0) == DAY0 + 86400LL * 1000000000LL);
	CHECK_STR(bp_start_at_format(DAY0 + 84600LL * 1000000000LL + 250000000, buf, sizeof(buf)),
		  "2026-12-06T23:30:00.250000Z");
	/* the instant itself is not the past */
	CHECK(at("1796515200", DAY0) == DAY0);
}

static void refused(void)
{
	char err[256];
	int64_t v = 0;

	CHECK_INT(bp_start_at_parse("tomorrow", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "--start-at 'tomorrow': expected an instant as RFC 3339") != NULL);
	CHECK_INT(bp_start_at_parse("2026-02-30T00:00:00Z", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("2027-02-29T00:00:00Z", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("2026-12-06T24:00:00Z", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("2026-12-06T23:30:00", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("2026-12-06T23:30:00+0100", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("2026-12-06T23:30:00Zjunk", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("-5", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("1796600000s", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("99999999999999999999", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_start_at_parse("", DAY0, &v, err, sizeof(err)), -EINVAL);

	CHECK_INT(bp_start_at_parse("2026-12-05T23:59:59Z", DAY0, &v, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "'2026-12-05T23:59:59Z': 1.000 s in the past; expected an instant "
		      "within the next day") != NULL);
	CHECK_INT(bp_start_at_parse("2026-12-07T00:00:00.000000001Z", DAY0, &v, err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "24 h ahead") != NULL);
	CHECK_INT(bp_start_at_parse("2026-12-07T00:00:00Z", DAY0, &v, err, sizeof(err)), 0);
	CHECK(v == DAY0 + BP_START_AT_MAX_AHEAD_NS);
}

static void waits(void)
{
	int64_t started = 0;

	/* an instant already passed returns at once, marked */
	CHECK_INT(bp_start_at_wait(bp_wall_ns() - 1000), 0);
	CHECK_INT(bp_start_at_wait_mark(0, &started), 0);
	CHECK(started == 0);
	CHECK_INT(bp_start_at_wait_mark(bp_wall_ns() + 2000000, &started), 0);
	CHECK(started > 0);
}

int main(void)
{
	instants();
	refused();
	waits();
	return tap_done();
}
