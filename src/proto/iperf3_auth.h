/*
 * iperf3's own authentication (iperf3 --username / --rsa-public-key-path on the client,
 * --rsa-private-key-path / --authorized-users-path on the server), spoken by both ends so
 * that a stock iperf3 client can use a locked `boardperf serve` and a boardperf client a
 * locked stock `iperf3 -s`.
 *
 * The client puts one key into its parameters: "authtoken", the base64 (one line, with
 * '=' padding) of the RSA encryption under the server's public key of the text
 *     "user: USER\npwd:  PASSWORD\nts:   SECONDS"
 * (two spaces after "pwd:", three after "ts:", SECONDS the client's Unix time, no newline
 * at the end). The server decrypts it, refuses a timestamp more than the skew threshold
 * (iperf3's default 10 s) from its own clock, and looks the user up in the authorized
 * users file: lines "USER,HEX" where HEX is the SHA-256, in hex, of "{USER}PASSWORD";
 * '#' starts a comment line. iperf3 reads the fields with sscanf's %s, so neither may hold
 * white space.
 *
 * Padding: iperf3 up to 3.16 (Debian 12's 3.12 among them) pads with PKCS#1 v1.5; 3.17
 * and later pad with OAEP (SHA-1, iperf3's OpenSSL defaults) unless given
 * --use-pkcs1-padding. Both ends must use the same one.
 */
#ifndef BP_PROTO_IPERF3_AUTH_H
#define BP_PROTO_IPERF3_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <openssl/evp.h>

/* iperf3's default --time-skew-threshold, seconds. */
#define BP_IPERF3_AUTH_SKEW_S 10
/* The longest user name and password either side accepts (iperf3 has no limit, but the
 * whole text must fit one RSA block: 245 bytes with PKCS#1 v1.5 on a 2048-bit key). */
#define BP_IPERF3_AUTH_FIELD_MAX 128
/* The longest token: the base64 of one RSA-8192 block (1024 bytes), the largest key taken. */
#define BP_IPERF3_AUTH_TOKEN_MAX 1368

enum bp_iperf3_padding {
	BP_IPERF3_PAD_PKCS1 = 0,  /* iperf3 <= 3.16, and 3.17+ with --use-pkcs1-padding */
	BP_IPERF3_PAD_OAEP,       /* iperf3 >= 3.17 by default */
};

/*
 * A PEM RSA key (public: "BEGIN PUBLIC KEY", as `openssl rsa -pubout` writes it; private:
 * any PEM private key OpenSSL reads, unencrypted) of 1024 to 8192 bits. NULL with a line
 * in err naming the file and what was wrong.
 */
EVP_PKEY *bp_iperf3_auth_load_key(const char *path, bool private_key, char *err,
				  size_t errlen);

/*
 * A user name or password iperf3's token can carry: 1..BP_IPERF3_AUTH_FIELD_MAX printable
 * characters, no white space. 0, or -EINVAL with a line naming what (e.g. "--username").
 */
int bp_iperf3_auth_check_field(const char *what, const char *s, char *err, size_t errlen);

/*
 * The client's token for user and password at Unix time now_s, into out (at least
 * BP_IPERF3_AUTH_TOKEN_MAX + 1 bytes). 0 or a negative errno with a line in err.
 */
int bp_iperf3_auth_token(const char *user, const char *password, int64_t now_s,
			 EVP_PKEY *public_key, enum bp_iperf3_padding pad, char *out,
			 size_t outlen, char *err, size_t errlen);

/* A client's credentials (filled by the command line, stream/net_cli_auth.c). */
struct bp_iperf3_client {
	const char *user;
	char password[BP_IPERF3_AUTH_FIELD_MAX + 1];
	EVP_PKEY *public_key;
	enum bp_iperf3_padding pad;
};

/*
 * Add "authtoken" to the parameters a client is about to send, made now: the server
 * allows only its skew between the token's time and its own clock, so a token is never
 * reused across control connections. 0 or a negative errno with a line in err.
 */
int bp_iperf3_client_add_token(const struct bp_iperf3_client *c, json_t *params, char *err,
			       size_t errlen);

/* What a token carried. */
struct bp_iperf3_creds {
	char user[BP_IPERF3_AUTH_FIELD_MAX + 1];
	char password[BP_IPERF3_AUTH_FIELD_MAX + 1];
	int64_t ts;  /* the client's Unix time */
};

/*
 * Decode a token as the server: strictly base64 of exactly one block of the key's size,
 * that decrypts with pad to exactly the text above. 0 or -EINVAL/-EBADMSG with a line in
 * err (never quoting the password).
 */
int bp_iperf3_auth_decode(const char *token, EVP_PKEY *private_key,
			  enum bp_iperf3_padding pad, struct bp_iperf3_creds *c, char *err,
			  size_t errlen);

/* A locked server's side: its key, its users, its threshold. Opaque. */
struct bp_iperf3_auth;

/*
 * Load the private key and the users file (both checked now: a broken file is an error at
 * start, naming its line). The users file is read again when it changes, as iperf3 reads
 * it for every test. skew_s: the --time-skew-threshold. NULL with a line in err.
 */
struct bp_iperf3_auth *bp_iperf3_auth_new(const char *key_path, const char *users_path,
					  int skew_s, enum bp_iperf3_padding pad, char *err,
					  size_t errlen);
void bp_iperf3_auth_free(struct bp_iperf3_auth *a);

/*
 * Check a client's token (NULL or "" when it sent none) at Unix time now_s: 0 when it
 * names a listed user with the right password within the skew; otherwise -EACCES with the
 * reason in err for the server's log (the user's name, never the password). The name is
 * copied to user (may be NULL) when the token could be read.
 */
int bp_iperf3_auth_verify(struct bp_iperf3_auth *a, const char *token, int64_t now_s,
			  char *user, size_t userlen, char *err, size_t errlen);

#endif
