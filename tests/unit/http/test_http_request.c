/*
 * The URL as users write it, the request bytes built from it, the checks on -m and -H, and
 * the repeatable option (-H) in the option tables.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "http/http_request.h"
#include "http/http_url.h"
#include "tap.h"

static void test_urls(void)
{
	static const struct {
		const char *text;
		int ok;
		int tls;
		const char *host;
		unsigned port;
		const char *target, *host_header;
	} cases[] = {
		{ "http://127.0.0.1:8080/1k", 1, 0, "127.0.0.1", 8080, "/1k", "127.0.0.1:8080" },
		{ "http://example.org", 1, 0, "example.org", 80, "/", "example.org" },
		{ "https://example.org/a/b?x=1&y=2#frag", 1, 1, "example.org", 443, "/a/b?x=1&y=2",
		  "example.org" },
		{ "HTTPS://h:8443/", 1, 1, "h", 8443, "/", "h:8443" },
		{ "http://[::1]:8080/64k", 1, 0, "::1", 8080, "/64k", "[::1]:8080" },
		{ "http://[::1]/", 1, 0, "::1", 80, "/", "[::1]" },
		{ "http://h?q=1", 1, 0, "h", 80, "/?q=1", "h" },
		{ "ftp://h/x", 0, 0, NULL, 0, NULL, NULL },
		{ "127.0.0.1:8080/1k", 0, 0, NULL, 0, NULL, NULL },
		{ "http://", 0, 0, NULL, 0, NULL, NULL },
		{ "http://h:0/", 0, 0, NULL, 0, NULL, NULL },
		{ "http://h:99999/", 0, 0, NULL, 0, NULL, NULL },
		{ "http://user:pw@h/", 0, 0, NULL, 0, NULL, NULL },
		{ "", 0, 0, NULL, 0, NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bp_http_url u;
		char err[256] = "";
		int rc = bp_http_url_parse(cases[i].text, &u, err, sizeof(err));

		CHECK_INT(rc == 0, cases[i].ok);
		if (!cases[i].ok) {
			CHECK(strstr(err, "URL '") != NULL);
			continue;
		}
		CHECK_INT(u.tls, cases[i].tls);
		CHECK_STR(u.host, cases[i].host);
		CHECK_INT(u.port, cases[i].port);
		CHECK_STR(u.target, cases[i].target);
		CHECK_STR(u.host_header, cases[i].host_header);
	}
}

static void test_checks(void)
{
	char err[256];

	CHECK_INT(bp_http_method_check("GET", err, sizeof(err)), 0);
	CHECK_INT(bp_http_method_check("PURGE", err, sizeof(err)), 0);
	CHECK(bp_http_method_check("get", err, sizeof(err)) < 0);
	CHECK(strstr(err, "-m 'get'") != NULL);
	CHECK(bp_http_method_check("GE T", err, sizeof(err)) < 0);
	CHECK(bp_http_method_check("", err, sizeof(err)) < 0);
	CHECK_INT(bp_http_header_check("X-Test: 1", err, sizeof(err)), 0);
	CHECK_INT(bp_http_header_check("Accept:", err, sizeof(err)), 0);
	CHECK(bp_http_header_check("no colon", err, sizeof(err)) < 0);
	CHECK(strstr(err, "-H 'no colon'") != NULL);
	CHECK(bp_http_header_check(": value", err, sizeof(err)) < 0);
	CHECK(bp_http_header_check("Bad Name: v", err, sizeof(err)) < 0);
	CHECK(bp_http_header_check("X: a\r\nInjected: b", err, sizeof(err)) < 0);
}

static void test_build(void)
{
	const char *headers[] = { "Accept: */*", "X-A: b" };
	struct bp_http_request_cfg cfg = {
		.method = "GET", .target = "/1k", .host_header = "h:8080", .headers = headers,
		.nheaders = 2,
	};
	const char *want = "GET /1k HTTP/1.1\r\nHost: h:8080\r\nAccept: */*\r\nX-A: b\r\n\r\n";
	char *out, err[128];
	size_t len;

	CHECK_INT(bp_http_request_build(&cfg, 3, &out, &len, err, sizeof(err)), 0);
	CHECK_INT(len, strlen(want));
	CHECK(!memcmp(out, want, len) && !memcmp(out + len, want, len) &&
	      !memcmp(out + 2 * len, want, len));
	free(out);

	/* A body gets its length; --new-conn asks the server to close; -H Host replaces ours. */
	headers[0] = "host: other";
	cfg = (struct bp_http_request_cfg){ .method = "POST", .target = "/", .host_header = "h",
					    .headers = headers, .nheaders = 1, .body = "a=1",
					    .body_len = 3, .close = true };
	want = "POST / HTTP/1.1\r\nhost: other\r\nConnection: close\r\nContent-Length: 3\r\n\r\na=1";
	CHECK_INT(bp_http_request_build(&cfg, 1, &out, &len, err, sizeof(err)), 0);
	CHECK_INT(len, strlen(want));
	CHECK(!memcmp(out, want, len));
	free(out);
}

struct list_params {
	struct bp_strings h;
};

static void test_repeatable_option(void)
{
	static const struct bp_opt table[] = {
		{ 'H', "header", BP_OPT_STRINGS, offsetof(struct list_params, h), "H", NULL, 0, 0,
		  NULL, "a header" },
		BP_OPT_END,
	};
	char a0[] = "-H", a1[] = "A: 1", a2[] = "--header=B: 2", a3[] = "-HC: 3";
	char *argv[] = { a0, a1, a2, a3 };
	struct list_params p = { { 0 } };
	struct bp_common_opts common;
	struct bp_parsed parsed;
	char err[128];
	json_t *j;

	CHECK_INT(bp_opts_parse(table, &p, &common, &parsed, 4, argv, err, sizeof(err)), 0);
	CHECK_INT(p.h.n, 3);
	CHECK_STR(p.h.v[0], "A: 1");
	CHECK_STR(p.h.v[1], "B: 2");
	CHECK_STR(p.h.v[2], "C: 3");
	j = bp_opts_to_json(table, &p);
	CHECK(json_array_size(json_object_get(j, "header")) == 3);
	json_decref(j);
}

int main(void)
{
	test_urls();
	test_checks();
	test_build();
	test_repeatable_option();
	return tap_done();
}
