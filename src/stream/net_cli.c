#include "stream/net_cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/checks.h"
#include "core/buildinfo.h"
#include "core/clock.h"
#include "io/sock.h"
#include "proto/control.h"
#include "proto/iperf3_auth.h"
#include "proto/params.h"

/*
 * --iperf2: what iperf 2's test header can carry. Its -t counts in 10 ms; it has no omitted
 * start, no block count, no key and no SCTP; its port is 5001.
 */
static int iperf2_check(struct bp_net_cli *n, const struct bp_parsed *parsed, char *err,
			size_t errlen)
{
	const char *no = n->iperf3 ? "--iperf3" : n->omit ? "-O" : n->blocks ? "-k" :
			 n->psk_file ? "--psk" : n->username ? "--username" :
			 n->sctp ? "--sctp" : NULL;

	if (no) {
		snprintf(err, errlen, "--iperf2 with %s: iperf 2's test header has no such field",
			 no);
		return -EINVAL;
	}
	if (n->time % (10 * BP_NS_PER_MS)) {
		snprintf(err, errlen, "--iperf2: -t %g must be a multiple of 0.01 s (iperf 2 "
			 "counts its time in 10 ms)", (double)n->time / 1e9);
		return -EINVAL;
	}
	if (n->bytes && n->bytes / (uint64_t)n->parallel > 0x7fffffffu) {
		snprintf(err, errlen, "--iperf2: -n %llu over -P %lld is more than iperf 2's "
			 "2147483647 bytes a connection", (unsigned long long)n->bytes,
			 (long long)n->parallel);
		return -EINVAL;
	}
	if (!bp_parsed_given(parsed, "port"))
		n->port = 5001;
	return 0;
}

int bp_net_cli_check(struct bp_net_cli *n, const struct bp_parsed *parsed,
		     char *err, size_t errlen)
{
	if (bp_check_no_positional(parsed, err, errlen) ||
	    bp_check_exclusive(n->v4, "-4", n->v6, "-6", err, errlen) ||
	    bp_check_exclusive(n->reverse, "-R", n->bidir, "--bidir", err, errlen))
		return -EINVAL;
	if (!n->username != !n->rsa_public_key) {
		snprintf(err, errlen, "%s needs %s too: iperf3's authentication encrypts the "
			 "password with the server's public key", n->username ? "--username" :
			 "--rsa-public-key-path", n->username ? "--rsa-public-key-path" : "--username");
		return -EINVAL;
	}
	if (n->username && bp_iperf3_auth_check_field("--username", n->username, err, errlen))
		return -EINVAL;
	if (!n->host) {
		snprintf(err, errlen, "-c HOST is required: the boardperf server to test against");
		return -EINVAL;
	}
	if (bp_check_host("-c", n->host, "-p", err, errlen))
		return -EINVAL;
	/* A stock iperf3 server counts -t and -O in whole seconds: anything else would make
	 * its figures cover another span than ours. */
	if (n->iperf3 && (n->time % BP_NS_PER_SEC || n->omit % BP_NS_PER_SEC)) {
		snprintf(err, errlen, "--iperf3: -t %g and -O %g must be whole seconds "
			 "(a stock iperf3 server counts in seconds)", (double)n->time / 1e9,
			 (double)n->omit / 1e9);
		return -EINVAL;
	}
	if (n->iperf2 && iperf2_check(n, parsed, err, errlen))
		return -EINVAL;
	if (n->psk_file && n->iperf3) {
		snprintf(err, errlen, "--psk '%s' with --iperf3: a stock iperf3 server has no "
			 "pre-shared key to answer with", n->psk_file);
		return -EINVAL;
	}
	/* the server refuses a shorter one (proto/params.c): say so before connecting */
	if (n->interval && n->interval < BP_NET_MIN_INTERVAL_NS) {
		snprintf(err, errlen, "-i %g: out of range, expected 0 (none) or 0.001 to 3600 s "
			 "(a server marks no interval shorter than 1 ms)", (double)n->interval / 1e9);
		return -EINVAL;
	}
	if (n->nstreams && !n->sctp) {
		snprintf(err, errlen, "--nstreams %lld needs --sctp: streams are SCTP's",
			 (long long)n->nstreams);
		return -EINVAL;
	}
	if (bp_check_exclusive(n->bytes, "-n", n->blocks, "-k", err, errlen))
		return -EINVAL;
	/* iperf3 refuses -t beside -n/-k; here -t is what bounds a counted test */
	if ((n->bytes || n->blocks) && !bp_parsed_given(parsed, "time"))
		n->time = (uint64_t)BP_NET_CLI_COUNT_CUT_S * BP_NS_PER_SEC;
	if (n->psk_file && bp_psk_load(n->psk_file, &n->psk, err, errlen))
		return -EINVAL;
	return 0;
}

void bp_net_cli_fill(const struct bp_net_cli *n, const char *test, struct bp_stream_client_opts *o)
{
	struct bp_net_params *np = &o->np;

	memset(o, 0, sizeof(*o));
	o->host = n->host;
	o->port = (unsigned)n->port;
	o->family = n->v4 ? BP_FAMILY_V4 : n->v6 ? BP_FAMILY_V6 : BP_FAMILY_ANY;
	o->connect_timeout_ns = n->connect_timeout;
	o->idle_timeout_ns = n->idle_timeout;
	o->psk = n->psk_file ? &n->psk : NULL;
	bp_net_params_set_test(np, test);
	np->bp_version = BP_PROTO_VERSION;
	np->time_ns = n->time;
	np->num_bytes = n->bytes;
	np->num_blocks = n->blocks;
	np->omit_ns = n->omit;
	np->interval_ns = n->interval;
	np->parallel = (int)n->parallel;
	np->reverse = n->reverse;
	np->bidir = n->bidir;
	np->iperf3 = n->iperf3;
	np->iperf2 = n->iperf2;
	np->sctp = n->sctp;
	np->nstreams = (int)n->nstreams;
	snprintf(np->client_version, sizeof(np->client_version), "boardperf %s", bp_version());
}

int bp_net_cli_sctp_ready(const struct bp_net_cli *n, char *err, size_t errlen)
{
	return n->sctp ? bp_sctp_check(err, errlen) : 0;
}
