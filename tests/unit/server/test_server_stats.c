/* The server's counters as families (server/server_stats.h), in both formats. */
#include <stdlib.h>

#include "core/clock.h"
#include "export/om_figures.h"
#include "kinds.h"
#include "server/half.h"
#include "server/server_stats.h"
#include "tap.h"

static char *render(const struct srv_stats *st, const struct srv_stats_door *d,
		    enum bp_om_format f)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	srv_stats_write(st, d, 3, st->start_ns + 2500 * BP_NS_PER_MS, out, f);
	fclose(out);
	return buf;
}

#define HAS(buf, line) CHECK(buf && strstr(buf, line "\n"))

int main(void)
{
	struct srv_stats st = { .start_ns = 1000, .accepted = 7, .scrapes = 2 };
	struct srv_stats_door d = { .fd_limit = 1, .shed = 2, .not_a_client = 3, .no_cookie = 4 };
	char *om, *text;

	/* The kinds served are the installed ones with a half, in the registry's order. */
	install_all_kinds();
	CHECK(srv_half_number("tcp") == 1 && srv_half_number("udp") == 2 &&
	      srv_half_number("rr") == 3 && srv_half_number("crr") == 4);
	CHECK(srv_half_number("cpu") == 0 && srv_half_number("nosuch") == 0 &&
	      !srv_half_name(5) && !srv_half_name(0));
	CHECK(srv_half_find("tcp") && srv_half_find("tcp") == srv_half_find("udp") &&
	      srv_half_find("rr") != srv_half_find("crr") && !srv_half_find("http"));
	{
		char list[64];

		srv_half_list(list, sizeof(list));
		CHECK(!strcmp(list, "tcp, udp, rr and crr"));
	}
	srv_stats_test(&st, srv_half_number("tcp"), SRV_OUTCOME_OK, SRV_REFUSAL_NONE, 1000, 24);
	srv_stats_test(&st, srv_half_number("tcp"), SRV_OUTCOME_OK, SRV_REFUSAL_NONE, 500, 0);
	srv_stats_test(&st, srv_half_number("udp"), SRV_OUTCOME_FAILED, SRV_REFUSAL_NONE, 10, 20);
	srv_stats_test(&st, srv_half_number("rr"), SRV_OUTCOME_REFUSED, SRV_REFUSAL_MAX_CLIENTS, 0,
		       0);
	srv_stats_test(&st, srv_half_number("gopher"), SRV_OUTCOME_REFUSED,
		       SRV_REFUSAL_NOT_SERVED, 0, 0);
	/* An out-of-range number counts as "other", never past the table. */
	srv_stats_test(&st, 99, SRV_OUTCOME_OK, SRV_REFUSAL_NONE, 0, 0);
	srv_stats_test(&st, -1, SRV_OUTCOME_OK, SRV_REFUSAL_NONE, 0, 0);

	om = render(&st, &d, BP_OM_OPENMETRICS);
	text = render(&st, &d, BP_OM_PROMETHEUS);
	HAS(om, "# TYPE boardperf_server_tests counter");
	HAS(text, "# TYPE boardperf_server_tests_total counter");
	HAS(om, "boardperf_server_tests_total{test=\"tcp\",outcome=\"ok\"} 2");
	HAS(om, "boardperf_server_tests_total{test=\"udp\",outcome=\"failed\"} 1");
	HAS(om, "boardperf_server_tests_total{test=\"crr\",outcome=\"ok\"} 0");
	HAS(om, "boardperf_server_tests_total{test=\"rr\",outcome=\"refused\","
		"reason=\"max-clients\"} 1");
	HAS(om, "boardperf_server_tests_total{test=\"other\",outcome=\"refused\","
		"reason=\"not-served\"} 1");
	HAS(om, "boardperf_server_tests_total{test=\"other\",outcome=\"ok\"} 2");
	CHECK(!strstr(om, "test=\"other\",outcome=\"failed\""));
	HAS(om, "# UNIT boardperf_server_received_bytes bytes");
	CHECK(!strstr(text, "# UNIT"));
	HAS(om, "boardperf_server_received_bytes_total{test=\"tcp\"} 1500");
	HAS(om, "boardperf_server_sent_bytes_total{test=\"tcp\"} 24");
	HAS(om, "boardperf_server_received_bytes_total{test=\"udp\"} 10");
	HAS(om, "boardperf_server_connections_accepted_total 7");
	HAS(om, "boardperf_server_connections_refused_total{reason=\"descriptor-limit\"} 1");
	HAS(om, "boardperf_server_connections_refused_total{reason=\"no-cookie\"} 4");
	HAS(om, "boardperf_server_active_tests 3");
	HAS(om, "boardperf_server_uptime_seconds 2.5");
	HAS(om, "boardperf_server_scrapes_total 2");
	CHECK(om && strstr(om, "boardperf_build_info{version=\""));
	/* The same samples in both formats: only the headers differ. */
	{
		size_t samples = 0, same = 0;
		char *save = NULL, *copy = strdup(text);

		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char line[512];

			if (l[0] == '#')
				continue;
			samples++;
			snprintf(line, sizeof(line), "\n%s\n", l);
			same += strstr(om, line) != NULL;
		}
		CHECK(samples > 20);
		CHECK_INT(same, samples);
		free(copy);
	}
	/* Every family here is one a stored figure may not take (export/om_figures.h). */
	{
		size_t families = 0, own = 0;
		char *save = NULL, *copy = strdup(om);

		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char name[128];

			if (sscanf(l, "# TYPE %127s", name) != 1)
				continue;
			families++;
			own += bp_om_own_family(name);
		}
		CHECK_INT(families, 9);
		CHECK_INT(own, families);
		free(copy);
	}
	CHECK(!bp_om_own_family("boardperf_server_transactions"));
	for (int r = 1; r < SRV_REFUSAL_COUNT; r++)
		CHECK(srv_refusal_name((enum srv_refusal)r)[0] != '\0');
	CHECK_STR(srv_refusal_name(SRV_REFUSAL_COUNT), "");
	free(om);
	free(text);
	return tap_done();
}
