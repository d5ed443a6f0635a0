#include "stats/txn_stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bp_txn_counts_add(struct bp_txn_counts *dst, const struct bp_txn_counts *src)
{
	dst->done += src->done;
	dst->connects += src->connects;
	dst->late += src->late;
	dst->started += src->started;
	dst->drained += src->drained;
	dst->retransmits += src->retransmits;
	dst->bytes += src->bytes;
	for (int i = 0; i < BP_TXN_MAX_KINDS; i++)
		dst->fails[i] += src->fails[i];
}

uint64_t bp_txn_counts_failures(const struct bp_txn_counts *c)
{
	uint64_t n = 0;

	for (int i = 0; i < BP_TXN_MAX_KINDS; i++)
		n += c->fails[i];
	return n;
}

int bp_txn_stats_init(struct bp_txn_stats *s, size_t nclasses)
{
	memset(s, 0, sizeof(*s));
	if (nclasses) {
		s->classes = calloc(nclasses, sizeof(*s->classes));
		if (!s->classes)
			return -ENOMEM;
		s->nclasses = nclasses;
	}
	if (bp_conn_hists_init(&s->h)) {
		free(s->classes);
		s->classes = NULL;
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void bp_txn_stats_free(struct bp_txn_stats *s)
{
	if (!s->h.latency)
		return;
	bp_conn_hists_free(&s->h);
	free(s->classes);
	s->classes = NULL;
	pthread_mutex_destroy(&s->lock);
}

bool bp_txn_stats_ended(const struct bp_txn_stats *s, uint64_t now)
{
	uint64_t end = __atomic_load_n(&s->end_ns, __ATOMIC_RELAXED);

	return end && now > end;
}

/* An outcome at now counts: before the end, or after it within the drain. */
static bool counts(const struct bp_txn_stats *s, uint64_t now)
{
	return !bp_txn_stats_ended(s, now) || now <= __atomic_load_n(&s->drain_ns, __ATOMIC_RELAXED);
}

void bp_txn_stats_done(struct bp_txn_stats *s, uint64_t now, uint64_t latency_ns, bool late,
		       size_t cls)
{
	pthread_mutex_lock(&s->lock);
	if (counts(s, now)) {
		if (bp_txn_stats_ended(s, now))
			s->iv.drained++;
		else
			s->iv.done++;
		s->iv.late += late;
		if (cls < s->nclasses)
			s->classes[cls]++;
		bp_histo_record(s->h.latency, latency_ns);
	}
	pthread_mutex_unlock(&s->lock);
}

void bp_txn_stats_connect(struct bp_txn_stats *s, uint64_t now, uint64_t latency_ns)
{
	pthread_mutex_lock(&s->lock);
	if (counts(s, now)) {
		s->iv.connects++;
		bp_histo_record(s->h.connect, latency_ns);
	}
	pthread_mutex_unlock(&s->lock);
}

void bp_txn_stats_bytes(struct bp_txn_stats *s, uint64_t now, uint64_t n)
{
	pthread_mutex_lock(&s->lock);
	if (!bp_txn_stats_ended(s, now))
		s->iv.bytes += n;
	pthread_mutex_unlock(&s->lock);
}

void bp_txn_stats_started(struct bp_txn_stats *s, uint64_t now)
{
	pthread_mutex_lock(&s->lock);
	if (!bp_txn_stats_ended(s, now))
		s->iv.started++;
	pthread_mutex_unlock(&s->lock);
}

void bp_txn_stats_retransmits(struct bp_txn_stats *s, uint64_t now, uint64_t n)
{
	pthread_mutex_lock(&s->lock);
	if (counts(s, now))
		s->iv.retransmits += n;
	pthread_mutex_unlock(&s->lock);
}

void bp_txn_stats_fail(struct bp_txn_stats *s, uint64_t now, unsigned kind, uint64_t count,
		       const char *msg)
{
	if (kind >= BP_TXN_MAX_KINDS)
		return;
	pthread_mutex_lock(&s->lock);
	if (counts(s, now)) {
		s->iv.fails[kind] += count;
		if (msg && !s->first_msg[kind][0])
			snprintf(s->first_msg[kind], sizeof(s->first_msg[kind]), "%s", msg);
	}
	pthread_mutex_unlock(&s->lock);
}

void bp_txn_stats_end_at(struct bp_txn_stats *s, uint64_t end_ns)
{
	__atomic_store_n(&s->end_ns, end_ns, __ATOMIC_RELAXED);
}

void bp_txn_stats_drain_until(struct bp_txn_stats *s, uint64_t drain_ns)
{
	__atomic_store_n(&s->drain_ns, drain_ns, __ATOMIC_RELAXED);
}

void bp_txn_stats_take(struct bp_txn_stats *s, struct bp_txn_counts *counts,
		       uint64_t *classes, struct bp_conn_hists *hists)
{
	pthread_mutex_lock(&s->lock);
	bp_txn_counts_add(counts, &s->iv);
	for (size_t i = 0; classes && i < s->nclasses; i++)
		classes[i] += s->classes[i];
	bp_conn_hists_merge(hists, &s->h);
	memset(&s->iv, 0, sizeof(s->iv));
	if (s->classes)
		memset(s->classes, 0, s->nclasses * sizeof(*s->classes));
	bp_conn_hists_reset(&s->h);
	pthread_mutex_unlock(&s->lock);
}
