#include "http/http_stats.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *bp_http_err_name(enum bp_http_err e)
{
	static const char *const names[BP_HTTP_NERR] = {
		"connect", "read", "write", "timeout", "parse", "non_2xx",
	};

	return e < BP_HTTP_NERR ? names[e] : "other";
}

void bp_http_counts_add(struct bp_http_counts *dst, const struct bp_http_counts *src)
{
	dst->requests += src->requests;
	dst->bytes += src->bytes;
	dst->connects += src->connects;
	dst->late += src->late;
	for (int i = 0; i < BP_HTTP_NERR; i++)
		dst->errors[i] += src->errors[i];
}

uint64_t bp_http_counts_errors(const struct bp_http_counts *c)
{
	uint64_t n = 0;

	for (int i = 0; i < BP_HTTP_NERR; i++)
		n += c->errors[i];
	return n;
}

int bp_http_stats_init(struct bp_http_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (bp_conn_hists_init(&s->h))
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void bp_http_stats_free(struct bp_http_stats *s)
{
	if (!s->h.latency)
		return;
	bp_conn_hists_free(&s->h);
	pthread_mutex_destroy(&s->lock);
}

void bp_http_stats_response(struct bp_http_stats *s, unsigned status, uint64_t latency_ns,
			    bool late)
{
	pthread_mutex_lock(&s->lock);
	s->iv.requests++;
	s->iv.late += late;
	s->status[status < BP_HTTP_STATUS_MAX ? status : 0]++;
	if (status < 200 || status > 299)
		s->iv.errors[BP_HTTP_ERR_STATUS]++;
	bp_histo_record(s->h.latency, latency_ns);
	pthread_mutex_unlock(&s->lock);
}

void bp_http_stats_bytes(struct bp_http_stats *s, uint64_t n)
{
	pthread_mutex_lock(&s->lock);
	s->iv.bytes += n;
	pthread_mutex_unlock(&s->lock);
}

void bp_http_stats_connect(struct bp_http_stats *s, uint64_t latency_ns)
{
	pthread_mutex_lock(&s->lock);
	s->iv.connects++;
	bp_histo_record(s->h.connect, latency_ns);
	pthread_mutex_unlock(&s->lock);
}

void bp_http_stats_error(struct bp_http_stats *s, enum bp_http_err e, uint64_t count,
			 const char *msg)
{
	if (e >= BP_HTTP_NERR)
		return;
	pthread_mutex_lock(&s->lock);
	s->iv.errors[e] += count;
	if (msg && !s->first_error[e][0])
		snprintf(s->first_error[e], sizeof(s->first_error[e]), "%s", msg);
	pthread_mutex_unlock(&s->lock);
}

void bp_http_stats_take(struct bp_http_stats *s, struct bp_http_counts *counts,
			uint64_t *status, struct bp_conn_hists *hists)
{
	pthread_mutex_lock(&s->lock);
	bp_http_counts_add(counts, &s->iv);
	for (int i = 0; i < BP_HTTP_STATUS_MAX; i++)
		status[i] += s->status[i];
	bp_conn_hists_merge(hists, &s->h);
	memset(&s->iv, 0, sizeof(s->iv));
	memset(s->status, 0, sizeof(s->status));
	bp_conn_hists_reset(&s->h);
	pthread_mutex_unlock(&s->lock);
}

