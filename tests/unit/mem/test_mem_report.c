/* The tester-cpu-starved warning of the mem test names the starved item and where it ran. */
#include <math.h>
#include <string.h>

#include "mem/mem_report.h"
#include "result/result.h"
#include "tests/unit/tap.h"

static const char *warning(const struct bp_result *r)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i].code, "tester-cpu-starved"))
			return r->warnings[i].message;
	return "";
}

/* A floating worker (the one-core run, cpu -1) is "unpinned", a pinned one names its CPU. */
static void test_where(void)
{
	struct bp_mem_bw_figure one[BP_MEM_NOPS], all[BP_MEM_NOPS];
	struct bp_mem_starved st;
	struct bp_result *r = bp_result_new("mem");

	for (int op = 0; op < BP_MEM_NOPS; op++) {
		one[op] = (struct bp_mem_bw_figure){ .rate = 1e9, .workers = 1,
						     .min_busy_share = 0.99, .min_worker = 0,
						     .min_cpu = -1 };
		all[op] = (struct bp_mem_bw_figure){ .rate = 2e9, .workers = 2,
						     .min_busy_share = 0.99, .min_worker = 1,
						     .min_cpu = 1 };
	}
	one[0].min_busy_share = 0.40;
	bp_mem_starved_init(&st);
	CHECK_INT(bp_mem_report_bandwidth(r, one, all, &st), 0);
	CHECK_INT(bp_mem_starved_report(&st, r), 0);
	CHECK(strstr(warning(r), "worker 0 unpinned") != NULL);
	CHECK(strstr(warning(r), "CPU -1") == NULL);
	bp_result_free(r);

	r = bp_result_new("mem");
	all[0].min_busy_share = 0.30;
	bp_mem_starved_init(&st);
	CHECK_INT(bp_mem_report_bandwidth(r, one, all, &st), 0);
	CHECK_INT(bp_mem_starved_report(&st, r), 0);
	CHECK(strstr(warning(r), "on all cores, worker 1 on CPU 1") != NULL);
	bp_result_free(r);

	struct bp_mem_lat_figure lat = { .size = 4096, .ns = 1.5, .busy_share = 0.2, .cpu = -1 };
	r = bp_result_new("mem");
	bp_mem_starved_init(&st);
	CHECK_INT(bp_mem_report_latency(r, &lat, 1, &st), 0);
	CHECK_INT(bp_mem_starved_report(&st, r), 0);
	CHECK(strstr(warning(r), "unpinned") != NULL && strstr(warning(r), "CPU -1") == NULL);
	bp_result_free(r);
}

int main(void)
{
	test_where();
	return tap_done();
}
