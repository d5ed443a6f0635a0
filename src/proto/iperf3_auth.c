/*
 * iperf3's authentication token: RSA keys, the text inside, base64 around it
 * (iperf3_auth.h has the format). Everything a peer sends is checked before it is used:
 * the base64's length and alphabet before decoding, the block's size before decrypting,
 * the decrypted text field by field with nothing left over.
 */
#include "proto/iperf3_auth.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

/* Keys below 1024 bits cannot hold the text; above 8192 the token would pass its cap. */
#define KEY_BITS_MIN 1024
#define KEY_BITS_MAX 8192
/* Bytes each padding takes from an RSA block (PKCS#1 v1.5: 11; OAEP with SHA-1: 2*20+2). */
#define PAD_PKCS1_OVERHEAD 11
#define PAD_OAEP_OVERHEAD 42
/* The longest text: both fields at their limits and a 20-character number. */
#define TEXT_MAX (2 * BP_IPERF3_AUTH_FIELD_MAX + 64)

static const char user_tag[] = "user: ", pwd_tag[] = "\npwd:  ", ts_tag[] = "\nts:   ";

/* OpenSSL's first queued reason, for a message; clears the queue either way. */
static const char *ssl_reason(void)
{
	unsigned long e = ERR_get_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	return r ? r : "unknown OpenSSL error";
}

EVP_PKEY *bp_iperf3_auth_load_key(const char *path, bool private_key, char *err,
				  size_t errlen)
{
	const char *what = private_key ? "--rsa-private-key-path" : "--rsa-public-key-path";
	FILE *f = fopen(path, "re");
	EVP_PKEY *k;
	int bits;

	if (!f) {
		snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
		return NULL;
	}
	k = private_key ? PEM_read_PrivateKey(f, NULL, NULL, NULL) :
			  PEM_read_PUBKEY(f, NULL, NULL, NULL);
	fclose(f);
	if (!k) {
		snprintf(err, errlen, "%s '%s': expected a PEM RSA %s key (%s)", what, path,
			 private_key ? "private" : "public (openssl rsa -pubout)", ssl_reason());
		return NULL;
	}
	bits = EVP_PKEY_bits(k);
	if (EVP_PKEY_base_id(k) != EVP_PKEY_RSA || bits < KEY_BITS_MIN || bits > KEY_BITS_MAX) {
		snprintf(err, errlen, "%s '%s': expected an RSA key of %d to %d bits, got %s of "
			 "%d bits", what, path, KEY_BITS_MIN, KEY_BITS_MAX,
			 EVP_PKEY_base_id(k) == EVP_PKEY_RSA ? "RSA" : "another type", bits);
		EVP_PKEY_free(k);
		return NULL;
	}
	return k;
}

/* A character iperf3's sscanf("%s") keeps in a field: printable and not white space. */
static bool field_char(unsigned char ch)
{
	return ch > 0x20 && ch < 0x7f;
}

int bp_iperf3_auth_check_field(const char *what, const char *s, char *err, size_t errlen)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		if (!field_char((unsigned char)s[i])) {
			snprintf(err, errlen, "%s: character %zu is a space or unprintable; expected "
				 "printable ASCII without spaces (iperf3's token cannot carry them)",
				 what, i + 1);
			return -EINVAL;
		}
	if (n < 1 || n > BP_IPERF3_AUTH_FIELD_MAX) {
		snprintf(err, errlen, "%s: %zu characters; expected 1 to %d", what, n,
			 BP_IPERF3_AUTH_FIELD_MAX);
		return -EINVAL;
	}
	return 0;
}

static int set_padding(EVP_PKEY_CTX *ctx, enum bp_iperf3_padding pad)
{
	return EVP_PKEY_CTX_set_rsa_padding(ctx, pad == BP_IPERF3_PAD_OAEP ?
					    RSA_PKCS1_OAEP_PADDING : RSA_PKCS1_PADDING);
}

int bp_iperf3_auth_token(const char *user, const char *password, int64_t now_s,
			 EVP_PKEY *public_key, enum bp_iperf3_padding pad, char *out,
			 size_t outlen, char *err, size_t errlen)
{
	size_t klen = (size_t)EVP_PKEY_size(public_key), clen = klen;
	size_t room = klen - (pad == BP_IPERF3_PAD_OAEP ? PAD_OAEP_OVERHEAD : PAD_PKCS1_OVERHEAD);
	unsigned char text[TEXT_MAX], block[KEY_BITS_MAX / 8];
	EVP_PKEY_CTX *ctx = NULL;
	int n, rc = -EINVAL;

	if (bp_iperf3_auth_check_field("--username", user, err, errlen) ||
	    bp_iperf3_auth_check_field("password", password, err, errlen))
		return -EINVAL;
	n = snprintf((char *)text, sizeof(text), "%s%s%s%s%s%" PRId64, user_tag, user, pwd_tag,
		     password, ts_tag, now_s);
	if (n < 0 || (size_t)n >= sizeof(text) || (size_t)n > room) {
		snprintf(err, errlen, "--username and password: %d bytes of token text do not fit "
			 "the %zu-bit key's %zu; use shorter ones or a larger key", n, klen * 8, room);
		goto out;
	}
	if (klen > sizeof(block) || 4 * ((klen + 2) / 3) >= outlen) {
		snprintf(err, errlen, "RSA key of %zu bytes: too large for a token", klen);
		goto out;
	}
	ctx = EVP_PKEY_CTX_new(public_key, NULL);
	if (!ctx || EVP_PKEY_encrypt_init(ctx) <= 0 || set_padding(ctx, pad) <= 0 ||
	    EVP_PKEY_encrypt(ctx, block, &clen, text, (size_t)n) <= 0 || clen != klen) {
		snprintf(err, errlen, "encrypting the iperf3 token: %s", ssl_reason());
		rc = -EIO;
		goto out;
	}
	EVP_EncodeBlock((unsigned char *)out, block, (int)clen);
	rc = 0;
out:
	OPENSSL_cleanse(text, sizeof(text));
	EVP_PKEY_CTX_free(ctx);
	return rc;
}

