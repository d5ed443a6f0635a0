#include "export/om_push.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "core/buildinfo.h"
#include "core/clock.h"
#include "http/http_io.h"
#include "http/http_response.h"
#include "io/sock.h"

/* A gateway's answer is a status and at most a line of reason: more is not a gateway. */
#define ANSWER_MAX (1 << 20)
#define QUOTE_MAX 300

struct exchange {
	const struct bp_om_push_target *t;
	struct bp_http_io io;
	SSL_CTX *ctx;
	uint64_t deadline, timeout_ns;
	unsigned status;
	bool answered;
	size_t answered_bytes;   /* bytes of an answer read, whole or not */
	char body[QUOTE_MAX];
	char *err;
	size_t errlen;
};

/* "push to URL: " and the reason, into the caller's err; rc passed on. */
__attribute__((format(printf, 3, 4)))
static int fail(struct exchange *x, int rc, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	snprintf(x->err, x->errlen, "push to %s: ", x->t->shown);
	n = strlen(x->err);
	va_start(ap, fmt);
	vsnprintf(x->err + n, x->errlen - n, fmt, ap);
	va_end(ap);
	return rc;
}

/* Wait until the socket may be read (or written, want_write) before the deadline. */
static int await(struct exchange *x, bool want_write)
{
	uint64_t now = bp_now_ns();
	struct pollfd pfd = { .fd = x->io.fd, .events = want_write ? POLLOUT : POLLIN };
	int rc;

	if (now >= x->deadline)
		return -ETIMEDOUT;
	do {
		uint64_t left_ms = (x->deadline - now + 999999) / 1000000;

		rc = poll(&pfd, 1, left_ms > 60000 ? 60000 : (int)left_ms);
	} while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	return rc ? 0 : bp_now_ns() >= x->deadline ? -ETIMEDOUT : 0;
}

static int timed_out(struct exchange *x, const char *what_failed)
{
	char what[128];

	snprintf(what, sizeof(what), "%s within --timeout %.3g s", what_failed,
		 (double)x->timeout_ns / 1e9);
	return fail(x, -ETIMEDOUT, "%s", what);
}

static int tls_start(struct exchange *x, const struct bp_om_push_opts *o)
{
	bool verify = !o->insecure;
	int rc;

	x->ctx = bp_http_tls_ctx_new(false, x->err, x->errlen);
	if (!x->ctx)
		return -EPROTO;
	if (verify) {
		SSL_CTX_set_verify(x->ctx, SSL_VERIFY_PEER, NULL);
		if (o->cacert ? !SSL_CTX_load_verify_locations(x->ctx, o->cacert, NULL) :
				!SSL_CTX_set_default_verify_paths(x->ctx)) {
			ERR_clear_error();
			if (o->cacert)
				snprintf(x->err, x->errlen, "--cacert '%s': not a PEM file of "
					 "certificates OpenSSL can read", o->cacert);
			else
				snprintf(x->err, x->errlen, "push: cannot load the system's trusted "
					 "certificates");
			return -EINVAL;
		}
	}
	if (bp_http_io_tls_begin(&x->io, x->ctx, x->t->url.host, verify))
		return fail(x, -ENOMEM, "%s", "TLS: out of memory");
	while ((rc = bp_http_io_handshake(&x->io, x->err, x->errlen)) == -EAGAIN) {
		rc = await(x, x->io.want_write);
		if (rc == -ETIMEDOUT)
			return timed_out(x, "no TLS handshake");
		if (rc)
			return fail(x, rc, "TLS handshake: %s", strerror(-rc));
	}
	if (rc) {
		char why[256];

		snprintf(why, sizeof(why), "%s", x->err);
		return fail(x, rc, "TLS: %s%s", why, strncmp(why, "certificate", 11) ? "" :
			    " (--cacert FILE trusts a gateway's own certificate, --insecure "
			    "checks none)");
	}
	return 0;
}

static int send_all(struct exchange *x, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = bp_http_io_write(&x->io, buf, len);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n == -EAGAIN) {
			int rc = await(x, !x->io.ssl || x->io.want_write);

			if (rc == -ETIMEDOUT)
				return timed_out(x, "the request not taken");
			if (rc)
				return fail(x, rc, "sending: %s", strerror(-rc));
			continue;
		}
		/* not -EPIPE, which the CLI takes for its own output closed and says nothing */
		return fail(x, -ECONNRESET, "the gateway closed the connection while the request "
			    "was sent (%s)", strerror(n ? (int)-n : EPIPE));
	}
	return 0;
}

static void answered(void *arg, unsigned status, bool keep_alive)
{
	struct exchange *x = arg;

	(void)keep_alive;
	if (!x->answered) {
		x->answered = true;
		x->status = status;
	}
}

/*
 * The answer's body as one line for the error: whitespace runs (the gateway's reasons span
 * lines, "2 error(s) occurred:" then one per line) as one space, other bytes outside
 * printable ASCII as '?', cut with "..." where the kept bytes end.
 */
