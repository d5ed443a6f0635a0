#include "cpu/crypto_algos.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>

const struct bp_crypto_algo bp_crypto_algos[] = {
	{ "rsa1024", BP_CRYPTO_SIGNATURE, "rsa1024", false, false },
	{ "rsa2048", BP_CRYPTO_SIGNATURE, "rsa2048", true, false },
	{ "rsa3072", BP_CRYPTO_SIGNATURE, "rsa3072", false, false },
	{ "rsa4096", BP_CRYPTO_SIGNATURE, "rsa4096", false, false },
	{ "ecdsa-p256", BP_CRYPTO_SIGNATURE, "ecdsa-p256", true, false },
	{ "ed25519", BP_CRYPTO_SIGNATURE, "ed25519", true, false },
	{ "sha1", BP_CRYPTO_HASH, "SHA1", true, false },
	{ "sha256", BP_CRYPTO_HASH, "SHA256", true, false },
	{ "sha512", BP_CRYPTO_HASH, "SHA512", false, false },
	{ "md5", BP_CRYPTO_HASH, "MD5", false, false },
	{ "aes-128-gcm", BP_CRYPTO_CIPHER, "AES-128-GCM", true, true },
	{ "aes-256-cbc", BP_CRYPTO_CIPHER, "AES-256-CBC", false, false },
	{ "chacha20-poly1305", BP_CRYPTO_CIPHER, "ChaCha20-Poly1305", true, false },
};
const size_t bp_crypto_nalgos = sizeof(bp_crypto_algos) / sizeof(bp_crypto_algos[0]);

/*
 * GCM allows at most 2^36 - 32 bytes under one IV; re-key well before that. Once per GiB
 * costs one EVP_EncryptInit_ex: nothing next to a GiB of encryption.
 */
#define REKEY_BYTES (1ULL << 30)

/*
 * What is signed, as `openssl speed` signs it: 36 bytes for RSA (an MD5+SHA-1 sized
 * digest), 20 bytes for ECDSA and EdDSA.
 */
#define RSA_INPUT_LEN 36
#define DIGEST_INPUT_LEN 20

const struct bp_crypto_algo *bp_crypto_algo_find(const char *name)
{
	for (size_t i = 0; i < bp_crypto_nalgos; i++)
		if (!strcmp(bp_crypto_algos[i].name, name))
			return &bp_crypto_algos[i];
	return NULL;
}

void bp_crypto_algo_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < bp_crypto_nalgos && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 bp_crypto_algos[i].name);
}

/* The newest OpenSSL error as text, for a one-line message. */
static int ossl_fail(char *err, size_t errlen, const char *what, const char *name)
{
	char reason[160];

	ERR_error_string_n(ERR_get_error(), reason, sizeof(reason));
	snprintf(err, errlen, "%s %s: %s", what, name, reason);
	ERR_clear_error();
	return -EIO;
}

static bool is_rsa(const struct bp_crypto_algo *a)
{
	return !strncmp(a->name, "rsa", 3);
}

/*
 * A verify item checks BP_VERIFY_SET signatures in turn, not one. Ed25519 and ECDSA verify
 * in variable time (the double scalar multiplication's cost follows the digits of the
 * signature's scalars), so one fixed signature is one draw: callgrind counts 1.485 to
 * 1.522 million instructions for Ed25519 verifies of twelve different messages under one
 * key (OpenSSL 3.0, x86-64), ±1.2 %. `openssl speed` draws a fresh key per run; its median
 * over runs is the mean cost, and so is a figure over a set of signatures. Message i is
 * the block with its first byte set to i (the digest-sized input is what is signed).
 */
static void set_message(struct bp_crypto_op *op, unsigned i)
{
	op->in[0] = (unsigned char)i;
}

/* Ed25519 signs messages (one-shot DigestSign); RSA and ECDSA sign a given digest. */
static int init_eddsa(struct bp_crypto_op *op, EVP_PKEY *key, char *err, size_t errlen)
{
	unsigned n = op->dir == BP_CRYPTO_VERIFY ? BP_VERIFY_SET : 1;

	op->mdctx = EVP_MD_CTX_new();
	if (!op->mdctx || EVP_DigestSignInit(op->mdctx, NULL, NULL, NULL, key) <= 0)
		return ossl_fail(err, errlen, "sign init", op->algo->name);
	for (unsigned i = 0; i < n; i++) {
		set_message(op, i);
		op->siglen[i] = sizeof(op->sig[i]);
		if (EVP_DigestSign(op->mdctx, op->sig[i], &op->siglen[i], op->in,
				   DIGEST_INPUT_LEN) <= 0)
			return ossl_fail(err, errlen, "sign", op->algo->name);
	}
	set_message(op, 0);
	if (op->dir == BP_CRYPTO_VERIFY &&
	    EVP_DigestVerifyInit(op->mdctx, NULL, NULL, NULL, key) <= 0)
		return ossl_fail(err, errlen, "verify init", op->algo->name);
	return 0;
}

