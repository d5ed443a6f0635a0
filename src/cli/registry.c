/*
 * Every command boardperf knows, in the order `boardperf --help` lists them.
 * Adding a test kind: one file with its const struct bp_test, one line here.
 */
#include <string.h>

#include "cli/registry.h"

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
	NULL,
};

const struct bp_test *bp_test_find(const char *name)
{
	for (size_t i = 0; bp_tests[i]; i++)
		if (!strcmp(bp_tests[i]->name, name))
			return bp_tests[i];
	return NULL;
}
