#include "server/server_limits.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "proto/iperf3_error.h"
#include "server/server_internal.h"

int bp_client_key_from(const struct sockaddr *sa, socklen_t len, struct bp_client_key *k)
{
	memset(k, 0, sizeof(*k));
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)(const void *)sa;

		k->addr[10] = 0xff;
		k->addr[11] = 0xff;
		memcpy(k->addr + 12, &sin->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)(const void *)sa;

		memcpy(k->addr, &sin6->sin6_addr, 16);
		/* Only a link-local address names its link; elsewhere the scope id is noise. */
		if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr))
			k->scope = sin6->sin6_scope_id;
		return 0;
	}
	return -EAFNOSUPPORT;
}

bool bp_client_key_equal(const struct bp_client_key *a, const struct bp_client_key *b)
{
	return !memcmp(a->addr, b->addr, sizeof(a->addr)) && a->scope == b->scope;
}

char *bp_client_key_str(const struct bp_client_key *k, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)(const void *)k->addr))
		inet_ntop(AF_INET, k->addr + 12, host, sizeof(host));
	else
		inet_ntop(AF_INET6, k->addr, host, sizeof(host));
	snprintf(buf, len, "%s", host);
	return buf;
}

/* The longer of time and omit against max without their sum overflowing. */
static bool too_long(uint64_t time_ns, uint64_t omit_ns, uint64_t max_ns)
{
	return time_ns > max_ns || omit_ns > max_ns - time_ns;
}

enum bp_limit bp_limits_check(const struct bp_server_opts *o, const struct bp_limits_ask *a,
			      char *msg, size_t len)
{
	char x[32], y[32], z[32];
	/* -b is per stream (as in iperf3); the limit is on the test's total, one direction. */
	double total = a->rate * (a->parallel > 0 ? a->parallel : 1);

	if (o->max_clients > 0 && a->running >= o->max_clients) {
		snprintf(msg, len, "server busy: %d tests running (--max-clients %d); "
			 "try again later", a->running, o->max_clients);
		return BP_LIMIT_CLIENTS;
	}
	if (o->max_per_client > 0 && a->running_from_client >= o->max_per_client) {
		snprintf(msg, len, "server busy for %s: %d tests from this address running "
			 "(--max-per-client %d); try again later", a->client ? a->client : "?",
			 a->running_from_client, o->max_per_client);
		return BP_LIMIT_PER_CLIENT;
	}
	if (o->max_duration_ns && too_long(a->time_ns, a->omit_ns, o->max_duration_ns)) {
		/* In seconds: a sum of two values each up to 2^64 ns does not fit the format. */
		snprintf(msg, len, "test of %s exceeds the server's --max-duration %s",
			 bp_format_duration(x, sizeof(x), (double)a->time_ns + (double)a->omit_ns),
			 bp_format_duration(y, sizeof(y), (double)o->max_duration_ns));
		return BP_LIMIT_DURATION;
	}
	if (o->max_streams > 0 && a->parallel > o->max_streams) {
		snprintf(msg, len, "%d parallel streams exceed the server's --max-streams %d",
			 a->parallel, o->max_streams);
		return BP_LIMIT_STREAMS;
	}
	if (o->max_rate > 0 && total > o->max_rate) {
		if (a->parallel > 1)
			snprintf(msg, len, "rate %s (%d streams at -b %s) exceeds the server's "
				 "--max-rate %s", bp_format_rate(x, sizeof(x), total), a->parallel,
				 bp_format_rate(y, sizeof(y), a->rate),
				 bp_format_rate(z, sizeof(z), o->max_rate));
		else
			snprintf(msg, len, "rate %s exceeds the server's --max-rate %s",
				 bp_format_rate(x, sizeof(x), total),
				 bp_format_rate(y, sizeof(y), o->max_rate));
		return BP_LIMIT_RATE;
	}
	return BP_LIMIT_NONE;
}

bool bp_limit_busy(enum bp_limit l)
{
	return l == BP_LIMIT_CLIENTS || l == BP_LIMIT_PER_CLIENT;
}

int bp_limit_iperf3_code(enum bp_limit l)
{
	switch (l) {
	case BP_LIMIT_CLIENTS:
	case BP_LIMIT_PER_CLIENT:
		return BP_IE_ACCESSDENIED;
	case BP_LIMIT_DURATION:
		return BP_IE_DURATION;
	case BP_LIMIT_STREAMS:
		return BP_IE_NUMSTREAMS;
	case BP_LIMIT_RATE:
		return BP_IE_TOTALRATE;
	case BP_LIMIT_NONE:
		break;
	}
	return BP_IE_NONE;
}

int srv_limits_running_from(const struct srv *s, const struct bp_client_key *k)
{
	int n = 0;

	for (const struct srv_session *ss = s->sessions; ss; ss = ss->next)
		if (ss->admitted && bp_client_key_equal(&ss->client, k))
			n++;
	return n;
}

enum bp_limit srv_limits_check(struct srv_session *ss, char *msg, size_t len)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	char client[INET6_ADDRSTRLEN];
	struct bp_limits_ask a;

	/*
	 * A control connection whose peer is gone has no address: it counts under ::, and the
	 * answer that follows the admission finds the connection lost and ends it.
	 */
	if (getpeername(ss->flow.fd, (struct sockaddr *)&peer, &plen) ||
	    bp_client_key_from((const struct sockaddr *)&peer, plen, &ss->client))
		memset(&ss->client, 0, sizeof(ss->client));
	a = (struct bp_limits_ask){
		.time_ns = ss->np.time_ns, .omit_ns = ss->np.omit_ns,
		.rate = ss->np.bandwidth, .parallel = ss->np.parallel,
		.running = ss->srv->nsessions,
		.running_from_client = srv_limits_running_from(ss->srv, &ss->client),
		.client = bp_client_key_str(&ss->client, client, sizeof(client)),
	};
	return bp_limits_check(ss->srv->o, &a, msg, len);
}
