/*
 * A client's UDP figures as the server's receiver saw them (issue 31, item 8): datagrams
 * ignored as implausible, and more numbers expected from the sequence than the client's
 * results say it sent, are flagged in "bp_warnings"; honest figures, a client that does
 * not say, and a sender stream are not.
 */
#include <string.h>

#include "server/server_figures.h"
#include "tap.h"

static struct bp_net_results res;

static const char *flagged(const char *theirs_text)
{
	static char msg[256];
	json_t *theirs = json_loads(theirs_text, 0, NULL);
	json_t *mine = json_object();
	const json_t *w;

	srv_flag_figures(&res, theirs, "127.0.0.1:5201", mine);
	w = json_array_get(json_object_get(mine, "bp_warnings"), 0);
	msg[0] = '\0';
	if (w && !strcmp(json_string_value(json_object_get(w, "code")),
			 "peer-figures-inconsistent"))
		snprintf(msg, sizeof(msg), "%s", json_string_value(json_object_get(w, "message")));
	json_decref(theirs);
	json_decref(mine);
	return msg;
}

int main(void)
{
	res.nstreams = 1;
	res.streams[0] = (struct bp_net_stream_result){ .id = 1, .packets = 200, .lost = 0 };
	CHECK_STR(flagged("{\"streams\":[{\"id\":1,\"packets\":200}]}"), "");
	/* within 5 % and 64 datagrams of what the client says */
	CHECK_STR(flagged("{\"streams\":[{\"id\":1,\"packets\":130}]}"), "");
	CHECK_STR(flagged("{\"streams\":[{\"id\":1,\"packets\":10}]}"),
		  "stream 1: 200 datagrams expected from the sequence numbers (200 received, 0 "
		  "lost), the client says it sent 10");
	/* a client that does not say, or says nonsense, or of another stream: nothing */
	CHECK_STR(flagged("{\"streams\":[{\"id\":1}]}"), "");
	CHECK_STR(flagged("{\"streams\":[{\"id\":1,\"packets\":-5}]}"), "");
	CHECK_STR(flagged("{\"streams\":[{\"id\":3,\"packets\":10}]}"), "");
	CHECK_STR(flagged("[]"), "");
	res.streams[0].implausible = 4;
	CHECK_STR(flagged("{\"streams\":[{\"id\":1,\"packets\":200}]}"),
		  "stream 1: 4 of 200 datagrams had a sequence jump or timestamp no real sender "
		  "makes; left out of lost (0) and jitter (0.000 ms)");
	res.streams[0].sender = true;
	CHECK_STR(flagged("{\"streams\":[{\"id\":1,\"packets\":10}]}"), "");
	return tap_done();
}
