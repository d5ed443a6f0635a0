/* Cache sizes and line sizes from sysfs trees of real machines (tests/unit/mem/fixtures). */
#include <errno.h>
#include <stdio.h>

#include "mem/mem_cache.h"
#include "tests/unit/tap.h"

static void test_parse_size(void)
{
	static const struct { const char *text; int rc; uint64_t bytes; } cases[] = {
		{ "32768K", 0, 32ULL << 20 },
		{ "48K\n", 0, 48 << 10 },
		{ " 1024K ", 0, 1 << 20 },
		{ "1M", 0, 1 << 20 },
		{ "2G", 0, 2ULL << 30 },
		{ "512", 0, 512 },
		{ "0K", 0, 0 },
		{ "", -EINVAL, 0 },
		{ "K", -EINVAL, 0 },
		{ "-4K", -EINVAL, 0 },
		{ "12x", -EINVAL, 0 },
		{ "4KiB", -EINVAL, 0 },
		{ "lots", -EINVAL, 0 },
		{ "99999999999999999999K", -ERANGE, 0 },
		{ "17179869184G", -ERANGE, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t b = 0;
		int rc = bp_mem_cache_parse_size(cases[i].text, &b);

		CHECK_INT(rc, cases[i].rc);
		if (!cases[i].rc)
			CHECK_INT(b, cases[i].bytes);
	}
	CHECK_INT(bp_mem_cache_parse_size(NULL, &(uint64_t){ 0 }), -EINVAL);
}

static void root_of(char *buf, size_t len, const char *dir, const char *board)
{
	snprintf(buf, len, "%s/%s", dir, board);
}

static void test_x86(const char *dir)
{
	struct bp_mem_cache_summary s;
	struct bp_mem_caches cs;
	char root[4096];

	root_of(root, sizeof(root), dir, "x86-pc");
	CHECK_INT(bp_mem_caches_read(root, 0, &cs), 4);
	CHECK_INT(cs.c[0].level, 1);
	CHECK_STR(cs.c[0].type, "Data");
	CHECK_INT(cs.c[0].size, 48 << 10);
	CHECK_STR(cs.c[1].type, "Instruction");
	CHECK_INT(cs.c[2].size, 1 << 20);
	CHECK_INT(cs.c[3].level, 3);
	CHECK_INT(cs.c[3].size, 32 << 20);
	CHECK_INT(cs.c[3].line_size, 64);
	CHECK_INT(bp_mem_cache_summary_read(root, &s), 0);
	CHECK_INT(s.llc_level, 3);
	CHECK_INT(s.llc_size, 32 << 20);
	CHECK_INT(s.line_size, 64);
	/* A CPU with no directory at all has no caches, and that is not an error. */
	CHECK_INT(bp_mem_caches_read(root, 7, &cs), 0);
}

/* The larger cluster's L2 is the one to beat; instruction caches set no slot size. */
static void test_big_little(const char *dir)
{
	struct bp_mem_cache_summary s;
	struct bp_mem_caches cs;
	char root[4096];

	root_of(root, sizeof(root), dir, "big-little");
	CHECK_INT(bp_mem_caches_read(root, 0, &cs), 3);
	CHECK_INT(cs.c[2].line_size, 0);
	CHECK_INT(bp_mem_caches_read(root, 4, &cs), 3);
	CHECK_INT(cs.c[2].size, 1 << 20);
	CHECK_INT(bp_mem_cache_summary_read(root, &s), 0);
	CHECK_INT(s.llc_level, 2);
	CHECK_INT(s.llc_size, 1 << 20);
	CHECK_INT(s.line_size, 64);
}

static void test_unknown(const char *dir)
{
	struct bp_mem_cache_summary s;
	struct bp_mem_caches cs;
	char root[4096];

	root_of(root, sizeof(root), dir, "no-cacheinfo");
	CHECK_INT(bp_mem_caches_read(root, 0, &cs), 0);
	CHECK_INT(bp_mem_cache_summary_read(root, &s), 0);
	CHECK_INT(s.llc_size, 0);
	CHECK_INT(s.llc_level, 0);
	CHECK_INT(s.line_size, BP_MEM_DEFAULT_LINE);

	/* A root that does not exist reads as a machine that says nothing. */
	root_of(root, sizeof(root), dir, "nonexistent");
	CHECK_INT(bp_mem_cache_summary_read(root, &s), 0);
	CHECK_INT(s.llc_size, 0);
	CHECK_INT(s.line_size, BP_MEM_DEFAULT_LINE);

	/* Damaged indexes are skipped; the one good L1 is all there is. */
	root_of(root, sizeof(root), dir, "damaged");
	CHECK_INT(bp_mem_caches_read(root, 0, &cs), 1);
	CHECK_INT(bp_mem_cache_summary_read(root, &s), 0);
	CHECK_INT(s.llc_level, 1);
	CHECK_INT(s.llc_size, 16 << 10);
	CHECK_INT(s.line_size, 32);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/unit/mem/fixtures";

	test_parse_size();
	test_x86(dir);
	test_big_little(dir);
	test_unknown(dir);
	return tap_done();
}
