#include "server/server_figures.h"

#include <inttypes.h>
#include <stdio.h>

#include "core/log_limit.h"
#include "proto/peer_json.h"

/*
 * What the client says stream id sent ("packets" of its stream with that id), or -1 when
 * it does not say or says something out of domain (that is refused nowhere: the client's
 * results are only ever compared, never shown).
 */
static long long client_sent(const json_t *theirs, int id)
{
	const json_t *streams = json_object_get(theirs, "streams");
	size_t i;
	json_t *s;

	json_array_foreach(streams, i, s) {
		char err[8];
		struct bp_peer_reader rd = bp_peer_reader(s, err, sizeof(err));
		long long sid = bp_peer_int(&rd, "id", -1, -1, INT32_MAX, 0);
		long long packets = bp_peer_int(&rd, "packets", -1, -1, BP_PEER_INT_MAX, 0);

		if (!rd.rc && sid == id)
			return packets;
	}
	return -1;
}

/*
 * The first impossible figure of a receiving stream, into line: datagrams ignored as
 * implausible (udp_seq.h: a jump ahead no link carries, a transit change past 10 s), or
 * more numbers expected from the sequence than the client says it sent (beyond 5 % and 64
 * datagrams: the two ends' omitted starts end a moment apart).
 */
static bool impossible(const struct bp_net_stream_result *s, const json_t *theirs,
		       char *line, size_t len)
{
	double expected = (double)s->packets - (double)s->duplicates + (double)s->lost;
	long long sent = client_sent(theirs, s->id);

	if (s->implausible) {
		snprintf(line, len, "stream %d: %" PRIu64 " of %" PRIu64 " datagrams had a sequence "
			 "jump or timestamp no real sender makes; left out of lost (%" PRId64 ") "
			 "and jitter (%.3f ms)", s->id, s->implausible, s->packets, s->lost,
			 s->jitter_ns / 1e6);
		return true;
	}
	if (sent >= 0 && expected > (double)sent * 1.05 + 64) {
		snprintf(line, len, "stream %d: %.0f datagrams expected from the sequence numbers "
			 "(%" PRIu64 " received, %" PRId64 " lost), the client says it sent %lld",
			 s->id, expected, s->packets, s->lost, sent);
		return true;
	}
	return false;
}

void srv_flag_figures(const struct bp_net_results *res, const json_t *theirs,
		      const char *peer, json_t *mine)
{
	char line[200];

	for (int i = 0; i < res->nstreams; i++) {
		const struct bp_net_stream_result *s = &res->streams[i];
		json_t *warnings;

		if (s->sender || !impossible(s, theirs, line, sizeof(line)))
			continue;
		bp_warn_peer(peer, "%s: peer-figures-inconsistent: %s", peer, line);
		warnings = json_pack("[{s:s, s:s}]", "code", "peer-figures-inconsistent",
				     "message", line);
		if (mine && warnings)
			json_object_set_new(mine, "bp_warnings", warnings);
		else
			json_decref(warnings);
		return;
	}
}
