#include "server/server_backoff.h"

#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

/* A record counts by bp_addr_host_key (io/sock.h): an IPv4 address or an IPv6 /64, as
 * server_pending.c counts connections without a cookie. */
uint64_t srv_backoff_delay_ns(uint32_t n)
{
	uint32_t k;

	if (n <= SRV_BACKOFF_FREE)
		return 0;
	k = n - SRV_BACKOFF_FREE - 1;
	/* 125 ms << 4 is the cap already: no shift can overflow */
	return k >= 4 ? SRV_BACKOFF_MAX_NS : SRV_BACKOFF_BASE_NS << k;
}

/* addr's live record, or NULL. A record quiet for SRV_BACKOFF_FORGET_NS is freed here. */
static struct srv_backoff_rec *find(struct srv_backoff *b, const unsigned char key[16],
				    uint64_t now)
{
	if (!b->recs)
		return NULL;
	for (int i = 0; i < SRV_BACKOFF_RECORDS; i++) {
		struct srv_backoff_rec *r = &b->recs[i];

		if (!r->fails || memcmp(r->host, key, 16))
			continue;
		if (now - r->last_fail_ns >= SRV_BACKOFF_FORGET_NS) {
			r->fails = 0;
			return NULL;
		}
		return r;
	}
	return NULL;
}

/* A record for key: a free or forgotten one, else the one quiet the longest. */
static struct srv_backoff_rec *make(struct srv_backoff *b, const unsigned char key[16],
				    uint64_t now)
{
	struct srv_backoff_rec *oldest = NULL;

	if (!b->recs && !(b->recs = calloc(SRV_BACKOFF_RECORDS, sizeof(*b->recs))))
		return NULL;
	for (int i = 0; i < SRV_BACKOFF_RECORDS; i++) {
		struct srv_backoff_rec *r = &b->recs[i];

		if (!r->fails || now - r->last_fail_ns >= SRV_BACKOFF_FORGET_NS) {
			oldest = r;
			break;
		}
		if (!oldest || r->last_fail_ns < oldest->last_fail_ns)
			oldest = r;
	}
	memset(oldest, 0, sizeof(*oldest));
	memcpy(oldest->host, key, 16);
	return oldest;
}

uint64_t srv_backoff_try(struct srv_backoff *b, const struct bp_addr *addr)
{
	uint64_t now = bp_now_ns();
	unsigned char key[16];
	struct srv_backoff_rec *r;

	bp_addr_host_key(addr, key);
	r = find(b, key, now);
	if (!r)
		return 0;
	if (now < r->next_ok_ns) {
		b->held++;
		return r->next_ok_ns - now;
	}
	if (now - b->window_ns >= BP_NS_PER_SEC) {
		b->window_ns = now;
		b->window_tries = 0;
	}
	if (b->window_tries >= SRV_BACKOFF_GLOBAL_PER_SEC) {
		b->held++;
		return b->window_ns + BP_NS_PER_SEC - now;
	}
	b->window_tries++;
	/* The wait this try would earn if wrong, taken now: a parallel try finds it set. */
	r->next_ok_ns = now + srv_backoff_delay_ns(r->fails + 1);
	return 0;
}

void srv_backoff_fail(struct srv_backoff *b, const struct bp_addr *addr)
{
	uint64_t now = bp_now_ns(), next;
	unsigned char key[16];
	struct srv_backoff_rec *r;

	bp_addr_host_key(addr, key);
	r = find(b, key, now);
	if (!r && !(r = make(b, key, now)))
		return;  /* out of memory: the global cap still holds */
	if (r->fails < UINT32_MAX)
		r->fails++;
	r->last_fail_ns = now;
	next = now + srv_backoff_delay_ns(r->fails);
	if (next > r->next_ok_ns)
		r->next_ok_ns = next;
}

void srv_backoff_pass(struct srv_backoff *b, const struct bp_addr *addr)
{
	unsigned char key[16];
	struct srv_backoff_rec *r;

	bp_addr_host_key(addr, key);
	r = find(b, key, bp_now_ns());
	if (r)
		r->fails = 0;
}

void srv_backoff_free(struct srv_backoff *b)
{
	free(b->recs);
	b->recs = NULL;
}
