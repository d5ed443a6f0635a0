#include "board/monitor_result.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/jsonval.h"
#include "board/kmsg_result.h"
#include "board/monitor_summary.h"
#include "board/sysfs.h"
#include "core/log.h"

/* The index of the sample taken nearest to t_s (seconds since the first sample). */
static size_t nearest(const struct bp_monitor *m, double t_s)
{
	size_t best = 0;
	double best_d = INFINITY;

	for (size_t i = 0; i < m->n; i++) {
		double d = fabs((double)m->samples[i].t_ns / 1e9 - t_s);

		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

static void put_shares(json_t *o, const struct bp_cpu_shares *s)
{
	bp_json_put(o, "busy_percent", bp_json_real_or_null(s->busy_percent));
	bp_json_put(o, "other_percent", bp_json_real_or_null(s->other_percent));
	bp_json_put(o, "steal_percent", bp_json_real_or_null(s->steal_percent));
}

/* The figures of an interval: the sample nearest its end, the shares since the one
 * nearest its start. */
static json_t *interval_json(const struct bp_monitor *m, const struct bp_interval *iv)
{
	size_t a = nearest(m, iv->start), b = nearest(m, iv->end);
	const int64_t *khz = bp_monitor_sample_khz(m, b);
	const double *temp = bp_monitor_sample_temp(m, b);
	const struct bp_monitor_sample *s = &m->samples[b];
	json_t *o = json_object(), *clocks = json_array(), *temps = json_array();
	struct bp_cpu_shares sh;

	for (int i = 0; clocks && i < m->nclocks; i++)
		json_array_append_new(clocks, bp_json_int_or_null(khz[i]));
	for (int i = 0; temps && i < m->nzones; i++)
		json_array_append_new(temps, bp_json_real_or_null(temp[i]));
	bp_monitor_shares(m, a, b, &sh);
	bp_json_put(o, "at_s", json_real((double)s->t_ns / 1e9));
	bp_json_put(o, "span_s", json_real((double)(s->t_ns - m->samples[a].t_ns) / 1e9));
	bp_json_put(o, "cpu_khz", clocks);
	bp_json_put(o, "temp_c", temps);
	bp_json_put(o, "fw_throttled", s->fw_ok ? json_integer(s->fw_bits) : json_null());
	bp_json_put(o, "below_max_percent", bp_json_real_or_null(bp_monitor_below_max(m, a, b)));
	put_shares(o, &sh);
	return o;
}

static json_t *int_list(const int *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *cpus_json(const struct bp_monitor *m)
{
	json_t *a = json_array();

	for (int c = 0; a && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &m->cpus))
			json_array_append_new(a, json_integer(c));
	return a;
}

static json_t *zones_json(const struct bp_monitor *m)
{
	json_t *a = json_array();

	for (int z = 0; a && z < m->nzones; z++) {
		json_t *o = json_object();
		double start = bp_monitor_sample_temp(m, 0)[z], max = NAN;

		for (size_t i = 0; i < m->n; i++) {
			double t = bp_monitor_sample_temp(m, i)[z];

			if (!isnan(t) && (isnan(max) || t > max))
				max = t;
		}
		bp_json_put(o, "zone", json_integer(m->zones[z].zone));
		bp_json_put(o, "type", bp_json_str_or_null(m->zones[z].type));
		bp_json_put(o, "limit_c", json_real(m->zones[z].limit_c));
		bp_json_put(o, "limit_from", json_string(m->zones[z].limit_is_trip ? "passive-trip"
							  : "default"));
		bp_json_put(o, "start_c", bp_json_real_or_null(start));
		bp_json_put(o, "max_c", bp_json_real_or_null(max));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *clock_json(const struct bp_monitor_summary *s)
{
	json_t *o = json_object();

	bp_json_put(o, "start", bp_json_int_or_null(s->clock_start_khz));
	bp_json_put(o, "low", bp_json_int_or_null(s->clock_low_khz));
	bp_json_put(o, "end", bp_json_int_or_null(s->clock_end_khz));
	bp_json_put(o, "min", bp_json_int_or_null(s->clock_min_khz));
	bp_json_put(o, "max", bp_json_int_or_null(s->clock_max_khz));
	return o;
}

static json_t *throttle_json(const struct bp_monitor_summary *s)
{
	json_t *o = json_object();
	bool ok = s->fw_source != NULL;

	bp_json_put(o, "source", ok ? json_string(s->fw_source) : json_null());
	bp_json_put(o, "start", ok ? json_integer(s->fw_start) : json_null());
	bp_json_put(o, "end", ok ? json_integer(s->fw_end) : json_null());
	bp_json_put(o, "now_seen", ok ? json_integer(s->fw_now_seen) : json_null());
	return o;
}

static json_t *summary_json(const struct bp_monitor *m, const struct bp_monitor_summary *s,
			    double busy_warn)
{
	json_t *o = json_object(), *cap = json_object(), *temp = json_object();

	bp_json_put(o, "interval_s", json_real((double)m->period_ns / 1e9));
	bp_json_put(o, "samples", json_integer((json_int_t)m->n));
	bp_json_put(o, "span_s", json_real(s->span_s));
	bp_json_put(o, "cpus", cpus_json(m));
	bp_json_put(o, "clock_cpus", int_list(m->clock_cpu, m->nclocks));
	bp_json_put(o, "clock_khz", clock_json(s));
	bp_json_put(cap, "start", bp_json_int_or_null(m->cap_start_khz));
	bp_json_put(cap, "end", bp_json_int_or_null(m->cap_end_khz));
	bp_json_put(o, "clock_cap_khz", cap);
	bp_json_put(temp, "start", bp_json_real_or_null(s->temp_start_c));
	bp_json_put(temp, "max", bp_json_real_or_null(s->temp_max_c));
	bp_json_put(o, "temp_c", temp);
	bp_json_put(o, "zones", zones_json(m));
	bp_json_put(o, "throttled", throttle_json(s));
	bp_json_put(o, "below_max_percent", bp_json_real_or_null(s->below_max_percent));
	put_shares(o, &s->shares);
	bp_json_put(o, "busy_warn_percent", json_real(busy_warn));
	bp_json_put(o, "peers", json_integer(m->npeers));
	return o;
}

/* "under-voltage, throttled (now); capped (since the start)" */
static void bit_names(uint32_t bits, char *buf, size_t len)
{
	static const char *const names[] = { "under-voltage", "frequency capped", "throttled",
					     "soft temperature limit" };
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < 4; i++) {
		bool now = bits & (1u << i), occurred = bits & (1u << (i + BP_FW_OCCURRED_SHIFT));

		if (!now && !occurred)
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s (%s)",
					 used ? ", " : "", names[i], now ? "during the test"
					 : "since the start");
	}
}

static void warn_throttled(struct bp_result *r, const struct bp_monitor_summary *s)
{
	uint32_t bits;
	char names[256];

	if (!s->fw_source)
		return;
	bits = bp_monitor_throttle_bits(s->fw_start, s->fw_end, s->fw_now_seen);
	if (!bits)
		return;
	bit_names(bits, names, sizeof(names));
	bp_result_add_warning(r, "throttled", "the Raspberry Pi firmware reported %s "
			      "(get_throttled 0x%x at the start, 0x%x at the end, from %s): the "
			      "figures are those of a board slowed by its firmware", names,
			      s->fw_start, s->fw_end, s->fw_source);
}

static void warn_clock(struct bp_result *r, const struct bp_monitor *m,
		       const struct bp_monitor_summary *s)
{
	char cap[160] = "";

	if (!bp_monitor_clock_dropped(s->clock_start_khz, s->clock_low_khz))
		return;
	if (m->cap_start_khz != BP_INT_UNKNOWN && m->cap_end_khz != BP_INT_UNKNOWN &&
	    m->cap_end_khz < m->cap_start_khz)
		snprintf(cap, sizeof(cap), "; the cap (scaling_max_freq) fell too, from %lld to "
			 "%lld MHz: a thermal or power limit", (long long)m->cap_start_khz / 1000,
			 (long long)m->cap_end_khz / 1000);
	else
		snprintf(cap, sizeof(cap), "; the cap (scaling_max_freq) stayed: the governor "
			 "lowered it (a lightly loaded test lets ondemand or schedutil do so)");
	bp_result_add_warning(r, "clock-dropped", "the fastest core's clock fell from %lld MHz "
			      "at the start to %lld MHz (%.0f %% lower, more than %.0f %%)%s; the "
			      "figures after it are those of a slower CPU",
			      (long long)s->clock_start_khz / 1000, (long long)s->clock_low_khz / 1000,
			      100.0 * (double)(s->clock_start_khz - s->clock_low_khz) /
			      (double)s->clock_start_khz, BP_MONITOR_CLOCK_DROP_PERCENT, cap);
}

static void warn_hot(struct bp_result *r, const struct bp_monitor *m,
		     const struct bp_monitor_summary *s)
{
	const struct bp_monitor_zone *z;

	if (s->hot_zone < 0)
		return;
	z = &m->zones[s->hot_zone];
	bp_result_add_warning(r, "hot", "thermal zone %d (%s) reached %.1f °C, at or above %s "
			      "%.1f °C: the kernel may throttle the board from there", z->zone,
			      z->type[0] ? z->type : "no type", s->hot_c, z->limit_is_trip ?
			      "its passive trip point" : "boardperf's threshold for a zone without "
			      "a passive trip point,", z->limit_c);
}

/* As result_starve.c reads it: a peer of this machine's own. */
static bool peer_on_this_machine(const struct bp_result *r)
{
	const char *host = json_string_value(json_object_get(r->params, "client"));
	const char *url = json_string_value(json_object_get(r->params, "url"));

	if (url && (strstr(url, "://127.") || strstr(url, "://localhost") ||
		    strstr(url, "://[::1]")))
		return true;
	return host && (!strncmp(host, "127.", 4) || !strcmp(host, "::1") ||
			!strcmp(host, "localhost"));
}

static void warn_busy(struct bp_result *r, const struct bp_monitor *m,
		      const struct bp_monitor_summary *s, double busy_warn)
{
	if (!bp_monitor_is_busy(s->shares.other_percent, busy_warn))
		return;
	bp_result_add_warning(r, "busy-machine", "other processes took %.1f %% of the %d CPU%s "
			      "this test could run on (more than --busy-warn %g %%; the machine "
			      "was %.1f %% busy in all)%s: the figures may read low",
			      s->shares.other_percent, m->ncpus, m->ncpus == 1 ? "" : "s",
			      busy_warn, s->shares.busy_percent, peer_on_this_machine(r) ?
			      " (the peer runs on this machine: its CPU is part of that unless it is "
			      "the boardperf serve the test talks to)" : "");
}

int bp_monitor_to_result(const struct bp_monitor *m, struct bp_result *r, double busy_warn)
{
	struct bp_monitor_summary s;
	json_t *sum;

	if (!m->n)
		return 0;
	for (size_t i = 0; i < r->nintervals; i++) {
		json_t *o = interval_json(m, &r->intervals[i]);

		if (!o)
			return -ENOMEM;
		bp_interval_set_monitor(&r->intervals[i], o);
	}
	bp_monitor_summarize(m, &s);
	sum = summary_json(m, &s, busy_warn);
	if (!sum)
		return -ENOMEM;
	bp_result_set_monitor(r, sum);
	warn_throttled(r, &s);
	warn_clock(r, m, &s);
	warn_hot(r, m, &s);
	warn_busy(r, m, &s, busy_warn);
	return 0;
}

/*
 * The kernel's log from now on (board/kmsg.h). Without the right to read it (CAP_SYSLOG,
 * where kernel.dmesg_restrict is 1) the process says so once, and each result says
 * kernel_messages null.
 */
static void open_kmsg(struct bp_monitor *m)
{
	static atomic_bool said;

	m->kmsg = malloc(sizeof(*m->kmsg));
	if (!m->kmsg)
		return;
	bp_kmsg_open(m->kmsg, "/dev/kmsg");
	if (m->kmsg->fd < 0 && !atomic_exchange(&said, true))
		bp_info("the kernel's messages are not read (/dev/kmsg: %s): results will not "
			"carry its warnings; root, or sysctl kernel.dmesg_restrict=0, has them",
			strerror(m->kmsg->open_errno));
}

struct bp_monitor *bp_monitor_begin(const struct bp_result *r, const struct bp_common_opts *c)
{
	double interval = json_number_value(json_object_get(r->params, "interval"));
	char comm[32];
	struct bp_monitor_cfg cfg = {
		.sys_root = getenv(BP_MONITOR_SYS_ROOT_ENV),
		.proc_root = "/",
		.period_ns = interval > 0 ? (uint64_t)(interval * 1e9) : 0,
		.vcgencmd = true,
		.self_comm = bp_sysfs_str("/", comm, sizeof(comm), "/proc/self/comm") == 0 ? comm
			     : "boardperf",
	};
	struct bp_monitor *m;

	if (c->no_monitor)
		return NULL;
	if (peer_on_this_machine(r))
		cfg.peer_port = (int)json_integer_value(json_object_get(r->params, "port"));
	m = bp_monitor_new(&cfg);
	if (!m) {
		bp_debug("monitor: out of memory; the test runs without it");
		return NULL;
	}
	open_kmsg(m);
	if (bp_monitor_start(m))
		bp_debug("monitor: no thread; only the samples at the start and the end");
	return m;
}

void bp_monitor_end(struct bp_monitor *m, struct bp_result *r, const struct bp_common_opts *c)
{
	if (!m)
		return;
	bp_monitor_stop(m);
	/* an inventory, or a failure before anything was measured, has nothing to qualify */
	if (r->nmetrics || r->nintervals) {
		bp_monitor_to_result(m, r, c->busy_warn);
		bp_kmsg_to_result(m->kmsg, r);
	}
	bp_monitor_free(m);
}
