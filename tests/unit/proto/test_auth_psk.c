/*
 * The pre-shared key (proto/auth_psk.c): HMAC-SHA256 against RFC 4231's vectors through
 * bp_psk_hmac, the answer's layout pinned against an HMAC computed by `openssl mac`, and
 * every answer that must not pass (wrong key, another nonce, the other side's label,
 * another cookie, garbled hex); the key file's rules (permissions, length, newline); the data
 * streams' proof (protocol 2): its layout pinned against Python's hmac, and every proof that
 * must not open a stream (wrong key, another test's nonce or cookie, another index, an index
 * out of range, a short or long message, a flipped bit).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/auth_psk.h"
#include "tap.h"

static void unhex_any(const char *hex, unsigned char *out, size_t *len)
{
	*len = 0;
	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;

		sscanf(hex, "%2x", &v);
		out[(*len)++] = (unsigned char)v;
	}
}

static void fill(unsigned char *p, unsigned char v, size_t n)
{
	memset(p, v, n);
}

/* RFC 4231 §4.2-4.8, HMAC-SHA-256 (case 5 is truncated to 128 bits). */
static void rfc4231(void)
{
	static const char *const want[] = {
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		"773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
		"82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
		"a3b6167473100ee06e0c796c2955552b",
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
		"9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
	};
	unsigned char key[131], data[256], mac[BP_PSK_MAC_LEN], w[BP_PSK_MAC_LEN];
	size_t klen = 0, dlen = 0, wlen;

	for (int c = 0; c < 7; c++) {
		switch (c) {
		case 0:
			fill(key, 0x0b, klen = 20);
			memcpy(data, "Hi There", dlen = 8);
			break;
		case 1:
			memcpy(key, "Jefe", klen = 4);
			memcpy(data, "what do ya want for nothing?", dlen = 28);
			break;
		case 2:
			fill(key, 0xaa, klen = 20);
			fill(data, 0xdd, dlen = 50);
			break;
		case 3:
			for (klen = 0; klen < 25; klen++)
				key[klen] = (unsigned char)(klen + 1);
			fill(data, 0xcd, dlen = 50);
			break;
		case 4:
			fill(key, 0x0c, klen = 20);
			memcpy(data, "Test With Truncation", dlen = 20);
			break;
		case 5:
			fill(key, 0xaa, klen = 131);
			dlen = strlen(strcpy((char *)data, "Test Using Larger Than Block-Size Key - "
					     "Hash Key First"));
			break;
		case 6:
			fill(key, 0xaa, klen = 131);
			dlen = strlen(strcpy((char *)data, "This is a test using a larger than "
					     "block-size key and a larger than block-size data. The "
					     "key needs to be hashed before being used by the HMAC "
					     "algorithm."));
			break;
		}
		unhex_any(want[c], w, &wlen);
		CHECK_INT(bp_psk_hmac(key, klen, data, dlen, mac), 0);
		CHECK(memcmp(mac, w, wlen) == 0);
	}
}

static const char cookie[BP_COOKIE_LEN] = "abcdefghijklmnopqrstuvwxyz234567abcd";

static void set_key(struct bp_psk *k, const char *s)
{
	memset(k, 0, sizeof(*k));
	k->len = strlen(s);
	memcpy(k->key, s, k->len);
}

/* The answer's bytes: nonce | cookie's 36 characters | label, as `openssl mac` computed. */
static void layout(void)
{
	struct bp_psk k;
	unsigned char nonce[BP_PSK_NONCE_LEN], mac[BP_PSK_MAC_LEN];
	char hex[BP_PSK_HEX_LEN + 1];

	set_key(&k, "0123456789abcdef0123456789abcdef");
	for (int i = 0; i < BP_PSK_NONCE_LEN; i++)
		nonce[i] = (unsigned char)i;
	CHECK_INT(bp_psk_mac(&k, nonce, cookie, BP_PSK_CLIENT, mac), 0);
	bp_psk_hex(mac, hex);
	CHECK_STR(hex, "626049dc31a023589db83ba7029abf3eeb8cb7483f9d1859fdbe2a2f369923f3");
	CHECK_INT(bp_psk_mac(&k, nonce, cookie, BP_PSK_SERVER, mac), 0);
	bp_psk_hex(mac, hex);
	CHECK_STR(hex, "7e894a4714ddf69ef63e0113e7df1c9d339c15ae8ee0b00f23a5b4b87b5d89d7");
}

