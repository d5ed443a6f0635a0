/*
 * What every network client command (tcp, udp; rr and crr the base rows) takes from the
 * command line, once: the shared options, their checks, and the client and parameter fields
 * they fill.
 */
#ifndef BP_STREAM_NET_CLI_H
#define BP_STREAM_NET_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/options.h"
#include "proto/auth_psk.h"
#include "proto/iperf3_auth.h"
#include "stream/stream_client.h"

struct bp_result;

struct bp_net_cli {
	const char *host;
	int64_t port;
	uint64_t time, interval, omit;
	int64_t parallel;
	bool reverse, bidir;
	uint64_t bytes, blocks;  /* -n, -k (tcp, udp): the test ends by this count, -t its cut */
	bool v4, v6;
	uint64_t connect_timeout;
	uint64_t idle_timeout;
	bool iperf3;
	bool iperf2;             /* --iperf2: the server is a stock iperf -s (iperf 2.1) */
	bool sctp;               /* --sctp: the data over SCTP (tcp, rr, crr) */
	int64_t nstreams;        /* --nstreams: SCTP streams per association, 0: the kernel's */
	const char *username, *rsa_public_key;  /* iperf3's authentication (net_cli_auth.c) */
	int rsa_padding;                       /* enum bp_iperf3_padding */
	const char *psk_file;
	struct bp_psk psk;       /* read from psk_file by bp_net_cli_check */
};

/* --rsa-padding's names, in the order of enum bp_iperf3_padding. */
extern const char *const bp_net_cli_padding_names[];

/*
 * The rows every network client takes (tcp, udp, rr, crr), for an option table whose
 * parameter struct T has a `net` member.
 */
#define BP_NET_CLI_BASE_OPTS(T) \
	{ 'c', "client", BP_OPT_STRING, offsetof(T, net.host), "HOST", NULL, 0, 0, NULL, \
	  "the boardperf server to test against (required)" }, \
	{ 'p', "port", BP_OPT_INT, offsetof(T, net.port), "PORT", "5201", 1, 65535, NULL, \
	  "server port" }, \
	{ 't', "time", BP_OPT_DURATION, offsetof(T, net.time), "S", "10", 0.1, 86400, NULL, \
	  "how long to move data" }, \
	{ 'i', "interval", BP_OPT_DURATION, offsetof(T, net.interval), "S", "1", 0, 3600, NULL, \
	  "seconds between interval reports, 0 for none" }, \
	{ 'O', "omit", BP_OPT_DURATION, offsetof(T, net.omit), "S", "0", 0, 3600, NULL, \
	  "first run S seconds more and leave them (slow start) out of the totals" }, \
	{ 'P', "parallel", BP_OPT_INT, offsetof(T, net.parallel), "N", "1", 1, 128, NULL, \
	  "parallel streams (per direction)" }, \
	{ '4', "version4", BP_OPT_FLAG, offsetof(T, net.v4), NULL, NULL, 0, 0, NULL, \
	  "IPv4 only" }, \
	{ '6', "version6", BP_OPT_FLAG, offsetof(T, net.v6), NULL, NULL, 0, 0, NULL, \
	  "IPv6 only" }, \
	{ 0, "connect-timeout", BP_OPT_DURATION, offsetof(T, net.connect_timeout), "S", "3", \
	  0.1, 600, NULL, "give up connecting (to the server's first answer) after S seconds" }, \
	{ 0, "idle-timeout", BP_OPT_DURATION, offsetof(T, net.idle_timeout), "S", "10", 0.1, \
	  3600, NULL, "end the test when no data moved for S seconds (a cut link, a server " \
	  "gone); also the longest wait for each answer of the server" }, \
	{ 0, "username", BP_OPT_STRING, offsetof(T, net.username), "USER", NULL, 0, 0, NULL, \
	  "iperf3's authentication to a locked server (the password from IPERF3_PASSWORD, " \
	  "else asked on the terminal)" }, \
	{ 0, "rsa-public-key-path", BP_OPT_STRING, offsetof(T, net.rsa_public_key), "FILE", \
	  NULL, 0, 0, NULL, "the locked server's RSA public key (PEM), for --username" }, \
	{ 0, "rsa-padding", BP_OPT_CHOICE, offsetof(T, net.rsa_padding), "PAD", "pkcs1", 0, 0, \
	  bp_net_cli_padding_names, "--username's RSA padding, as the server's: pkcs1 " \
	  "(iperf3 up to 3.16, Debian 12's 3.12) or oaep (iperf3 3.17 on)" }, \
	{ 0, "psk", BP_OPT_STRING, offsetof(T, net.psk_file), "FILE", NULL, 0, 0, NULL, \
	  "prove the pre-shared key in FILE to a locked server (serve --psk) and insist " \
	  "that it proves it too" }

/*
 * -n/-k without -t: the test is cut after this long all the same (iperf3's would run on
 * for ever toward a peer that stopped), as long as boardperf serve's --max-duration default.
 */
