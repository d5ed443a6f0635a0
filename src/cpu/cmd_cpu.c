/*
 * `boardperf cpu`: crypto speed through OpenSSL's EVP interface, on one core and, with
 * --threads, on several pinned cores at once. Each item is warmed up, then timed on the
 * monotonic clock; the CPU time each worker got is recorded beside it, and an item that did
 * not get its cores (another process competed) is named in a warning.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "board/cpu.h"
#include "core/clock.h"
#include "core/cpuacct.h"
#include "core/signals.h"
#include "core/test.h"
#include "core/workers.h"
#include "cpu/cpu_select.h"
#include "cpu/cpu_summary.h"
#include "cpu/crypto_algos.h"
#include "cpu/op_timer.h"
#include "cpu/test_keys.h"
#include "board/cpu_features.h"
#include "cpu/cpu_metrics.h"
#include "result/result.h"

struct cpu_params {
	const char *algo;
	const char *sizes;
	uint64_t time;
	const char *threads;
	bool full;
	struct bp_cpu_selection sel; /* resolved by cpu_check */
};

static const struct bp_opt cpu_opts[] = {
	{ 'a', "algo", BP_OPT_STRING, offsetof(struct cpu_params, algo), "LIST", NULL, 0, 0, NULL,
	  "algorithms, comma-separated (default: rsa2048, ecdsa-p256, ed25519, sha1, sha256, "
	  "aes-128-gcm, chacha20-poly1305)" },
	{ 0, "sizes", BP_OPT_STRING, offsetof(struct cpu_params, sizes), "LIST", NULL, 0, 0, NULL,
	  "block sizes for hashes and ciphers (default: 16,64,256,1024,8192,16384)" },
	{ 't', "time", BP_OPT_DURATION, offsetof(struct cpu_params, time), "S", "0.3", 0.01, 3600,
	  NULL, "timed seconds per item, after a warm-up of a tenth of it" },
	{ 0, "threads", BP_OPT_STRING, offsetof(struct cpu_params, threads), "N|all", "1", 0, 0,
	  NULL, "also run N pinned workers at once: per-core and summed figures, scaling" },
	{ 0, "full", BP_OPT_FLAG, offsetof(struct cpu_params, full), NULL, NULL, 0, 0, NULL,
	  "every algorithm (RSA 1024-4096, SHA-512, MD5, AES-256-CBC too)" },
	BP_OPT_END,
};

/* Warm-up: a tenth of the timed part, capped: enough to raise the clock and fill caches. */
#define MAX_WARMUP_NS (200 * BP_NS_PER_MS)
/* A worker that got less of its core than this was competing with another process. */
#define CONTENDED_SHARE BP_CPU_BOUND_SHARE

static int cpu_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct cpu_params *p = params;

	if (bp_check_no_positional(parsed, err, errlen))
		return -EINVAL;
	return bp_cpu_select(&p->sel, p->algo, p->full, p->sizes, p->threads,
			     bp_workers_available_cpus(), err, errlen);
}

struct item {
	const struct bp_crypto_algo *algo;
	enum bp_crypto_dir dir;
	size_t size;
	EVP_PKEY *key;
	char name[64];        /* "rsa2048.sign", "sha256.8192" */
	double unit_per_op;   /* 1 op, or bytes per block */
	const char *unit;
};

struct job {
	const struct item *item;
	uint64_t duration_ns;
	struct bp_timed_run run;
};

static int op_thunk(void *ctx, uint64_t n)
{
	return bp_crypto_op_run(ctx, n);
}

static int item_worker(struct bp_worker *w)
{
	struct job *job = w->arg;
	const struct item *it = job->item;
	struct bp_crypto_op op;
	uint64_t batch = 1, warmup = job->duration_ns / 10;
	int rc = bp_crypto_op_init(&op, it->algo, it->dir, it->size, it->key,
				   w->err, sizeof(w->err));

	if (warmup > MAX_WARMUP_NS)
		warmup = MAX_WARMUP_NS;
	if (!rc)
		rc = bp_op_warmup(op_thunk, &op, warmup, &batch);
	/* Every worker must reach the barrier, failed or not, or the others wait forever. */
	bp_worker_sync(w);
	if (!rc)
		rc = bp_op_time(op_thunk, &op, job->duration_ns, batch, &job->run);
	if (rc && !w->err[0])
		snprintf(w->err, sizeof(w->err), "%s: OpenSSL reported a failure", it->name);
	if (op.algo)
		bp_crypto_op_free(&op);
	return rc;
}

