/*
 * The load and the responder together in one process over loopback: keep-alive,
 * pipelining, a connection per request, chunked and close-delimited bodies, a fixed rate,
 * and the failures counted by kind (a server that closes mid-response, one that is gone).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "http/http_client.h"
#include "http/http_server.h"
#include "tap.h"

static unsigned port;

struct run {
	const char *path;
	int conns, depth;
	double rate;
	bool new_conn;
};

static int load(const struct run *rn, struct bp_http_outcome *out, char *err, size_t errlen)
{
	char text[128];
	struct bp_http_url url;
	struct bp_http_client_opts o = {
		.url = &url, .connections = rn->conns, .threads = 2,
		.depth = rn->depth ? rn->depth : 1, .rate = rn->rate, .new_conn = rn->new_conn,
		.time_ns = 500000000, .interval_ns = 250000000, .timeout_ns = 2000000000,
		.req = { .method = "GET" },
	};

	snprintf(text, sizeof(text), "http://127.0.0.1:%u%s", port, rn->path);
	if (bp_http_url_parse(text, &url, err, errlen))
		return -EINVAL;
	return bp_http_client_run(&o, out, err, errlen);
}

static void expect_clean(const struct run *rn)
{
	struct bp_http_outcome out;
	char err[256] = "";
	int rc = load(rn, &out, err, sizeof(err));

	printf("# %s -c %d --pipeline %d%s: %llu requests, %s\n", rn->path, rn->conns,
	       rn->depth, rn->new_conn ? " --new-conn" : "",
	       (unsigned long long)out.total.txn.done, err);
	CHECK_INT(rc, 0);
	CHECK(out.total.txn.done > 50);
	CHECK_INT(bp_txn_counts_failures(&out.total.txn), 0);
	CHECK_INT(out.status[200], out.total.txn.done);
	CHECK_INT(out.latency.count, out.total.txn.done);
	CHECK(out.latency.min <= out.latency.p50 && out.latency.p50 <= out.latency.max);
	CHECK(out.niv >= 2);
	if (rn->new_conn)
		CHECK(out.total.txn.connects >= out.total.txn.done);
	else
		CHECK(out.total.txn.connects >= (uint64_t)rn->conns);
	bp_http_outcome_free(&out);
}

static void test_rate(void)
{
	struct run rn = { "/1k", 4, 1, 400, false };
	struct bp_http_outcome out;
	char err[256] = "";

	CHECK_INT(load(&rn, &out, err, sizeof(err)), 0);
	/*
	 * 400/s over the measured span: the schedule's count up to where the run ended (0.5 s
	 * on a quiet machine, 200 due; a busy one ends it late, e.g. 206 due in 0.515 s),
	 * whatever the pacer managed and however late the stop reached the workers, within a
	 * request per connection. Answered: never more than offered (one due at the very end
	 * may be in); how many are still on their way at the end is the machine's business.
	 */
	double due = 400 * out.duration_s;

	CHECK(out.duration_s >= 0.5);
	CHECK(out.offered + 4 >= due && out.offered <= due + 4);
	if (out.offered + 4 < due || out.offered > due + 4)
		printf("#   offered %llu, due %.1f in %.3f s\n", (unsigned long long)out.offered, due,
		       out.duration_s);
	CHECK(out.total.txn.done > 0 && out.total.txn.done <= out.offered + 1);
	if (!(out.total.txn.done > 0 && out.total.txn.done <= out.offered + 1))
		printf("#   answered %llu, offered %llu in %.3f s\n",
		       (unsigned long long)out.total.txn.done, (unsigned long long)out.offered,
		       out.duration_s);
	bp_http_outcome_free(&out);
}

static void test_close_mid(void)
{
	struct run rn = { "/close-mid/64k", 2, 1, 0, false };
	struct bp_http_outcome out;
	char err[256] = "";

	CHECK_INT(load(&rn, &out, err, sizeof(err)), 0);
	/* Every request fails as a read error; each costs its connection. */
	CHECK_INT(out.total.txn.done, 0);
	CHECK(out.total.txn.fails[BP_HTTP_ERR_READ] > 10);
	CHECK(out.total.txn.fails[BP_HTTP_ERR_READ] <= out.total.txn.connects);
	CHECK(out.total.txn.fails[BP_HTTP_ERR_READ] + 2 >= out.total.txn.connects);
	CHECK(strstr(out.first_error[BP_HTTP_ERR_READ], "middle of a response") != NULL);
	bp_http_outcome_free(&out);
}

static void test_not_found(void)
{
	struct run rn = { "/nope", 2, 1, 0, false };
	struct bp_http_outcome out;
	char err[256] = "";

	CHECK_INT(load(&rn, &out, err, sizeof(err)), 0);
	CHECK(out.total.txn.done > 10);
	CHECK_INT(out.status[404], out.total.txn.done);
	CHECK_INT(out.total.txn.fails[BP_HTTP_ERR_STATUS], out.total.txn.done);
	bp_http_outcome_free(&out);
}

static void test_refused(unsigned closed)
{
	struct bp_http_outcome out;
	struct bp_http_url url;
	char text[64], err[256] = "";
	struct bp_http_client_opts o = {
		.url = &url, .connections = 1, .depth = 1, .time_ns = 100000000,
		.timeout_ns = 1000000000, .req = { .method = "GET" },
	};
	int rc;

	snprintf(text, sizeof(text), "http://127.0.0.1:%u/", closed);
	bp_http_url_parse(text, &url, err, sizeof(err));
	rc = bp_http_client_run(&o, &out, err, sizeof(err));
	CHECK_INT(rc, -ECONNREFUSED);
	CHECK(strstr(err, "Connection refused") != NULL);
	bp_http_outcome_free(&out);
}

int main(void)
{
	struct bp_http_server_opts so = { .bind = "127.0.0.1", .workers = 2 };
	struct bp_http_server *s;
	char err[256] = "";
	uint64_t served, conns;

	s = bp_http_server_start(&so, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		printf("# %s\n", err);
		return tap_done();
	}
	port = bp_http_server_port(s);
	expect_clean(&(struct run){ "/1k", 4, 1, 0, false });
	expect_clean(&(struct run){ "/64k", 2, 1, 0, false });
	expect_clean(&(struct run){ "/1k", 4, 8, 0, false });
	/* deeper than the responder's queue (32): it stops parsing and resumes as it writes */
	expect_clean(&(struct run){ "/100", 2, 100, 0, false });
	expect_clean(&(struct run){ "/chunked/40000", 2, 4, 0, false });
	expect_clean(&(struct run){ "/eof/1k", 2, 1, 0, false });
	expect_clean(&(struct run){ "/close/1k", 2, 1, 0, false });
	expect_clean(&(struct run){ "/1k", 4, 1, 0, true });
	test_rate();
	test_close_mid();
	test_not_found();
	bp_http_server_counts(s, &served, &conns);
	CHECK(served > 0 && conns > 0);
	bp_http_server_stop(s);
	test_refused(port);
	return tap_done();
}
