/*
 * Fuzz target for what a client sends to authenticate (src/proto/iperf3_auth.c,
 * src/proto/auth_psk.c), which a locked server reads before anything else:
 * - the input as iperf3's "authtoken" string (length cap, strict base64, block size);
 * - the input as the plaintext inside a token: encrypted here with the target's own RSA key
 *   (made once, 1024 bits: a block holds 117 bytes of text) and decoded as the server
 *   decodes it, so that the strict parser of "user: ... pwd: ... ts: ..." sees every shape,
 *   which random bytes would almost never decrypt to;
 * - the input as a pre-shared key's hex answer (bp_psk_unhex);
 * - the input as a data stream's key proof (bp_psk_stream_check), under a fixed stream key:
 *   whatever it is, it opens a stream only when it is exactly the proof of its index.
 * Besides crashes: what decodes must come out as fields of their bounded length.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "fuzz.h"
#include "proto/auth_psk.h"
#include "proto/iperf3_auth.h"

static EVP_PKEY *key;

static void decode_token(const char *token)
{
	struct bp_iperf3_creds c;
	char err[256];

	if (bp_iperf3_auth_decode(token, key, BP_IPERF3_PAD_PKCS1, &c, err, sizeof(err)))
		return;
	if (strnlen(c.user, sizeof(c.user)) == sizeof(c.user) ||
	    strnlen(c.password, sizeof(c.password)) == sizeof(c.password))
		abort();
}

/* The input as the text inside a token. */
static void as_plaintext(const uint8_t *data, size_t size)
{
	unsigned char block[128];
	char token[4 * sizeof(block) / 3 + 4];
	size_t blen = sizeof(block);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key, NULL);

	if (!ctx || EVP_PKEY_encrypt_init(ctx) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) <= 0)
		abort();
	/* what fits a 1024-bit block under PKCS#1 v1.5 (128 - 11 bytes) */
	if (size <= 117 && EVP_PKEY_encrypt(ctx, block, &blen, data, size) > 0) {
		EVP_EncodeBlock((unsigned char *)token, block, (int)blen);
		decode_token(token);
	}
	EVP_PKEY_CTX_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	unsigned char bytes[32];

	if (!key && !(key = EVP_RSA_gen(1024)))
		abort();
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	decode_token(text);
	as_plaintext(data, size);
	(void)bp_psk_unhex(text, bytes);
	free(text);
	{
		static const unsigned char skey[BP_PSK_MAC_LEN] = { 1, 2, 3 };
		unsigned char want[BP_PSK_STREAM_PROOF_LEN];
		uint32_t index = 0;

		if (!bp_psk_stream_check(skey, data, size, 8, &index) &&
		    (index >= 8 || bp_psk_stream_proof(skey, index, want) ||
		     size != sizeof(want) || memcmp(want, data, size)))
			abort();
	}
	return 0;
}
