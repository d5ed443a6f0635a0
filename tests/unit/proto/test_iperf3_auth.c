/*
 * iperf3's authentication token with a freshly generated RSA key: round trips in both
 * paddings, and everything a locked server must refuse (wrong password, unknown user,
 * stale and future timestamps, no token, garbage of every shape, the other padding, a
 * text that decrypts but is not iperf3's), the users file's checks and its reload.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "proto/iperf3_auth.h"
#include "proto/params.h"
#include "tap.h"

#define NOW 1700000000

static char dir[] = "/tmp/bp-auth-XXXXXX";
static char priv_path[64], pub_path[64], users_path[64];
static EVP_PKEY *priv, *pub;

/* sha256("{mario}rossi"), as iperf3's documentation lists it */
static const char mario[] = "mario,bf7a49a846d44b454a5d11e7acfaf13d138bbe0b7483aa3e050879700572709b\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void make_keys(void)
{
	EVP_PKEY *k = EVP_RSA_gen(2048);
	FILE *f;

	snprintf(priv_path, sizeof(priv_path), "%s/priv.pem", dir);
	snprintf(pub_path, sizeof(pub_path), "%s/pub.pem", dir);
	snprintf(users_path, sizeof(users_path), "%s/users", dir);
	f = fopen(priv_path, "w");
	PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL);
	fclose(f);
	f = fopen(pub_path, "w");
	PEM_write_PUBKEY(f, k);
	fclose(f);
	EVP_PKEY_free(k);
}

static void test_keys(void)
{
	char err[256];
	EVP_PKEY *ec = EVP_EC_gen("P-256");
	char ec_path[64];
	FILE *f;

	priv = bp_iperf3_auth_load_key(priv_path, true, err, sizeof(err));
	pub = bp_iperf3_auth_load_key(pub_path, false, err, sizeof(err));
	CHECK(priv && pub);
	CHECK(!bp_iperf3_auth_load_key(priv_path, false, err, sizeof(err)));
	CHECK(strstr(err, "--rsa-public-key-path") && strstr(err, "PEM RSA public"));
	CHECK(!bp_iperf3_auth_load_key("/nonexistent/k.pem", true, err, sizeof(err)));
	CHECK(strstr(err, "No such file"));
	snprintf(ec_path, sizeof(ec_path), "%s/ec.pem", dir);
	f = fopen(ec_path, "w");
	PEM_write_PrivateKey(f, ec, NULL, NULL, 0, NULL, NULL);
	fclose(f);
	EVP_PKEY_free(ec);
	CHECK(!bp_iperf3_auth_load_key(ec_path, true, err, sizeof(err)));
	CHECK(strstr(err, "another type"));
}

static void test_fields(void)
{
	char err[256], long_name[BP_IPERF3_AUTH_FIELD_MAX + 2];

	CHECK_INT(bp_iperf3_auth_check_field("--username", "mario", err, sizeof(err)), 0);
	CHECK_INT(bp_iperf3_auth_check_field("--username", "ma rio", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "character 3"));
	CHECK_INT(bp_iperf3_auth_check_field("password", "", err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_iperf3_auth_check_field("password", "a\tb", err, sizeof(err)), -EINVAL);
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	CHECK_INT(bp_iperf3_auth_check_field("--username", long_name, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "129 characters"));
	/* The params field holds the longest token and one more character, to refuse it. */
	CHECK_INT(BP_NET_AUTHTOKEN_MAX, BP_IPERF3_AUTH_TOKEN_MAX);
}

static void test_round_trip(void)
{
	char token[BP_IPERF3_AUTH_TOKEN_MAX + 1], err[256];
	struct bp_iperf3_creds c;

	for (int pad = BP_IPERF3_PAD_PKCS1; pad <= BP_IPERF3_PAD_OAEP; pad++) {
		CHECK_INT(bp_iperf3_auth_token("mario", "rossi", NOW, pub, pad, token,
					       sizeof(token), err, sizeof(err)), 0);
		CHECK_INT(strlen(token), 344);  /* base64 of 256 bytes */
		CHECK_INT(bp_iperf3_auth_decode(token, priv, pad, &c, err, sizeof(err)), 0);
		CHECK_STR(c.user, "mario");
		CHECK_STR(c.password, "rossi");
		CHECK_INT(c.ts, NOW);
		/* The other padding does not give it back. Read as PKCS#1 v1.5, an OAEP block
		 * (random padding, a new one each run) passes the padding check about once in
		 * 10^5 runs and then fails as text: either refusal is right, a result is not. */
		CHECK(bp_iperf3_auth_decode(token, priv, !pad, &c, err, sizeof(err)) < 0);
		CHECK(strstr(err, "does not decrypt") ||
		      (pad == BP_IPERF3_PAD_OAEP && strstr(err, "decrypts, but not to iperf3's")));
		CHECK_STR(c.user, "");
	}
	/* Text too long for one block of a 2048-bit key (245 bytes with PKCS#1 v1.5). */
	char big[BP_IPERF3_AUTH_FIELD_MAX + 1];

	memset(big, 'p', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(bp_iperf3_auth_token(big, big, NOW, pub, BP_IPERF3_PAD_PKCS1, token,
				       sizeof(token), err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "do not fit"));
}

/* Encrypt any text under the public key, as a hostile client may. */
static void raw_token(const char *text, char *out)
{
	unsigned char block[512];
	size_t n = sizeof(block);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pub, NULL);

	EVP_PKEY_encrypt_init(ctx);
	EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING);
	EVP_PKEY_encrypt(ctx, block, &n, (const unsigned char *)text, strlen(text));
	EVP_PKEY_CTX_free(ctx);
	EVP_EncodeBlock((unsigned char *)out, block, (int)n);
}

