/*
 * The kernel's complaints (board/kmsg.h, board/kmsg_result.h): records as /dev/kmsg gives
 * them (the kernel's own with a dictionary, a program's, a continuation, one longer than is
 * kept), records out of their domain refused; which text names a device on the path; the
 * drain over a SOCK_SEQPACKET pair, which hands out one record per read as /dev/kmsg does
 * (levels past warning dropped, at most BP_KMSG_KEEP kept and the rest counted); and the
 * result: the records on the path quoted first, null when the log could not be read.
 * A real /dev/kmsg is the integration test's (tests/integration/test_kmsg.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board/kmsg.h"
#include "board/kmsg_result.h"
#include "tap.h"

static int parse(const char *rec, struct bp_kmsg_record *out)
{
	return bp_kmsg_parse(rec, strlen(rec), out);
}

static void records(void)
{
	struct bp_kmsg_record r;
	char longrec[600];

	CHECK_INT(parse("4,1234,5140900,-;GMAC TX status: VLAN frame\n SUBSYSTEM=net\n DEVICE=n2\n",
			&r), 0);
	CHECK_INT(r.level, 4);
	CHECK(r.kernel);
	CHECK(r.seq == 1234 && r.usec == 5140900);
	CHECK_STR(r.text, "GMAC TX status: VLAN frame");
	/* a program's (facility 1, LOG_USER), err level, flags with a newer field after them */
	CHECK_INT(parse("11,7,99,c,more;bptest: \\x1b escaped\n", &r), 0);
	CHECK_INT(r.level, 3);
	CHECK(!r.kernel);
	CHECK_STR(r.text, "bptest: \\x1b escaped");
	/* no flags field at all, no newline */
	CHECK_INT(parse("6,1,2;x", &r), 0);
	CHECK_STR(r.text, "x");
	CHECK_INT(parse("0,0,0,-;", &r), 0);
	CHECK_STR(r.text, "");

	memcpy(longrec, "4,5,6,-;", 8);
	memset(longrec + 8, 'a', 500);
	strcpy(longrec + 508, "\n");
	CHECK_INT(parse(longrec, &r), 0);
	CHECK_INT(strlen(r.text), BP_KMSG_TEXT - 1);
	CHECK(!strcmp(r.text + BP_KMSG_TEXT - 4, "..."));

	CHECK_INT(parse("4,1,2,- no semicolon\n", &r), -EPROTO);
	CHECK_INT(parse("1024,1,2,-;prio past facility 127\n", &r), -EPROTO);
	CHECK_INT(parse("4,x,2,-;seq not a number\n", &r), -EPROTO);
	CHECK_INT(parse("4,1;no time\n", &r), -EPROTO);
	CHECK_INT(parse(",1,2,-;no priority\n", &r), -EPROTO);
	CHECK_INT(parse("4,1,2x,-;time with a tail\n", &r), -EPROTO);
	CHECK_INT(parse("4,99999999999999999999999,2,-;seq past 64 bits\n", &r), -EPROTO);
}

static void names(void)
{
	static const char *const path[] = { "eth0.100", "eth0", "r8152", NULL };

	CHECK(bp_kmsg_names_any("eth0: link down", path));
	CHECK(bp_kmsg_names_any("r8152 2-1:1.0 eth1: Tx timeout", path));
	CHECK(bp_kmsg_names_any("8021q: eth0.100 VLAN frame", path));
	CHECK(!bp_kmsg_names_any("veth0: entered promiscuous mode", path));
	CHECK(!bp_kmsg_names_any("eth00: other device", path));
	CHECK(!bp_kmsg_names_any("r8152x: another driver", path));
	CHECK(!bp_kmsg_names_any("eth0", NULL));
	CHECK(!bp_kmsg_names_any("eth0", (const char *const[]){ "", NULL }));
	CHECK_STR(bp_kmsg_level_name(0), "emerg");
	CHECK_STR(bp_kmsg_level_name(4), "warning");
	CHECK(bp_kmsg_level_name(8) == NULL && bp_kmsg_level_name(-1) == NULL);
}

/* k reading from one end of a SOCK_SEQPACKET pair; *w gets the other */
static void fake_log(struct bp_kmsg *k, int *w)
{
	int sv[2];

	memset(k, 0, sizeof(*k));
	k->fd = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv)) {
		CHECK(!"socketpair");
		return;
	}
	k->fd = sv[0];
	*w = sv[1];
}

