/* The pointer chase: one cycle through every slot, the working sets and their names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem_latency.h"
#include "tests/unit/tap.h"

/*
 * Follow the chain from slot 0 for nslots steps: every step must land on the start of a
 * slot inside the buffer, no slot twice, and the last step back on slot 0. That is
 * exactly "a single cycle over all slots".
 */
static int is_one_cycle(char *buf, size_t nslots, size_t slot)
{
	unsigned char *seen = calloc(nslots, 1);
	char *p = buf;
	int ok = seen != NULL;

	for (size_t i = 0; ok && i < nslots; i++) {
		char *next = *(char **)p;
		size_t off = (size_t)(next - buf);

		ok = next >= buf && off < nslots * slot && off % slot == 0 && !seen[off / slot];
		if (ok)
			seen[off / slot] = 1;
		p = next;
	}
	ok = ok && p == buf;
	free(seen);
	return ok;
}

static void test_cycle(void)
{
	static const size_t slots[] = { sizeof(void *), 64, 128 };
	static const size_t counts[] = { 1, 2, 3, 7, 64, 1000, 65536 };

	for (size_t s = 0; s < sizeof(slots) / sizeof(slots[0]); s++) {
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			size_t n = counts[c], slot = slots[s];
			char *buf = aligned_alloc(64, (n * slot + 63) / 64 * 64);

			if (!buf) {
				CHECK(!"out of memory");
				continue;
			}
			memset(buf, 0, n * slot);
			bp_mem_chase_build(buf, n, slot, 42 + c);
			CHECK(is_one_cycle(buf, n, slot));
			free(buf);
		}
	}
}

/* Not the identity's neighbour chain: the prefetcher must not be able to follow it. */
static void test_random(void)
{
	enum { N = 4096, SLOT = 64 };
	char *buf = aligned_alloc(64, N * SLOT), *other = aligned_alloc(64, N * SLOT);
	size_t sequential = 0, same;

	if (!buf || !other) {
		CHECK(!"out of memory");
		free(buf);
		free(other);
		return;
	}
	bp_mem_chase_build(buf, N, SLOT, 1);
	for (size_t i = 0; i < N; i++)
		sequential += *(char **)(buf + i * SLOT) == buf + ((i + 1) % N) * SLOT;
	CHECK(sequential < 16);
	/* Same seed, same cycle (runs compare); another seed, another cycle. */
	bp_mem_chase_build(other, N, SLOT, 1);
	same = 0;
	for (size_t i = 0; i < N; i++)
		same += *(char **)(other + i * SLOT) - other == *(char **)(buf + i * SLOT) - buf;
	CHECK_INT(same, N);
	bp_mem_chase_build(other, N, SLOT, 2);
	CHECK(*(char **)other - other != *(char **)buf - buf ||
	      *(char **)(other + SLOT) - other != *(char **)(buf + SLOT) - buf);
	free(buf);
	free(other);
}

/* bp_mem_chase(p, n) ends where n single steps end (n rounded up to 16). */
static void test_chase(void)
{
	enum { N = 100, SLOT = 64 };
	char *buf = aligned_alloc(64, N * SLOT), *p;

	if (!buf) {
		CHECK(!"out of memory");
		return;
	}
	bp_mem_chase_build(buf, N, SLOT, 7);
	p = buf;
	for (int i = 0; i < 48; i++)
		p = *(char **)p;
	CHECK(bp_mem_chase(buf, 48) == p);
	CHECK(bp_mem_chase(buf, 33) == p);
	CHECK(bp_mem_chase(buf, (uint64_t)N * 16) == buf);
	CHECK(bp_mem_chase(buf, 0) == buf);
	free(buf);
}

static void test_sizes(void)
{
	uint64_t s[BP_MEM_LAT_MAX_SIZES];
	static const uint64_t want[] = { 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20,
					 4 << 20, 16 << 20, 64 << 20 };
	int n = bp_mem_lat_sizes(64 << 20, 64, s, BP_MEM_LAT_MAX_SIZES);

	CHECK_INT(n, 8);
	for (int i = 0; i < n && i < 8; i++)
		CHECK_INT(s[i], want[i]);
	/* Beyond the last power of 4, the largest is measured too. */
	n = bp_mem_lat_sizes(128 << 20, 64, s, BP_MEM_LAT_MAX_SIZES);
	CHECK_INT(n, 9);
	CHECK_INT(s[8], 128 << 20);
	n = bp_mem_lat_sizes(256ULL << 20, 64, s, BP_MEM_LAT_MAX_SIZES);
	CHECK_INT(n, 9);
	CHECK_INT(s[8], 256 << 20);
	CHECK_INT(bp_mem_lat_sizes(4096, 64, s, BP_MEM_LAT_MAX_SIZES), 1);
	CHECK_INT(bp_mem_lat_sizes(5000, 64, s, BP_MEM_LAT_MAX_SIZES), 1); /* not whole slots */
	CHECK_INT(bp_mem_lat_sizes(6144, 64, s, BP_MEM_LAT_MAX_SIZES), 2);
	CHECK_INT(bp_mem_lat_sizes(1024, 64, s, BP_MEM_LAT_MAX_SIZES), 0);
	CHECK_INT(bp_mem_lat_sizes(64 << 20, 64, s, 3), 3);
	/* 4 KiB x 4^0..4^25 reach 2^62; the next step would overflow; then the max itself. */
	CHECK_INT(bp_mem_lat_sizes(UINT64_MAX - 63, 64, s, BP_MEM_LAT_MAX_SIZES), 27);
	CHECK_INT(s[25], 1ULL << 62);
	CHECK(s[26] == UINT64_MAX - 63);
}

static void test_names(void)
{
	static const struct { uint64_t b; const char *name; } cases[] = {
		{ 4096, "4KiB" }, { 64ULL << 20, "64MiB" }, { 1ULL << 30, "1GiB" },
		{ 1536ULL << 20, "1536MiB" }, { 6000, "6000B" }, { 0, "0B" },
		{ 1ULL << 40, "1TiB" }, { 1ULL << 50, "1024TiB" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bp_mem_size_name(buf, sizeof(buf), cases[i].b);
		CHECK_STR(buf, cases[i].name);
	}
}

/* The real thing on this machine, briefly: small sets measure, and faster than large. */
static void test_run(void)
{
	uint64_t sizes[] = { 4096, 16 << 20 };
	struct bp_mem_lat_config cfg = { .sizes = sizes, .nsizes = 2, .slot = 64,
					 .time_ns = 20000000 };
	struct bp_mem_lat_figure fig[2];
	char err[256] = "";

	CHECK_INT(bp_mem_lat_run(&cfg, fig, err, sizeof(err)), 0);
	CHECK(fig[0].ns > 0 && fig[1].ns > 0);
	CHECK(fig[0].loads > 0 && fig[1].loads > 0);
	CHECK_INT(fig[1].size, 16 << 20);
	/* Half a pointer: 4 bytes on a 64-bit target, 2 on 32-bit ARM (where 4 bytes hold one). */
	cfg.slot = sizeof(void *) / 2;
	CHECK(bp_mem_lat_run(&cfg, fig, err, sizeof(err)) < 0);
	CHECK(strstr(err, sizeof(void *) == 8 ? "a 4-byte" : "a 2-byte") != NULL);
}

int main(void)
{
	test_cycle();
	test_random();
	test_chase();
	test_sizes();
	test_names();
	test_run();
	return tap_done();
}
