/*
 * The methods a locked server checks a test with (server_auth.h): iperf3's username and
 * password (an "authtoken" inside the parameters, proto/iperf3_auth.h) and boardperf's
 * pre-shared key (a challenge, proto/auth_psk.h). A method that is not configured is
 * skipped; when none is, everyone is let in, as an unlocked iperf3 server ignores an
 * "authtoken" it gets.
 */
#include "server/server_auth.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "proto/iperf3_auth.h"
#include "proto/iperf3_error.h"
#include "server/server_internal.h"

_Static_assert(BP_NET_AUTHTOKEN_MAX == BP_IPERF3_AUTH_TOKEN_MAX,
	       "params keeps the whole of the longest token iperf3_auth takes");

/* Control answers are a few bytes into an idle socket (as server_session.c's). */
#define SEND_DEADLINE_NS (2 * BP_NS_PER_SEC)

enum verdict {
	V_ABSENT,    /* the client brought nothing for this method */
	V_PASS,
	V_PENDING,   /* a challenge went out */
	V_REFUSED,   /* what it brought is wrong; why says so */
};

struct method {
	const char *needs;  /* what a client must bring, for the refusal's line */
	bool (*configured)(const struct bp_server_opts *o);
	enum verdict (*start)(struct srv_session *ss, const json_t *msg, char *why, size_t len);
	enum verdict (*answer)(struct srv_session *ss, const json_t *msg, char *why, size_t len);
};

static bool iperf3_configured(const struct bp_server_opts *o)
{
	return o->iperf3_auth != NULL;
}

/*
 * iperf3's token came inside the parameters: decided at once. Its timestamp is Unix time,
 * the wall clock. The client learns only that it was refused; the log keeps the reason.
 */
static enum verdict iperf3_start(struct srv_session *ss, const json_t *msg, char *why,
				 size_t len)
{
	char who[BP_IPERF3_AUTH_FIELD_MAX + 1] = "", reason[256];

	(void)msg;
	if (!ss->np.authtoken[0])
		return V_ABSENT;
	if (!bp_iperf3_auth_verify(ss->srv->o->iperf3_auth, ss->np.authtoken,
				   (int64_t)time(NULL), who, sizeof(who), reason, sizeof(reason))) {
		bp_info_peer(ss->peer, "%s: authenticated by iperf3 username as '%s'", ss->peer,
			     who);
		return V_PASS;
	}
	bp_info_peer(ss->peer, "%s: iperf3 username refused (%s)", ss->peer, reason);
	snprintf(why, len, "authentication failed: this server is locked (--username and "
		 "--rsa-public-key-path, the right password, a clock within its skew)");
	return V_REFUSED;
}

static bool psk_configured(const struct bp_server_opts *o)
{
	return o->psk != NULL;
}

static int send_hex(int fd, int state, const char *key, const unsigned char bytes[32])
{
	char hex[BP_PSK_HEX_LEN + 1];
	json_t *msg;
	int rc;

	bp_psk_hex(bytes, hex);
	msg = json_pack("{ss}", key, hex);
	rc = msg ? bp_proto_send_state(fd, state, bp_now_ns() + SEND_DEADLINE_NS) : -ENOMEM;
	if (!rc)
		rc = bp_proto_send_json(fd, msg, bp_now_ns() + SEND_DEADLINE_NS);
	json_decref(msg);
	return rc;
}

/* The client offers the key with its nonce in the parameters: challenge it. */
static enum verdict psk_start(struct srv_session *ss, const json_t *msg, char *why, size_t len)
{
	const json_t *offer = json_object_get(msg, BP_PSK_KEY_OFFER);
	uint64_t wait;

	if (!offer)
		return V_ABSENT;
	/* Protocol 1 sends its streams without a proof: they would all be refused. */
	if (ss->np.bp_version < BP_PROTO_VERSION_STREAM_PROOF) {
		snprintf(why, len, "client speaks boardperf protocol %d; this server's --psk needs "
			 "protocol %d (each data stream proves the key): update the client",
			 ss->np.bp_version, BP_PROTO_VERSION_STREAM_PROOF);
		return V_REFUSED;
	}
	/* Before the challenge: a guesser waits without costing the server an HMAC. */
	wait = srv_backoff_try(&ss->srv->backoff, &ss->ctl_addr);
	if (wait) {
		snprintf(why, len, "too many wrong keys from this address: try again in %llu ms "
			 "(--psk back-off)", (unsigned long long)((wait + BP_NS_PER_MS - 1) /
								  BP_NS_PER_MS));
		return V_REFUSED;
	}
	if (bp_psk_unhex(json_string_value(offer), ss->auth.client_nonce)) {
		snprintf(why, len, "garbled key offer (%s): expected %d hex digits",
			 BP_PSK_KEY_OFFER, BP_PSK_HEX_LEN);
		return V_REFUSED;
	}
	if (bp_psk_nonce(ss->auth.nonce)) {
		snprintf(why, len, "no random nonce for the key challenge (RAND_bytes failed)");
		return V_REFUSED;
	}
	if (send_hex(ss->flow.fd, BP_AUTH_CHALLENGE, BP_PSK_KEY_NONCE, ss->auth.nonce)) {
		snprintf(why, len, "control connection lost sending the key challenge");
		return V_REFUSED;
	}
	return V_PENDING;
}

