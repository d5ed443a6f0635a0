/*
 * Every command boardperf knows, in the order `boardperf --help` lists them.
 * Adding a test kind: its folder (the command, its kind, its server half) and one line here
 * (docs/ARCHITECTURE.md, "Adding a test kind").
 */
#include <string.h>

#include "cli/registry.h"
#include "result/kind.h"

extern const struct bp_test bp_cmd_run;
extern const struct bp_test bp_cmd_together;
extern const struct bp_test bp_cmd_info;
extern const struct bp_test bp_cmd_cpu;
extern const struct bp_test bp_cmd_mem;
extern const struct bp_test bp_cmd_disk;
extern const struct bp_test bp_cmd_gpio;
extern const struct bp_test bp_cmd_serve;
extern const struct bp_test bp_cmd_tcp;
extern const struct bp_test bp_cmd_udp;
extern const struct bp_test bp_cmd_rfc2544;
extern const struct bp_test bp_cmd_rr;
extern const struct bp_test bp_cmd_crr;
extern const struct bp_test bp_cmd_latency;
extern const struct bp_test bp_cmd_http;
extern const struct bp_test bp_cmd_history;
extern const struct bp_test bp_cmd_show;
extern const struct bp_test bp_cmd_import;
extern const struct bp_test bp_cmd_compare;
extern const struct bp_test bp_cmd_merge;
extern const struct bp_test bp_cmd_report;
extern const struct bp_test bp_cmd_export;
extern const struct bp_test bp_cmd_metrics;

const struct bp_test *const bp_tests[] = {
	&bp_cmd_run,
	&bp_cmd_together,
	&bp_cmd_info,
	&bp_cmd_cpu,
	&bp_cmd_mem,
	&bp_cmd_disk,
	&bp_cmd_gpio,
	&bp_cmd_serve,
	&bp_cmd_tcp,
	&bp_cmd_udp,
	&bp_cmd_rfc2544,
	&bp_cmd_rr,
	&bp_cmd_crr,
	&bp_cmd_latency,
	&bp_cmd_http,
	&bp_cmd_history,
	&bp_cmd_show,
	&bp_cmd_import,
	&bp_cmd_compare,
	&bp_cmd_merge,
	&bp_cmd_report,
	&bp_cmd_export,
	&bp_cmd_metrics,
	NULL,
};

void bp_registry_install_kinds(void)
{
	static const struct bp_kind *kinds[sizeof(bp_tests) / sizeof(bp_tests[0])];
	size_t n = 0;

	for (size_t i = 0; bp_tests[i]; i++)
		if (bp_tests[i]->kind)
			kinds[n++] = bp_tests[i]->kind;
	bp_kinds_install(kinds, n);
}

const struct bp_test *bp_test_find(const char *name)
{
	for (size_t i = 0; bp_tests[i]; i++)
		if (!strcmp(bp_tests[i]->name, name))
			return bp_tests[i];
	return NULL;
}