static int init_pkey(struct bp_crypto_op *op, EVP_PKEY *key, char *err, size_t errlen)
{
	size_t inlen = is_rsa(op->algo) ? RSA_INPUT_LEN : DIGEST_INPUT_LEN;
	unsigned n = op->dir == BP_CRYPTO_VERIFY ? BP_VERIFY_SET : 1;

	op->pctx = EVP_PKEY_CTX_new(key, NULL);
	if (!op->pctx || EVP_PKEY_sign_init(op->pctx) <= 0)
		return ossl_fail(err, errlen, "sign init", op->algo->name);
	/* The signatures to verify: made once, up front. */
	for (unsigned i = 0; i < n; i++) {
		set_message(op, i);
		op->siglen[i] = sizeof(op->sig[i]);
		if (EVP_PKEY_sign(op->pctx, op->sig[i], &op->siglen[i], op->in, inlen) <= 0)
			return ossl_fail(err, errlen, "sign", op->algo->name);
	}
	set_message(op, 0);
	if (op->dir == BP_CRYPTO_VERIFY && EVP_PKEY_verify_init(op->pctx) <= 0)
		return ossl_fail(err, errlen, "verify init", op->algo->name);
	return 0;
}

static const unsigned char cipher_key[32] = "boardperf benchmark key, 32 B..";
static const unsigned char cipher_iv[16] = "boardperf iv 16";
/* The 96-bit nonce every GCM user is told to use. */
#define AEAD_IV_LEN 12

static int key_cipher(struct bp_crypto_op *op)
{
	op->since_rekey = 0;
	/* The cipher was set once: a NULL one here keeps the context's settings (padding). */
	return EVP_EncryptInit_ex(op->cctx, NULL, NULL, cipher_key, cipher_iv) > 0 ?
	       0 : -EIO;
}

/*
 * One AEAD message, as `openssl speed -evp` (3.0.16 and later) makes it: the IV length,
 * key and IV, the payload encrypted in place, the tag. No AAD (that is its -aead mode).
 */
static int run_message(struct bp_crypto_op *op)
{
	int outl;

	if (EVP_CIPHER_CTX_ctrl(op->cctx, EVP_CTRL_AEAD_SET_IVLEN, AEAD_IV_LEN, NULL) <= 0 ||
	    EVP_CipherInit_ex(op->cctx, NULL, NULL, cipher_key, cipher_iv, -1) <= 0 ||
	    EVP_EncryptUpdate(op->cctx, op->in, &outl, op->in, (int)op->size) <= 0 ||
	    EVP_EncryptFinal_ex(op->cctx, op->in, &outl) <= 0)
		return -EIO;
	return 0;
}

static int init_symmetric(struct bp_crypto_op *op, char *err, size_t errlen)
{
	if (op->algo->kind == BP_CRYPTO_HASH) {
		op->md = EVP_MD_fetch(NULL, op->algo->ossl_name, NULL);
		if (!op->md)
			return ossl_fail(err, errlen, "fetch digest", op->algo->name);
		return 0;
	}
	op->cipher = EVP_CIPHER_fetch(NULL, op->algo->ossl_name, NULL);
	op->cctx = EVP_CIPHER_CTX_new();
	if (!op->cipher || !op->cctx ||
	    EVP_CipherInit_ex(op->cctx, op->cipher, NULL, NULL, NULL, 1) <= 0)
		return ossl_fail(err, errlen, "set up cipher", op->algo->name);
	/*
	 * Padding off, as `openssl speed -evp` sets it. Nothing here pads (GCM, ChaCha20 and
	 * whole CBC blocks), but with the flag set OpenSSL 3 hands it to the provider again on
	 * every EVP_CipherInit_ex: about 380 instructions per GCM message, a tenth of a
	 * 16-byte one. Without it boardperf read 1.11x openssl speed at 16 bytes.
	 */
	EVP_CIPHER_CTX_set_padding(op->cctx, 0);
	if (key_cipher(op))
		return ossl_fail(err, errlen, "set up cipher", op->algo->name);
	return 0;
}

