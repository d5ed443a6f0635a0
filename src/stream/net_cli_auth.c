/*
 * The client's side of iperf3's authentication, as iperf3 takes it: --username, the
 * server's public key, and the password from IPERF3_PASSWORD or, when that is not set,
 * asked on the terminal with echo off. A run without a terminal and without the variable
 * (a script, CI) gets one line saying so instead of a prompt nobody answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "proto/iperf3_auth.h"
#include "stream/net_cli.h"
#include "stream/stream_report.h"

const char *const bp_net_cli_padding_names[] = { "pkcs1", "oaep", NULL };

/* One line from the terminal, echo off; 0 or a negative errno. */
static int ask_password(const char *user, char *out, size_t outlen, char *err, size_t errlen)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	struct termios old, quiet;
	char prompt[BP_IPERF3_AUTH_FIELD_MAX + 32];
	size_t n = 0;
	int rc = 0;

	if (fd < 0 || tcgetattr(fd, &old)) {
		snprintf(err, errlen, "--username %s: no password: set IPERF3_PASSWORD (there is "
			 "no terminal to ask on)", user);
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	snprintf(prompt, sizeof(prompt), "Password for %s: ", user);
	if (tcsetattr(fd, TCSAFLUSH, &quiet) || write(fd, prompt, strlen(prompt)) < 0)
		rc = -errno;
	while (!rc) {
		char ch;
		ssize_t got = read(fd, &ch, 1);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || ch == '\n' || ch == '\r')
			break;
		if (n + 1 >= outlen) {
			rc = -E2BIG;
			break;
		}
		out[n++] = ch;
	}
	out[n] = '\0';
	tcsetattr(fd, TCSAFLUSH, &old);
	if (write(fd, "\n", 1) < 0)
		rc = rc ? rc : -errno;
	close(fd);
	if (rc)
		snprintf(err, errlen, "--username %s: reading the password from the terminal: %s",
			 user, rc == -E2BIG ? "longer than iperf3's token can carry" : strerror(-rc));
	return rc;
}

int bp_net_cli_auth_open(const struct bp_net_cli *n, struct bp_iperf3_client *c,
			 struct bp_net_params *np, char *err, size_t errlen)
{
	const char *env = getenv("IPERF3_PASSWORD");
	int rc;

	memset(c, 0, sizeof(*c));
	np->auth = NULL;
	if (!n->username)
		return 0;
	c->user = n->username;
	c->pad = (enum bp_iperf3_padding)n->rsa_padding;
	if (env && strlen(env) >= sizeof(c->password)) {
		snprintf(err, errlen, "IPERF3_PASSWORD: %zu characters; expected 1 to %d",
			 strlen(env), BP_IPERF3_AUTH_FIELD_MAX);
		return -EINVAL;
	}
	if (env)
		snprintf(c->password, sizeof(c->password), "%s", env);
	else if ((rc = ask_password(n->username, c->password, sizeof(c->password), err, errlen)))
		return rc;
	rc = bp_iperf3_auth_check_field(env ? "IPERF3_PASSWORD" : "password", c->password, err,
					errlen);
	if (!rc) {
		c->public_key = bp_iperf3_auth_load_key(n->rsa_public_key, false, err, errlen);
		rc = c->public_key ? 0 : -EINVAL;
	}
	if (rc) {
		bp_net_cli_auth_close(c);
		return rc;
	}
	np->auth = c;
	return 0;
}

int bp_net_cli_run(const struct bp_net_cli *n, struct bp_stream_client_opts *o,
		   struct bp_result *r, char *err, size_t errlen)
{
	struct bp_iperf3_client auth;
	int rc = bp_net_cli_sctp_ready(n, err, errlen);

	if (!rc)
		rc = bp_net_cli_auth_open(n, &auth, &o->np, err, errlen);
	if (rc)
		return rc;
	rc = bp_net_run_and_report(o, r, err, errlen);
	bp_net_cli_auth_close(&auth);
	return rc;
}

void bp_net_cli_auth_close(struct bp_iperf3_client *c)
{
	EVP_PKEY_free(c->public_key);
	OPENSSL_cleanse(c->password, sizeof(c->password));
	c->public_key = NULL;
}
