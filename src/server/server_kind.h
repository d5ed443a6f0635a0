/*
 * What one test kind does on the server. The session (server_session.c) runs the control
 * protocol the same way for every kind and calls a kind's hooks at its steps; the kind is
 * chosen once, from the parameters, and nothing after that asks which test runs. A kind is
 * one file with its row plus its line in the table (server_kind.c).
 */
#ifndef BP_SERVER_SERVER_KIND_H
#define BP_SERVER_SERVER_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/params.h"

struct srv_session;

/* A NULL hook: the kind has nothing to do at that step (or takes no such stream). */
struct srv_kind {
	enum bp_net_kind kind;
	/*
	 * A data stream while the session opens them: a TCP connection (add_tcp) or a UDP
	 * socket connected to its peer (add_udp), with the stream's iperf3 id and whether the
	 * server sends on it. 0, or iperf3's error number with the reason in err; on failure fd
	 * is closed. The session counts the stream and starts the test when all are in.
	 */
	int (*add_tcp)(struct srv_session *ss, int fd, int id, bool sender, char *err,
		       size_t errlen);
	int (*add_udp)(struct srv_session *ss, int fd, int id, bool sender, char *err,
		       size_t errlen);
	/* A TCP connection with the session's cookie while the test runs (crr's). */
	void (*take_running)(struct srv_session *ss, int fd);
	/* The test starts running (the stream side has started at now). */
	void (*start)(struct srv_session *ss, uint64_t now);
	/* Every tick of the running test: the kind's own watchdogs. */
	void (*tick)(struct srv_session *ss, uint64_t now);
	/* Required. What shows the test is alive: a count that grows while it is. */
	uint64_t (*progress)(const struct srv_session *ss);
	/* TEST_END: complete ss->side.res, while the streams are still there. */
	void (*finish)(struct srv_session *ss);
	/*
	 * Required. What the test's data moved (for --metrics): the results' counts once it
	 * ended (TEST_END), what moved so far when it ends before that. Called as the session
	 * closes, before close.
	 */
	void (*moved)(const struct srv_session *ss, uint64_t *received, uint64_t *sent);
	/* Required. The test's line in the log, once it completed. */
	void (*log)(const struct srv_session *ss);
	/* The session closes, in any state after admission: free what the kind holds. */
	void (*close)(struct srv_session *ss);
};

/* The rows: server_stream.c, server_rr.c, server_crr.c. */
extern const struct srv_kind srv_kind_tcp;
extern const struct srv_kind srv_kind_udp;
extern const struct srv_kind srv_kind_rr;
extern const struct srv_kind srv_kind_crr;

/* The row serving kind; NULL when this server does not serve it. */
const struct srv_kind *srv_kind_find(enum bp_net_kind kind);
/* The kinds served, for a refusal: "tcp, udp, rr and crr". */
void srv_kind_list(char *buf, size_t len);

#endif
