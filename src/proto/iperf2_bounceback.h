/*
 * iperf 2's bounceback test (`iperf -c HOST --bounceback`) on the wire, as Debian's 2.1.8
 * speaks it: no test header, the connection's first bytes are already the first request.
 * Every request is the client's --bounceback size (-l, 100 bytes unless set) and begins
 * with this block (big-endian):
 *
 *   0  flags        BOUNCEBACK (0x00800000) alone
 *   4  size         the request's size: every request and answer is this long
 *   8  id           the burst's number
 *  12  bbflags      QUICKACK 0x8000, CLOCKSYNCED 0x4000 (--trip-times), TOS 0x2000,
 *                   STOP 0x1000 (the last request: no answer, the client closes)
 *  14  tos
 *  16  run time     10 ms units (0 from 2.1.8: the client's -t ends the test)
 *  20  client tx    seconds, microseconds: the client's clock at sending
 *  28  server rx    the server's clock when the request was read whole
 *  36  server tx    the server's clock as it answers
 *  44  hold         microseconds the server waits before each answer
 *  48  rtt, read time (the client's own, 12 bytes)
 *
 * The server answers each request with the same bytes, its two times written in. Pure
 * functions over bytes, fuzzed (tests/fuzz/fuzz_iperf2.c).
 */
#ifndef BP_PROTO_IPERF2_BOUNCEBACK_H
#define BP_PROTO_IPERF2_BOUNCEBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The block above and 4 bytes more: what iperf -s reads before it knows the size */
#define BP_IPERF2_BB_HEAD_LEN 64
/* The sizes a server takes: the head, up to 1 MiB */
#define BP_IPERF2_BB_MAX_SIZE (1u << 20)
#define BP_IPERF2_BB_STOP 0x1000u
#define BP_IPERF2_BB_CLOCKSYNCED 0x4000u
#define BP_IPERF2_BB_RX_AT 28
#define BP_IPERF2_BB_TX_AT 36
/* The answer's bytes a client reads the id and the server's times from */
#define BP_IPERF2_BB_TIMES_END 44

struct bp_iperf2_bb {
	uint32_t size, id, hold_us;
	uint16_t flags, tos;
	uint32_t client_sec, client_usec;
};

/*
 * Whether the first n bytes of a connection can still be a bounceback request's (the
 * flags word, as far as it came). A cookie's first byte is never 0.
 */
bool bp_iperf2_bb_prefix(const uint8_t *b, size_t n);

/*
 * A request's head (n bytes, BP_IPERF2_BB_HEAD_LEN at least): 0, or -EINVAL with one line
 * in err (flags other than BOUNCEBACK alone, a size outside 64..1 MiB, microseconds out of
 * their domain).
 */
int bp_iperf2_bb_parse(const uint8_t *b, size_t n, struct bp_iperf2_bb *bb, char *err,
		       size_t errlen);

/* The request of size bytes at msg is the client's last (STOP): answered with nothing. */
bool bp_iperf2_bb_is_stop(const uint8_t *msg);

/*
 * The head of a client's request of size bytes (64 .. 1 MiB) at msg, as iperf -c 2.1.8
 * writes it: BOUNCEBACK, the size, id, CLOCKSYNCED with trip_times, the send time wall_ns
 * (CLOCK_REALTIME), the server's two times unset (all ones), no hold.
 */
void bp_iperf2_bb_request(uint8_t *msg, uint32_t size, uint32_t id, bool trip_times,
			  uint64_t wall_ns);

/* An answer's id (its first BP_IPERF2_BB_TIMES_END bytes at msg). */
uint32_t bp_iperf2_bb_id(const uint8_t *msg);

/*
 * The server's times in an answer (BP_IPERF2_BB_TIMES_END bytes at msg), in ns of its wall
 * clock: read, answered. False when either is unset (all ones: a server that writes none)
 * or its microseconds are out of their domain.
 */
bool bp_iperf2_bb_server_times(const uint8_t *msg, uint64_t *rx_ns, uint64_t *tx_ns);

/* Write a server time (at BP_IPERF2_BB_RX_AT or _TX_AT) into a request of 44 bytes or more. */
void bp_iperf2_bb_stamp(uint8_t *msg, size_t at, uint32_t sec, uint32_t usec);

#endif
