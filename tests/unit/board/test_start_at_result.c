/*
 * A start at an instant in the result (board/start_at_result.h), for each state the kernel
 * can give its clock (the namespaces of the end-to-end test share one clock, so only here):
 * synchronised within the bound (env.start alone), synchronised but with a wide error bound,
 * not synchronised (STA_UNSYNC), in the error state; and a start later than the bound.
 */
#include <string.h>
#include <sys/timex.h>

#include "board/start_at_result.h"
#include "tap.h"

#define AT (1796600000LL * 1000000000LL)

static struct bp_result *started(int status, int state, long maxerror_us, int64_t late_ns)
{
	struct timex tx = { .status = status, .maxerror = maxerror_us, .esterror = 20 };
	struct bp_clock_sync c = { 0 };
	struct bp_result *r = bp_result_new("udp");

	bp_clock_sync_from_timex(&tx, state, &c);
	c.timesyncd_synchronized = -1;
	CHECK_INT(bp_start_at_record_with(r, AT, AT + late_ns, &c), 0);
	return r;
}

static const char *msg(const struct bp_result *r, const char *code)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i].code, code))
			return r->warnings[i].message;
	return "";
}

int main(void)
{
	struct bp_result *r;
	json_t *s;

	r = started(STA_PLL, TIME_OK, 400, 300000);
	s = json_object_get(r->env, "start");
	CHECK_STR(json_string_value(json_object_get(s, "at")), "2026-12-06T23:33:20.000000Z");
	CHECK(json_real_value(json_object_get(s, "at_epoch_s")) == 1796600000.0);
	CHECK(json_real_value(json_object_get(s, "late_ms")) == 0.3);
	CHECK(json_is_true(json_object_get(json_object_get(s, "clock"), "synchronized")));
	CHECK_INT(json_integer_value(json_object_get(json_object_get(s, "clock"), "maxerror_us")), 400);
	CHECK(r->nwarnings == 0);
	bp_result_free(r);

	r = started(STA_PLL, TIME_OK, 5000, 0);
	CHECK(strstr(msg(r, "clock-unsynced"), "off by up to 5.000 ms") != NULL);
	CHECK(!bp_result_has_warning(r, "start-late"));
	bp_result_free(r);

	r = started(STA_UNSYNC, TIME_OK, 16000000, 0);
	CHECK(strstr(msg(r, "clock-unsynced"), "not synchronised") != NULL);
	bp_result_free(r);
	r = started(0, TIME_ERROR, 400, 0);
	CHECK(strstr(msg(r, "clock-unsynced"), "not synchronised") != NULL);
	bp_result_free(r);

	r = started(STA_PLL, TIME_OK, 400, 25000000);
	CHECK(strstr(msg(r, "start-late"), "started 25.0 ms after 2026-12-06T23:33:20.000000Z") != NULL);
	CHECK(!bp_result_has_warning(r, "clock-unsynced"));
	bp_result_free(r);
	r = started(STA_PLL, TIME_OK, 400, 10000000);
	CHECK(!bp_result_has_warning(r, "start-late"));	/* at the bound, not above it */
	bp_result_free(r);
	return tap_done();
}
