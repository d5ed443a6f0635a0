/* bp_addr_same_host: which greetings the server may answer (server_udp.c). Table-driven:
 * IPv4, IPv6, v4-mapped IPv6 against IPv4, link-local scope ids, ports ignored. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/addr_host.h"
#include "tap.h"

/* "a.b.c.d" or "v6addr" (optionally "%scope" as a number), with a port. */
static struct bp_addr addr(const char *host, unsigned port)
{
	struct bp_addr a;
	char buf[64];
	char *pct;

	memset(&a, 0, sizeof(a));
	snprintf(buf, sizeof(buf), "%s", host);
	pct = strchr(buf, '%');
	if (pct)
		*pct++ = '\0';
	if (strchr(buf, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a.ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, buf, &s6->sin6_addr);
		s6->sin6_scope_id = pct ? (uint32_t)atoi(pct) : 0;
		a.len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&a.ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, buf, &s4->sin_addr);
		a.len = sizeof(*s4);
	}
	return a;
}

static const struct {
	const char *a, *b;
	bool same;
} cases[] = {
	{ "198.18.0.1", "198.18.0.1", true },
	{ "198.18.0.1", "198.18.0.3", false },
	{ "198.18.0.1", "::ffff:198.18.0.1", true },      /* dual-stack listener */
	{ "::ffff:198.18.0.1", "::ffff:198.18.0.1", true },
	{ "::ffff:198.18.0.1", "198.18.0.3", false },
	{ "::ffff:198.18.0.1", "::ffff:198.18.0.3", false },
	{ "2001:2::1", "2001:2::1", true },
	{ "2001:2::1", "2001:2::3", false },
	{ "::1", "127.0.0.1", false },                    /* different hosts to the kernel */
	{ "::ffff:127.0.0.1", "127.0.0.1", true },
	{ "::198.18.0.1", "198.18.0.1", false },          /* v4-compatible is not v4-mapped */
	{ "fe80::1%2", "fe80::1%2", true },
	{ "fe80::1%2", "fe80::1%3", false },              /* same address, another link */
	{ "2001:2::1%2", "2001:2::1%3", true },           /* global: the scope says nothing */
};

int main(void)
{
	struct bp_addr none = { .len = 0 }, a, b, shortv6;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* Ports differ on purpose: a data socket has its own. */
		a = addr(cases[i].a, 41022);
		b = addr(cases[i].b, 5201);
		CHECK(bp_addr_same_host(&a, &b) == cases[i].same);
		CHECK(bp_addr_same_host(&b, &a) == cases[i].same);
	}
	/* An unknown control address (getpeername failed) matches nothing, itself included. */
	a = addr("198.18.0.1", 1);
	CHECK(!bp_addr_same_host(&none, &a));
	CHECK(!bp_addr_same_host(&a, &none));
	CHECK(!bp_addr_same_host(&none, &none));
	/* A length too short for its family is not read past. */
	shortv6 = addr("2001:2::1", 1);
	shortv6.len = sizeof(struct sockaddr_in);
	CHECK(!bp_addr_same_host(&shortv6, &shortv6));
	a.ss.ss_family = AF_UNIX;
	CHECK(!bp_addr_same_host(&a, &a));
	return tap_done();
}
