#include "proto/iperf3_error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/be32.h"
#include "core/text_escape.h"
#include "proto/control.h"

static const struct {
	int code;
	const char *text;
} texts[] = {
	{ BP_IE_DURATION, "test duration too long" },
	{ BP_IE_NUMSTREAMS, "too many parallel streams" },
	{ BP_IE_BLOCKSIZE, "block size too large" },
	{ BP_IE_BUFSIZE, "socket buffer size too large" },
	{ BP_IE_INTERVAL, "bad report interval" },
	{ BP_IE_MSS, "TCP MSS too large" },
	{ BP_IE_OMIT, "bad --omit value" },
	{ BP_IE_UNIMP, "an option is not implemented by the server" },
	{ 15, "bad burst count" },
	{ 16, "only one end condition (-t, -n, -k) may be given" },
	{ 20, "bad UDP block size" },
	{ 21, "bad TOS value" },
	{ BP_IE_TOTALRATE, "requested rate is above the server's limit" },
	{ 37, "test duration above the server's maximum" },
	{ BP_IE_INITTEST, "the server could not set up the test" },
	{ BP_IE_MESSAGE, "the server received an unknown control message" },
	{ BP_IE_RECVPARAMS, "the server could not read the parameters" },
	{ 119, "the client has terminated" },
	{ 120, "the server has terminated" },
	{ BP_IE_ACCESSDENIED, "the server is busy running a test" },
	{ 122, "could not set TCP_NODELAY" },
	{ 123, "could not set the MSS" },
	{ 124, "could not set the socket buffer size" },
	{ BP_IE_SETTOS, "could not set the IP TOS" },
	{ BP_IE_PROTOCOL, "protocol not supported by the server" },
	{ BP_IE_SETCONGESTION, "could not set the congestion control algorithm" },
	{ BP_IE_SETPACING, "could not set the socket pacing rate" },
	{ BP_IE_AUTHTEST, "test authorization failed" },
	{ BP_IE_SETDONTFRAGMENT, "could not set don't-fragment" },
	{ 160, "the server's maximum test duration expired" },
	{ 200, "the server could not create a stream" },
	{ BP_IE_STREAMACCEPT, "the server could not accept a data connection" },
};

const char *bp_iperf3_error_text(int code, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (texts[i].code == code)
			return texts[i].text;
	snprintf(buf, len, "iperf3 error %d", code);
	return buf;
}

int bp_iperf3_send_refusal(int fd, int bp_version, int code, int sys_errno, const char *why,
			   uint64_t deadline_ns)
{
	unsigned char nums[8];
	json_t *msg;
	int rc = bp_proto_send_state(fd, BP_SERVER_ERROR, deadline_ns);

	if (rc)
		return rc;
	if (bp_version == 0) {
		bp_put_be32(nums, (uint32_t)code);
		bp_put_be32(nums + 4, (uint32_t)sys_errno);
		return bp_proto_write_all(fd, nums, sizeof(nums), deadline_ns);
	}
	msg = json_pack("{s:s}", "error", why);
	rc = msg ? bp_proto_send_json(fd, msg, deadline_ns) : -ENOMEM;
	json_decref(msg);
	return rc;
}

/* boardperf's {"error": ...} whose 4-byte length was len and whose first byte was '{'. */
static int read_json_reason(int fd, uint32_t len, char *why, size_t whylen,
			    uint64_t deadline_ns)
{
	char *body;
	json_t *msg;
	const char *s;
	int rc;

	if (len == 0 || len > BP_PROTO_MAX_JSON)
		return -EBADMSG;
	body = malloc(len);
	if (!body)
		return -ENOMEM;
	body[0] = '{';
	rc = len > 1 ? bp_proto_read_all(fd, body + 1, len - 1, deadline_ns) : 0;
	msg = rc ? NULL : json_loadb(body, len, 0, NULL);
	free(body);
	s = json_string_value(json_object_get(msg, "error"));
	if (!rc && !s)
		rc = -EBADMSG;
	/* The server's text goes to a terminal, a log and the saved result: escaped here. */
	if (!rc)
		bp_text_escape(why, whylen, s, json_string_length(json_object_get(msg, "error")),
			       0);
	json_decref(msg);
	return rc;
}

int bp_iperf3_recv_refusal(int fd, char *why, size_t len, uint64_t deadline_ns)
{
	unsigned char head[8] = { 0 };
	char buf[32];
	uint32_t code;
	int sys_errno = 0, rc = bp_proto_read_all(fd, head, 4, deadline_ns);

	if (rc)
		return rc;
	code = bp_get_be32(head);
	/* Some iperf3 refusals (failed authorization) send the code alone and close. */
	if (!bp_proto_read_all(fd, head + 4, 1, deadline_ns)) {
		if (head[4] == '{')
			return read_json_reason(fd, code, why, len, deadline_ns);
		if (!bp_proto_read_all(fd, head + 5, 3, deadline_ns))
			sys_errno = (int)bp_get_be32(head + 4);
	}
	if (sys_errno > 0 && sys_errno < 4096)
		snprintf(why, len, "%s (iperf3 error %u: %s)",
			 bp_iperf3_error_text((int)code, buf, sizeof(buf)), code,
			 strerror(sys_errno));
	else
		snprintf(why, len, "%s (iperf3 error %u)",
			 bp_iperf3_error_text((int)code, buf, sizeof(buf)), code);
	return 0;
}

int bp_iperf3_recv_denied_reason(int fd, char *why, size_t len, uint64_t deadline_ns)
{
	unsigned char head[5];
	int rc = bp_proto_read_all(fd, head, sizeof(head), deadline_ns);

	if (rc)
		return rc;
	if (head[4] != '{')
		return -EBADMSG;
	return read_json_reason(fd, bp_get_be32(head), why, len, deadline_ns);
}
