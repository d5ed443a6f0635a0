/*
 * Fuzz target for the HTTP code that reads a stranger's bytes: the client's response
 * framing around http_parser (src/http/http_response.c) and the responder's routes
 * (src/http/http_route.c) with the replies they produce (src/http/http_reply.c).
 *
 * The input is fed as responses whole, one byte per call and in chunks drawn from a
 * generator seeded by the input; the three must agree on the answers counted, their
 * statuses, the bodies' first bytes kept (export --push quotes them) and the outcome. The
 * same input is taken as a request target: its route's reply, produced in pieces, must
 * have exactly the length the reply says it has.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http/http_reply.h"
#include "http/http_response.h"
#include "http/http_route.h"

struct outcome {
	int rc, eof_rc;
	unsigned n;
	uint64_t digest;
	char kept[64];  /* the bodies' first bytes (bp_http_resp_keep_body) */
	size_t nkept;
};

static void done(void *arg, unsigned status, bool keep_alive)
{
	struct outcome *o = arg;

	o->n++;
	o->digest = (o->digest ^ (status * 2u + keep_alive)) * 0x100000001b3ULL;
}

static size_t next_chunk(int split, uint64_t *rng)
{
	if (split == 0)
		return SIZE_MAX;
	if (split == 1)
		return 1;
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return 1 + (*rng >> 8) % 97;
}

static void feed(const uint8_t *data, size_t size, bool head, int split, uint64_t seed,
		 struct outcome *o)
{
	struct bp_http_resp r;
	uint64_t rng = seed | 1;
	size_t off = 0;

	memset(o, 0, sizeof(*o));
	bp_http_resp_init(&r, head, done, o);
	bp_http_resp_keep_body(&r, o->kept, sizeof(o->kept));
	while (off < size && !o->rc) {
		size_t n = next_chunk(split, &rng);

		if (n > size - off)
			n = size - off;
		o->rc = bp_http_resp_feed(&r, (const char *)data + off, n);
		off += n;
	}
	/* A body's rest may be skipped unread (as the client does with MSG_TRUNC). */
	if (!o->rc && bp_http_resp_skippable(&r))
		bp_http_resp_skip(&r, (size_t)(seed % 4096) + 1);
	if (!o->rc)
		o->eof_rc = bp_http_resp_eof(&r);
	o->nkept = r.kept;
	if (o->nkept > sizeof(o->kept))
		abort();
}

static void check_reply(const uint8_t *data, size_t size, bool head)
{
	char hdr[BP_HTTP_REPLY_HDR_MAX], scratch[BP_HTTP_REPLY_SCRATCH];
	struct bp_http_route route;
	struct bp_http_reply r;
	struct iovec iov[4];
	uint64_t total;
	size_t hl;

	bp_http_route_of((const char *)data, size, &route);
	if (route.size > BP_HTTP_ROUTE_MAX_SIZE)
		abort();
	if (route.size > (256u << 10))
		return;  /* a gigabyte of zeros proves nothing more than 256 KiB does */
	bp_http_reply_init(&r, &route, head, size & 1, size & 2, (int64_t)size * 7919);
	hl = bp_http_reply_header(&r, hdr);
	total = bp_http_reply_length(&r, hl);
	while (r.off < total) {
		size_t got = 0;
		int n = bp_http_reply_iov(&r, hdr, hl, scratch, iov, 4, 1 + size % 5000, &got);

		if (n <= 0 || !got)
			abort();  /* no progress before the end: a generator bug */
		r.off += got;
	}
	if (r.off != total)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t seed = 0xcbf29ce484222325ULL;
	struct outcome ref, o;

	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ULL;
	for (int head = 0; head < 2; head++) {
		feed(data, size, head, 0, seed, &ref);
		for (int split = 1; split < 3; split++) {
			feed(data, size, head, split, seed, &o);
			/* A refused stream may be refused at a different byte; the answers before
			 * the refusal and the verdict must not differ. */
			if (o.rc != ref.rc || (!o.rc && (o.n != ref.n || o.digest != ref.digest ||
							 o.eof_rc != ref.eof_rc || o.nkept != ref.nkept ||
							 memcmp(o.kept, ref.kept, o.nkept))))
				abort();
		}
		check_reply(data, size, head);
	}
	return 0;
}
