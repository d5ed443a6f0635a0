#include "core/log_limit.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ADDR_COST_NS (BP_NS_PER_SEC / BP_LOG_ADDR_PER_SEC)
#define ALL_COST_NS (BP_NS_PER_SEC / BP_LOG_ALL_PER_SEC)
/* The most addresses a sum names; the rest are summed as "from N other addresses". */
#define SUM_NAMES 3

void bp_log_limit_key(const char *peer, char *key, size_t len)
{
	char host[64];
	const char *end;
	unsigned char a6[16];
	struct in_addr a4;

	key[0] = '\0';
	if (!peer || len < 2)
		return;
	if (peer[0] == '[') {
		end = strchr(peer, ']');
		if (!end || (size_t)(end - peer - 1) >= sizeof(host))
			return;
		memcpy(host, peer + 1, (size_t)(end - peer - 1));
		host[end - peer - 1] = '\0';
		if (inet_pton(AF_INET6, host, a6) != 1)
			return;
		/* One host, or one LAN's hosts, hold a /64 (as --max-pending-per-addr counts). */
		memset(a6 + 8, 0, 8);
		if (!inet_ntop(AF_INET6, a6, host, sizeof(host)))
			return;
		snprintf(key, len, "%s/64", host);
		return;
	}
	end = strrchr(peer, ':');
	if (!end || (size_t)(end - peer) >= sizeof(host))
		return;
	memcpy(host, peer, (size_t)(end - peer));
	host[end - peer] = '\0';
	if (inet_pton(AF_INET, host, &a4) == 1)
		snprintf(key, len, "%s", host);
}

/* Adds what time brought (up to a burst), then false when a line's cost is not there. */
static bool bucket_has(struct bp_log_bucket *b, uint64_t now, uint64_t cost, unsigned burst)
{
	uint64_t full = cost * burst;

	if (!b->refill_ns || (now > b->refill_ns && now - b->refill_ns >= full))
		b->credit_ns = full;
	else if (now > b->refill_ns)
		b->credit_ns = b->credit_ns + (now - b->refill_ns) > full ?
			       full : b->credit_ns + (now - b->refill_ns);
	if (!b->refill_ns || now > b->refill_ns)
		b->refill_ns = now ? now : 1;  /* 0 means "never" */
	return b->credit_ns >= cost;
}

/* The address's place, a free one, or the one quiet longest (its count goes to evicted). */
static struct bp_log_addr *place(struct bp_log_limit *l, const char *key)
{
	struct bp_log_addr *free_one = NULL, *oldest = NULL;

	for (int i = 0; i < BP_LOG_ADDRS; i++) {
		struct bp_log_addr *a = &l->addrs[i];

		if (a->used && !strcmp(a->key, key))
			return a;
		if (!a->used && !free_one)
			free_one = a;
		if (a->used && (!oldest || a->seen_ns < oldest->seen_ns))
			oldest = a;
	}
	if (!free_one) {
		free_one = oldest;
		l->evicted += oldest->suppressed;
	}
	memset(free_one, 0, sizeof(*free_one));
	free_one->used = true;
	snprintf(free_one->key, sizeof(free_one->key), "%s", key);
	return free_one;
}

bool bp_log_limit_pass(struct bp_log_limit *l, const char *peer, enum bp_log_level level,
		       uint64_t now_ns)
{
	char key[sizeof(l->addrs[0].key)];
	struct bp_log_addr *a;
	bool here, all;

	bp_log_limit_key(peer, key, sizeof(key));
	a = place(l, key);
	a->seen_ns = now_ns;
	/* Both refill first; only a line that both let out takes from both. */
	here = bucket_has(&a->bucket, now_ns, ADDR_COST_NS, BP_LOG_ADDR_BURST);
	all = bucket_has(&l->all, now_ns, ALL_COST_NS, BP_LOG_ALL_BURST);
	if (here && all) {
		a->bucket.credit_ns -= ADDR_COST_NS;
		l->all.credit_ns -= ALL_COST_NS;
		return true;
	}
	if (!l->suppressed) {
		l->first_ns = now_ns;
		l->level = level;
	}
	if (level < l->level)
		l->level = level;
	l->last_ns = now_ns;
	l->suppressed++;
	a->suppressed++;
	return false;
}