static void hex_of(const unsigned char *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* The streams' proof: stream key, then index and MAC, as computed by Python's hmac. */
static void stream_layout(void)
{
	struct bp_psk k;
	unsigned char nonce[BP_PSK_NONCE_LEN], skey[BP_PSK_MAC_LEN];
	unsigned char proof[BP_PSK_STREAM_PROOF_LEN];
	char hex[2 * BP_PSK_STREAM_PROOF_LEN + 1];

	set_key(&k, "0123456789abcdef0123456789abcdef");
	for (int i = 0; i < BP_PSK_NONCE_LEN; i++)
		nonce[i] = (unsigned char)i;
	CHECK_INT(bp_psk_stream_key(&k, nonce, cookie, skey), 0);
	hex_of(skey, sizeof(skey), hex);
	CHECK_STR(hex, "8457413d05ba840a5a8180fce308f04fa58a26104e13a61e875ddbc72c4a44fe");
	CHECK_INT(bp_psk_stream_proof(skey, 0, proof), 0);
	hex_of(proof, sizeof(proof), hex);
	CHECK_STR(hex, "00000000f7d4b8bcb2b0c7d720b68e3a57a9f8a5212b729969c1a9ffecb176711ad1e22d");
	CHECK_INT(bp_psk_stream_proof(skey, 3, proof), 0);
	hex_of(proof, sizeof(proof), hex);
	CHECK_STR(hex, "00000003f76194acd5a386bf5d2b4d482f7dea1d27f7cf2d31bf36e41d43788477289c70");
}

/* Which stream proofs open a stream. */
static void stream_check(void)
{
	struct bp_psk k, wrong;
	unsigned char n1[BP_PSK_NONCE_LEN], n2[BP_PSK_NONCE_LEN], sk[BP_PSK_MAC_LEN];
	unsigned char other[BP_PSK_MAC_LEN], proof[BP_PSK_STREAM_PROOF_LEN + 1];
	char ck2[BP_COOKIE_LEN];
	uint32_t idx = 99;

	set_key(&k, "correct horse battery staple");
	set_key(&wrong, "correct horse battery stapler");
	CHECK_INT(bp_psk_nonce(n1), 0);
	CHECK_INT(bp_psk_nonce(n2), 0);
	CHECK_INT(bp_psk_stream_key(&k, n1, cookie, sk), 0);
	CHECK_INT(bp_psk_stream_proof(sk, 2, proof), 0);
	CHECK_INT(bp_psk_stream_check(sk, proof, BP_PSK_STREAM_PROOF_LEN, 3, &idx), 0);
	CHECK_INT(idx, 2);
	/* the index is the client's claim, bounded by the streams the test has */
	CHECK_INT(bp_psk_stream_check(sk, proof, BP_PSK_STREAM_PROOF_LEN, 2, &idx), -ERANGE);
	/* another index with this index's MAC */
	proof[3] = 1;
	CHECK_INT(bp_psk_stream_check(sk, proof, BP_PSK_STREAM_PROOF_LEN, 3, &idx), -EACCES);
	proof[3] = 2;
	/* a flipped bit of the MAC */
	proof[BP_PSK_STREAM_PROOF_LEN - 1] ^= 1;
	CHECK_INT(bp_psk_stream_check(sk, proof, BP_PSK_STREAM_PROOF_LEN, 3, &idx), -EACCES);
	proof[BP_PSK_STREAM_PROOF_LEN - 1] ^= 1;
	/* short, long, absent */
	CHECK_INT(bp_psk_stream_check(sk, proof, BP_PSK_STREAM_PROOF_LEN - 1, 3, &idx), -EBADMSG);
	CHECK_INT(bp_psk_stream_check(sk, proof, BP_PSK_STREAM_PROOF_LEN + 1, 3, &idx), -EBADMSG);
	CHECK_INT(bp_psk_stream_check(sk, NULL, 0, 3, &idx), -EBADMSG);
	/* the same proof under another key, another test's nonce, another cookie */
	CHECK_INT(bp_psk_stream_key(&wrong, n1, cookie, other), 0);
	CHECK_INT(bp_psk_stream_check(other, proof, BP_PSK_STREAM_PROOF_LEN, 3, &idx), -EACCES);
	CHECK_INT(bp_psk_stream_key(&k, n2, cookie, other), 0);
	CHECK_INT(bp_psk_stream_check(other, proof, BP_PSK_STREAM_PROOF_LEN, 3, &idx), -EACCES);
	memcpy(ck2, cookie, sizeof(ck2));
	ck2[5] = '7';
	CHECK_INT(bp_psk_stream_key(&k, n1, ck2, other), 0);
	CHECK_INT(bp_psk_stream_check(other, proof, BP_PSK_STREAM_PROOF_LEN, 3, &idx), -EACCES);
	/* the stream key is not the control connection's answer over the same nonce */
	CHECK_INT(bp_psk_mac(&k, n1, cookie, BP_PSK_CLIENT, other), 0);
	CHECK(memcmp(other, sk, sizeof(sk)) != 0);
}

/* What passes and what must not. */
static void verify(void)
{
	struct bp_psk k, wrong;
	unsigned char n1[BP_PSK_NONCE_LEN], n2[BP_PSK_NONCE_LEN], mac[BP_PSK_MAC_LEN];
	char hex[BP_PSK_HEX_LEN + 1], other[BP_COOKIE_LEN], bad[BP_PSK_HEX_LEN + 1];

	set_key(&k, "correct horse battery staple");
	set_key(&wrong, "correct horse battery stapler");
	CHECK_INT(bp_psk_nonce(n1), 0);
	CHECK_INT(bp_psk_nonce(n2), 0);
	CHECK(memcmp(n1, n2, sizeof(n1)) != 0);  /* 2^-256 to fail */
	CHECK_INT(bp_psk_mac(&k, n1, cookie, BP_PSK_CLIENT, mac), 0);
	bp_psk_hex(mac, hex);
	CHECK(bp_psk_verify(&k, n1, cookie, BP_PSK_CLIENT, hex));
	CHECK(!bp_psk_verify(&wrong, n1, cookie, BP_PSK_CLIENT, hex));
	/* Replayed on the next connection, which has another nonce. */
	CHECK(!bp_psk_verify(&k, n2, cookie, BP_PSK_CLIENT, hex));
	/* The client's answer is not the server's proof, nor the other way round. */
	CHECK(!bp_psk_verify(&k, n1, cookie, BP_PSK_SERVER, hex));
	/* Another test's cookie. */
	memcpy(other, cookie, sizeof(other));
	other[0] = 'z';
	CHECK(!bp_psk_verify(&k, n1, other, BP_PSK_CLIENT, hex));
	/* Garbled: missing, short, long, not hex, one digit off. */
	CHECK(!bp_psk_verify(&k, n1, cookie, BP_PSK_CLIENT, NULL));
	CHECK(!bp_psk_verify(&k, n1, cookie, BP_PSK_CLIENT, ""));
	snprintf(bad, sizeof(bad), "%.63s", hex);
	CHECK(!bp_psk_verify(&k, n1, cookie, BP_PSK_CLIENT, bad));
	{
		char longer[BP_PSK_HEX_LEN + 3];

		snprintf(longer, sizeof(longer), "%s00", hex);
		CHECK(!bp_psk_verify(&k, n1, cookie, BP_PSK_CLIENT, longer));
	}
	memcpy(bad, hex, sizeof(bad));
	bad[10] = 'g';
	CHECK(!bp_psk_verify(&k, n1, cookie, BP_PSK_CLIENT, bad));
	memcpy(bad, hex, sizeof(bad));
	bad[63] = bad[63] == '0' ? '1' : '0';
	CHECK(!bp_psk_verify(&k, n1, cookie, BP_PSK_CLIENT, bad));
	/* Hex in capitals is the same bytes. */
	for (int i = 0; hex[i]; i++)
		bad[i] = (char)(hex[i] >= 'a' ? hex[i] - 32 : hex[i]);
	bad[BP_PSK_HEX_LEN] = '\0';
	CHECK(bp_psk_verify(&k, n1, cookie, BP_PSK_CLIENT, bad));
}

static char dir[64];

/* A key file with these bytes and mode; its path. */
static const char *keyfile(const char *name, const void *bytes, size_t n, mode_t mode)
{
	static char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, bytes, n) != (ssize_t)n)
		abort();
	fchmod(fd, mode);
	close(fd);
	return path;
}

