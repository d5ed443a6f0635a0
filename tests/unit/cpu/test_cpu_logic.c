/* boardperf cpu's pure logic: batch sizing, summing, selection, and real EVP operations. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "cpu/cpu_select.h"
#include "cpu/cpu_summary.h"
#include "cpu/crypto_algos.h"
#include "cpu/op_timer.h"
#include "cpu/test_keys.h"
#include "tap.h"

static void test_batches(void)
{
	/* 100 ops took 100 us: 1 us each, so a 1 ms target wants 1000 but may only double. */
	CHECK_INT(bp_op_next_batch(100, 100000, 1000000, UINT64_MAX), 200);
	/* 1000 ops took 4 ms: shrink to 250. */
	CHECK_INT(bp_op_next_batch(1000, 4000000, 1000000, UINT64_MAX), 250);
	/* Near the deadline: only what fits in the 50 us left. */
	CHECK_INT(bp_op_next_batch(1000, 1000000, 1000000, 50000), 50);
	/* A slow operation (1 s each) never drops below one. */
	CHECK_INT(bp_op_next_batch(1, 1000000000ULL, 1000000, UINT64_MAX), 1);
	/* A batch too fast for the clock to see doubles. */
	CHECK_INT(bp_op_next_batch(8, 0, 1000000, UINT64_MAX), 16);
}

static void test_summary(void)
{
	const struct bp_worker_measure ms[] = {
		{ .ops = 1000, .elapsed_ns = 1000000000ULL, .busy_share = 0.99 },
		{ .ops = 450, .elapsed_ns = 500000000ULL, .busy_share = 0.80 },
	};
	struct bp_item_summary s;

	CHECK_NEAR(bp_measure_rate(&ms[0], 1), 1000, 1e-9);
	CHECK_NEAR(bp_measure_rate(&ms[1], 16384), 900 * 16384.0, 1e-6);
	CHECK_NEAR(bp_measure_rate(&(struct bp_worker_measure){ .ops = 5 }, 1), 0, 0);
	bp_item_summarise(ms, 2, 1, 1000, &s);
	CHECK_NEAR(s.sum_rate, 1900, 1e-9);
	CHECK_NEAR(s.scaling_percent, 95.0, 1e-9);
	CHECK_NEAR(s.min_busy_share, 0.80, 0);
	bp_item_summarise(ms, 2, 1, 0, &s);
	CHECK(isnan(s.scaling_percent));
}

static void test_select(void)
{
	struct bp_cpu_selection sel;
	char err[512];
	size_t ndefault = 0;

	for (size_t i = 0; i < bp_crypto_nalgos; i++)
		ndefault += bp_crypto_algos[i].in_default;
	CHECK_INT(bp_cpu_select(&sel, NULL, false, NULL, "1", 4, err, sizeof(err)), 0);
	CHECK_INT(sel.nalgos, ndefault);
	CHECK_INT(sel.nsizes, 6);
	CHECK_INT(sel.sizes[5], 16384);
	CHECK_INT(sel.threads, 1);
	CHECK_INT(bp_cpu_select(&sel, NULL, true, "16,8K", "all", 4, err, sizeof(err)), 0);
	CHECK_INT(sel.nalgos, bp_crypto_nalgos);
	CHECK_INT(sel.nsizes, 2);
	CHECK_INT(sel.sizes[1], 8192);
	CHECK_INT(sel.threads, 4);
	CHECK_INT(bp_cpu_select(&sel, "sha256,rsa4096", false, NULL, "2", 4, err, sizeof(err)), 0);
	CHECK_INT(sel.nalgos, 2);
	CHECK_STR(sel.algos[1]->name, "rsa4096");
	CHECK_INT(bp_cpu_select(&sel, "sha256,des", false, NULL, "1", 4, err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "--algo 'des': unknown algorithm; expected a comma-separated list of: "
		     "rsa1024, rsa2048") == err);
	CHECK_INT(bp_cpu_select(&sel, ",", false, NULL, "1", 4, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_cpu_select(&sel, NULL, false, "16,0", "1", 4, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "--sizes '0'") == err);
	CHECK_INT(bp_cpu_select(&sel, NULL, false, "32M", "1", 4, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_cpu_select(&sel, NULL, false, NULL, "many", 4, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--threads 'many': expected a number from 1 to 1024, or 'all'");
	CHECK_INT(bp_cpu_select(&sel, NULL, false, NULL, "0", 4, err, sizeof(err)), -EINVAL);
}

/* Every algorithm runs through EVP, and a verify of a damaged signature fails. */
static void test_operations(void)
{
	char err[256];

	for (size_t i = 0; i < bp_crypto_nalgos; i++) {
		const struct bp_crypto_algo *a = &bp_crypto_algos[i];
		EVP_PKEY *key = a->kind == BP_CRYPTO_SIGNATURE ? bp_test_key_load(a->ossl_name) : NULL;
		struct bp_crypto_op op;

		for (int d = BP_CRYPTO_SIGN; d <= BP_CRYPTO_VERIFY; d++) {
			int rc = bp_crypto_op_init(&op, a, (enum bp_crypto_dir)d, 64, key,
						   err, sizeof(err));

			CHECK_INT(rc, 0);
			if (rc) {
				printf("# %s: %s\n", a->name, err);
				continue;
			}
			/* more than a round of the verify set: every pair verifies */
			CHECK_INT(bp_crypto_op_run(&op, BP_VERIFY_SET + 3), 0);
			if (a->kind == BP_CRYPTO_SIGNATURE && d == BP_CRYPTO_VERIFY) {
				unsigned k = op.next_sig;

				/* the pairs differ: not one signature copied BP_VERIFY_SET times */
				CHECK(op.siglen[0] != op.siglen[1] ||
				      memcmp(op.sig[0], op.sig[1], op.siglen[0]));
				/* a corrupted signature fails when its turn comes, not before */
				op.sig[(k + 1) % BP_VERIFY_SET][op.siglen[0] / 2] ^= 0x01;
				CHECK_INT(bp_crypto_op_run(&op, 1), 0);
				CHECK_INT(bp_crypto_op_run(&op, 1), -EIO);
			}
			bp_crypto_op_free(&op);
			if (a->kind != BP_CRYPTO_SIGNATURE)
				break;
		}
		EVP_PKEY_free(key);
	}
	CHECK(bp_test_key_load("rsa512") == NULL);
}

int main(void)
{
	test_batches();
	test_summary();
	test_select();
	test_operations();
	return tap_done();
}