/* Run item on n workers at once; fills ms[0..n). */
static int measure(const struct item *it, int n, uint64_t duration_ns,
		   struct bp_worker_measure *ms, bool *interrupted, char *err, size_t errlen)
{
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));
	void **args = calloc((size_t)n, sizeof(*args));
	int rc = -ENOMEM;

	if (!jobs || !args) {
		snprintf(err, errlen, "%s: out of memory for %d workers", it->name, n);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		jobs[i] = (struct job){ .item = it, .duration_ns = duration_ns };
		args[i] = &jobs[i];
	}
	/*
	 * One worker floats, as `openssl speed` does: pinned, it would be stuck behind any
	 * other process on its core while another core idles. Several are pinned one per core
	 * so that "all cores" means every core at once.
	 */
	rc = bp_workers_run(n, n > 1, item_worker, args, err, errlen);
	for (int i = 0; i < n; i++) {
		ms[i] = (struct bp_worker_measure){ .ops = jobs[i].run.ops,
						    .elapsed_ns = jobs[i].run.elapsed_ns,
						    .busy_share = jobs[i].run.cpu.busy_share };
		*interrupted |= jobs[i].run.interrupted;
	}
out:
	free(jobs);
	free(args);
	return rc;
}

/* Tracks the items whose workers did not get their cores, for one warning at the end. */
struct contention {
	char names[512];
	double lowest;
};

static void note_share(struct contention *c, const char *name, double share)
{
	size_t used = strlen(c->names);

	if (!(share < CONTENDED_SHARE))
		return;
	if (used < sizeof(c->names))
		snprintf(c->names + used, sizeof(c->names) - used, "%s%s", used ? ", " : "", name);
	if (share < c->lowest)
		c->lowest = share;
}

static int record_all_cores(struct bp_result *r, const struct item *it, int n,
			    const struct bp_worker_measure *ms, double one_rate)
{
	struct bp_item_summary s;
	char name[96];
	int rc;

	bp_item_summarise(ms, (size_t)n, it->unit_per_op, one_rate, &s);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s.worker%d", it->name, i);
		rc = bp_result_add_metric(r, name, bp_measure_rate(&ms[i], it->unit_per_op),
					  it->unit, BP_BETTER_HIGHER);
		if (rc)
			return rc;
	}
	snprintf(name, sizeof(name), "%s.all", it->name);
	rc = bp_result_add_metric(r, name, s.sum_rate, it->unit, BP_BETTER_HIGHER);
	snprintf(name, sizeof(name), "%s.scaling", it->name);
	if (!rc)
		rc = bp_result_add_metric(r, name, s.scaling_percent, "percent", BP_BETTER_HIGHER);
	return rc;
}

struct run_state {
	const struct cpu_params *p;
	struct bp_result *r;
	struct bp_worker_measure *ms; /* room for p->sel.threads workers */
	struct contention contention;
	bool interrupted;
};

static int run_item(struct run_state *st, const struct item *it, char *err, size_t errlen)
{
	int n = st->p->sel.threads;
	char name[96];
	double one_rate, share;
	int rc = measure(it, 1, st->p->time, st->ms, &st->interrupted, err, errlen);

	if (rc || st->interrupted)
		return rc;
	one_rate = bp_measure_rate(&st->ms[0], it->unit_per_op);
	share = st->ms[0].busy_share;
	rc = bp_result_add_metric(st->r, it->name, one_rate, it->unit, BP_BETTER_HIGHER);
	if (!rc && n > 1) {
		struct bp_item_summary s;

		rc = measure(it, n, st->p->time, st->ms, &st->interrupted, err, errlen);
		if (rc || st->interrupted)
			return rc;
		rc = record_all_cores(st->r, it, n, st->ms, one_rate);
		bp_item_summarise(st->ms, (size_t)n, it->unit_per_op, one_rate, &s);
		if (s.min_busy_share < share)
			share = s.min_busy_share;
	}
	/* The CPU time beside the figure: the share of its core(s) the item really got. */
	snprintf(name, sizeof(name), "%s.cpu", it->name);
	if (!rc)
		rc = bp_result_add_metric(st->r, name, share * 100, "percent", BP_BETTER_NONE);
	note_share(&st->contention, it->name, share);
	return rc;
}