/* The index of the address with the most left out, not yet named (-1: none left). */
static int most(const struct bp_log_limit *l, const bool named[BP_LOG_ADDRS])
{
	int best = -1;

	for (int i = 0; i < BP_LOG_ADDRS; i++)
		if (!named[i] && l->addrs[i].suppressed &&
		    (best < 0 || l->addrs[i].suppressed > l->addrs[best].suppressed))
			best = i;
	return best;
}

bool bp_log_limit_sum(struct bp_log_limit *l, uint64_t now_ns, bool force, char *buf,
		      size_t len, enum bp_log_level *level)
{
	bool named[BP_LOG_ADDRS] = { false };
	unsigned long rest = l->evicted;
	int others = 0, n, k;
	size_t used;

	if (!l->suppressed || (!force && now_ns - l->last_ns < BP_LOG_QUIET_NS &&
			       now_ns - l->first_ns < BP_LOG_SUM_NS))
		return false;
	used = (size_t)snprintf(buf, len, "log: %lu line%s from peers suppressed over %.1f s (",
				l->suppressed, l->suppressed == 1 ? "" : "s",
				(double)(l->last_ns - l->first_ns) / 1e9);
	for (k = 0; k < SUM_NAMES && (n = most(l, named)) >= 0; k++) {
		named[n] = true;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%lu from %s",
						 k ? ", " : "", l->addrs[n].suppressed,
						 l->addrs[n].key[0] ? l->addrs[n].key :
						 "no address");
	}
	while ((n = most(l, named)) >= 0) {
		named[n] = true;
		rest += l->addrs[n].suppressed;
		others++;
	}
	/* An address that gave its place up is not told apart from the others any more. */
	if (rest && used < len && l->evicted)
		used += (size_t)snprintf(buf + used, len - used, "%s%lu from other addresses",
					 k ? ", " : "", rest);
	else if (rest && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s%lu from %d other address%s",
					 k ? ", " : "", rest, others, others == 1 ? "" : "es");
	if (used < len)
		snprintf(buf + used, len - used, "): at most %d a second from one address (a "
			 "burst of %d), %d a second in all (a burst of %d)", BP_LOG_ADDR_PER_SEC,
			 BP_LOG_ADDR_BURST, BP_LOG_ALL_PER_SEC, BP_LOG_ALL_BURST);
	*level = l->level;
	for (int i = 0; i < BP_LOG_ADDRS; i++)
		l->addrs[i].suppressed = 0;
	l->suppressed = l->evicted = 0;
	return true;
}

/* Lines from peers are few when all is well: one lock for the process's limiter. */
static pthread_mutex_t limit_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bp_log_limit limit;

void bp_log_peer(const char *peer, enum bp_log_level level, const char *fmt, ...)
{
	char line[1024], sum[512];
	enum bp_log_level sum_level = BP_LOG_INFO;
	bool pass, summed;
	va_list ap;

	if (level > bp_log_get_level())
		return;
	pthread_mutex_lock(&limit_lock);
	{
		/* read under the lock: the buckets never see time go back */
		uint64_t now = bp_now_ns();

		summed = bp_log_limit_sum(&limit, now, false, sum, sizeof(sum), &sum_level);
		pass = bp_log_limit_pass(&limit, peer, level, now);
	}
	pthread_mutex_unlock(&limit_lock);
	if (summed)
		bp_log_line(sum_level, sum);
	if (!pass)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	bp_log_line(level, line);
}

void bp_log_peer_flush(bool force)
{
	char sum[512];
	enum bp_log_level level = BP_LOG_INFO;
	bool summed;

	pthread_mutex_lock(&limit_lock);
	summed = bp_log_limit_sum(&limit, bp_now_ns(), force, sum, sizeof(sum), &level);
	pthread_mutex_unlock(&limit_lock);
	if (summed)
		bp_log_line(level, sum);
}
