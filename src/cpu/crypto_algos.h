/*
 * The algorithms `boardperf cpu` measures, each through OpenSSL's EVP interface exactly
 * as `openssl speed` drives it, so that the figures agree with it:
 * - signatures: EVP_PKEY_sign/verify on a 36-byte input for RSA (PKCS#1 v1.5), on a
 *   20-byte digest for ECDSA, one-shot EVP_DigestSign/Verify for Ed25519;
 * - hashes: one EVP_Digest call per block (a fresh digest per block, as `openssl speed`);
 * - ciphers: repeated EVP_EncryptUpdate on one context (`openssl speed -evp NAME`), except
 *   AES-GCM, which OpenSSL 3.0.16 and later time per message: key and IV set, the block
 *   encrypted, the tag computed, for every block. That is also how GCM is used (each packet
 *   or record its own IV), so boardperf does the same for GCM. As there, the context has
 *   padding off and the block is encrypted in place.
 */
#ifndef BP_CPU_CRYPTO_ALGOS_H
#define BP_CPU_CRYPTO_ALGOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

enum bp_crypto_kind {
	BP_CRYPTO_SIGNATURE, /* items "<name>.sign" and "<name>.verify", in op/s */
	BP_CRYPTO_HASH,      /* items "<name>.<block size>", in B/s */
	BP_CRYPTO_CIPHER,    /* items "<name>.<block size>", in B/s */
};

struct bp_crypto_algo {
	const char *name;        /* as the user names it: "rsa2048", "sha256", "aes-128-gcm" */
	enum bp_crypto_kind kind;
	const char *ossl_name;   /* OpenSSL's name: test key, digest or cipher */
	bool in_default;         /* part of the default (quick) set */
	bool per_message;        /* ciphers: a whole AEAD message per block (see above) */
};

/* The table, in the order results are listed. */
extern const struct bp_crypto_algo bp_crypto_algos[];
extern const size_t bp_crypto_nalgos;

const struct bp_crypto_algo *bp_crypto_algo_find(const char *name);

/* "rsa1024, rsa2048, ..." for an error message. */
void bp_crypto_algo_names(char *buf, size_t len);

enum bp_crypto_dir { BP_CRYPTO_SIGN, BP_CRYPTO_VERIFY };

/* Signatures a verify item goes round (RSA-4096's, the largest, is 512 bytes). */
#define BP_VERIFY_SET 16

/* One worker's state for one item; never shared between threads. */
struct bp_crypto_op {
	const struct bp_crypto_algo *algo;
	enum bp_crypto_dir dir;     /* signatures */
	size_t size;                /* hashes and ciphers: bytes per operation */
	EVP_PKEY_CTX *pctx;
	EVP_MD_CTX *mdctx;
	EVP_MD *md;
	EVP_CIPHER_CTX *cctx;
	EVP_CIPHER *cipher;
	unsigned char *in;          /* the block; ciphers overwrite it in place */
	/*
	 * Verifying: BP_VERIFY_SET messages (the block with its first byte 0, 1, ...) and their
	 * signatures, verified in turn; signing uses message 0. See crypto_algos.c.
	 */
	unsigned char sig[BP_VERIFY_SET][512];
	size_t siglen[BP_VERIFY_SET];
	unsigned next_sig;          /* the pair the next verify takes */
	uint64_t since_rekey;       /* cipher bytes since the context was keyed */
};

/*
 * Prepare op for (algo, dir or size). key: the algorithm's test key for signatures
 * (shared read-only between workers), NULL otherwise. Returns 0 or a negative errno with
 * a one-line message.
 */
int bp_crypto_op_init(struct bp_crypto_op *op, const struct bp_crypto_algo *algo,
		      enum bp_crypto_dir dir, size_t size, EVP_PKEY *key,
		      char *err, size_t errlen);

/* Perform n operations. Returns 0, or -EIO when OpenSSL reports a failure. */
int bp_crypto_op_run(struct bp_crypto_op *op, uint64_t n);

void bp_crypto_op_free(struct bp_crypto_op *op);

#endif
