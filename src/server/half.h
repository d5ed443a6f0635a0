/*
 * A test kind's half on boardperf serve. The session (server_session.c) runs the control
 * protocol the same way for every kind and calls its half's hooks at its steps; the half is
 * chosen once, from the test the parameters name, and nothing after that asks which test
 * runs. A kind's descriptor points to its half (bp_kind.server_half, result/kind.h), which
 * lives in the kind's own folder (stream/stream_half.c: tcp and udp share it; rr/rr_half.c,
 * rr/crr_half.c): a kind with a server half is its folder and its registry line. The half
 * reads the session (server_internal.h) and keeps its own state in ss->half_state.
 */
#ifndef BP_SERVER_HALF_H
#define BP_SERVER_HALF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct srv_session;

/* A NULL hook: the half has nothing to do at that step (or takes no such stream). */
struct srv_half {
	/* Bytes of its own state: ss->half_state, zeroed, freed after close (0: none). */
	size_t state_size;
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
	/* Every tick of the running test: the half's own watchdogs. */
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
	/* The session closes, in any state after admission: free what the half holds. */
	void (*close)(struct srv_session *ss);
};

/*
 * The kinds this server serves are the installed kinds with a half (result/kind.h), in the
 * registry's order, numbered from 1 for --metrics; SRV_MAX_SERVED at most (a kind past it
 * is served and counted as "other").
 */
#define SRV_MAX_SERVED 15
/* The half serving test (a kind's name); NULL when no installed kind has one. */
const struct srv_half *srv_half_find(const char *test);
/* Its number among the kinds served (1...), 0 for a test not served. */
int srv_half_number(const char *test);
/* The name of kind number k (1...), NULL past the last. */
const char *srv_half_name(int k);
/* The kinds served, for a refusal: "tcp, udp, rr and crr". */
void srv_half_list(char *buf, size_t len);

#endif
