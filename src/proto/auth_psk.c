#include "proto/auth_psk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "core/be32.h"
#include "core/clock.h"
#include "proto/ctl_client.h"

/* The cookie's characters without its NUL: what both ends hold the same. */
#define COOKIE_CHARS (BP_COOKIE_LEN - 1)

static const char *const labels[] = {
	[BP_PSK_CLIENT] = "boardperf-psk client",
	[BP_PSK_SERVER] = "boardperf-psk server",
};

/* ssh's rule for a private key: nobody but the owner may read or change it. */
static int check_file(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st)) {
		snprintf(err, errlen, "--psk '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "--psk '%s': not a regular file; expected a file holding "
			 "the key", path);
		return -EINVAL;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen, "--psk '%s': permissions %04o are too open: the key must "
			 "not be accessible by group or others (chmod 600 '%s')", path,
			 (unsigned)(st.st_mode & 07777), path);
		return -EACCES;
	}
	return 0;
}

/* Up to len bytes of fd; *got is what was read (len + 1 or more means too long). */
static int read_upto(int fd, unsigned char *buf, size_t len, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t n = read(fd, buf + *got, len - *got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

int bp_psk_load(const char *path, struct bp_psk *k, char *err, size_t errlen)
{
	/* The key, a "\r\n", and one byte more to tell a key that is too long. */
	unsigned char buf[BP_PSK_MAX_LEN + 3];
	size_t n = 0;
	int fd, rc;

	memset(k, 0, sizeof(*k));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "--psk '%s': %s", path, strerror(errno));
		return -errno;
	}
	rc = check_file(fd, path, err, errlen);
	if (!rc && (rc = read_upto(fd, buf, sizeof(buf), &n)))
		snprintf(err, errlen, "--psk '%s': %s", path, strerror(-rc));
	close(fd);
	/* One trailing newline, as `echo` or an editor leaves it; the rest is the key. */
	if (!rc && n > 0 && buf[n - 1] == '\n')
		n -= n > 1 && buf[n - 2] == '\r' ? 2 : 1;
	if (!rc && n < BP_PSK_MIN_LEN) {
		snprintf(err, errlen, "--psk '%s': %zu bytes of key; expected at least %d "
			 "(e.g. head -c 32 /dev/urandom | base64 > '%s')", path, n, BP_PSK_MIN_LEN,
			 path);
		rc = -EINVAL;
	}
	if (!rc && n > BP_PSK_MAX_LEN) {
		snprintf(err, errlen, "--psk '%s': more than %d bytes; expected a key of %d to "
			 "%d bytes", path, BP_PSK_MAX_LEN, BP_PSK_MIN_LEN, BP_PSK_MAX_LEN);
		rc = -EINVAL;
	}
	if (!rc) {
		memcpy(k->key, buf, n);
		k->len = n;
	}
	OPENSSL_cleanse(buf, sizeof(buf));
	return rc;
}

int bp_psk_hmac(const unsigned char *key, size_t keylen, const void *msg, size_t len,
		unsigned char out[BP_PSK_MAC_LEN])
{
	unsigned int outlen = 0;

	if (keylen > BP_PSK_MAX_LEN ||
	    !HMAC(EVP_sha256(), key, (int)keylen, msg, len, out, &outlen) ||
	    outlen != BP_PSK_MAC_LEN)
		return -EIO;
	return 0;
}

int bp_psk_mac(const struct bp_psk *k, const unsigned char nonce[BP_PSK_NONCE_LEN],
	       const char cookie[BP_COOKIE_LEN], enum bp_psk_side side,
	       unsigned char out[BP_PSK_MAC_LEN])
{
	unsigned char msg[BP_PSK_NONCE_LEN + COOKIE_CHARS + 32];
	size_t lablen = strlen(labels[side]);

	memcpy(msg, nonce, BP_PSK_NONCE_LEN);
	memcpy(msg + BP_PSK_NONCE_LEN, cookie, COOKIE_CHARS);
	memcpy(msg + BP_PSK_NONCE_LEN + COOKIE_CHARS, labels[side], lablen);
	return bp_psk_hmac(k->key, k->len, msg, BP_PSK_NONCE_LEN + COOKIE_CHARS + lablen, out);
}

