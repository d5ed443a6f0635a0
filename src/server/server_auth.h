/*
 * Who may start a test on a locked server. Each configured method (today `--psk`, see
 * proto/auth_psk.h) is asked in turn; a test runs when ANY of them accepts it, so that a
 * server can take boardperf clients with the key and stock iperf3 clients with a username
 * at once. An unlocked server (no method configured) accepts every test.
 *
 * A method decides from the parameters alone (a credential inside them), or sends a
 * challenge and decides on the answer; the session waits in SS_AUTH meanwhile, where no
 * data connection is taken (its cookie is not valid before the control connection passed).
 */
#ifndef BP_SERVER_SERVER_AUTH_H
#define BP_SERVER_SERVER_AUTH_H

#include <stdbool.h>

#include <jansson.h>

#include "proto/auth_psk.h"

struct srv_session;
struct bp_server_opts;

/* What a session keeps while its client authenticates. */
struct srv_auth {
	int pending;                                   /* method awaiting an answer, or -1 */
	unsigned char nonce[BP_PSK_NONCE_LEN];         /* the server's challenge */
	unsigned char client_nonce[BP_PSK_NONCE_LEN];  /* the client's, for the server's proof */
	bool stream_proof;                             /* the key was proved: so must every stream */
	unsigned char stream_key[BP_PSK_MAC_LEN];      /* what they prove it with */
};

/* True when the server takes only authenticated tests. */
bool srv_auth_locked(const struct bp_server_opts *o);

/*
 * The parameters (msg) arrived: true when the test may go on now (unlocked, or a method
 * accepted it). Otherwise a challenge went out (the answer is for srv_auth_answer) or the
 * test was refused with its line (srv_session_refuse).
 */
bool srv_auth_params(struct srv_session *ss, const json_t *msg);

/* The answer to the challenge: true when the test may go on; refused otherwise. */
bool srv_auth_answer(struct srv_session *ss, const json_t *msg);

#endif
