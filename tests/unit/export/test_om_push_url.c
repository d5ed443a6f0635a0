/*
 * export --push's target: the gateway's address, the group's path (plain and @base64
 * segments, the route prefix kept), basic authentication from user:password@, and the
 * refusals, each naming the value.
 */
#include <errno.h>
#include <string.h>

#include "export/om_push_url.h"
#include "tap.h"

static struct bp_om_push_target t;
static char err[512];

static int parse(const char *url, const char *job, const char *instance)
{
	err[0] = '\0';
	return bp_om_push_target_parse(url, job, instance, &t, err, sizeof(err));
}

static void check_segment(const char *value, const char *want)
{
	char out[700];

	bp_om_push_segment("instance", value, out, sizeof(out));
	CHECK_STR(out, want);
}

int main(void)
{
	/* A plain gateway: the group {job, instance} under /metrics. */
	CHECK_INT(parse("http://127.0.0.1:9091", "boardperf", "opi-zero"), 0);
	CHECK_STR(t.url.target, "/metrics/job/boardperf/instance/opi-zero");
	CHECK_STR(t.url.host, "127.0.0.1");
	CHECK_INT(t.url.port, 9091);
	CHECK(!t.url.tls);
	CHECK_STR(t.url.host_header, "127.0.0.1:9091");
	CHECK_STR(t.authorization, "");
	CHECK_STR(t.shown, "http://127.0.0.1:9091/metrics/job/boardperf/instance/opi-zero");

	/* A route prefix (--web.route-prefix), with or without its trailing '/'. */
	CHECK_INT(parse("https://gw.example/push/", "boardperf", "rpi3"), 0);
	CHECK_STR(t.url.target, "/push/metrics/job/boardperf/instance/rpi3");
	CHECK(t.url.tls);
	CHECK_INT(t.url.port, 443);
	CHECK_INT(parse("http://[::1]:9091/a/b", "j", "i"), 0);
	CHECK_STR(t.url.target, "/a/b/metrics/job/j/instance/i");
	CHECK_STR(t.url.host_header, "[::1]:9091");

	/* Values a path cannot carry as they are: base64url without padding (RFC 4648 5). */
	check_segment("opi.zero_1~-", "instance/opi.zero_1~-");
	check_segment("/var/tmp", "instance@base64/L3Zhci90bXA");
	check_segment("a b", "instance@base64/YSBi");
	check_segment("\xce\xa0\xcf\x81\xce\xbf\xce\xbc\xce\xb7\xce\xb8\xce\xb5\xcf\x8d\xcf\x82",
		      "instance@base64/zqDPgc6_zrzOt864zrXPjc-C");  /* the gateway's README's */
	check_segment("", "instance@base64/=");
	CHECK_INT(parse("http://gw:9091", "bench/nightly", "board 1"), 0);
	CHECK_STR(t.url.target, "/metrics/job@base64/YmVuY2gvbmlnaHRseQ/instance@base64/Ym9hcmQgMQ");

	/* user:password@ becomes basic authentication; the password never shows. */
	CHECK_INT(parse("http://alice:s3cret@127.0.0.1:9091", "boardperf", "b"), 0);
	CHECK_STR(t.authorization, "Basic YWxpY2U6czNjcmV0");
	CHECK(!strstr(t.shown, "s3cret") && !strstr(t.shown, "alice"));
	CHECK_STR(t.url.host_header, "127.0.0.1:9091");
	/* percent-encoded: a ':' and an '@' in the password */
	CHECK_INT(parse("http://bob:a%3Ab%40c@gw:9091", "boardperf", "b"), 0);
	CHECK_STR(t.authorization, "Basic Ym9iOmE6YkBj");  /* bob:a:b@c */
	CHECK_INT(parse("http://carol@gw:9091", "boardperf", "b"), 0);
	CHECK_STR(t.authorization, "Basic Y2Fyb2w6");  /* carol: */

	/* Refusals, each naming the value and what was expected. */
	CHECK_INT(parse("gw:9091", "boardperf", "b"), -EINVAL);
	CHECK(strstr(err, "--push 'gw:9091': expected http[s]://"));
	CHECK_INT(parse("ftp://gw", "boardperf", "b"), -EINVAL);
	CHECK(strstr(err, "'ftp://gw'"));
	CHECK_INT(parse("", "boardperf", "b"), -EINVAL);
	CHECK_INT(parse("http://gw:9091/?x=1", "boardperf", "b"), -EINVAL);
	CHECK(strstr(err, "expected no ?query or #fragment"));
	CHECK_INT(parse("http://gw:9091/#top", "boardperf", "b"), -EINVAL);
	CHECK_INT(parse("http://gw:0", "boardperf", "b"), -EINVAL);
	CHECK_INT(parse("http://a%4@gw:9091", "boardperf", "b"), -EINVAL);
	CHECK(strstr(err, "user:password@") && !strstr(err, "a%4"));
	CHECK_INT(parse("http://a%00b:x@gw:9091", "boardperf", "b"), -EINVAL);
	CHECK_INT(parse("http://gw:9091", "", "b"), -EINVAL);
	CHECK_STR(err, "--job '': expected a name of 1 to 255 bytes");
	CHECK_INT(parse("http://gw:9091", "boardperf", ""), -EINVAL);
	CHECK_STR(err, "--instance '': expected a name of 1 to 255 bytes");
	CHECK_INT(parse("http://gw:9091", "boardperf", "bad\xff"), -EINVAL);
	CHECK_STR(err, "--instance 'bad\xff': expected UTF-8 text");
	/* a newline is a label value like any other (base64); in an error it is \x0a */
	CHECK_INT(parse("http://gw:9091", "boardperf", "a\nb"), 0);
	CHECK_STR(t.url.target, "/metrics/job/boardperf/instance@base64/YQpi");
	CHECK_INT(parse("http://gw:9091", "boardperf", "a\n\xff"), -EINVAL);
	CHECK_STR(err, "--instance 'a\\x0a\xff': expected UTF-8 text");
	{
		char long_name[300];

		memset(long_name, 'x', sizeof(long_name) - 1);
		long_name[sizeof(long_name) - 1] = '\0';
		CHECK_INT(parse("http://gw:9091", long_name, "b"), -EINVAL);
		CHECK(strstr(err, "expected a name of 1 to 255 bytes"));
		long_name[255] = '\0';
		CHECK_INT(parse("http://gw:9091", long_name, "b"), 0);
	}
	return tap_done();
}