int bp_psk_stream_key(const struct bp_psk *k, const unsigned char snonce[BP_PSK_NONCE_LEN],
		      const char cookie[BP_COOKIE_LEN], unsigned char out[BP_PSK_MAC_LEN])
{
	static const char label[] = "boardperf-psk streams";
	unsigned char msg[BP_PSK_NONCE_LEN + COOKIE_CHARS + sizeof(label)];

	memcpy(msg, snonce, BP_PSK_NONCE_LEN);
	memcpy(msg + BP_PSK_NONCE_LEN, cookie, COOKIE_CHARS);
	memcpy(msg + BP_PSK_NONCE_LEN + COOKIE_CHARS, label, sizeof(label) - 1);
	return bp_psk_hmac(k->key, k->len, msg, sizeof(msg) - 1, out);
}

static int stream_mac(const unsigned char skey[BP_PSK_MAC_LEN], const unsigned char idx[4],
		      unsigned char out[BP_PSK_MAC_LEN])
{
	static const char label[] = "boardperf-psk stream";
	unsigned char msg[4 + sizeof(label)];

	memcpy(msg, idx, 4);
	memcpy(msg + 4, label, sizeof(label) - 1);
	return bp_psk_hmac(skey, BP_PSK_MAC_LEN, msg, sizeof(msg) - 1, out);
}

int bp_psk_stream_proof(const unsigned char skey[BP_PSK_MAC_LEN], uint32_t index,
			unsigned char out[BP_PSK_STREAM_PROOF_LEN])
{
	bp_put_be32(out, index);
	return stream_mac(skey, out, out + 4);
}

int bp_psk_stream_check(const unsigned char skey[BP_PSK_MAC_LEN], const unsigned char *buf,
			size_t len, uint32_t max_index, uint32_t *index)
{
	unsigned char want[BP_PSK_MAC_LEN];
	int rc;

	if (!buf || len != BP_PSK_STREAM_PROOF_LEN)
		return -EBADMSG;
	*index = bp_get_be32(buf);
	if (*index >= max_index)
		return -ERANGE;
	if (stream_mac(skey, buf, want))
		return -EACCES;
	rc = CRYPTO_memcmp(want, buf + 4, BP_PSK_MAC_LEN) ? -EACCES : 0;
	OPENSSL_cleanse(want, sizeof(want));
	return rc;
}

bool bp_psk_verify(const struct bp_psk *k, const unsigned char nonce[BP_PSK_NONCE_LEN],
		   const char cookie[BP_COOKIE_LEN], enum bp_psk_side side, const char *hex)
{
	unsigned char want[BP_PSK_MAC_LEN], got[BP_PSK_MAC_LEN];
	bool ok;

	if (bp_psk_unhex(hex, got) || bp_psk_mac(k, nonce, cookie, side, want))
		return false;
	/* Constant time: how far a guess matched must not show in how long it took. */
	ok = CRYPTO_memcmp(want, got, sizeof(want)) == 0;
	OPENSSL_cleanse(want, sizeof(want));
	return ok;
}

int bp_psk_nonce(unsigned char nonce[BP_PSK_NONCE_LEN])
{
	return RAND_bytes(nonce, BP_PSK_NONCE_LEN) == 1 ? 0 : -EIO;
}

