#include "mem/mem_report.h"

#include <math.h>
#include <stdio.h>

#include "core/cpuacct.h"
#include "result/result.h"

void bp_mem_starved_init(struct bp_mem_starved *s)
{
	*s = (struct bp_mem_starved){ .worst_share = NAN };
}

void bp_mem_starved_note(struct bp_mem_starved *s, double busy_share, const char *what)
{
	s->items++;
	/* Unknown (no rusage) is not evidence of anything; it is counted, not flagged. */
	if (isnan(busy_share) || busy_share >= BP_CPU_BOUND_SHARE)
		return;
	s->starved++;
	if (isnan(s->worst_share) || busy_share < s->worst_share) {
		s->worst_share = busy_share;
		snprintf(s->worst, sizeof(s->worst), "%s", what);
	}
}

int bp_mem_starved_report(const struct bp_mem_starved *s, struct bp_result *r)
{
	if (!s->starved)
		return 0;
	return bp_result_add_warning(r, "tester-cpu-starved",
				     "%d of %d items ran with a worker below %.0f %% of its core "
				     "(least: %s, %.0f %%); another process took CPU time, so "
				     "those figures read low", s->starved, s->items,
				     BP_CPU_BOUND_SHARE * 100, s->worst, s->worst_share * 100);
}

static int add_rate(struct bp_result *r, const char *name, double v, const char *unit)
{
	if (!isfinite(v))
		return 0;
	return bp_result_add_metric(r, name, v, unit, BP_BETTER_HIGHER);
}

/*
 * Where a worker ran: "on CPU 1" when it was pinned there, "unpinned" when it floated (the
 * one-core runs: a pinned worker would wait behind another process while a core idles), so
 * that a warning never names CPU -1.
 */
static void cpu_text(char *buf, size_t len, int cpu)
{
	if (cpu >= 0)
		snprintf(buf, len, "on CPU %d", cpu);
	else
		snprintf(buf, len, "unpinned");
}

static void note_figure(struct bp_mem_starved *st, const struct bp_mem_bw_figure *f,
			enum bp_mem_op op, const char *where)
{
	char what[96], cpu[24];

	cpu_text(cpu, sizeof(cpu), f->min_cpu);
	snprintf(what, sizeof(what), "%s on %s, worker %d %s", bp_mem_op_name(op), where,
		 f->min_worker, cpu);
	bp_mem_starved_note(st, f->min_busy_share, what);
}

int bp_mem_report_bandwidth(struct bp_result *r, const struct bp_mem_bw_figure *one,
			    const struct bp_mem_bw_figure *all, struct bp_mem_starved *st)
{
	int rc = 0;

	for (int op = 0; op < BP_MEM_NOPS && !rc; op++) {
		const struct bp_mem_bw_figure *a = all ? &all[op] : &one[op];
		const char *name = bp_mem_op_name(op);
		char m[64];

		snprintf(m, sizeof(m), "%s.bandwidth", name);
		rc = add_rate(r, m, one[op].rate, "B/s");
		snprintf(m, sizeof(m), "%s.bandwidth.all", name);
		if (!rc)
			rc = add_rate(r, m, a->rate, "B/s");
		snprintf(m, sizeof(m), "%s.bandwidth.scaling", name);
		if (!rc)
			rc = add_rate(r, m, bp_mem_bw_scaling(a->rate, one[op].rate, a->workers),
				      "percent");
		note_figure(st, &one[op], op, "one core");
		if (all)
			note_figure(st, a, op, "all cores");
	}
	return rc;
}

int bp_mem_report_latency(struct bp_result *r, const struct bp_mem_lat_figure *fig, int n,
			  struct bp_mem_starved *st)
{
	int rc = 0;

	for (int i = 0; i < n && !rc; i++) {
		char size[32], m[64], what[96], cpu[24];

		if (isnan(fig[i].ns))
			continue;
		bp_mem_size_name(size, sizeof(size), fig[i].size);
		snprintf(m, sizeof(m), "latency.%s", size);
		rc = bp_result_add_metric(r, m, fig[i].ns, "ns", BP_BETTER_LOWER);
		cpu_text(cpu, sizeof(cpu), fig[i].cpu);
		snprintf(what, sizeof(what), "latency at %s %s", size, cpu);
		bp_mem_starved_note(st, fig[i].busy_share, what);
	}
	return rc;
}
