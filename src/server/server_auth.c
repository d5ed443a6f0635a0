/*
 * The methods a locked server checks a test with (server_auth.h). A method that is not
 * configured is skipped; when none is, everyone is let in, as an unlocked iperf3 server
 * ignores an "authtoken" it gets.
 */
#include "server/server_auth.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "proto/iperf3_auth.h"
#include "proto/iperf3_error.h"
#include "server/server_internal.h"

_Static_assert(BP_NET_AUTHTOKEN_MAX == BP_IPERF3_AUTH_TOKEN_MAX,
	       "params keeps the whole of the longest token iperf3_auth takes");

struct srv_auth_method {
	const char *name;  /* for the log */
	bool (*configured)(const struct bp_server_opts *o);
	/* 0: accepted, who says whom; else a negative errno and why for the log */
	int (*check)(struct srv_session *ss, char *who, size_t wholen, char *why, size_t whylen);
};

static bool iperf3_configured(const struct bp_server_opts *o)
{
	return o->iperf3_auth != NULL;
}

/* iperf3's timestamp is Unix time: the wall clock, not a duration. */
static int iperf3_check(struct srv_session *ss, char *who, size_t wholen, char *why,
			size_t whylen)
{
	return bp_iperf3_auth_verify(ss->srv->o->iperf3_auth, ss->np.authtoken,
				     (int64_t)time(NULL), who, wholen, why, whylen);
}

static const struct srv_auth_method methods[] = {
	{ "iperf3 username", iperf3_configured, iperf3_check },
};

bool srv_auth_ok(struct srv_session *ss)
{
	char why[512] = "", one[256], who[BP_IPERF3_AUTH_FIELD_MAX + 1];
	size_t n = 0;
	bool locked = false;

	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		if (!methods[i].configured(ss->srv->o))
			continue;
		locked = true;
		who[0] = '\0';
		if (!methods[i].check(ss, who, sizeof(who), one, sizeof(one))) {
			bp_info("%s: authenticated by %s as '%s'", ss->peer, methods[i].name, who);
			return true;
		}
		if (n < sizeof(why))
			n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%s: %s", n ? "; " : "",
					      methods[i].name, one);
	}
	if (!locked)
		return true;
	/* The client learns only that it was refused; the log keeps the reason. */
	bp_info("%s: authentication refused (%s)", ss->peer, why);
	srv_session_refuse(ss, BP_IE_AUTHTEST, "authentication failed: this server is locked "
			   "(--username and --rsa-public-key-path, the right password, a clock "
			   "within its skew)");
	return false;
}
