#include "server/server_stats.h"

#include <inttypes.h>

#include "bp_config.h"
#include "core/clock.h"
#include "server/half.h"

static const char *const refusal_names[SRV_REFUSAL_COUNT] = {
	[SRV_REFUSAL_NONE] = "",
	[SRV_REFUSAL_NOT_SERVED] = "not-served",
	[SRV_REFUSAL_BAD_PARAMETERS] = "bad-parameters",
	[SRV_REFUSAL_AUTHENTICATION] = "authentication",
	[SRV_REFUSAL_MAX_CLIENTS] = "max-clients",
	[SRV_REFUSAL_MAX_PER_CLIENT] = "max-per-client",
	[SRV_REFUSAL_MAX_PER_SUBNET] = "max-per-subnet",
	[SRV_REFUSAL_MAX_DURATION] = "max-duration",
	[SRV_REFUSAL_MAX_STREAMS] = "max-streams",
	[SRV_REFUSAL_MAX_RATE] = "max-rate",
	[SRV_REFUSAL_STREAM_SETUP] = "stream-setup",
	[SRV_REFUSAL_OUT_OF_MEMORY] = "out-of-memory",
	[SRV_REFUSAL_PROTOCOL] = "protocol",
	[SRV_REFUSAL_SHED] = "shed",
	[SRV_REFUSAL_NO_STREAMS] = "no-streams",
};

const char *srv_refusal_name(enum srv_refusal r)
{
	return r < SRV_REFUSAL_COUNT ? refusal_names[r] : "";
}

void srv_stats_test(struct srv_stats *st, int kind, enum srv_outcome o, enum srv_refusal why,
		    uint64_t received, uint64_t sent)
{
	unsigned k = kind > 0 && kind < SRV_STATS_KINDS ? (unsigned)kind : 0;

	if (o == SRV_OUTCOME_REFUSED)
		st->refused[k][why < SRV_REFUSAL_COUNT ? why : SRV_REFUSAL_PROTOCOL]++;
	else
		st->tests[k][o == SRV_OUTCOME_FAILED]++;
	st->received[k] += received;
	st->sent[k] += sent;
}

static const char *kind_label(unsigned k)
{
	const char *name = srv_half_name((int)k);

	return name ? name : "other";
}

/* Kind k is one this server serves (0: "other", for a test it does not). */
static bool served(unsigned k)
{
	return k && srv_half_name((int)k);
}

static void write_tests(const struct srv_stats *st, FILE *out, enum bp_om_format f)
{
	bp_om_family(out, f, "boardperf_server_tests", BP_OM_COUNTER, "",
		     "tests that ended, by kind and outcome: ok (ran to its end), failed (the "
		     "client went away or stopped answering), refused (with the reason)");
	for (unsigned k = 0; k < SRV_STATS_KINDS && (!k || served(k)); k++) {
		for (int o = 0; o < 2; o++) {
			struct bp_om_label l[2] = { { "test", kind_label(k) },
						    { "outcome", o ? "failed" : "ok" } };

			/* The served kinds always, so that rate() has a start; "other" once seen. */
			if (k || st->tests[k][o])
				bp_om_sample(out, BP_OM_COUNTER, "boardperf_server_tests", l, 2,
					     (double)st->tests[k][o]);
		}
		for (int r = 1; r < SRV_REFUSAL_COUNT; r++) {
			struct bp_om_label l[3] = { { "test", kind_label(k) },
						    { "outcome", "refused" },
						    { "reason", refusal_names[r] } };

			if (st->refused[k][r])
				bp_om_sample(out, BP_OM_COUNTER, "boardperf_server_tests", l, 3,
					     (double)st->refused[k][r]);
		}
	}
}

static void write_bytes(FILE *out, enum bp_om_format f, const char *name, const char *help,
			const uint64_t *by_kind)
{
	bp_om_family(out, f, name, BP_OM_COUNTER, "bytes", help);
	for (unsigned k = 1; k < SRV_STATS_KINDS && served(k); k++) {
		struct bp_om_label l = { "test", kind_label(k) };

		bp_om_sample(out, BP_OM_COUNTER, name, &l, 1, (double)by_kind[k]);
	}
}

static void write_counter(FILE *out, enum bp_om_format f, const char *name, const char *help,
			  uint64_t v)
{
	bp_om_family(out, f, name, BP_OM_COUNTER, "", help);
	bp_om_sample(out, BP_OM_COUNTER, name, NULL, 0, (double)v);
}

static void write_gauge(FILE *out, enum bp_om_format f, const char *name, const char *unit,
			const char *help, double v)
{
	bp_om_family(out, f, name, BP_OM_GAUGE, unit, help);
	bp_om_sample(out, BP_OM_GAUGE, name, NULL, 0, v);
}

static void write_door(const struct srv_stats_door *d, FILE *out, enum bp_om_format f)
{
	const struct { const char *reason; uint64_t n; } rows[] = {
		{ "descriptor-limit", d->fd_limit }, { "shed", d->shed },
		{ "not-a-client", d->not_a_client }, { "no-cookie", d->no_cookie },
	};

	bp_om_family(out, f, "boardperf_server_connections_refused", BP_OM_COUNTER, "",
		     "connections to the test port closed before they were part of a test: at "
		     "the descriptor limit, shed for a newer one (--max-pending), not a "
		     "boardperf or iperf3 client, no cookie within the idle timeout");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct bp_om_label l = { "reason", rows[i].reason };

		bp_om_sample(out, BP_OM_COUNTER, "boardperf_server_connections_refused", &l, 1,
			     (double)rows[i].n);
	}
}

void srv_stats_write(const struct srv_stats *st, const struct srv_stats_door *door,
		     int active, uint64_t now_ns, FILE *out, enum bp_om_format f)
{
	struct bp_om_label version = { "version", BP_VERSION };

	write_tests(st, out, f);
	write_bytes(out, f, "boardperf_server_received_bytes",
		    "bytes the tests' data brought to this server, as their results count them "
		    "(tcp, udp: the streams' bytes after -O; rr, crr: the requests)",
		    st->received);
	write_bytes(out, f, "boardperf_server_sent_bytes",
		    "bytes this server sent as the tests' data (tcp, udp: -R and --bidir "
		    "streams after -O; rr, crr: the answers)", st->sent);
	write_counter(out, f, "boardperf_server_connections_accepted",
		      "TCP connections accepted on the test port (control, data, crr)",
		      st->accepted);
	write_door(door, out, f);
	write_gauge(out, f, "boardperf_server_active_tests", "", "tests admitted and running",
		    (double)active);
	write_gauge(out, f, "boardperf_server_uptime_seconds", "seconds",
		    "seconds since the server started", (double)(now_ns - st->start_ns) / 1e9);
	write_counter(out, f, "boardperf_server_scrapes", "GET /metrics answered", st->scrapes);
	bp_om_family(out, f, "boardperf_build_info", BP_OM_GAUGE, "", "boardperf's version");
	bp_om_sample(out, BP_OM_GAUGE, "boardperf_build_info", &version, 1, 1);
}
