/*
 * The usage checks commands share: bp_check_host refuses HOST:PORT in a host option (one
 * ':' then digits, or "]:" then digits after a bracketed IPv6 address) and names the fix;
 * names, IPv4 and IPv6 addresses (bare or bracketed) pass.
 */
#include <errno.h>
#include <string.h>

#include "core/checks.h"
#include "tap.h"

static int host(const char *h, char *err)
{
	err[0] = '\0';
	return bp_check_host("-c", h, "-p", err, 160);
}

int main(void)
{
	char err[160];

	CHECK_INT(host(NULL, err), 0);
	CHECK_INT(host("127.0.0.1", err), 0);
	CHECK_INT(host("board.lan", err), 0);
	CHECK_INT(host("::1", err), 0);
	CHECK_INT(host("2001:db8::5201", err), 0);  /* an IPv6 address ending in digits */
	CHECK_INT(host("[::1]", err), 0);
	CHECK_INT(host("h:x", err), 0);             /* not a port: the resolver says so */
	CHECK_INT(host("h:", err), 0);
	CHECK_STR(err, "");
	CHECK_INT(host("127.0.0.1:6101", err), -EINVAL);
	CHECK_STR(err, "-c '127.0.0.1:6101': expected a host; the port goes with -p: "
		  "-c 127.0.0.1 -p 6101");
	CHECK_INT(host("[::1]:6101", err), -EINVAL);
	CHECK_STR(err, "-c '[::1]:6101': expected a host; the port goes with -p: -c [::1] -p 6101");
	CHECK_INT(host("board.lan:80", err), -EINVAL);
	CHECK_INT(host("[fe80::1]x:80", err), 0);   /* not "]:": left to the resolver */
	return tap_done();
}
