#include "server/server_limits.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
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

bool bp_client_key_same_subnet(const struct bp_client_key *a, const struct bp_client_key *b)
{
	bool v4a = IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)(const void *)a->addr);
	bool v4b = IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)(const void *)b->addr);

	if (v4a != v4b)
		return false;
	/* ::ffff:a.b.c.d: the /24 is the first 15 bytes; IPv6: the /64, the first 8 */
	return v4a ? !memcmp(a->addr, b->addr, 15) :
	       !memcmp(a->addr, b->addr, 8) && a->scope == b->scope;
}

char *bp_client_subnet_str(const struct bp_client_key *k, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned char net[16] = { 0 };
	bool v4 = IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)(const void *)k->addr);

	memcpy(net, k->addr, v4 ? 15 : 8);
	if (v4)
		inet_ntop(AF_INET, net + 12, host, sizeof(host));
	else
		inet_ntop(AF_INET6, net, host, sizeof(host));
	snprintf(buf, len, "%s/%d", host, v4 ? 24 : 64);
	return buf;
}

int bp_limits_subnet_share(int max_clients)
{
	return max_clients > 0 ? max_clients - max_clients / 4 : 0;
}

uint64_t bp_limits_streams_due_ns(const struct bp_server_opts *o, uint64_t since_ns)
{
	uint64_t wait = BP_SERVER_STREAMS_WAIT_NS;

	if (o->idle_timeout_ns && o->idle_timeout_ns < wait)
		wait = o->idle_timeout_ns;
	return since_ns + wait;
}

static bool remembered(const struct bp_stallers *st, unsigned i, uint64_t now_ns)
{
	return st->at_ns[i] && now_ns - st->at_ns[i] < BP_STALLERS_MEMORY_NS;
}

void bp_stallers_note(struct bp_stallers *st, const struct bp_client_key *k, uint64_t now_ns)
{
	for (unsigned i = 0; i < BP_STALLERS; i++)
		if (st->at_ns[i] && bp_client_key_equal(&st->key[i], k)) {
			st->at_ns[i] = now_ns ? now_ns : 1;
			return;
		}
	st->key[st->next] = *k;
	st->at_ns[st->next] = now_ns ? now_ns : 1;
	st->next = (st->next + 1) % BP_STALLERS;
}

bool bp_stallers_has(const struct bp_stallers *st, const struct bp_client_key *k,
		     uint64_t now_ns)
{
	for (unsigned i = 0; i < BP_STALLERS; i++)
		if (remembered(st, i, now_ns) && bp_client_key_equal(&st->key[i], k))
			return true;
	return false;
}

bool bp_limits_may_take(uint64_t now_ns, uint64_t since_ns, int victim_subnet,
			int newcomer_subnet, bool newcomer_stalled)
{
	return !newcomer_stalled && now_ns >= since_ns &&
	       now_ns - since_ns >= BP_SERVER_STALLED_NS && victim_subnet > newcomer_subnet;
}

uint64_t bp_slot_due_ns(const struct bp_server_opts *o, const struct bp_slot *sl)
{
	if (sl->ending)
		return 0;
	if (sl->running)
		return sl->since_ns + sl->length_ns;
	return bp_limits_streams_due_ns(o, sl->since_ns);
}

