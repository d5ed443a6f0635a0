#include "gpio/gpio_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpio/gpio_edges.h"
#include "stats/histogram.h"

int bp_gpio_method_run_init(struct bp_gpio_method_run *mr, const struct bp_gpio_method *m)
{
	*mr = (struct bp_gpio_method_run){ .method = m };
	mr->loop.histo = bp_histo_new();
	mr->pulses.widths = bp_histo_new();
	if (!mr->loop.histo || !mr->pulses.widths) {
		bp_gpio_method_run_free(mr);
		return -ENOMEM;
	}
	return 0;
}

void bp_gpio_method_run_free(struct bp_gpio_method_run *mr)
{
	bp_histo_free(mr->loop.histo);
	bp_histo_free(mr->pulses.widths);
	mr->loop.histo = NULL;
	mr->pulses.widths = NULL;
}

int bp_gpio_method_run(const struct bp_gpio_run_cfg *cfg, struct bp_gpio_method_run *mr)
{
	const struct bp_gpio_method *m = mr->method;
	struct bp_gpio_edges *edges = NULL;
	struct bp_gpio_line *l;
	int rc;

	mr->code = "io";
	l = m->open(cfg->target, mr->reason, sizeof(mr->reason), &mr->code);
	if (!l)
		return -ENODEV;
	mr->opened = true;
	snprintf(mr->path, sizeof(mr->path), "%s", m->describe(l));
	if (cfg->loop_to) {
		edges = bp_gpio_edges_start(cfg->target, cfg->loop_line, &mr->pulses, mr->reason,
					    sizeof(mr->reason), &mr->code);
		if (!edges) {
			m->close(l);
			mr->opened = false;
			return -ENODEV;
		}
		mr->edges = true;
	}
	rc = bp_gpio_loop_run(m, l, &cfg->loop, &mr->loop);
	bp_gpio_edges_stop(edges);
	m->close(l);
	if (rc)
		snprintf(mr->reason, sizeof(mr->reason), "%s line %u: a write or read through %s "
			 "failed after %llu writes: %s", cfg->target->chip_name, cfg->target->line,
			 m->name, (unsigned long long)mr->loop.writes, strerror(-rc));
	return 0;
}