int bp_crypto_op_init(struct bp_crypto_op *op, const struct bp_crypto_algo *algo,
		      enum bp_crypto_dir dir, size_t size, EVP_PKEY *key,
		      char *err, size_t errlen)
{
	size_t buflen = size > 64 ? size : 64;
	int rc;

	memset(op, 0, sizeof(*op));
	op->algo = algo;
	op->dir = dir;
	op->size = size;
	/*
	 * Room for a cipher's trailing block; contents are arbitrary but fixed. Ciphers work
	 * in place, as `openssl speed` does: one buffer in the cache, not two.
	 */
	op->in = calloc(1, buflen + 64);
	if (!op->in) {
		snprintf(err, errlen, "%s: out of memory for %zu-byte buffers", algo->name, size);
		return -ENOMEM;
	}
	memset(op->in, 0x5a, buflen);
	if (algo->kind != BP_CRYPTO_SIGNATURE)
		rc = init_symmetric(op, err, errlen);
	else if (!key)
		rc = ossl_fail(err, errlen, "load test key", algo->name);
	else if (EVP_PKEY_is_a(key, "ED25519"))
		rc = init_eddsa(op, key, err, errlen);
	else
		rc = init_pkey(op, key, err, errlen);
	if (rc)
		bp_crypto_op_free(op);
	return rc;
}

static int run_signature(struct bp_crypto_op *op, uint64_t n)
{
	size_t inlen = is_rsa(op->algo) ? RSA_INPUT_LEN : DIGEST_INPUT_LEN;
	unsigned char sig[sizeof(op->sig[0])];
	size_t siglen;

	for (uint64_t i = 0; i < n; i++) {
		unsigned k = op->next_sig;
		int ok;

		siglen = sizeof(sig);
		if (op->dir == BP_CRYPTO_VERIFY) {
			/* the message of the pair: one byte, nothing next to a verify */
			set_message(op, k);
			op->next_sig = (k + 1) % BP_VERIFY_SET;
		}
		if (op->mdctx && op->dir == BP_CRYPTO_SIGN)
			ok = EVP_DigestSign(op->mdctx, sig, &siglen, op->in, inlen);
		else if (op->mdctx)
			ok = EVP_DigestVerify(op->mdctx, op->sig[k], op->siglen[k], op->in, inlen);
		else if (op->dir == BP_CRYPTO_SIGN)
			ok = EVP_PKEY_sign(op->pctx, sig, &siglen, op->in, inlen);
		else
			ok = EVP_PKEY_verify(op->pctx, op->sig[k], op->siglen[k], op->in, inlen);
		if (ok <= 0)
			return -EIO;
	}
	return 0;
}

int bp_crypto_op_run(struct bp_crypto_op *op, uint64_t n)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	int outl;

	switch (op->algo->kind) {
	case BP_CRYPTO_SIGNATURE:
		return run_signature(op, n);
	case BP_CRYPTO_HASH:
		for (uint64_t i = 0; i < n; i++)
			if (EVP_Digest(op->in, op->size, md, NULL, op->md, NULL) <= 0)
				return -EIO;
		return 0;
	case BP_CRYPTO_CIPHER:
		for (uint64_t i = 0; op->algo->per_message && i < n; i++)
			if (run_message(op))
				return -EIO;
		for (uint64_t i = 0; !op->algo->per_message && i < n; i++) {
			if (op->since_rekey >= REKEY_BYTES && key_cipher(op))
				return -EIO;
			if (EVP_EncryptUpdate(op->cctx, op->in, &outl, op->in, (int)op->size) <= 0)
				return -EIO;
			op->since_rekey += op->size;
		}
		return 0;
	}
	return -EINVAL;
}

void bp_crypto_op_free(struct bp_crypto_op *op)
{
	EVP_PKEY_CTX_free(op->pctx);
	EVP_MD_CTX_free(op->mdctx);
	EVP_MD_free(op->md);
	EVP_CIPHER_CTX_free(op->cctx);
	EVP_CIPHER_free(op->cipher);
	free(op->in);
	memset(op, 0, sizeof(*op));
}
