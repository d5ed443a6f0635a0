#include "rr/rr_stats.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

const char *bp_rr_fail_name(enum bp_rr_fail f)
{
	static const char *const names[BP_RR_NFAIL] = { "refused", "reset", "timeout",
							"no_port", "other" };

	return f < BP_RR_NFAIL ? names[f] : "other";
}

enum bp_rr_fail bp_rr_fail_of(int err)
{
	switch (err) {
	case ECONNREFUSED:
		return BP_RR_FAIL_REFUSED;
	case ECONNRESET:
	case EPIPE:
	case ECONNABORTED:
		return BP_RR_FAIL_RESET;
	case ETIMEDOUT:
	case EHOSTUNREACH:  /* a router's ICMP after the SYN went unanswered */
		return BP_RR_FAIL_TIMEOUT;
	case EADDRNOTAVAIL:
		return BP_RR_FAIL_NO_PORT;
	default:
		return BP_RR_FAIL_OTHER;
	}
}

void bp_rr_counts_add(struct bp_rr_counts *dst, const struct bp_rr_counts *src)
{
	dst->transactions += src->transactions;
	dst->connects += src->connects;
	dst->late += src->late;
	for (int i = 0; i < BP_RR_NFAIL; i++)
		dst->fails[i] += src->fails[i];
}

uint64_t bp_rr_counts_failures(const struct bp_rr_counts *c)
{
	uint64_t n = 0;

	for (int i = 0; i < BP_RR_NFAIL; i++)
		n += c->fails[i];
	return n;
}

int bp_rr_stats_init(struct bp_rr_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (bp_conn_hists_init(&s->iv_h))
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void bp_rr_stats_free(struct bp_rr_stats *s)
{
	if (!s->iv_h.latency)
		return;
	bp_conn_hists_free(&s->iv_h);
	pthread_mutex_destroy(&s->lock);
}

bool bp_rr_stats_ended(const struct bp_rr_stats *s, uint64_t now)
{
	uint64_t end = __atomic_load_n(&s->end_ns, __ATOMIC_RELAXED);

	return end && now > end;
}

void bp_rr_stats_transaction(struct bp_rr_stats *s, uint64_t now, uint64_t latency_ns,
			     bool late)
{
	pthread_mutex_lock(&s->lock);
	if (!bp_rr_stats_ended(s, now)) {
		s->iv.transactions++;
		s->iv.late += late;
		bp_histo_record(s->iv_h.latency, latency_ns);
	}
	pthread_mutex_unlock(&s->lock);
}

void bp_rr_stats_connect(struct bp_rr_stats *s, uint64_t now, uint64_t latency_ns)
{
	pthread_mutex_lock(&s->lock);
	if (!bp_rr_stats_ended(s, now)) {
		s->iv.connects++;
		bp_histo_record(s->iv_h.connect, latency_ns);
	}
	pthread_mutex_unlock(&s->lock);
}

void bp_rr_stats_fail(struct bp_rr_stats *s, uint64_t now, enum bp_rr_fail kind)
{
	pthread_mutex_lock(&s->lock);
	if (!bp_rr_stats_ended(s, now))
		s->iv.fails[kind < BP_RR_NFAIL ? kind : BP_RR_FAIL_OTHER]++;
	pthread_mutex_unlock(&s->lock);
}

void bp_rr_stats_end_at(struct bp_rr_stats *s, uint64_t end_ns)
{
	__atomic_store_n(&s->end_ns, end_ns, __ATOMIC_RELAXED);
}

void bp_rr_stats_take(struct bp_rr_stats *s, struct bp_rr_counts *counts,
		      struct bp_conn_hists *hists)
{
	pthread_mutex_lock(&s->lock);
	bp_rr_counts_add(counts, &s->iv);
	bp_conn_hists_merge(hists, &s->iv_h);
	memset(&s->iv, 0, sizeof(s->iv));
	bp_conn_hists_reset(&s->iv_h);
	pthread_mutex_unlock(&s->lock);
}