#define BP_NET_CLI_COUNT_CUT_S 600
#define BP_NET_CLI_COUNT_CUT_TEXT "600 s"

/*
 * The rows only the stream tests (tcp, udp) take: a direction, and a stock iperf3 server.
 * rr and crr leave them out, so their --help does not offer them and the parser refuses
 * them as unknown options (every transaction goes both ways; iperf3 has no such test).
 */
#define BP_NET_CLI_STREAM_OPTS(T) \
	{ 'R', "reverse", BP_OPT_FLAG, offsetof(T, net.reverse), NULL, NULL, 0, 0, NULL, \
	  "the server sends, this side receives" }, \
	{ 0, "bidir", BP_OPT_FLAG, offsetof(T, net.bidir), NULL, NULL, 0, 0, NULL, \
	  "both send at once" }, \
	{ 0, "iperf3", BP_OPT_FLAG, offsetof(T, net.iperf3), NULL, NULL, 0, 0, NULL, \
	  "the server is a stock iperf3 (3.x): its keys only, whole-second -t and -O" }, \
	{ 0, "iperf2", BP_OPT_FLAG, offsetof(T, net.iperf2), NULL, NULL, 0, 0, NULL, \
	  "the server is a stock iperf -s (iperf 2.1, its port 5001 unless -p): no control " \
	  "connection; its figures are what TCP saw it take, over UDP its report" }, \
	{ 'n', "bytes", BP_OPT_SIZE, offsetof(T, net.bytes), "SIZE", "0", 0, 0x1p62, NULL, \
	  "end the test once SIZE bytes are through, in whole -l blocks over all streams " \
	  "(iperf3's -n); -t is then the cut, default " BP_NET_CLI_COUNT_CUT_TEXT }, \
	{ 'k', "blockcount", BP_OPT_SIZE, offsetof(T, net.blocks), "N", "0", 0, 0x1p62, NULL, \
	  "end the test once N blocks (writes of -l, datagrams) are through (iperf3's -k); " \
	  "-t is then the cut, default " BP_NET_CLI_COUNT_CUT_TEXT }

/*
 * SCTP instead of TCP for the data (tcp, rr and crr; iperf3's --sctp and --nstreams). The
 * control connection stays TCP, as iperf3's does.
 */
#define BP_NET_CLI_SCTP_OPT(T) \
	{ 0, "sctp", BP_OPT_FLAG, offsetof(T, net.sctp), NULL, NULL, 0, 0, NULL, \
	  "the data over SCTP (one-to-one sockets) instead of TCP; needs SCTP in the kernel " \
	  "(modprobe sctp) on both ends" }
/* tcp and rr: their associations are set up before the test, where the option is set. */
#define BP_NET_CLI_SCTP_OPTS(T) \
	BP_NET_CLI_SCTP_OPT(T), \
	{ 0, "nstreams", BP_OPT_INT, offsetof(T, net.nstreams), "N", "0", 0, 65535, NULL, \
	  "with --sctp: SCTP streams each association offers (as iperf3's), 0: the kernel's" }

/* Both: the table of tcp and udp. */
#define BP_NET_CLI_OPTS(T) BP_NET_CLI_BASE_OPTS(T), BP_NET_CLI_STREAM_OPTS(T)

/*
 * Positional arguments, -c, -4/-6, -R/--bidir, --iperf3's whole seconds; reads the --psk
 * file. 0 or -EINVAL with a one-line message.
 */
int bp_net_cli_check(struct bp_net_cli *n, const struct bp_parsed *parsed,
		     char *err, size_t errlen);

/*
 * --username: the public key and the password (IPERF3_PASSWORD, else asked on the
 * terminal with echo off) into c, and np->auth pointing at it; without --username,
 * np->auth NULL. 0 or a negative errno with a one-line message. Undo with
 * bp_net_cli_auth_close once the test is over.
 */
int bp_net_cli_auth_open(const struct bp_net_cli *n, struct bp_iperf3_client *c,
			 struct bp_net_params *np, char *err, size_t errlen);
void bp_net_cli_auth_close(struct bp_iperf3_client *c);

/* A tcp or udp test o with n's credentials (bp_net_cli_auth_open), reported into r. */
int bp_net_cli_run(const struct bp_net_cli *n, struct bp_stream_client_opts *o,
		   struct bp_result *r, char *err, size_t errlen);

/*
 * --sctp: 0 when this kernel makes SCTP sockets, else -EPROTONOSUPPORT with the one line
 * BP_SCTP_MISSING (io/sock.h), before anything is sent. 0 without --sctp.
 */
int bp_net_cli_sctp_ready(const struct bp_net_cli *n, char *err, size_t errlen);

/* The client options and the parameters these flags decide, for test kind "tcp" or "udp". */
void bp_net_cli_fill(const struct bp_net_cli *n, const char *test, struct bp_stream_client_opts *o);

#endif