static void load(void)
{
	struct bp_psk k;
	char err[256], big[BP_PSK_MAX_LEN + 2];

	CHECK_INT(bp_psk_load(keyfile("a", "0123456789abcdef\n", 17, 0600), &k, err, sizeof(err)),
		  0);
	CHECK_INT(k.len, 16);
	CHECK(memcmp(k.key, "0123456789abcdef", 16) == 0);
	CHECK_INT(bp_psk_load(keyfile("b", "0123456789abcdef\r\n", 18, 0400), &k, err,
			      sizeof(err)), 0);
	CHECK_INT(k.len, 16);
	/* Only one newline is stripped: the rest is key. */
	CHECK_INT(bp_psk_load(keyfile("c", "0123456789abcdef\n\n", 18, 0600), &k, err,
			      sizeof(err)), 0);
	CHECK_INT(k.len, 17);
	/* No newline: all of it. Binary bytes are fine. */
	CHECK_INT(bp_psk_load(keyfile("d", "\0\1\2\3\4\5\6\7\10\11\12\13\14\15\16\17", 16, 0600),
			      &k, err, sizeof(err)), 0);
	CHECK_INT(k.len, 16);
	/* Too short, counted after the newline. */
	CHECK_INT(bp_psk_load(keyfile("e", "0123456789abcde\n", 16, 0600), &k, err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "15 bytes of key; expected at least 16") != NULL);
	CHECK_INT(bp_psk_load(keyfile("f", "", 0, 0600), &k, err, sizeof(err)), -EINVAL);
	/* The longest, and one byte more. */
	memset(big, 'k', sizeof(big));
	CHECK_INT(bp_psk_load(keyfile("g", big, BP_PSK_MAX_LEN, 0600), &k, err, sizeof(err)), 0);
	CHECK_INT(k.len, BP_PSK_MAX_LEN);
	CHECK_INT(bp_psk_load(keyfile("h", big, BP_PSK_MAX_LEN + 1, 0600), &k, err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "more than 1024 bytes") != NULL);
	/* Readable by others, or by the group: refused as ssh refuses, with the fix. */
	CHECK_INT(bp_psk_load(keyfile("i", "0123456789abcdef", 16, 0644), &k, err, sizeof(err)),
		  -EACCES);
	CHECK(strstr(err, "permissions 0644 are too open") && strstr(err, "chmod 600"));
	CHECK_INT(bp_psk_load(keyfile("j", "0123456789abcdef", 16, 0640), &k, err, sizeof(err)),
		  -EACCES);
	CHECK_INT(bp_psk_load(keyfile("k", "0123456789abcdef", 16, 0602), &k, err, sizeof(err)),
		  -EACCES);
	CHECK_INT(k.len, 0);  /* nothing kept from a refused file */
	/* Not a file, no file. */
	CHECK_INT(bp_psk_load(dir, &k, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not a regular file") != NULL);
	CHECK_INT(bp_psk_load("/nonexistent/key", &k, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "'/nonexistent/key'") != NULL);
}

static void hex_round_trip(void)
{
	unsigned char b[32], back[32];
	char hex[BP_PSK_HEX_LEN + 1];

	for (int i = 0; i < 32; i++)
		b[i] = (unsigned char)(i * 37 + 11);
	bp_psk_hex(b, hex);
	CHECK_INT(strlen(hex), BP_PSK_HEX_LEN);
	CHECK_INT(bp_psk_unhex(hex, back), 0);
	CHECK(memcmp(b, back, 32) == 0);
	CHECK_INT(bp_psk_unhex("zz", back), -EBADMSG);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_auth_psk.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	rfc4231();
	layout();
	stream_layout();
	stream_check();
	verify();
	load();
	hex_round_trip();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			return 1;
	}
	return tap_done();
}
