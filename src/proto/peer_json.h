/*
 * Reading a peer's JSON (the parameters a client sends, the results a server sends) with
 * every value checked in its own domain before the caller does any arithmetic with it:
 * an integer is a JSON number that is whole and inside [lo, hi] as sent (a count of
 * seconds is checked as seconds, before it is scaled to nanoseconds), a real is finite
 * and inside [lo, hi], a flag is true/false or 0/1, a string fits its buffer.
 *
 * The reader keeps the first refusal: once one value is out of its domain, later reads
 * return their defaults and leave the message alone, so a caller reads its keys in a row
 * and looks at rd.rc once. The message is one line naming the key, the value as it came
 * (escaped to ASCII, cut to a few dozen characters) and what was expected:
 *   time 10000000000: expected an integer in 1..86400
 *   congestion "aaaa...": expected a string of at most 31 bytes
 */
#ifndef BP_PROTO_PEER_JSON_H
#define BP_PROTO_PEER_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct bp_peer_reader {
	const json_t *obj;      /* the object the keys are read from */
	const char *where;      /* prefix of the key in messages ("streams[2]."), or NULL */
	char *err;
	size_t errlen;
	int rc;                 /* 0, or -EINVAL after the first refusal */
	int code;               /* the refused key's code, as the caller passed it */
};

/* A reader of obj's keys; err receives the first refusal's line. */
struct bp_peer_reader bp_peer_reader(const json_t *obj, char *err, size_t errlen);

/* The largest whole number a double holds exactly (2^53): the ceiling of every count. */
#define BP_PEER_INT_MAX 9007199254740992LL

/*
 * An integer key in [lo, hi] (|lo|, |hi| <= BP_PEER_INT_MAX); absent or null: def, which
 * must be in [lo, hi] too (else the key is refused as missing), so that every value the
 * reader hands out before a refusal is in range.
 */
long long bp_peer_int(struct bp_peer_reader *rd, const char *key, long long def,
		      long long lo, long long hi, int code);
/* A finite number in [lo, hi]; absent or null: def (which may be NAN: unknown). */
double bp_peer_real(struct bp_peer_reader *rd, const char *key, double def, double lo,
		    double hi, int code);
/* true/false, or the numbers 0 and 1 (iperf3 sends some flags as 1); absent: false. */
bool bp_peer_flag(struct bp_peer_reader *rd, const char *key, int code);
/* A string shorter than len (its NUL fits) into out; absent or null: "". */
void bp_peer_str(struct bp_peer_reader *rd, const char *key, char *out, size_t len, int code);

/* Refuse by hand (a rule over several keys): the same one-line form, kept if first. */
void bp_peer_refuse(struct bp_peer_reader *rd, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
