/*
 * A connection of `serve --http` against slow clients, on the fake clock of core/clock.h:
 * one worker's loop driven by hand over AF_UNIX socket pairs (a write is readable at once,
 * so the loop never waits for the kernel). A request's head must be whole within the idle
 * timeout of when the connection began waiting for it, however its bytes trickle; a body's
 * bytes are activity; a closed connection lingers 2 s whatever comes. And the descriptor
 * share: a connection accepted as one of the tests' descriptors is refused with a 503, and
 * at the cap the one waiting longest for a request is closed for the new one, or, when
 * every one is being answered, the new one is refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "http/http_serve_conn.h"
#include "http/http_serve_limit.h"
#include "io/fd_share.h"
#include "tap.h"

#define FAKE_T0 (1000 * BP_NS_PER_SEC)
#define IDLE (10 * BP_NS_PER_SEC)
#define MS BP_NS_PER_MS

static void worker_init(struct bp_http_serve_worker *w)
{
	memset(w, 0, sizeof(*w));
	w->loop = bp_loop_new();
	w->buflen = 64 * 1024;
	w->buf = malloc(w->buflen);
	w->idle_timeout_ns = IDLE;
	w->max_bytes = UINT64_MAX;
	w->max_conns = 100;
	w->fd_floor = 1 << 30;
}

static void worker_free(struct bp_http_serve_worker *w)
{
	while (w->conns)
		bp_http_serve_conn_free(w->conns);
	bp_loop_free(w->loop);
	free(w->buf);
}

/* Let the loop take what is ready, then move the clock on by ns. */
static void run(struct bp_http_serve_worker *w, uint64_t ns)
{
	bp_loop_run(w->loop, bp_now_ns() + ns);
}

/* A client on a socket pair: its end in *peer; the connection is the newest of w. */
static struct bp_http_serve_conn *connect_one(struct bp_http_serve_worker *w, int *peer)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return NULL;
	*peer = sv[1];
	bp_http_serve_accept(w, sv[0]);
	return w->conns && w->conns->flow.fd == sv[0] ? w->conns : NULL;
}

static void say(struct bp_http_serve_worker *w, int peer, const char *s)
{
	CHECK_INT(write(peer, s, strlen(s)), (long)strlen(s));
	run(w, MS);
}

/* What the server sent so far (NUL-terminated, cut to len); -1 at EOF with nothing. */
static long heard(int peer, char *buf, size_t len)
{
	ssize_t n = recv(peer, buf, len - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return n < 0 && errno == EAGAIN ? 0 : n == 0 ? -1 : (long)n;
}

/* A head that trickles a byte every 500 ms gains nothing: closed at the deadline. */
static void test_trickled_head(void)
{
	struct bp_http_serve_worker w;
	struct bp_http_serve_conn *c, *silent;
	int peer, quiet;
	uint64_t t0;

	worker_init(&w);
	bp_clock_fake_start(FAKE_T0);
	t0 = bp_now_ns();
	silent = connect_one(&w, &quiet);
	c = connect_one(&w, &peer);
	CHECK(c != NULL && silent != NULL);
	say(&w, peer, "GET /0 HTTP/1.1\r\nX-Pad: ");
	while (bp_now_ns() - t0 + 500 * MS < IDLE - 100 * MS)
		say(&w, peer, "a"), run(&w, 499 * MS);
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_KEEP);
	while (bp_now_ns() - t0 <= IDLE)
		say(&w, peer, "a"), run(&w, 99 * MS);
	/* Its bytes came until now: the head's deadline, not the last byte, decides. */
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_NO_HEAD);
	/* A connection that sent nothing is idle, closed at the same time without a word. */
	CHECK_INT(bp_http_serve_conn_verdict(silent, bp_now_ns()), BP_HTTP_IDLE);
	bp_http_serve_sweep(&w, bp_now_ns());
	CHECK(w.conns == NULL);
	CHECK_INT(w.nconns, 0);
	close(peer);
	close(quiet);
	worker_free(&w);
	bp_clock_fake_stop();
}

/* The deadline starts again when a request's answers are all written. */
static void test_head_after_answer(void)
{
	struct bp_http_serve_worker w;
	struct bp_http_serve_conn *c;
	char buf[512];
	int peer;
	uint64_t t1;

	worker_init(&w);
	bp_clock_fake_start(FAKE_T0);
	c = connect_one(&w, &peer);
	run(&w, IDLE - 1000 * MS);
	say(&w, peer, "GET /0 HTTP/1.1\r\nHost: x\r\n\r\n");
	CHECK(heard(peer, buf, sizeof(buf)) > 0 && !strncmp(buf, "HTTP/1.1 200", 12));
	t1 = bp_now_ns();
	say(&w, peer, "GET /0 HT");
	run(&w, IDLE - 2 * MS);
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_KEEP);
	run(&w, 10 * MS);
	CHECK(bp_now_ns() - t1 > IDLE);
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_NO_HEAD);
	close(peer);
	worker_free(&w);
	bp_clock_fake_stop();
}

