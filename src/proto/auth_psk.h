/*
 * A pre-shared key for boardperf clients (`serve --psk FILE`, client `--psk FILE`): a
 * challenge and answer on the control connection, so that the key never crosses the wire
 * and an answer seen once is worth nothing on the next connection.
 *
 *   client -> server   the parameters, with "bp_psk_nonce": 32 random bytes (hex), the
 *                      client's challenge to the server (its presence offers the key)
 *   server -> client   state AUTH_CHALLENGE, then {"psk_nonce": 32 random bytes (hex)}
 *   client -> server   {"psk_mac": hex HMAC-SHA256(key, server nonce | cookie | "client")}
 *   server -> client   wrong: SERVER_ERROR and "wrong key"; right: state AUTH_OK, then
 *                      {"psk_mac": hex HMAC-SHA256(key, client nonce | cookie | "server")}
 *                      and the test goes on (CREATE_STREAMS or a limit's refusal)
 *
 * Then each TCP or SCTP data stream of the test proves the key too (protocol 2, below): the
 * cookie alone is no credential, since anyone on the path sees it.
 *
 * Mutual: the client, too, refuses a server that cannot prove it holds the key. The client
 * proves itself first, so the server computes nothing with its key for a peer that has not
 * (no oracle for strangers); the labels ("boardperf-psk client", "... server") keep either
 * side's answer from being replayed as the other's. The cookie ties both answers to this
 * test, whose data connections present the same cookie; the nonces make every connection's
 * answers new. Nothing here encrypts or protects the data: a man in the middle who lets the
 * exchange through can still change what follows.
 */
#ifndef BP_PROTO_AUTH_PSK_H
#define BP_PROTO_AUTH_PSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "proto/control.h"

/* At least 128 bits of key, as for any HMAC key meant to resist a guess (RFC 2104 §3). */
#define BP_PSK_MIN_LEN 16
/* More than any sensible key, little enough to keep by value in the options. */
#define BP_PSK_MAX_LEN 1024
#define BP_PSK_NONCE_LEN 32
#define BP_PSK_MAC_LEN 32        /* SHA-256 */
#define BP_PSK_HEX_LEN 64        /* either, in hex, without the NUL */

/* The key as read from its file (trailing newline stripped). */
struct bp_psk {
	unsigned char key[BP_PSK_MAX_LEN];
	size_t len;
};

/*
 * Read the key from path: a regular file that neither the group nor others may read or
 * write (as ssh insists for a private key), whose bytes are the key, one trailing "\n" or
 * "\r\n" stripped, BP_PSK_MIN_LEN to BP_PSK_MAX_LEN bytes. 0, or -EINVAL/-EACCES/-errno
 * with a one-line message naming the file and what was expected.
 */
int bp_psk_load(const char *path, struct bp_psk *k, char *err, size_t errlen);

/* HMAC-SHA256 of msg under key (OpenSSL). 0, or -EIO when OpenSSL fails. */
int bp_psk_hmac(const unsigned char *key, size_t keylen, const void *msg, size_t len,
		unsigned char out[BP_PSK_MAC_LEN]);

/* Who answers: the label in the MAC, so that one side's answer is never the other's. */
enum bp_psk_side { BP_PSK_CLIENT, BP_PSK_SERVER };

/* HMAC(key, nonce | cookie's 36 characters | "boardperf-psk client" or "... server"). */
int bp_psk_mac(const struct bp_psk *k, const unsigned char nonce[BP_PSK_NONCE_LEN],
	       const char cookie[BP_COOKIE_LEN], enum bp_psk_side side,
	       unsigned char out[BP_PSK_MAC_LEN]);

/*
 * True when hex (a peer's answer, any string or NULL) is exactly the MAC side should have
 * sent for nonce and cookie; compared in constant time (CRYPTO_memcmp).
 */
bool bp_psk_verify(const struct bp_psk *k, const unsigned char nonce[BP_PSK_NONCE_LEN],
		   const char cookie[BP_COOKIE_LEN], enum bp_psk_side side, const char *hex);

/* A fresh random nonce (RAND_bytes). 0 or -EIO. */
int bp_psk_nonce(unsigned char nonce[BP_PSK_NONCE_LEN]);
/* nonce or MAC as BP_PSK_HEX_LEN lowercase hex characters and a NUL. */
void bp_psk_hex(const unsigned char bytes[32], char hex[BP_PSK_HEX_LEN + 1]);
/* The 32 bytes of a hex string of exactly BP_PSK_HEX_LEN characters; -EBADMSG otherwise. */
int bp_psk_unhex(const char *hex, unsigned char bytes[32]);

/*
 * The data streams' proof (boardperf protocol 2, BP_PROTO_VERSION_STREAM_PROOF): after the
 * challenge both ends derive the test's stream key
 *     HMAC(key, server nonce | cookie | "boardperf-psk streams")
 * and each data connection sends, right after its cookie, BP_PSK_STREAM_PROOF_LEN bytes:
 *     stream index (4 bytes, big-endian; 0 for the first stream the client opens)
 *     HMAC(stream key, index's 4 bytes | "boardperf-psk stream")
 * The server nonce was fresh for this control connection, so a proof seen on one test is
 * worth nothing on another; the index keeps one stream's proof from opening a second.
 */
#define BP_PSK_STREAM_PROOF_LEN (4 + BP_PSK_MAC_LEN)

int bp_psk_stream_key(const struct bp_psk *k, const unsigned char snonce[BP_PSK_NONCE_LEN],
		      const char cookie[BP_COOKIE_LEN], unsigned char out[BP_PSK_MAC_LEN]);
/* The proof stream index sends. 0 or -EIO. */
int bp_psk_stream_proof(const unsigned char skey[BP_PSK_MAC_LEN], uint32_t index,
			unsigned char out[BP_PSK_STREAM_PROOF_LEN]);
/*
 * Checks len bytes a data connection sent as its proof: 0 and the index it proves in
 * *index, -EBADMSG when len is not BP_PSK_STREAM_PROOF_LEN, -ERANGE when the index is
 * max_index or more, -EACCES when the MAC is wrong (compared in constant time).
 */
int bp_psk_stream_check(const unsigned char skey[BP_PSK_MAC_LEN], const unsigned char *buf,
			size_t len, uint32_t max_index, uint32_t *index);

/* JSON keys, for the server's side (server/server_auth.c). */
#define BP_PSK_KEY_OFFER "bp_psk_nonce"
#define BP_PSK_KEY_NONCE "psk_nonce"
#define BP_PSK_KEY_MAC "psk_mac"

/* The client's side, called by proto/ctl_client.c around the parameters it sends. */
struct bp_ctl;

/*
 * Put a fresh client nonce into the parameters (offers the key), and "bp_version" 2: a
 * client offering a key proves it on every data stream too. 0, -ENOMEM or -EIO.
 */
int bp_psk_offer(json_t *params, unsigned char nonce[BP_PSK_NONCE_LEN]);

/*
 * After the parameters: answer the server's challenge and check its proof. A server that
 * asks for no key (not locked, or a stock iperf3) is refused here: the user asked for
 * authentication. On success c holds the stream key for bp_ctl_stream_hello. 0, -EREMOTEIO (the server refused: "wrong key"), -EACCES (the server is
 * not locked, or does not hold the key), or another negative errno; the message in c->err.
 */
int bp_psk_client_step(struct bp_ctl *c, const struct bp_psk *k,
		       const unsigned char nonce[BP_PSK_NONCE_LEN]);

#endif
