/*
 * together's pure parts: the inner command lines split as a shell would, parsed by their
 * own command's table (a bad one named by number and text), and the degradation
 * arithmetic with its median and spread.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/test.h"
#include "suite/together_args.h"
#include "suite/together_figures.h"
#include "kinds.h"
#include "tap.h"

static void split_is(const char *line, int argc, const char *const *want)
{
	struct bp_inner in = { 0 };
	char err[128] = "";
	int rc = bp_inner_split(line, &in, err, sizeof(err));

	CHECK_INT(rc, 0);
	CHECK_INT(in.argc, argc);
	for (int i = 0; !rc && i < argc && i < in.argc; i++)
		CHECK_STR(in.argv[i], want[i]);
	CHECK(rc || in.argv[in.argc] == NULL);
	bp_inner_free(&in);
}

static void split_fails(const char *line, const char *want)
{
	struct bp_inner in = { 0 };
	char err[128] = "";

	CHECK_INT(bp_inner_split(line, &in, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, want);
	bp_inner_free(&in);
}

static void test_split(void)
{
	split_is("tcp -c 127.0.0.1", 3, (const char *const[]){ "tcp", "-c", "127.0.0.1" });
	split_is("  disk\t--dir  '/mnt/my usb' ", 3,
		 (const char *const[]){ "disk", "--dir", "/mnt/my usb" });
	split_is("disk --dir \"/a b\"/c\\ d", 3,
		 (const char *const[]){ "disk", "--dir", "/a b/c d" });
	split_is("x '' y", 3, (const char *const[]){ "x", "", "y" });
	split_is("x 'a\\b'", 2, (const char *const[]){ "x", "a\\b" });
	split_fails("", "empty command line");
	split_fails("   ", "empty command line");
	split_fails("disk --dir '/mnt", "unterminated ' quote");
	split_fails("disk --dir \"/mnt", "unterminated \" quote");
}

/* A command of the shape together takes: a -t duration and one checked option. */
struct fake_params {
	uint64_t time_ns;
	int64_t n;
};

static const struct bp_opt fake_opts[] = {
	{ 't', "time", BP_OPT_DURATION, offsetof(struct fake_params, time_ns), "S", "10", 0.01,
	  100, NULL, "time" },
	{ 'n', "n", BP_OPT_INT, offsetof(struct fake_params, n), "N", "1", 1, 9, NULL, "n" },
	BP_OPT_END,
};

static int fake_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		    char *err, size_t errlen)
{
	(void)params, (void)ctx, (void)r, (void)err, (void)errlen;
	return 0;
}

static const struct bp_test fake = {
	.name = "fake", .opts = fake_opts, .params_size = sizeof(struct fake_params),
	.run = fake_run,
};
static const struct bp_test service = { .name = "svc", .opts = fake_opts, .no_result = true,
					.run = fake_run };
static const struct bp_opt no_time_opts[] = { BP_OPT_END };
static const struct bp_test timeless = { .name = "timeless", .opts = no_time_opts,
					 .run = fake_run };

static const struct bp_test *find(const char *name)
{
	const struct bp_test *all[] = { &fake, &service, &timeless };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

static void parse_fails(const char *line, const char *want)
{
	struct bp_inner in;
	char err[512] = "";

	CHECK(bp_inner_parse(&in, 2, line, find, 0, err, sizeof(err)) < 0);
	CHECK_STR(err, want);
	bp_inner_free(&in);
}

static void test_parse(void)
{
	struct bp_inner in;
	char err[512] = "";
	const struct fake_params *p;

	CHECK_INT(bp_inner_parse(&in, 1, "fake -n 3 -t 5", find, 0, err, sizeof(err)), 0);
	p = in.params;
	CHECK_INT(p->n, 3);
	CHECK_INT(in.time_ns, 5000000000ULL);
	bp_inner_free(&in);
	/* together's -t replaces the test's own */
	CHECK_INT(bp_inner_parse(&in, 1, "fake -t 5", find, 2500000000ULL, err, sizeof(err)), 0);
	CHECK_INT(in.time_ns, 2500000000ULL);
	CHECK_INT(in.argc, 5);
	CHECK_STR(in.argv[4], "2.5");
	bp_inner_free(&in);
	CHECK_INT(bp_inner_parse(&in, 1, "fake", find, 0, err, sizeof(err)), 0);
	CHECK_INT(in.time_ns, 10000000000ULL);
	bp_inner_free(&in);
	parse_fails("fake -n 12", "test 2 ('fake -n 12'): -n '12': out of range, expected 1 to 9");
	parse_fails("nosuch -x", "test 2 ('nosuch -x'): unknown command 'nosuch'");
	parse_fails("svc", "test 2 ('svc'): 'svc' cannot run beside another test (a service or "
		    "a suite); give tests such as tcp, udp, disk, cpu");
	parse_fails("timeless", "test 2 ('timeless'): 'timeless' has no -t duration to run for "
		    "beside the others");
	parse_fails("fake 'x", "test 2 ('fake 'x'): unterminated ' quote");
}

static void test_degradation(void)
{
	CHECK_NEAR(bp_together_degradation(100, 70, BP_BETTER_HIGHER), 30, 1e-12);
	CHECK_NEAR(bp_together_degradation(100, 110, BP_BETTER_HIGHER), -10, 1e-12);
	/* latency: together 150 ns where alone 100 ns is 50 % worse */
	CHECK_NEAR(bp_together_degradation(100, 150, BP_BETTER_LOWER), 50, 1e-12);
	CHECK(isnan(bp_together_degradation(0, 5, BP_BETTER_HIGHER)));
	CHECK(isnan(bp_together_degradation(NAN, 5, BP_BETTER_HIGHER)));
	CHECK(isnan(bp_together_degradation(5, NAN, BP_BETTER_LOWER)));
	CHECK(isnan(bp_together_degradation(5, 4, BP_BETTER_NONE)));
}

static void test_spread(void)
{
	struct bp_spread s;

	bp_spread_of((const double[]){ 3, 1, 2 }, 3, &s);
	CHECK_INT(s.n, 3);
	CHECK_NEAR(s.median, 2, 0);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 3, 0);
	bp_spread_of((const double[]){ 4, NAN, 1, 2, 10 }, 5, &s);
	CHECK_INT(s.n, 4);
	CHECK_NEAR(s.median, 3, 0);
	CHECK_NEAR(s.max, 10, 0);
	bp_spread_of((const double[]){ NAN }, 1, &s);
	CHECK_INT(s.n, 0);
	CHECK(isnan(s.median) && isnan(s.min) && isnan(s.max));
	bp_spread_of(NULL, 0, &s);
	CHECK(isnan(s.median));
}

int main(void)
{
	install_all_kinds();
	test_split();
	test_parse();
	test_degradation();
	test_spread();
	return tap_done();
}
