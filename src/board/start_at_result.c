#include "board/start_at_result.h"

#include <errno.h>

#include "core/start_at.h"

int bp_start_at_record_with(struct bp_result *r, int64_t at_ns, int64_t actual_ns,
			    const struct bp_clock_sync *c)
{
	char at[40], why[160];
	double late_ms = (double)(actual_ns - at_ns) / 1e6;
	int synced = bp_clock_sync_synchronized(c);
	json_t *start = json_pack("{s:s, s:f, s:f, s:f, s:o}", "at",
				  bp_start_at_format(at_ns, at, sizeof(at)), "at_epoch_s",
				  (double)at_ns / 1e9, "actual_epoch_s", (double)actual_ns / 1e9,
				  "late_ms", late_ms, "clock", bp_clock_sync_to_json(c));
	int rc = 0;

	if (!start)
		return -ENOMEM;
	if (!r->env)
		bp_result_set_env(r, json_object());
	if (!r->env || json_object_set_new(r->env, "start", start))
		return -ENOMEM;
	bp_clock_sync_describe(c, why, sizeof(why));
	if (synced == 0)
		rc = bp_result_add_warning(r, "clock-unsynced", "--start-at: this host's clock is "
					   "not synchronised (%s): testers started at one instant "
					   "start apart by as much as their clocks differ", why);
	else if (synced > 0 && (double)c->maxerror_us / 1e3 > BP_START_CLOCK_ERROR_MS)
		rc = bp_result_add_warning(r, "clock-unsynced", "--start-at: this host's clock may "
					   "be off by up to %.3f ms (the kernel's maxerror; %s), more "
					   "than %.0f ms: testers started at one instant start as far "
					   "apart", (double)c->maxerror_us / 1e3, why,
					   BP_START_CLOCK_ERROR_MS);
	if (!rc && late_ms > BP_START_LATE_MS)
		rc = bp_result_add_warning(r, "start-late", "--start-at: the test started %.1f ms "
					   "after %s (its connection and set-up took longer than the "
					   "%.0f s it was given, or the machine was busy): other testers "
					   "may have started before it", late_ms, at,
					   (double)BP_START_LEAD_NS / 1e9);
	return rc;
}

int bp_start_at_record(struct bp_result *r, int64_t at_ns, int64_t actual_ns)
{
	struct bp_clock_sync c;

	bp_clock_sync_read("/", &c);
	return bp_start_at_record_with(r, at_ns, actual_ns, &c);
}