static void say(int w, const char *rec)
{
	CHECK(write(w, rec, strlen(rec)) == (ssize_t)strlen(rec));
}

static void drain(void)
{
	struct bp_kmsg k;
	char rec[128];
	int w = -1;

	fake_log(&k, &w);
	say(w, "6,1,10,-;info: dropped\n");
	say(w, "4,2,11,-;first warning\n");
	say(w, "not a record\n");
	say(w, "3,3,12,-;an error\n");
	say(w, "7,4,13,-;debug: dropped\n");
	bp_kmsg_drain(&k);
	CHECK_INT(k.n, 2);
	CHECK_STR(k.kept[0].text, "first warning");
	CHECK_STR(k.kept[1].text, "an error");
	/* a second drain goes on from there; past the limit they are counted */
	for (int i = 0; i < BP_KMSG_KEEP + 3; i++) {
		snprintf(rec, sizeof(rec), "4,%d,%d,-;loop %d\n", 10 + i, 20 + i, i);
		say(w, rec);
	}
	bp_kmsg_drain(&k);
	CHECK_INT(k.n, BP_KMSG_KEEP);
	CHECK(k.more == 5);
	CHECK_STR(k.kept[BP_KMSG_KEEP - 1].text, "loop 17");
	bp_kmsg_close(&k);
	CHECK_INT(k.fd, -1);
	close(w);

	bp_kmsg_open(&k, "/nonexistent/kmsg");
	CHECK_INT(k.fd, -1);
	CHECK_INT(k.open_errno, ENOENT);
	bp_kmsg_drain(&k);	/* nothing to read, nothing done */
	CHECK_INT(k.n, 0);
}

static struct bp_result *path_result(void)
{
	struct bp_result *r = bp_result_new("tcp");

	bp_result_set_env(r, json_pack("{s:{s:[s,s], s:{s:s}}}", "path", "through", "eth0.100",
				       "eth0", "nic", "driver", "r8152"));
	return r;
}

static void result(void)
{
	struct bp_kmsg k;
	struct bp_result *r;
	const char *msg;
	json_t *a;
	int w = -1;

	fake_log(&k, &w);
	say(w, "4,1,1000000,-;bptest: not on the path\n");
	say(w, "4,2,2000000,-;r8152 2-1:1.0 eth0: Tx timeout\n");
	bp_kmsg_drain(&k);
	r = path_result();
	CHECK_INT(bp_kmsg_to_result(&k, r), 0);
	a = json_object_get(r->monitor, "kernel_messages");
	CHECK_INT(json_array_size(a), 2);
	CHECK(json_is_false(json_object_get(json_array_get(a, 0), "on_path")));
	CHECK(json_is_true(json_object_get(json_array_get(a, 1), "on_path")));
	CHECK(json_real_value(json_object_get(json_array_get(a, 1), "at_s")) == 2.0);
	CHECK(bp_result_has_warning(r, "kernel-messages"));
	msg = r->nwarnings ? r->warnings[0].message : "";
	/* the one on the path is quoted first */
	CHECK(strstr(msg, "Tx timeout") && strstr(msg, "not on the path") &&
	      strstr(msg, "Tx timeout") < strstr(msg, "not on the path"));
	CHECK(strstr(msg, "2 messages") && strstr(msg, "on the test's path"));
	bp_result_free(r);
	bp_kmsg_close(&k);
	close(w);

	/* none: an empty list and no warning */
	fake_log(&k, &w);
	r = path_result();
	CHECK_INT(bp_kmsg_to_result(&k, r), 0);
	CHECK_INT(json_array_size(json_object_get(r->monitor, "kernel_messages")), 0);
	CHECK(!bp_result_has_warning(r, "kernel-messages"));
	bp_result_free(r);
	bp_kmsg_close(&k);
	close(w);

	/* not readable: null, and nothing said in the result */
	bp_kmsg_open(&k, "/nonexistent/kmsg");
	r = path_result();
	CHECK_INT(bp_kmsg_to_result(&k, r), 0);
	CHECK(json_is_null(json_object_get(r->monitor, "kernel_messages")));
	CHECK(r->nwarnings == 0);
	bp_result_free(r);
	r = path_result();
	CHECK_INT(bp_kmsg_to_result(NULL, r), 0);
	CHECK(r->monitor == NULL);
	bp_result_free(r);
}

int main(void)
{
	records();
	names();
	drain();
	result();
	return tap_done();
}