static void test_garbage(void)
{
	static const char *const texts[] = {
		"user: mario\npwd:  rossi\nts:   1700000000\n",      /* trailing newline */
		"user: mario\npwd:  rossi\nts:   1700000000x",       /* trailing junk */
		"user: mario\npwd: rossi\nts:   1700000000",         /* one space short */
		"user: \npwd:  rossi\nts:   1700000000",             /* empty user */
		"user: mario\npwd:  rossi\nts:   -1",                /* negative time */
		"user: mario\npwd:  rossi\nts:   1234567890123456789", /* 19 digits */
		"user: mario\npwd:  rossi\nts:   ",                  /* no time */
		"user: ma\x01rio\npwd:  rossi\nts:   1700000000",    /* control character */
		"user: mario\npwd:  rossi",                          /* no ts line */
	};
	char token[BP_IPERF3_AUTH_TOKEN_MAX + 8], err[256];
	struct bp_iperf3_creds c;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		raw_token(texts[i], token);
		CHECK_INT(bp_iperf3_auth_decode(token, priv, BP_IPERF3_PAD_PKCS1, &c, err,
						sizeof(err)), -EINVAL);
		CHECK(strstr(err, "not to iperf3's"));
	}
	raw_token("user: mario\npwd:  rossi\nts:   1700000000", token);
	CHECK_INT(bp_iperf3_auth_decode(token, priv, BP_IPERF3_PAD_PKCS1, &c, err, sizeof(err)),
		  0);
	/* base64 shapes: alphabet, '=' inside, length not a multiple of 4, too long. */
	static const char *const shapes[] = { "", "@@@@", "QQ=A", "QUJD\n", "QUJ", "QQ===" };

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		CHECK_INT(bp_iperf3_auth_decode(shapes[i], priv, BP_IPERF3_PAD_PKCS1, &c, err,
						sizeof(err)), -EINVAL);
		CHECK(strstr(err, "not base64"));
	}
	memset(token, 'A', BP_IPERF3_AUTH_TOKEN_MAX + 4);
	token[BP_IPERF3_AUTH_TOKEN_MAX + 4] = '\0';
	CHECK_INT(bp_iperf3_auth_decode(token, priv, BP_IPERF3_PAD_PKCS1, &c, err, sizeof(err)),
		  -EINVAL);
	/* Valid base64 of the wrong size, then of the right size but random bytes. */
	CHECK_INT(bp_iperf3_auth_decode("QUJD", priv, BP_IPERF3_PAD_PKCS1, &c, err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "holds 3 bytes"));
	unsigned char rnd[256];

	for (size_t i = 0; i < sizeof(rnd); i++)
		rnd[i] = (unsigned char)(i * 37 + 11);
	EVP_EncodeBlock((unsigned char *)token, rnd, sizeof(rnd));
	CHECK_INT(bp_iperf3_auth_decode(token, priv, BP_IPERF3_PAD_PKCS1, &c, err, sizeof(err)),
		  -EBADMSG);
}

