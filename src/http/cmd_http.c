/*
 * `boardperf http URL`: HTTP/1.1 load against any web server, from per-core workers, with
 * keep-alive connections (or one per request), pipelining, a closed loop (as fast as the
 * answers come) or an open loop at a fixed rate whose latency counts from each request's
 * due time, plain or over TLS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/options.h"
#include "core/share.h"
#include "core/test.h"
#include "http/http_metrics.h"
#include "http/http_report.h"
#include "result/result.h"

struct http_params {
	int64_t connections;
	int64_t threads;
	uint64_t time;
	uint64_t interval;
	struct bp_strings headers;
	const char *method;
	const char *body;
	int64_t pipeline;
	double rate;
	const char *share_text;
	struct bp_share share;  /* --share K/N, resolved by http_check */
	bool new_conn;
	uint64_t timeout;
	bool verify;
	bool v4, v6;
	double max_failure_pct;    /* --max-failure-ratio; verdict: whether it was given */
	bool verdict;
	struct bp_http_url url;    /* the positional URL, parsed by the check */
};

#define P(f) offsetof(struct http_params, f)

static const struct bp_opt http_opts[] = {
	{ 'c', "connections", BP_OPT_INT, P(connections), "N", "10", 1, 100000, NULL,
	  "connections (each carries --pipeline requests at a time)" },
	{ 'T', "threads", BP_OPT_INT, P(threads), "N", "0", 0, 1024, NULL,
	  "worker threads (0: one per core; never more than connections or usable cores)" },
	{ 't', "time", BP_OPT_DURATION, P(time), "S", "10", 0.1, 86400, NULL, "how long to load" },
	{ 'i', "interval", BP_OPT_DURATION, P(interval), "S", "1", 0, 3600, NULL,
	  "seconds between interval reports, 0 for none" },
	{ 'H', "header", BP_OPT_STRINGS, P(headers), "'NAME: VALUE'", NULL, 0, 0, NULL,
	  "add a request header (a Host header replaces the URL's)" },
	{ 'm', "method", BP_OPT_STRING, P(method), "METHOD", "GET", 0, 0, NULL,
	  "request method" },
	{ 0, "body", BP_OPT_STRING, P(body), "TEXT|@FILE", NULL, 0, 0, NULL,
	  "request body, up to 1 MiB (Content-Length is added)" },
	{ 0, "pipeline", BP_OPT_INT, P(pipeline), "N", "1", 1, 256, NULL,
	  "requests in flight per connection (HTTP/1.1 pipelining)" },
	{ 0, "rate", BP_OPT_NUMBER, P(rate), "N", "0", 0, 1e8, NULL,
	  "open loop: N requests/s over all connections, latency from each one's due time; "
	  "0: closed loop" },
	{ 0, "share", BP_OPT_STRING, P(share_text), "K/N", NULL, 0, 0, NULL,
	  "offer the K-th of N shares of --rate, N testers at once each with its K "
	  "(docs/json.md, \"Shares of a load\")" },
	{ 0, "new-conn", BP_OPT_FLAG, P(new_conn), NULL, NULL, 0, 0, NULL,
	  "a new connection per request, closed by the server (RFC 9411 transactions/s)" },
	{ 0, "timeout", BP_OPT_DURATION, P(timeout), "S", "2", 0.001, 600, NULL,
	  "a request or connect not done within S fails" },
	{ 0, "verify", BP_OPT_FLAG, P(verify), NULL, NULL, 0, 0, NULL,
	  "https: check the server's certificate and name (default: not checked)" },
	{ 0, "max-failure-ratio", BP_OPT_NUMBER, P(max_failure_pct), "PCT", NULL, 0, 100, NULL,
	  "a verdict: PASS when failed requests (errors, non-2xx) are at most PCT % of those "
	  "tried (RFC 9411: 0.001), else FAIL, exit status 3" },
	{ '4', "version4", BP_OPT_FLAG, P(v4), NULL, NULL, 0, 0, NULL, "IPv4 only" },
	{ '6', "version6", BP_OPT_FLAG, P(v6), NULL, NULL, 0, 0, NULL, "IPv6 only" },
	BP_OPT_END,
};

/* --body @FILE: a readable regular file of at most 1 MiB. */
static int check_body(const char *body, char *err, size_t errlen)
{
	struct stat st;
	const char *why;

	if (!body)
		return 0;
	if (body[0] != '@') {
		if (strlen(body) <= BP_HTTP_BODY_MAX)
			return 0;
		snprintf(err, errlen, "--body: %zu bytes; expected at most 1 MiB", strlen(body));
		return -EINVAL;
	}
	why = stat(body + 1, &st) ? strerror(errno) : !S_ISREG(st.st_mode) ?
	      "not a regular file" : access(body + 1, R_OK) ? strerror(errno) : NULL;
	if (why) {
		snprintf(err, errlen, "--body '%s': %s; expected @ and a readable file", body, why);
		return -EINVAL;
	}
	if (st.st_size > BP_HTTP_BODY_MAX) {
		snprintf(err, errlen, "--body '%s': %lld bytes; expected at most 1 MiB", body,
			 (long long)st.st_size);
		return -EINVAL;
	}
	return 0;
}