/* Right: prove the server's own key over the client's nonce, and go on. */
static enum verdict psk_answer(struct srv_session *ss, const json_t *msg, char *why,
			       size_t len)
{
	const struct bp_psk *k = ss->srv->o->psk;
	const char *mac = json_string_value(json_object_get(msg, BP_PSK_KEY_MAC));
	unsigned char proof[BP_PSK_MAC_LEN], snonce[BP_PSK_NONCE_LEN];
	bool ok = bp_psk_verify(k, ss->auth.nonce, ss->cookie, BP_PSK_CLIENT, mac);

	/* One answer per nonce: a second try on this connection would face the same one. */
	memcpy(snonce, ss->auth.nonce, sizeof(snonce));
	OPENSSL_cleanse(ss->auth.nonce, sizeof(ss->auth.nonce));
	if (!ok) {
		OPENSSL_cleanse(snonce, sizeof(snonce));
		srv_backoff_fail(&ss->srv->backoff, &ss->ctl_addr);
		snprintf(why, len, "wrong key (--psk): this server holds a different one");
		return V_REFUSED;
	}
	srv_backoff_pass(&ss->srv->backoff, &ss->ctl_addr);
	/* The test's streams prove the key under this nonce (protocol 2, proto/auth_psk.h). */
	ss->auth.stream_proof = !bp_psk_stream_key(k, snonce, ss->cookie, ss->auth.stream_key);
	OPENSSL_cleanse(snonce, sizeof(snonce));
	if (!ss->auth.stream_proof) {
		snprintf(why, len, "deriving the stream key: HMAC failed (OpenSSL)");
		return V_REFUSED;
	}
	if (bp_psk_mac(k, ss->auth.client_nonce, ss->cookie, BP_PSK_SERVER, proof) ||
	    send_hex(ss->flow.fd, BP_AUTH_OK, BP_PSK_KEY_MAC, proof)) {
		snprintf(why, len, "control connection lost sending the key's proof");
		return V_REFUSED;
	}
	return V_PASS;
}

/*
 * The methods in the order they are asked: one that decides from the parameters alone
 * belongs before one that sends a challenge, so that a client carrying both is not held
 * for a round trip it does not need.
 */
static const struct method methods[] = {
	{ .needs = "an iperf3 username (--username, --rsa-public-key-path)",
	  .configured = iperf3_configured, .start = iperf3_start, .answer = NULL },
	{ .needs = "a pre-shared key (--psk)", .configured = psk_configured,
	  .start = psk_start, .answer = psk_answer },
};
#define NMETHODS (sizeof(methods) / sizeof(methods[0]))

bool srv_auth_locked(const struct bp_server_opts *o)
{
	for (size_t i = 0; i < NMETHODS; i++)
		if (methods[i].configured(o))
			return true;
	return false;
}

/* The client brought nothing any configured method takes: name what it needs. */
static void refuse(struct srv_session *ss, const char *why)
{
	char needs[256] = "";
	size_t n = 0;

	if (why[0]) {
		srv_session_refuse(ss, SRV_REFUSAL_AUTHENTICATION, BP_IE_AUTHTEST, "%s", why);
		return;
	}
	for (size_t i = 0; i < NMETHODS && n < sizeof(needs); i++)
		if (methods[i].configured(ss->srv->o))
			n += (size_t)snprintf(needs + n, sizeof(needs) - n, "%s%s",
					      n ? " or " : "", methods[i].needs);
	/* A stock iperf3 prints iperf3's own text for the code; the line is for the log. */
	srv_session_refuse(ss, SRV_REFUSAL_AUTHENTICATION, BP_IE_AUTHTEST, "%sthe server needs %s",
			   ss->np.bp_version ? "" : "iperf3 client refused: ", needs);
}

bool srv_auth_params(struct srv_session *ss, const json_t *msg)
{
	char why[200] = "";

	ss->auth.pending = -1;
	for (size_t i = 0; i < NMETHODS; i++) {
		enum verdict v;

		if (!methods[i].configured(ss->srv->o))
			continue;
		v = methods[i].start(ss, msg, why, sizeof(why));
		if (v == V_PASS)
			return true;
		if (v == V_PENDING) {
			ss->auth.pending = (int)i;
			return false;
		}
	}
	if (!srv_auth_locked(ss->srv->o))
		return true;
	refuse(ss, why);
	return false;
}

bool srv_auth_answer(struct srv_session *ss, const json_t *msg)
{
	char why[200] = "";
	int i = ss->auth.pending;

	ss->auth.pending = -1;
	if (i < 0 || (size_t)i >= NMETHODS || !methods[i].answer) {
		srv_session_refuse(ss, SRV_REFUSAL_PROTOCOL, BP_IE_MESSAGE, "an answer to no key challenge");
		return false;
	}
	if (methods[i].answer(ss, msg, why, sizeof(why)) == V_PASS)
		return true;
	refuse(ss, why[0] ? why : "wrong key");
	return false;
}
