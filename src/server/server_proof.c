/*
 * The data connections of a test that proved the pre-shared key (boardperf protocol 2,
 * proto/auth_psk.h): each sends, after its cookie, its stream index and a MAC under the
 * test's stream key. The cookie alone names the test, and anyone who sees it on the path
 * could present it; the proof only the client that answered the challenge can make.
 *
 * A client writes cookie and proof in one write, so the proof is nearly always read at
 * once (no allocation). The rest waits here, at most SRV_PROOFS_MAX per test, until its
 * bytes come; the session's own idle timeout (opening streams) bounds the wait, and a
 * connection still proving when the test starts or ends is closed. A wrong proof closes
 * the connection and counts as a wrong key for its address (server_backoff.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/log.h"
#include "core/log_limit.h"
#include "server/server_internal.h"

/* More connections proving at once than any client opens (it writes each proof whole). */
#define SRV_PROOFS_MAX 8

struct srv_proof {
	struct bp_flow flow;
	struct srv_session *ss;
	struct srv_proof *next;
	struct bp_addr peer;
	unsigned char buf[BP_PSK_STREAM_PROOF_LEN];
	size_t have;
};

static void unlink_proof(struct srv_proof *p)
{
	for (struct srv_proof **pp = &p->ss->proofs; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			p->ss->nproofs--;
			return;
		}
}

/* Out of the loop and the list; the descriptor stays open when it becomes a stream. */
static void proof_free(struct srv_proof *p, bool close_fd)
{
	bp_loop_del(&p->flow);
	unlink_proof(p);
	if (close_fd)
		close(p->flow.fd);
	free(p);
}

void srv_proof_close_all(struct srv_session *ss)
{
	while (ss->proofs)
		proof_free(ss->proofs, true);
}

static bool proved(const struct srv_session *ss, uint32_t i)
{
	return ss->proved[i / 64] >> (i % 64) & 1;
}

/* The whole proof of fd is in buf: the stream it opens, or a refusal. */
static void check(struct srv_session *ss, int fd, const struct bp_addr *peer,
		  const unsigned char *buf, size_t len)
{
	struct srv *s = ss->srv;
	uint32_t index = 0;
	char who[64];
	int rc = ss->state != SS_STREAMS ? -ESTALE :
		 bp_psk_stream_check(ss->auth.stream_key, buf, len,
				     (uint32_t)ss->expected_streams, &index);

	if (!rc && proved(ss, index))
		rc = -EALREADY;  /* a proof replayed on a second connection */
	if (!rc) {
		ss->proved[index / 64] |= 1ULL << (index % 64);
		srv_session_add_stream(ss, fd, (int)index);
		return;
	}
	close(fd);
	if (rc == -ESTALE)
		return;  /* the test started (or ended) without it: not a key matter */
	srv_backoff_fail(&s->backoff, peer);
	bp_addr_str(peer, who, sizeof(who));
	bp_info_peer(who, "%s: data connection for the test of %s %s: "
		     "refused", who, ss->peer,
		     rc == -EALREADY ? "repeats a stream's key proof" :
		     rc == -ERANGE ? "proves a stream the test does not have" :
		     rc == -EBADMSG ? "sent no key proof" : "has a wrong key proof");
}

static void proof_readable(struct bp_flow *f, uint32_t events)
{
	struct srv_proof *p = f->data;
	struct srv_session *ss = p->ss;
	unsigned char buf[BP_PSK_STREAM_PROOF_LEN];
	struct bp_addr peer = p->peer;
	int fd = f->fd;
	ssize_t n;

	(void)events;
	n = recv(fd, p->buf + p->have, sizeof(p->buf) - p->have, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		/* gone before its proof was whole: as a proof it sent nothing */
		proof_free(p, true);
		return;
	}
	if (n > 0)
		p->have += (size_t)n;
	if (p->have < sizeof(p->buf))
		return;
	memcpy(buf, p->buf, sizeof(buf));
	/* Out of the loop first: the fd is about to be registered again by its stream. */
	proof_free(p, false);
	check(ss, fd, &peer, buf, sizeof(buf));
}

void srv_proof_start(struct srv_session *ss, int fd, const struct bp_addr *peer)
{
	unsigned char buf[BP_PSK_STREAM_PROOF_LEN];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	struct srv_proof *p;

	if (n == (ssize_t)sizeof(buf)) {
		check(ss, fd, peer, buf, sizeof(buf));
		return;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) ||
	    ss->nproofs >= SRV_PROOFS_MAX || !(p = calloc(1, sizeof(*p)))) {
		close(fd);
		return;
	}
	p->ss = ss;
	p->peer = *peer;
	if (n > 0) {
		memcpy(p->buf, buf, (size_t)n);
		p->have = (size_t)n;
	}
	p->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = proof_readable,
				    .data = p };
	if (bp_loop_add(ss->srv->loop, &p->flow)) {
		close(fd);
		free(p);
		return;
	}
	p->next = ss->proofs;
	ss->proofs = p;
	ss->nproofs++;
}