/* Every connection is a descriptor: raise the soft limit to what -c needs, or say why not. */
static int check_files(int64_t connections, char *err, size_t errlen)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)connections + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max >= need) {
		rl.rlim_cur = need;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return 0;
	}
	snprintf(err, errlen, "-c %lld: needs %llu open files, the limit is %llu (ulimit -n); "
		 "expected fewer connections", (long long)connections, (unsigned long long)need,
		 (unsigned long long)rl.rlim_max);
	return -EINVAL;
}

static int http_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct http_params *p = params;

	p->verdict = bp_parsed_given(parsed, "max-failure-ratio");
	if (parsed->npos != 1) {
		snprintf(err, errlen, parsed->npos ? "unexpected argument '%s': expected one URL" :
			 "expected a URL such as http://127.0.0.1:8080/1k%s", parsed->npos ?
			 parsed->pos[1] : "");
		return -EINVAL;
	}
	if (bp_http_url_parse(parsed->pos[0], &p->url, err, errlen) ||
	    bp_check_exclusive(p->v4, "-4", p->v6, "-6", err, errlen) ||
	    bp_http_method_check(p->method, err, errlen) ||
	    check_body(p->body, err, errlen))
		return -EINVAL;
	for (int i = 0; i < p->headers.n; i++)
		if (bp_http_header_check(p->headers.v[i], err, errlen))
			return -EINVAL;
	if (p->share_text && bp_share_parse(p->share_text, &p->share, err, errlen))
		return -EINVAL;
	if (p->share.n && p->rate <= 0) {
		snprintf(err, errlen, "--share %s needs --rate to share (a closed loop has none)",
			 p->share_text);
		return -EINVAL;
	}
	if (bp_share_check(&p->share, p->share_text, p->rate, "--rate", err, errlen))
		return -EINVAL;
	if (p->verify && !p->url.tls) {
		snprintf(err, errlen, "--verify applies to https:// URLs only");
		return -EINVAL;
	}
	if (p->new_conn && p->pipeline > 1) {
		snprintf(err, errlen, "--pipeline %lld and --new-conn exclude each other: a new "
			 "connection carries one request", (long long)p->pipeline);
		return -EINVAL;
	}
	return check_files(p->connections, err, errlen);
}

/* The body's bytes: the text itself, or the file after '@' (malloc'ed into *buf). */
static int load_body(const char *body, char **buf, size_t *len, char *err, size_t errlen)
{
	int fd;
	ssize_t n;

	*buf = NULL;
	*len = 0;
	if (!body || body[0] != '@') {
		*len = body ? strlen(body) : 0;
		return 0;
	}
	*buf = malloc(BP_HTTP_BODY_MAX + 1);
	fd = open(body + 1, O_RDONLY | O_CLOEXEC);
	n = *buf && fd >= 0 ? read(fd, *buf, BP_HTTP_BODY_MAX + 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0 || n > BP_HTTP_BODY_MAX) {
		snprintf(err, errlen, "--body '%s': %s", body, n < 0 ? strerror(errno) :
			 "grew above 1 MiB");
		return -EIO;
	}
	*len = (size_t)n;
	return 0;
}

static int http_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		    char *err, size_t errlen)
{
	const struct http_params *p = params;
	struct bp_http_client_opts o = {
		.url = &p->url, .family = p->v4 ? BP_FAMILY_V4 : p->v6 ? BP_FAMILY_V6 :
		BP_FAMILY_ANY, .connections = (int)p->connections, .threads = (int)p->threads,
		.depth = (int)p->pipeline, .rate = bp_share_of(&p->share, p->rate),
		.new_conn = p->new_conn,
		.verify = p->verify, .time_ns = p->time, .interval_ns = p->interval,
		.timeout_ns = p->timeout, .live = ctx->live, .live_result = r,
		.start_at_ns = ctx->common ? ctx->common->start_at_ns : 0,
		.verdict = p->verdict, .max_failure_pct = p->max_failure_pct,
	};
	char *file_body = NULL;
	int rc;

	json_object_set_new(r->params, "url", json_string(ctx->parsed->pos[0]));
	rc = load_body(p->body, &file_body, &o.req.body_len, err, errlen);
	if (rc) {
		free(file_body);
		return rc;
	}
	o.req.method = p->method;
	o.req.headers = p->headers.v;
	o.req.nheaders = p->headers.n;
	o.req.body = file_body ? file_body : p->body;
	rc = bp_http_run_and_report(&o, r, err, errlen);
	free(file_body);
	return rc;
}

const struct bp_test bp_cmd_http = {
	.name = "http",
	.summary = "HTTP requests/s and latency against any web server (keep-alive, pipelining, "
		   "--rate, --new-conn, https)",
	.synopsis = "URL [-c CONNS] [-T THREADS] [-t S] [-H 'NAME: VALUE'] [-m METHOD] "
		    "[--body TEXT|@FILE] [--pipeline N] [--rate N] [--new-conn]",
	.opts = http_opts,
	.params_size = sizeof(struct http_params),
	.check = http_check,
	.run = http_run,
	.kind = &bp_kind_http,
	.starts_at_first_byte = true,
};
