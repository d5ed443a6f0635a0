/*
 * --share K/N (issue 37): this tester offers its K-th share of a rate N testers offer
 * together (udp -b, rr, crr and http --rate), so that a load no one board makes (the
 * firewall's 50k connections/s against a board's 8k) comes from several at once. The
 * shares are whole units of the rate (bit/s, transactions/s) and add up to it exactly:
 * tester K offers floor(R*K/N) - floor(R*(K-1)/N), never R/N rounded N times.
 */
#ifndef BP_CORE_SHARE_H
#define BP_CORE_SHARE_H

#include <stddef.h>

/* The most testers one load is shared among */
#define BP_SHARE_MAX 1000

struct bp_share {
	int k, n;	/* 1 <= k <= n <= BP_SHARE_MAX; n 0: no share (the whole rate) */
};

/*
 * "K/N" as a share. 0, or -EINVAL with a one-line message naming the value ("--share '4/3':
 * expected K/N with 1 <= K <= N <= 1000").
 */
int bp_share_parse(const char *s, struct bp_share *out, char *err, size_t errlen);

/*
 * Whether every one of the N shares of rate is at least one unit (a share of 0 would read as
 * "no limit" to udp -b): 0, or -EINVAL naming the share, the rate and its option.
 */
int bp_share_check(const struct bp_share *s, const char *share_text, double rate,
		   const char *option, char *err, size_t errlen);

/* Tester k's part of the whole rate (whole units; the rate itself without a share) */
double bp_share_of(const struct bp_share *s, double rate);

#endif
