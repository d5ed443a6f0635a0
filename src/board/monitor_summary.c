#include "board/monitor_summary.h"

#include <math.h>
#include <string.h>

#include "board/sysfs.h"

int64_t bp_monitor_fastest_khz(const struct bp_monitor *m, size_t i)
{
	const int64_t *khz = bp_monitor_sample_khz(m, i);
	int64_t best = BP_INT_UNKNOWN;

	for (int c = 0; c < m->nclocks; c++)
		if (khz[c] != BP_INT_UNKNOWN && khz[c] > best)
			best = khz[c];
	return best;
}

void bp_monitor_shares(const struct bp_monitor *m, size_t a, size_t b, struct bp_cpu_shares *s)
{
	const struct bp_monitor_sample *sa = &m->samples[a], *sb = &m->samples[b];

	s->busy_percent = s->steal_percent = s->other_percent = NAN;
	if (a >= b || b >= m->n || !sa->ticks_ok || !sb->ticks_ok)
		return;
	bp_cpu_shares_between(&sa->ticks, &sb->ticks, sb->own_s - sa->own_s, m->hz, s);
}

double bp_monitor_below_max(const struct bp_monitor *m, size_t a, size_t b)
{
	const struct bp_monitor_sample *sa = &m->samples[a], *sb = &m->samples[b];
	int64_t below, total;

	if (a >= b || b >= m->n || !sa->tis_ok || !sb->tis_ok)
		return NAN;
	below = sb->tis_below_ms - sa->tis_below_ms;
	total = sb->tis_total_ms - sa->tis_total_ms;
	/* stats reset (a policy re-created on hotplug) read as counters going backwards */
	if (below < 0 || total <= 0 || below > total)
		return NAN;
	return 100.0 * (double)below / (double)total;
}

static void summarize_clocks(const struct bp_monitor *m, struct bp_monitor_summary *s)
{
	s->clock_start_khz = bp_monitor_fastest_khz(m, 0);
	s->clock_end_khz = bp_monitor_fastest_khz(m, m->n - 1);
	s->clock_low_khz = s->clock_min_khz = s->clock_max_khz = BP_INT_UNKNOWN;
	for (size_t i = 0; i < m->n; i++) {
		const int64_t *khz = bp_monitor_sample_khz(m, i);
		int64_t fast = bp_monitor_fastest_khz(m, i);

		if (fast != BP_INT_UNKNOWN &&
		    (s->clock_low_khz == BP_INT_UNKNOWN || fast < s->clock_low_khz))
			s->clock_low_khz = fast;
		for (int c = 0; c < m->nclocks; c++) {
			if (khz[c] == BP_INT_UNKNOWN)
				continue;
			if (s->clock_min_khz == BP_INT_UNKNOWN || khz[c] < s->clock_min_khz)
				s->clock_min_khz = khz[c];
			if (khz[c] > s->clock_max_khz)
				s->clock_max_khz = khz[c];
		}
	}
}

static void summarize_temps(const struct bp_monitor *m, struct bp_monitor_summary *s)
{
	s->temp_start_c = s->temp_max_c = s->hot_c = NAN;
	s->hot_zone = -1;
	for (size_t i = 0; i < m->n; i++) {
		const double *t = bp_monitor_sample_temp(m, i);

		for (int z = 0; z < m->nzones; z++) {
			if (isnan(t[z]))
				continue;
			if (i == 0 && (isnan(s->temp_start_c) || t[z] > s->temp_start_c))
				s->temp_start_c = t[z];
			if (isnan(s->temp_max_c) || t[z] > s->temp_max_c)
				s->temp_max_c = t[z];
			if (bp_monitor_is_hot(t[z], m->zones[z].limit_c) &&
			    (s->hot_zone < 0 || (s->hot_zone == z && t[z] > s->hot_c))) {
				s->hot_zone = z;
				s->hot_c = t[z];
			}
		}
	}
}

static void summarize_fw(const struct bp_monitor *m, struct bp_monitor_summary *s)
{
	bool first = true;

	s->fw_source = NULL;
	s->fw_start = s->fw_end = s->fw_now_seen = 0;
	if (m->fw_sysfs) {
		for (size_t i = 0; i < m->n; i++) {
			if (!m->samples[i].fw_ok)
				continue;
			if (first)
				s->fw_start = m->samples[i].fw_bits;
			first = false;
			s->fw_end = m->samples[i].fw_bits;
			s->fw_now_seen |= m->samples[i].fw_bits & BP_FW_NOW_MASK;
		}
		if (!first)
			s->fw_source = "sysfs";
	} else if (m->vc_start_ok && m->vc_end_ok) {
		s->fw_source = "vcgencmd";
		s->fw_start = m->vc_start;
		s->fw_end = m->vc_end;
		s->fw_now_seen = (m->vc_start | m->vc_end) & BP_FW_NOW_MASK;
	}
}

void bp_monitor_summarize(const struct bp_monitor *m, struct bp_monitor_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->span_s = m->n ? (double)m->samples[m->n - 1].t_ns / 1e9 : 0;
	summarize_clocks(m, s);
	summarize_temps(m, s);
	summarize_fw(m, s);
	s->below_max_percent = m->n ? bp_monitor_below_max(m, 0, m->n - 1) : NAN;
	if (m->n)
		bp_monitor_shares(m, 0, m->n - 1, &s->shares);
	else
		s->shares.busy_percent = s->shares.steal_percent = s->shares.other_percent = NAN;
}

uint32_t bp_monitor_throttle_bits(uint32_t start, uint32_t end, uint32_t now_seen)
{
	return (now_seen & BP_FW_NOW_MASK) | (end & ~start & BP_FW_OCCURRED_MASK);
}

bool bp_monitor_clock_dropped(int64_t start_khz, int64_t low_khz)
{
	if (start_khz == BP_INT_UNKNOWN || low_khz == BP_INT_UNKNOWN || start_khz <= 0)
		return false;
	return 100.0 * (double)(start_khz - low_khz) / (double)start_khz >
	       BP_MONITOR_CLOCK_DROP_PERCENT;
}

bool bp_monitor_is_hot(double temp_c, double limit_c)
{
	return !isnan(temp_c) && !isnan(limit_c) && temp_c >= limit_c;
}

bool bp_monitor_is_busy(double other_percent, double limit_percent)
{
	return !isnan(other_percent) && other_percent > limit_percent;
}