int bp_iperf3_client_add_token(const struct bp_iperf3_client *c, json_t *params, char *err,
			       size_t errlen)
{
	char token[BP_IPERF3_AUTH_TOKEN_MAX + 1];
	/* iperf3's timestamp is Unix time: the wall clock, not a duration. */
	int rc = bp_iperf3_auth_token(c->user, c->password, (int64_t)time(NULL), c->public_key,
				      c->pad, token, sizeof(token), err, errlen);

	if (!rc && json_object_set_new(params, "authtoken", json_string(token)))
		rc = -ENOMEM;
	return rc;
}

/* Strict base64: length a multiple of 4, the alphabet, '=' only as the last one or two. */
static int base64_check(const char *s, size_t n, size_t *pad)
{
	*pad = 0;
	if (n == 0 || n % 4)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '=' && i + 2 >= n && (i + 1 == n || s[i + 1] == '='))
			(*pad)++;
		else if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			   (ch >= '0' && ch <= '9') || ch == '+' || ch == '/') || *pad)
			return -1;
	}
	return 0;
}

/* One field of the text: what lies between *p and the next '\n' (or the end). */
static int take_field(const unsigned char **p, const unsigned char *end, char *out)
{
	size_t n = 0;

	while (*p < end && **p != '\n') {
		if (!field_char(**p) || n >= BP_IPERF3_AUTH_FIELD_MAX)
			return -1;
		out[n++] = (char)*(*p)++;
	}
	out[n] = '\0';
	return n ? 0 : -1;
}

static int take_tag(const unsigned char **p, const unsigned char *end, const char *tag)
{
	size_t n = strlen(tag);

	if ((size_t)(end - *p) < n || memcmp(*p, tag, n))
		return -1;
	*p += n;
	return 0;
}

/* Decimal seconds, 1 to 18 digits (below 10^18: no overflow), and nothing after. */
static int take_ts(const unsigned char *p, const unsigned char *end, int64_t *ts)
{
	int64_t v = 0;

	if (p == end || end - p > 18)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	*ts = v;
	return 0;
}

static int parse_text(const unsigned char *t, size_t n, struct bp_iperf3_creds *c)
{
	const unsigned char *p = t, *end = t + n;

	if (take_tag(&p, end, user_tag) || take_field(&p, end, c->user) ||
	    take_tag(&p, end, pwd_tag) || take_field(&p, end, c->password) ||
	    take_tag(&p, end, ts_tag) || take_ts(p, end, &c->ts))
		return -1;
	return 0;
}

int bp_iperf3_auth_decode(const char *token, EVP_PKEY *private_key,
			  enum bp_iperf3_padding pad, struct bp_iperf3_creds *c, char *err,
			  size_t errlen)
{
	size_t n = strnlen(token, BP_IPERF3_AUTH_TOKEN_MAX + 1), klen, plen, npad;
	unsigned char block[KEY_BITS_MAX / 8 + 3], text[KEY_BITS_MAX / 8];
	EVP_PKEY_CTX *ctx = NULL;
	int rc = -EINVAL;

	memset(c, 0, sizeof(*c));
	klen = (size_t)EVP_PKEY_size(private_key);
	if (n > BP_IPERF3_AUTH_TOKEN_MAX || base64_check(token, n, &npad)) {
		snprintf(err, errlen, "authtoken is not base64 of at most %d characters",
			 BP_IPERF3_AUTH_TOKEN_MAX);
		return -EINVAL;
	}
	if (n / 4 * 3 - npad != klen) {
		snprintf(err, errlen, "authtoken holds %zu bytes; the %zu-bit key's block is %zu",
			 n / 4 * 3 - npad, klen * 8, klen);
		return -EINVAL;
	}
	EVP_DecodeBlock(block, (const unsigned char *)token, (int)n);
	plen = sizeof(text);
	ctx = EVP_PKEY_CTX_new(private_key, NULL);
	if (!ctx || EVP_PKEY_decrypt_init(ctx) <= 0 || set_padding(ctx, pad) <= 0 ||
	    EVP_PKEY_decrypt(ctx, text, &plen, block, klen) <= 0) {
		ERR_clear_error();
		snprintf(err, errlen, "authtoken does not decrypt with this key and %s padding",
			 pad == BP_IPERF3_PAD_OAEP ? "OAEP" : "PKCS#1 v1.5");
		rc = -EBADMSG;
		goto out;
	}
	if (parse_text(text, plen, c)) {
		memset(c, 0, sizeof(*c));
		snprintf(err, errlen, "authtoken decrypts, but not to iperf3's "
			 "\"user: U\\npwd:  P\\nts:   SECONDS\"");
		goto out;
	}
	rc = 0;
out:
	OPENSSL_cleanse(text, sizeof(text));
	EVP_PKEY_CTX_free(ctx);
	return rc;
}