static void one_line(const char *b, size_t n, bool cut, char *out, size_t len)
{
	size_t o = 0;
	bool space = false;

	for (size_t i = 0; i < n && o + 4 < len; i++) {
		unsigned char c = (unsigned char)b[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			space = o > 0;
			continue;
		}
		if (space)
			out[o++] = ' ';
		space = false;
		out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (cut && o + 4 <= len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

static int read_answer(struct exchange *x)
{
	struct bp_http_resp r;
	char buf[16384];
	size_t total = 0;

	bp_http_resp_init(&r, false, answered, x);
	bp_http_resp_keep_body(&r, x->body, sizeof(x->body));
	while (!x->answered) {
		ssize_t n = bp_http_io_read(&x->io, buf, sizeof(buf));

		if (n == -EAGAIN) {
			int rc = await(x, x->io.want_write);

			if (rc == -ETIMEDOUT)
				return timed_out(x, "no answer");
			if (rc)
				return fail(x, rc, "reading the answer: %s", strerror(-rc));
			continue;
		}
		if (n < 0)
			return fail(x, (int)n, "reading the answer: %s", strerror((int)-n));
		if (n == 0) {
			if (bp_http_resp_eof(&r) || !x->answered)
				return fail(x, -EPROTO, "%s", "the gateway closed the connection "
					    "before a whole answer");
			break;
		}
		total += (size_t)n;
		x->answered_bytes = total;
		if (bp_http_resp_feed(&r, buf, (size_t)n))
			return fail(x, -EPROTO, "the answer is not HTTP (%s)",
				    bp_http_resp_error(&r));
		if (!x->answered && total > ANSWER_MAX)
			return fail(x, -EPROTO, "%s", "an answer of more than 1 MiB: not a "
				    "Pushgateway");
	}
	if (x->status < 200 || x->status > 299) {
		char line[QUOTE_MAX + 4], what[QUOTE_MAX + 64];

		one_line(x->body, r.kept, r.kept == sizeof(x->body), line, sizeof(line));
		snprintf(what, sizeof(what), "%u%s%s", x->status, line[0] ? ": " : "", line);
		return fail(x, -EACCES, "the gateway answered %s; expected 200", what);
	}
	return 0;
}

int bp_om_push_put(const struct bp_om_push_target *t, const struct bp_om_push_opts *o,
		   const char *body, size_t len, unsigned *status, char *err, size_t errlen)
{
	struct exchange x = { .t = t, .io = { .fd = -1 }, .err = err, .errlen = errlen };
	char head[4096], why[256];
	struct bp_addr a;
	int rc, hl;

	*status = 0;
	x.timeout_ns = o->timeout_ns;
	x.deadline = bp_now_ns() + o->timeout_ns;
	rc = bp_resolve(t->url.host, t->url.port, BP_FAMILY_ANY, false, &a, why, sizeof(why));
	if (rc)
		return fail(&x, rc, "%s", why);
	rc = bp_tcp_connect(&a, x.deadline, NULL, NULL, &x.io.fd, why, sizeof(why));
	if (rc == -ETIMEDOUT)
		return timed_out(&x, "no connection");
	if (rc)
		return fail(&x, rc, "%s", why);
	if (bp_sock_set_nonblocking(x.io.fd, true)) {
		rc = fail(&x, -errno, "%s", strerror(errno));
		goto out;
	}
	if (t->url.tls && (rc = tls_start(&x, o)))
		goto out;
	hl = snprintf(head, sizeof(head),
		      "PUT %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: boardperf/%s\r\n"
		      "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
		      "Content-Length: %zu\r\n%s%s%sConnection: close\r\n\r\n",
		      t->url.target, t->url.host_header, bp_version(), len,
		      t->authorization[0] ? "Authorization: " : "", t->authorization,
		      t->authorization[0] ? "\r\n" : "");
	if (hl < 0 || (size_t)hl >= sizeof(head)) {
		rc = fail(&x, -ENAMETOOLONG, "%s", "the request's head is too long");
		goto out;
	}
	rc = send_all(&x, head, (size_t)hl);
	if (!rc)
		rc = send_all(&x, body, len);
	/* A server that closed early may have said why first (a 413, a banner): that is the
	 * better message. */
	if (!rc || rc == -ECONNRESET) {
		char sent_err[512];
		int sent_rc = rc;

		snprintf(sent_err, sizeof(sent_err), "%s", err);
		rc = read_answer(&x);
		if (sent_rc && (!rc || !x.answered_bytes)) {
			rc = sent_rc;
			snprintf(err, errlen, "%s", sent_err);
		}
	}
	*status = x.status;
out:
	bp_http_io_close(&x.io);
	if (x.ctx)
		SSL_CTX_free(x.ctx);
	return rc;
}
