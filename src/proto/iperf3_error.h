/*
 * Refusals in both dialects. After SERVER_ERROR a stock iperf3 expects two 32-bit
 * big-endian numbers, iperf3's own error code (i_errno) and a system errno, and prints its
 * text for the code; a boardperf peer gets {"error": "one line"} as a JSON message instead,
 * which says exactly what was wrong. The codes below are the iperf3 3.x numbers (stable
 * since 3.1) that a boardperf server has a reason to send.
 */
#ifndef BP_PROTO_IPERF3_ERROR_H
#define BP_PROTO_IPERF3_ERROR_H

#include <stddef.h>
#include <stdint.h>

enum bp_iperf3_error {
	BP_IE_NONE = 0,
	BP_IE_DURATION = 5,       /* test duration too long */
	BP_IE_NUMSTREAMS = 6,     /* too many parallel streams */
	BP_IE_BLOCKSIZE = 7,      /* block size too large */
	BP_IE_BUFSIZE = 8,        /* socket buffer too large */
	BP_IE_INTERVAL = 9,       /* report interval out of range */
	BP_IE_MSS = 10,           /* MSS too large */
	BP_IE_OMIT = 12,          /* bad --omit value */
	BP_IE_UNIMP = 13,         /* an option is not implemented */
	BP_IE_TOTALRATE = 27,     /* rate above the server's limit */
	BP_IE_INITTEST = 101,     /* the test could not be set up */
	BP_IE_PROTOCOL = 131,     /* protocol (SCTP) not supported */
	BP_IE_MESSAGE = 110,      /* unknown control message */
	BP_IE_RECVPARAMS = 114,   /* parameters unreadable */
	BP_IE_ACCESSDENIED = 121, /* the server is busy */
	BP_IE_SETTOS = 125,
	BP_IE_SETCONGESTION = 134,
	BP_IE_SETPACING = 140,
	BP_IE_AUTHTEST = 142,     /* test authorization failed (iperf3's authentication) */
	BP_IE_SETDONTFRAGMENT = 145,
	BP_IE_STREAMACCEPT = 204, /* a data connection could not be taken */
};

/* What a stock iperf3 means by code (our wording); "error N" for codes not listed. */
const char *bp_iperf3_error_text(int code, char *buf, size_t len);

/*
 * Send SERVER_ERROR and the reason: iperf3's two numbers to a stock iperf3
 * (bp_version 0), boardperf's JSON line otherwise. 0 or a negative errno.
 */
int bp_iperf3_send_refusal(int fd, int bp_version, int code, int sys_errno, const char *why,
			   uint64_t deadline_ns);

/*
 * Read what follows a SERVER_ERROR from either kind of server: boardperf's JSON line, or
 * a stock iperf3's two numbers turned into text ("option not implemented (code 13)").
 * The two are told apart by the fifth byte: '{' opens boardperf's JSON after its 4-byte
 * length; a stock iperf3's errno is a small number whose top byte is 0 (and some iperf3
 * refusals send the code alone, then close).
 */
int bp_iperf3_recv_refusal(int fd, char *why, size_t len, uint64_t deadline_ns);

/*
 * What may follow an ACCESS_DENIED: boardperf's {"error": ...} (a boardperf server out of
 * descriptors says so), or nothing (a stock iperf3 closes after the state). 0 with why
 * filled, or a negative errno with why untouched.
 */
int bp_iperf3_recv_denied_reason(int fd, char *why, size_t len, uint64_t deadline_ns);

#endif