void bp_psk_hex(const unsigned char bytes[32], char hex[BP_PSK_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 32; i++) {
		hex[2 * i] = digits[bytes[i] >> 4];
		hex[2 * i + 1] = digits[bytes[i] & 15];
	}
	hex[BP_PSK_HEX_LEN] = '\0';
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int bp_psk_unhex(const char *hex, unsigned char bytes[32])
{
	if (!hex || strlen(hex) != BP_PSK_HEX_LEN)
		return -EBADMSG;
	for (int i = 0; i < 32; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EBADMSG;
		bytes[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

int bp_psk_offer(json_t *params, unsigned char nonce[BP_PSK_NONCE_LEN])
{
	char hex[BP_PSK_HEX_LEN + 1];

	if (bp_psk_nonce(nonce))
		return -EIO;
	bp_psk_hex(nonce, hex);
	if (json_object_set_new(params, "bp_version",
				json_integer(BP_PROTO_VERSION_STREAM_PROOF)))
		return -ENOMEM;
	return json_object_set_new(params, BP_PSK_KEY_OFFER, json_string(hex)) ? -ENOMEM : 0;
}

/* A JSON message from the server and its hex field key as 32 bytes. */
static int recv_hex(struct bp_ctl *c, const char *key, unsigned char bytes[32], char *hex)
{
	json_t *msg = NULL;
	int rc = bp_proto_recv_json(c->fd, &msg, bp_now_ns() + c->step_ns);
	const char *s = rc ? NULL : json_string_value(json_object_get(msg, key));

	if (!rc)
		rc = bp_psk_unhex(s, bytes);
	if (!rc && hex)
		snprintf(hex, BP_PSK_HEX_LEN + 1, "%s", s);
	json_decref(msg);
	return rc;
}

/* The challenge: AUTH_CHALLENGE and the server's nonce, or why there is none. */
static int challenge(struct bp_ctl *c, const char *where, unsigned char snonce[32])
{
	int state, rc = bp_proto_recv_state(c->fd, &state, bp_now_ns() + c->step_ns);

	if (rc) {
		snprintf(c->err, c->errlen, "waiting for the key challenge from %s: %s", where,
			 strerror(-rc));
		return rc;
	}
	if (state == BP_SERVER_ERROR || state == BP_ACCESS_DENIED)
		return bp_ctl_refusal(c, state);
	if (state != BP_AUTH_CHALLENGE) {
		snprintf(c->err, c->errlen, "server %s asked for no key (it sent %s): it is not "
			 "locked (serve --psk), or not a boardperf server; --psk insists on "
			 "authentication, so no test ran", where, bp_proto_state_name(state));
		return -EACCES;
	}
	rc = recv_hex(c, BP_PSK_KEY_NONCE, snonce, NULL);
	if (rc)
		snprintf(c->err, c->errlen, "server %s sent a garbled key challenge: %s", where,
			 strerror(-rc));
	return rc;
}

int bp_psk_client_step(struct bp_ctl *c, const struct bp_psk *k,
		       const unsigned char nonce[BP_PSK_NONCE_LEN])
{
	unsigned char snonce[BP_PSK_NONCE_LEN], mac[BP_PSK_MAC_LEN];
	char where[64], hex[BP_PSK_HEX_LEN + 1];
	json_t *answer;
	int rc;

	bp_addr_str(&c->addr, where, sizeof(where));
	rc = challenge(c, where, snonce);
	if (rc)
		return rc;
	rc = bp_psk_mac(k, snonce, c->cookie, BP_PSK_CLIENT, mac);
	bp_psk_hex(mac, hex);
	answer = rc ? NULL : json_pack("{ss}", BP_PSK_KEY_MAC, hex);
	rc = answer ? bp_proto_send_json(c->fd, answer, bp_now_ns() + c->step_ns) : -ENOMEM;
	json_decref(answer);
	if (!rc)
		rc = bp_ctl_expect(c, BP_AUTH_OK);  /* a wrong key is refused here, with its line */
	if (rc)
		return rc;
	rc = recv_hex(c, BP_PSK_KEY_MAC, mac, hex);
	if (rc) {
		snprintf(c->err, c->errlen, "server %s sent a garbled proof of the key: %s", where,
			 strerror(-rc));
		return rc;
	}
	if (!bp_psk_verify(k, nonce, c->cookie, BP_PSK_SERVER, hex)) {
		snprintf(c->err, c->errlen, "server %s accepted the key but could not prove that "
			 "it holds it: not the server you meant; refusing to test", where);
		return -EACCES;
	}
	if (bp_psk_stream_key(k, snonce, c->cookie, c->stream_key)) {
		snprintf(c->err, c->errlen, "deriving the stream key: HMAC failed (OpenSSL)");
		return -EIO;
	}
	c->stream_proof = true;
	return 0;
}
