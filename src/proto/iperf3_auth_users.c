/*
 * A locked server's side of iperf3's authentication: the private key, the authorized users
 * file ("USER,HEX" lines, HEX the SHA-256 of "{USER}PASSWORD"), and the check of a token
 * against both and the clock. The file is read at start, where a broken line is an error
 * naming it, and again whenever it changes, as iperf3 reads it for every test; a file that
 * breaks while the server runs locks everyone out (fail closed) until it is fixed.
 */
#include "proto/iperf3_auth.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/crypto.h>

/* Bounds on the file: far beyond any lab's list, small enough to read on every change. */
#define USERS_MAX 65536
#define LINE_MAX_LEN 1024
#define SHA256_LEN 32

struct user {
	char name[BP_IPERF3_AUTH_FIELD_MAX + 1];
	unsigned char hash[SHA256_LEN];
};

struct bp_iperf3_auth {
	EVP_PKEY *key;
	char *users_path;
	struct user *users;
	size_t nusers;
	struct stat seen;      /* the file as last read, to notice a change */
	bool users_ok;         /* false: the file broke after start; refuse everyone */
	int skew_s;
	enum bp_iperf3_padding pad;
};

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "USER,HEX" with 64 hex digits, nothing else; 0 or -1. */
static int parse_line(char *line, struct user *u)
{
	char *comma = strchr(line, ',');
	char err[8];

	if (!comma || strlen(comma + 1) != 2 * SHA256_LEN)
		return -1;
	*comma = '\0';
	if (bp_iperf3_auth_check_field("user", line, err, sizeof(err)))
		return -1;
	memcpy(u->name, line, strlen(line) + 1);  /* at most FIELD_MAX: checked above */
	for (int i = 0; i < SHA256_LEN; i++) {
		int hi = hex_digit(comma[1 + 2 * i]), lo = hex_digit(comma[2 + 2 * i]);

		if (hi < 0 || lo < 0)
			return -1;
		u->hash[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* Read the whole file into a new list; *out replaced only on success. */
static int read_users(const char *path, struct user **out, size_t *nout, struct stat *st,
		      char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char line[LINE_MAX_LEN + 2];
	struct user *v = NULL;
	size_t n = 0, cap = 0;
	int lineno = 0, rc = -EINVAL;

	if (!f || fstat(fileno(f), st)) {
		rc = -errno;
		snprintf(err, errlen, "--authorized-users-path '%s': %s", path, strerror(-rc));
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\r\n");

		lineno++;
		if (len > LINE_MAX_LEN || (line[len] == '\0' && !feof(f))) {
			snprintf(err, errlen, "--authorized-users-path '%s' line %d: longer than %d "
				 "characters", path, lineno, LINE_MAX_LEN);
			goto out;
		}
		line[len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (n == cap) {
			struct user *nv;

			if (cap == USERS_MAX) {
				snprintf(err, errlen, "--authorized-users-path '%s': more than %d users",
					 path, USERS_MAX);
				goto out;
			}
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				snprintf(err, errlen, "--authorized-users-path '%s': out of memory", path);
				goto out;
			}
			v = nv;
		}
		if (parse_line(line, &v[n])) {
			snprintf(err, errlen, "--authorized-users-path '%s' line %d: expected "
				 "USER,SHA256 (the user without spaces, then 64 hex digits of "
				 "sha256(\"{USER}PASSWORD\"))", path, lineno);
			goto out;
		}
		n++;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "--authorized-users-path '%s': read error", path);
		rc = -EIO;
		goto out;
	}
	free(*out);
	*out = v;
	*nout = n;
	v = NULL;
	rc = 0;
out:
	if (f)
		fclose(f);
	free(v);
	return rc;
}

struct bp_iperf3_auth *bp_iperf3_auth_new(const char *key_path, const char *users_path,
					  int skew_s, enum bp_iperf3_padding pad, char *err,
					  size_t errlen)
{
	struct bp_iperf3_auth *a = calloc(1, sizeof(*a));

	if (!a || !(a->users_path = strdup(users_path))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	a->skew_s = skew_s;
	a->pad = pad;
	a->key = bp_iperf3_auth_load_key(key_path, true, err, errlen);
	if (!a->key || read_users(users_path, &a->users, &a->nusers, &a->seen, err, errlen))
		goto fail;
	a->users_ok = true;
	return a;
fail:
	bp_iperf3_auth_free(a);
	return NULL;
}

void bp_iperf3_auth_free(struct bp_iperf3_auth *a)
{
	if (!a)
		return;
	EVP_PKEY_free(a->key);
	free(a->users);
	free(a->users_path);
	free(a);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Read the file again when it changed (or when the last reading failed). */
static int refresh_users(struct bp_iperf3_auth *a, char *err, size_t errlen)
{
	struct stat st;

	if (stat(a->users_path, &st)) {
		snprintf(err, errlen, "--authorized-users-path '%s': %s; refusing everyone",
			 a->users_path, strerror(errno));
		a->users_ok = false;
		return -EACCES;
	}
	if (a->users_ok && same_file(&st, &a->seen))
		return 0;
	a->users_ok = !read_users(a->users_path, &a->users, &a->nusers, &a->seen, err, errlen);
	if (!a->users_ok) {
		size_t n = strlen(err);

		snprintf(err + n, errlen - n, "; refusing everyone until it is fixed");
		return -EACCES;
	}
	return 0;
}

/* True when the file lists c->user with c->password's hash (compared in constant time). */
static bool listed(const struct bp_iperf3_auth *a, const struct bp_iperf3_creds *c,
		   bool *known)
{
	char salted[2 * BP_IPERF3_AUTH_FIELD_MAX + 3];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int n = snprintf(salted, sizeof(salted), "{%s}%s", c->user, c->password);
	bool ok = false;

	*known = false;
	if (n > 0 && (size_t)n < sizeof(salted) &&
	    EVP_Digest(salted, (size_t)n, md, &mdlen, EVP_sha256(), NULL) && mdlen == SHA256_LEN)
		for (size_t i = 0; i < a->nusers; i++)
			if (!strcmp(a->users[i].name, c->user)) {
				*known = true;
				ok |= !CRYPTO_memcmp(a->users[i].hash, md, SHA256_LEN);
			}
	OPENSSL_cleanse(salted, sizeof(salted));
	OPENSSL_cleanse(md, sizeof(md));
	return ok;
}

int bp_iperf3_auth_verify(struct bp_iperf3_auth *a, const char *token, int64_t now_s,
			  char *user, size_t userlen, char *err, size_t errlen)
{
	struct bp_iperf3_creds c;
	char why[160];
	bool known;
	int rc = -EACCES;

	if (user && userlen)
		user[0] = '\0';
	if (!token || !token[0]) {
		snprintf(err, errlen, "no authtoken: the client gave no --username");
		return -EACCES;
	}
	if (refresh_users(a, err, errlen))
		return -EACCES;
	if (bp_iperf3_auth_decode(token, a->key, a->pad, &c, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		return -EACCES;
	}
	if (user && userlen)
		snprintf(user, userlen, "%s", c.user);
	/* ts is below 10^18 and now_s a present-day clock: no overflow in the differences. */
	if (c.ts < now_s - a->skew_s || c.ts > now_s + a->skew_s)
		snprintf(err, errlen, "user '%s': token time %" PRId64 " is %" PRId64 " s from the "
			 "server's clock, more than --time-skew-threshold %d", c.user, c.ts,
			 c.ts > now_s ? c.ts - now_s : now_s - c.ts, a->skew_s);
	else if (!listed(a, &c, &known))
		snprintf(err, errlen, "user '%s': %s", c.user,
			 known ? "wrong password" : "not in the authorized users file");
	else
		rc = 0;
	OPENSSL_cleanse(&c, sizeof(c));
	return rc;
}