static int run_algo(struct run_state *st, const struct bp_crypto_algo *a, char *err,
		    size_t errlen)
{
	struct item it = { .algo = a, .unit_per_op = 1, .unit = "op/s" };
	int rc = 0;

	if (a->kind == BP_CRYPTO_SIGNATURE) {
		it.key = bp_test_key_load(a->ossl_name);
		if (!it.key) {
			snprintf(err, errlen, "%s: cannot load the test key (OpenSSL without it?)",
				 a->name);
			return -EIO;
		}
		for (int d = BP_CRYPTO_SIGN; d <= BP_CRYPTO_VERIFY && !rc && !st->interrupted; d++) {
			it.dir = (enum bp_crypto_dir)d;
			snprintf(it.name, sizeof(it.name), "%s.%s", a->name,
				 d == BP_CRYPTO_SIGN ? "sign" : "verify");
			rc = run_item(st, &it, err, errlen);
		}
		EVP_PKEY_free(it.key);
		return rc;
	}
	it.unit = "B/s";
	for (size_t i = 0; i < st->p->sel.nsizes && !rc && !st->interrupted; i++) {
		it.size = st->p->sel.sizes[i];
		it.unit_per_op = (double)it.size;
		snprintf(it.name, sizeof(it.name), "%s.%zu", a->name, it.size);
		rc = run_item(st, &it, err, errlen);
	}
	return rc;
}

/* What the figures depend on besides the options: the library and the CPU's extensions. */
static void add_crypto_params(json_t *params, const struct bp_cpu_selection *sel)
{
	struct bp_cpu_info cpu;
	json_t *algos = json_array(), *sizes = json_array();

	for (size_t i = 0; i < sel->nalgos; i++)
		json_array_append_new(algos, json_string(sel->algos[i]->name));
	for (size_t i = 0; i < sel->nsizes; i++)
		json_array_append_new(sizes, json_integer((json_int_t)sel->sizes[i]));
	json_object_set_new(params, "algorithms", algos);
	json_object_set_new(params, "block_sizes", sizes);
	json_object_set_new(params, "workers", json_integer(sel->threads));
	json_object_set_new(params, "openssl", json_string(OpenSSL_version(OPENSSL_VERSION)));
	if (bp_cpu_read("/", &cpu) == 0) {
		json_object_set_new(params, "cpu_features", bp_cpu_features_to_json(cpu.features));
		bp_cpu_free(&cpu);
	}
}

static void finish(struct run_state *st, const struct bp_cpu_times *t0)
{
	struct bp_cpu_times t1;
	struct bp_cpu_usage u;

	bp_cpu_process_times(&t1);
	bp_cpu_usage_between(t0, &t1, &u);
	bp_result_set_cpu(st->r, json_pack("{s:o}", "local", bp_cpu_usage_json(&u)));
	if (st->contention.names[0])
		bp_result_add_warning(st->r, "tester-cpu-starved",
				      "%s ran with as little as %.0f %% of a core: other processes "
				      "competed, so these figures are low", st->contention.names,
				      st->contention.lowest * 100);
	if (st->interrupted)
		bp_result_add_warning(st->r, "interrupted",
				      "stopped by signal %d before every item ran",
				      bp_stop_signal());
}

static int cpu_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct cpu_params *p = params;
	struct run_state st = { .p = p, .r = r, .contention = { .lowest = 1 } };
	struct bp_cpu_times t0;
	int rc = 0;

	(void)ctx;
	st.ms = calloc((size_t)p->sel.threads, sizeof(*st.ms));
	if (!st.ms) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	add_crypto_params(r->params, &p->sel);
	bp_cpu_process_times(&t0);
	for (size_t i = 0; i < p->sel.nalgos && !rc && !st.interrupted; i++)
		rc = run_algo(&st, p->sel.algos[i], err, errlen);
	finish(&st, &t0);
	free(st.ms);
	return rc;
}

const struct bp_test bp_cmd_cpu = {
	.name = "cpu",
	.summary = "crypto speed through OpenSSL: RSA, ECDSA, Ed25519, SHA, AES-GCM, ChaCha20",
	.synopsis = "[--algo LIST] [--sizes LIST] [-t S] [--threads N|all] [--full]",
	.opts = cpu_opts,
	.params_size = sizeof(struct cpu_params),
	.check = cpu_check,
	.run = cpu_run,
	.kind = &bp_kind_cpu,
};