/* A body's bytes keep its connection (an upload is not a head); its silence does not. */
static void test_body(void)
{
	struct bp_http_serve_worker w;
	struct bp_http_serve_conn *c;
	char buf[512];
	int peer;

	worker_init(&w);
	bp_clock_fake_start(FAKE_T0);
	c = connect_one(&w, &peer);
	say(&w, peer, "POST /0 HTTP/1.1\r\nContent-Length: 40\r\n\r\n");
	for (int i = 0; i < 30; i++)
		say(&w, peer, "b"), run(&w, 500 * MS);
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_KEEP);
	run(&w, IDLE + MS);
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_IDLE);
	/* The rest of the body: answered, and waiting for the next head from now. */
	say(&w, peer, "bbbbbbbbbb");
	CHECK(heard(peer, buf, sizeof(buf)) > 0 && !strncmp(buf, "HTTP/1.1 200", 12));
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_KEEP);
	close(peer);
	worker_free(&w);
	bp_clock_fake_stop();
}

/* After a closing answer the connection lingers 2 s, whatever the client trickles. */
static void test_linger(void)
{
	struct bp_http_serve_worker w;
	struct bp_http_serve_conn *c;
	char buf[512];
	int peer;

	worker_init(&w);
	bp_clock_fake_start(FAKE_T0);
	c = connect_one(&w, &peer);
	say(&w, peer, "GET /0 HTTP/1.1\r\nConnection: close\r\n\r\n");
	CHECK(heard(peer, buf, sizeof(buf)) > 0 && strstr(buf, "onnection: close"));
	CHECK(c->lingering);
	for (int i = 0; i < 18; i++)
		say(&w, peer, "x"), run(&w, 100 * MS);
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_KEEP);
	for (int i = 0; i < 3; i++)
		say(&w, peer, "x"), run(&w, 100 * MS);
	CHECK_INT(bp_http_serve_conn_verdict(c, bp_now_ns()), BP_HTTP_IDLE);
	close(peer);
	worker_free(&w);
	bp_clock_fake_stop();
}

/* One of the tests' descriptors is refused with a 503; the cap sheds the longest waiting. */
static void test_share(void)
{
	struct bp_http_serve_worker w;
	struct bp_http_serve_conn *a, *b, *c;
	char buf[512];
	int pa, pb, pc, pd, sv[2];

	worker_init(&w);
	bp_clock_fake_start(FAKE_T0);
	/* The floor at the next descriptor: the new connection is refused, and told. */
	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	w.fd_floor = sv[0];
	say(&w, sv[1], "GET /0 HTTP/1.1\r\n\r\n");
	bp_http_serve_accept(&w, sv[0]);
	CHECK(w.conns == NULL);
	CHECK_INT(w.nconns, 0);
	CHECK(heard(sv[1], buf, sizeof(buf)) > 0 && !strncmp(buf, "HTTP/1.1 503", 12));
	CHECK_INT(heard(sv[1], buf, sizeof(buf)), -1);
	close(sv[1]);
	w.fd_floor = 1 << 30;

	/* Two at most: a third closes the one waiting longest (b: its answer came later). */
	w.max_conns = 2;
	a = connect_one(&w, &pa);
	run(&w, 1000 * MS);
	b = connect_one(&w, &pb);
	run(&w, 1000 * MS);
	say(&w, pa, "GET /0 HTTP/1.1\r\n\r\n");  /* a answered: waiting since now */
	c = connect_one(&w, &pc);
	CHECK(a != NULL && b != NULL && c != NULL);
	CHECK_INT(w.nconns, 2);
	CHECK(w.conns == c && c->next == a && a->next == NULL);
	CHECK_INT(heard(pb, buf, sizeof(buf)), -1);
	/* Both busy (a megabyte each, unread): the new one is refused. */
	say(&w, pa, "GET /1m HTTP/1.1\r\n\r\n");
	say(&w, pc, "GET /1m HTTP/1.1\r\n\r\n");
	CHECK(a->qlen > 0 && c->qlen > 0);
	CHECK(connect_one(&w, &pd) == NULL);
	CHECK_INT(w.nconns, 2);
	CHECK(heard(pd, buf, sizeof(buf)) > 0 && !strncmp(buf, "HTTP/1.1 503", 12));
	close(pa);
	close(pb);
	close(pc);
	close(pd);
	worker_free(&w);
	bp_clock_fake_stop();
}

/* The shares of a limit: the top quarter for tests, half for the HTTP responder. */
static void test_fd_share(void)
{
	struct bp_fd_share s;

	bp_fd_share_of(1024, &s);
	CHECK_INT(s.limit, 1024);
	CHECK_INT(s.floor, 768);
	CHECK_INT(s.http_cap, 512);
	CHECK(!bp_fd_reserved(&s, 767) && bp_fd_reserved(&s, 768));
	bp_fd_share_of(256, &s);
	CHECK_INT(s.floor, 192);
	CHECK_INT(s.http_cap, 128);
	bp_fd_share_of(1, &s);
	CHECK_INT(s.floor, 1);
	CHECK_INT(s.http_cap, 1);
	/* No limit at all: a billion, with no overflow. */
	bp_fd_share_of(0, &s);
	CHECK_INT(s.limit, 1 << 30);
	CHECK_INT(s.floor, (1 << 30) - (1 << 28));
}

int main(void)
{
	test_trickled_head();
	test_head_after_answer();
	test_body();
	test_linger();
	test_share();
	test_fd_share();
	return tap_done();
}