static void test_verify(void)
{
	char token[BP_IPERF3_AUTH_TOKEN_MAX + 1], err[256], user[64];
	struct bp_iperf3_auth *a;

	write_file(users_path, "# lab users\n\nluigi,0000000000000000000000000000000000000000000000000000000000000000\r\n");
	a = bp_iperf3_auth_new(priv_path, users_path, BP_IPERF3_AUTH_SKEW_S, BP_IPERF3_PAD_PKCS1,
			       err, sizeof(err));
	CHECK(a != NULL);
	bp_iperf3_auth_token("mario", "rossi", NOW, pub, BP_IPERF3_PAD_PKCS1, token,
			     sizeof(token), err, sizeof(err));
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW, user, sizeof(user), err, sizeof(err)),
		  -EACCES);
	CHECK(strstr(err, "not in the authorized users file"));
	CHECK_STR(user, "mario");
	/* The file changes (size differs): read again, mario is in. */
	write_file(users_path, mario);
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW, user, sizeof(user), err, sizeof(err)), 0);
	/* iperf3 allows exactly the threshold, not a second more, either way. */
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW + 10, NULL, 0, err, sizeof(err)), 0);
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW - 10, NULL, 0, err, sizeof(err)), 0);
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW + 11, NULL, 0, err, sizeof(err)), -EACCES);
	CHECK(strstr(err, "is 11 s from the server's clock"));
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW - 11, NULL, 0, err, sizeof(err)), -EACCES);
	CHECK(strstr(err, "--time-skew-threshold 10"));
	bp_iperf3_auth_token("mario", "Rossi", NOW, pub, BP_IPERF3_PAD_PKCS1, token,
			     sizeof(token), err, sizeof(err));
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW, NULL, 0, err, sizeof(err)), -EACCES);
	CHECK(strstr(err, "wrong password") && !strstr(err, "Rossi"));
	CHECK_INT(bp_iperf3_auth_verify(a, "", NOW, NULL, 0, err, sizeof(err)), -EACCES);
	CHECK(strstr(err, "no --username"));
	CHECK_INT(bp_iperf3_auth_verify(a, "garbage!", NOW, NULL, 0, err, sizeof(err)), -EACCES);
	/* The file breaks while serving: everyone is refused until it is fixed. */
	bp_iperf3_auth_token("mario", "rossi", NOW, pub, BP_IPERF3_PAD_PKCS1, token,
			     sizeof(token), err, sizeof(err));
	write_file(users_path, "mario rossi\n");
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW, NULL, 0, err, sizeof(err)), -EACCES);
	CHECK(strstr(err, "line 1") && strstr(err, "refusing everyone"));
	write_file(users_path, "# uppercase hex is the same hash\n"
		   "MARIO,0\nmario,BF7A49A846D44B454A5D11E7ACFAF13D138BBE0B7483AA3E050879700572709B\n");
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW, NULL, 0, err, sizeof(err)), -EACCES);
	CHECK(strstr(err, "line 2"));
	write_file(users_path, "# uppercase hex is the same hash\n"
		   "mario,BF7A49A846D44B454A5D11E7ACFAF13D138BBE0B7483AA3E050879700572709B\n");
	CHECK_INT(bp_iperf3_auth_verify(a, token, NOW, NULL, 0, err, sizeof(err)), 0);
	bp_iperf3_auth_free(a);
	/* At start a broken file is an error naming its line. */
	write_file(users_path, mario);
	write_file(users_path, "mario,bf7a\n");
	CHECK(!bp_iperf3_auth_new(priv_path, users_path, 10, BP_IPERF3_PAD_PKCS1, err,
				  sizeof(err)));
	CHECK(strstr(err, "line 1: expected USER,SHA256"));
	CHECK(!bp_iperf3_auth_new(priv_path, "/nonexistent/users", 10, BP_IPERF3_PAD_PKCS1, err,
				  sizeof(err)));
	CHECK(strstr(err, "No such file"));
}

static void test_client_token(void)
{
	struct bp_iperf3_client c = { .user = "mario", .password = "rossi", .public_key = pub,
				      .pad = BP_IPERF3_PAD_OAEP };
	json_t *j = json_object();
	struct bp_iperf3_creds cr;
	char err[256];

	CHECK_INT(bp_iperf3_client_add_token(&c, j, err, sizeof(err)), 0);
	CHECK_INT(bp_iperf3_auth_decode(json_string_value(json_object_get(j, "authtoken")), priv,
					BP_IPERF3_PAD_OAEP, &cr, err, sizeof(err)), 0);
	CHECK_STR(cr.password, "rossi");
	CHECK(cr.ts > NOW);  /* the wall clock of today */
	json_decref(j);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	make_keys();
	test_keys();
	test_fields();
	test_round_trip();
	test_garbage();
	test_verify();
	test_client_token();
	EVP_PKEY_free(priv);
	EVP_PKEY_free(pub);
	unlink(priv_path);
	unlink(pub_path);
	unlink(users_path);
	char ec[80];

	snprintf(ec, sizeof(ec), "%s/ec.pem", dir);
	unlink(ec);
	rmdir(dir);
	return tap_done();
}
