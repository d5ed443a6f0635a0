#include "gpio/gpio_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpio/gpio_loop.h"
#include "result/result.h"
#include "result/result_latency.h"
#include "stats/histogram.h"

static int metric(struct bp_result *r, const char *method, const char *what, double v,
		  const char *unit, enum bp_better better)
{
	char name[96];

	if (!isfinite(v))
		return 0;
	snprintf(name, sizeof(name), "%s.%s", method, what);
	return bp_result_add_metric(r, name, v, unit, better);
}

static int latency(struct bp_result *r, const char *method, const char *what,
		   const struct bp_histo *h)
{
	char name[96];

	snprintf(name, sizeof(name), "%s.%s", method, what);
	return bp_result_add_latency_histo(r, name, h);
}

static int method_warnings(struct bp_result *r, const struct bp_gpio_method_run *mr,
			   const struct bp_gpio_report_opts *o)
{
	const char *name = mr->method->name;
	int rc = 0;

	if (!strcmp(name, "sysfs"))
		rc = bp_result_add_warning(r, "sysfs-deprecated", "sysfs: /sys/class/gpio is "
					   "deprecated and slow by design (a write(2) per level); "
					   "new code uses the character device");
	if (!rc && strstr(mr->path, "uAPI v1"))
		rc = bp_result_add_warning(r, "uapi-v1", "%s: this kernel has only the GPIO "
					   "uAPI v1 (before Linux 5.10); the figures are v1's",
					   name);
	if (!rc && mr->loop.mismatches)
		rc = bp_result_add_warning(r, "readback-mismatch", "%s: %llu of %llu read-backs "
					   "did not match the level written: a pin owned by another "
					   "driver, or a register map that is wrong", name,
					   (unsigned long long)mr->loop.mismatches,
					   (unsigned long long)mr->loop.checks);
	if (!rc && o->loop_to && mr->edges && !mr->pulses.edges && mr->loop.pairs)
		rc = bp_result_add_warning(r, "no-edges", "%s: no edges seen on line %u: is the "
					   "jumper in place?", name, o->loop_line);
	return rc;
}

int bp_gpio_report_method(struct bp_result *r, const struct bp_gpio_method_run *mr,
			  const struct bp_gpio_report_opts *o)
{
	const struct bp_gpio_loop_result *l = &mr->loop;
	const char *m = mr->method->name;
	double period = bp_gpio_loop_period_rate(l), write_ns = bp_gpio_loop_write_ns(l);
	int rc;

	if (!l->pairs)
		return method_warnings(r, mr, o);
	rc = metric(r, m, "periods.rate", period, "Hz", BP_BETTER_HIGHER);
	rc = rc ? rc : metric(r, m, "edges.rate", 2 * period, "op/s", BP_BETTER_HIGHER);
	rc = rc ? rc : metric(r, m, "write.mean", write_ns, "ns", BP_BETTER_LOWER);
	rc = rc ? rc : metric(r, m, "overhead", write_ns - o->loop_write_ns, "ns",
			      BP_BETTER_LOWER);
	rc = rc ? rc : latency(r, m, "write", l->histo);
	if (!rc && o->readback) {
		rc = metric(r, m, "readback.checks", (double)l->checks, "op", BP_BETTER_NONE);
		rc = rc ? rc : metric(r, m, "readback.mismatches", (double)l->mismatches, "op",
				      BP_BETTER_LOWER);
	}
	if (!rc && o->loop_to && mr->edges) {
		rc = metric(r, m, "input.edges", (double)mr->pulses.edges, "count",
			    BP_BETTER_NONE);
		rc = rc ? rc : metric(r, m, "input.edges.rate", l->elapsed_ns ?
				      (double)mr->pulses.edges * 1e9 / (double)l->elapsed_ns : NAN,
				      "op/s", BP_BETTER_HIGHER);
		rc = rc ? rc : latency(r, m, "input.pulse", mr->pulses.widths);
	}
	return rc ? rc : method_warnings(r, mr, o);
}

int bp_gpio_report_baseline(struct bp_result *r, const struct bp_gpio_loop_result *base,
			    uint64_t clock_ns)
{
	if (json_is_object(r->params)) {
		json_object_set_new(r->params, "sample_every", json_integer(BP_GPIO_SAMPLE_EVERY));
		json_object_set_new(r->params, "clock_ns", json_integer((json_int_t)clock_ns));
	}
	return metric(r, "loop", "write.mean", bp_gpio_loop_write_ns(base), "ns",
		      BP_BETTER_LOWER);
}