int bp_limits_retry_s(uint64_t now_ns, uint64_t due_ns)
{
	uint64_t left = due_ns - now_ns, s;

	if (due_ns <= now_ns)
		return 1;
	s = left / BP_NS_PER_SEC + (left % BP_NS_PER_SEC != 0);  /* up, without overflowing */
	/* a slot held longer than a day is no estimate worth printing: --max-duration is 1 d */
	return s > 86400 ? 86400 : (int)s;
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
	int share = bp_limits_subnet_share(o->max_clients);

	if (o->max_clients > 0 && a->running >= o->max_clients) {
		snprintf(msg, len, "server busy: %d tests running (--max-clients %d); "
			 "try again in %d s", a->running, o->max_clients,
			 bp_limits_retry_s(a->now_ns, a->due_ns));
		return BP_LIMIT_CLIENTS;
	}
	if (o->max_per_client > 0 && a->running_from_client >= o->max_per_client) {
		snprintf(msg, len, "server busy for %s: %d tests from this address running "
			 "(--max-per-client %d); try again in %d s", a->client ? a->client : "?",
			 a->running_from_client, o->max_per_client,
			 bp_limits_retry_s(a->now_ns, a->due_client_ns));
		return BP_LIMIT_PER_CLIENT;
	}
	if (share > 0 && a->running_from_subnet >= share) {
		snprintf(msg, len, "server busy for %s: %d tests from this subnet running (a "
			 "subnet's share: %d of --max-clients %d); try again in %d s",
			 a->subnet ? a->subnet : "?", a->running_from_subnet, share,
			 o->max_clients, bp_limits_retry_s(a->now_ns, a->due_subnet_ns));
		return BP_LIMIT_PER_SUBNET;
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
	return l == BP_LIMIT_CLIENTS || l == BP_LIMIT_PER_CLIENT || l == BP_LIMIT_PER_SUBNET;
}

int bp_limit_iperf3_code(enum bp_limit l)
{
	switch (l) {
	case BP_LIMIT_CLIENTS:
	case BP_LIMIT_PER_CLIENT:
	case BP_LIMIT_PER_SUBNET:
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

/* When an admitted session's slot is expected to free (bp_slot_due_ns). */
static uint64_t session_due_ns(const struct srv_session *ss)
{
	struct bp_slot sl = {
		.running = ss->state == SS_RUNNING,
		.ending = ss->state == SS_RESULTS || ss->state == SS_DONE || ss->dead,
		.since_ns = ss->state == SS_RUNNING ? ss->side.start_ns : ss->last_activity_ns,
		.length_ns = ss->np.omit_ns + ss->np.time_ns,
	};

	return bp_slot_due_ns(ss->srv->o, &sl);
}

/* The earlier of two dues, 0 being none. */
static uint64_t earlier(uint64_t a, uint64_t b)
{
	return !a || (b && b < a) ? b : a;
}

/* A test admitted and waiting for its streams, not already on its way out. */
static bool waiting_streams(const struct srv_session *ss)
{
	return ss->admitted && !ss->dead && ss->state == SS_STREAMS;
}

/*
 * The server is full: the test that has waited longest for its next stream, if it may give
 * its slot to ss (bp_limits_may_take), or NULL. Only the oldest is weighed, so that a flood
 * of newcomers at a full server costs two passes over the sessions each, not a search.
 */
static struct srv_session *stalled_victim(const struct srv_session *ss, int ss_subnet,
					  uint64_t now_ns)
{
	struct srv_session *oldest = NULL;
	int n = 0;

	for (struct srv_session *t = ss->srv->sessions; t; t = t->next)
		if (waiting_streams(t) && (!oldest || t->last_activity_ns < oldest->last_activity_ns))
			oldest = t;
	if (!oldest)
		return NULL;
	for (const struct srv_session *t = ss->srv->sessions; t; t = t->next)
		n += t->admitted && bp_client_key_same_subnet(&t->client, &oldest->client);
	return bp_limits_may_take(now_ns, oldest->last_activity_ns, n, ss_subnet,
				  bp_stallers_has(&ss->srv->stallers, &ss->client, now_ns)) ?
	       oldest : NULL;
}

enum bp_limit srv_limits_check(struct srv_session *ss, char *msg, size_t len,
			       struct srv_session **take)
{
	char client[INET6_ADDRSTRLEN], subnet[INET6_ADDRSTRLEN + 4];
	struct bp_limits_ask a;
	enum bp_limit l;

	*take = NULL;
	/*
	 * A control connection whose peer was gone when it came has no address: it counts under
	 * ::, and the answer that follows the admission finds the connection lost and ends it.
	 */
	if (!ss->ctl_addr.len ||
	    bp_client_key_from((const struct sockaddr *)&ss->ctl_addr.ss, ss->ctl_addr.len,
			       &ss->client))
		memset(&ss->client, 0, sizeof(ss->client));
	a = (struct bp_limits_ask){
		.time_ns = ss->np.time_ns, .omit_ns = ss->np.omit_ns,
		.rate = ss->np.bandwidth, .parallel = ss->np.parallel,
		.running = ss->srv->nsessions,
		.client = bp_client_key_str(&ss->client, client, sizeof(client)),
		.subnet = bp_client_subnet_str(&ss->client, subnet, sizeof(subnet)),
		.now_ns = bp_now_ns(),
	};
	/* One pass: the counts and, for a refusal's retry time, the earliest slot of each. */
	for (const struct srv_session *t = ss->srv->sessions; t; t = t->next) {
		uint64_t due;

		if (!t->admitted)
			continue;
		due = session_due_ns(t);
		a.due_ns = earlier(a.due_ns, due ? due : a.now_ns);
		if (bp_client_key_same_subnet(&t->client, &ss->client)) {
			a.running_from_subnet++;
			a.due_subnet_ns = earlier(a.due_subnet_ns, due ? due : a.now_ns);
		}
		if (bp_client_key_equal(&t->client, &ss->client)) {
			a.running_from_client++;
			a.due_client_ns = earlier(a.due_client_ns, due ? due : a.now_ns);
		}
	}
	l = bp_limits_check(ss->srv->o, &a, msg, len);
	if (l != BP_LIMIT_CLIENTS)
		return l;
	/* Full: admitted in a stalled test's place if nothing else would refuse it. */
	a.running--;
	if (bp_limits_check(ss->srv->o, &a, msg, len) != BP_LIMIT_NONE ||
	    !(*take = stalled_victim(ss, a.running_from_subnet, a.now_ns))) {
		a.running++;
		return bp_limits_check(ss->srv->o, &a, msg, len);
	}
	return BP_LIMIT_NONE;
}
