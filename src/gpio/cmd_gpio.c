/*
 * `boardperf gpio`: how fast a program can toggle one GPIO line by each path it can take
 * (the character device, sysfs, the SoC's registers), every one through the same loop, with
 * the writes verified by reading back (--readback) or by a jumper to a second line whose
 * edges the kernel timestamps (--loop-to); `--list` shows the chips and which lines are
 * free. docs/board.md, "boardperf gpio"; the methods behind gpio_method.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board/gpio_chips.h"
#include "board/sysfs.h"
#include "core/checks.h"
#include "core/clock.h"
#include "core/signals.h"
#include "core/test.h"
#include "gpio/gpio_errors.h"
#include "gpio/gpio_lines.h"
#include "gpio/gpio_list.h"
#include "gpio/gpio_loop.h"
#include "gpio/gpio_methods.h"
#include "gpio/gpio_metrics.h"
#include "gpio/gpio_report.h"
#include "gpio/gpio_run.h"
#include "gpio/gpio_soc.h"
#include "result/live.h"
#include "result/result.h"

struct gpio_params {
	const char *chip;
	const char *line;
	int method;
	uint64_t time_ns;
	int64_t readback;
	const char *loop_to;
	bool allow_mmap;
	bool force;
	bool list;
	uint64_t interval_ns;
	const char *root;
};

static const char *const method_names[] = { "chardev", "sysfs", "mmap", "all", NULL };
#define METHOD_ALL 3

#define P(f) offsetof(struct gpio_params, f)
static const struct bp_opt gpio_opts[] = {
	{ 0, "chip", BP_OPT_STRING, P(chip), "CHIP", NULL, 0, 0, NULL,
	  "gpiochip0, /dev/gpiochip0 or the chip's label [default: the first with the line]" },
	{ 0, "line", BP_OPT_STRING, P(line), "N", NULL, 0, 0, NULL,
	  "the line: its offset in the chip or its name (GPIO14)" },
	{ 0, "method", BP_OPT_CHOICE, P(method), "M", "chardev", 0, 0, method_names,
	  "how to drive it; all: each method this board has, in turn" },
	{ 't', "time", BP_OPT_DURATION, P(time_ns), "S", "2", 0.01, 3600, NULL,
	  "toggle time per method" },
	{ 0, "readback", BP_OPT_OPTINT, P(readback), "N", "0", 0, 1000000000, NULL,
	  "read the line back after every Nth write (alone: every write) and count mismatches" },
	{ 0, "loop-to", BP_OPT_STRING, P(loop_to), "M", NULL, 0, 0, NULL,
	  "a jumper from the line to line M of the same chip: count the edges M sees" },
	{ 0, "allow-mmap", BP_OPT_FLAG, P(allow_mmap), NULL, NULL, 0, 0, NULL,
	  "let the mmap method map /dev/mem (root) where there is no /dev/gpiomem" },
	{ 0, "force", BP_OPT_FLAG, P(force), NULL, NULL, 0, 0, NULL,
	  "take a line the kernel reports in use" },
	{ 0, "list", BP_OPT_FLAG, P(list), NULL, NULL, 0, 0, NULL,
	  "list the chips and their lines (name, consumer, direction, free or used)" },
	{ 'i', "interval", BP_OPT_DURATION, P(interval_ns), "S", "1", 0, 3600, NULL,
	  "seconds between interval lines (0: none)" },
	{ 0, "root", BP_OPT_STRING, P(root), "DIR", "/", 0, 0, NULL,
	  "read /sys and /dev under DIR (a fixture tree)" },
	BP_OPT_END,
};

/* An offset must be all digits; anything else that starts with a letter may be a name. */
static int check_line_arg(const char *opt, const char *arg, char *err, size_t errlen)
{
	bool digits = arg[0] >= '0' && arg[0] <= '9';

	if (!bp_gpio_line_arg_valid(arg) ||
	    (digits && strspn(arg, "0123456789") != strlen(arg))) {
		snprintf(err, errlen, "%s '%s': expected a line offset (0, 1, ...) or a line name "
			 "(GPIO14)", opt, arg);
		return -EINVAL;
	}
	return 0;
}

static int gpio_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	const struct gpio_params *p = params;
	int rc = bp_check_no_positional(parsed, err, errlen);

	if (!rc)
		rc = bp_check_dir("--root", p->root, err, errlen);
	if (rc)
		return rc;
	if (p->list) {
		if (p->line || p->loop_to || p->readback) {
			snprintf(err, errlen, "--list takes no --line, --loop-to or --readback");
			return -EINVAL;
		}
		return 0;
	}
	if (!p->line) {
		snprintf(err, errlen, "--line N is required (or --list to see the lines)");
		return -EINVAL;
	}
	rc = check_line_arg("--line", p->line, err, errlen);
	if (!rc && p->loop_to)
		rc = check_line_arg("--loop-to", p->loop_to, err, errlen);
	if (!rc && p->loop_to && !strcmp(p->loop_to, p->line)) {
		snprintf(err, errlen, "--loop-to %s: the same line as --line; the jumper goes to "
			 "another line", p->loop_to);
		rc = -EINVAL;
	}
	return rc;
}

/* Fail with the contract's code (kept by the CLI) and the message. */
static int fail(struct bp_result *r, const char *code, int rc, const char *msg, char *err,
		size_t errlen)
{
	if (msg != err)
		snprintf(err, errlen, "%s", msg);
	bp_result_set_error(r, code, "%s", err);
	return rc;
}

static int run_list(const struct gpio_params *p, const struct bp_gpio_chips *chips,
		    struct bp_result *r, char *err, size_t errlen)
{
	bool v1 = false;
	json_t *list;

	free(r->test);
	r->test = strdup("gpio-list");
	/* only what a listing takes */
	bp_result_set_params(r, json_pack("{s:s?, s:s}", "chip", p->chip, "root", p->root));
	list = bp_gpio_list_json(p->root, chips, &v1);
	if (!list || !r->test)
		return fail(r, "io", -ENOMEM, "out of memory", err, errlen);
	bp_result_set_chips(r, list);
	if (v1)
		bp_result_add_warning(r, "uapi-v1", "this kernel has only the GPIO uAPI v1 "
				      "(before Linux 5.10)");
	if (bp_gpio_chips_require(chips, err, errlen))
		return fail(r, "no-gpio", -ENODEV, err, err, errlen);
	return 0;
}

/* The chosen chip and line, and what the kernel said of the line before we took it. */
struct pick {
	const struct bp_gpio_chip *chip;
	unsigned line, loop_line;
	struct bp_gpio_line_info info;
};

/* The chip --chip names, else the first chip that has line --line. */
static int pick_chip(const struct gpio_params *p, const struct bp_gpio_chips *chips,
		     struct pick *pk, char *err, size_t errlen)
{
	int rc = -ERANGE;

	if (p->chip) {
		pk->chip = bp_gpio_chip_find(chips, p->chip, err, errlen);
		return pk->chip ? 0 : -ENODEV;
	}
	for (int i = 0; i < chips->n && !pk->chip; i++) {
		struct bp_gpio_line_info *lines = NULL;
		bool v1 = false;
		unsigned n = chips->v[i].lines;

		if (bp_gpio_lines_read(p->root, &chips->v[i], &lines, &v1))
			n = 0;
		if (!bp_gpio_line_resolve(&chips->v[i], lines, n, p->line, &pk->line, err, errlen))
			pk->chip = &chips->v[i];
		free(lines);
	}
	if (!pk->chip && chips->n > 1)
		snprintf(err + strlen(err), errlen - strlen(err), " (and no other chip has it)");
	return pk->chip ? 0 : rc;
}

static int pick_line(const struct gpio_params *p, const struct bp_gpio_chips *chips,
		     struct pick *pk, char *err, size_t errlen)
{
	struct bp_gpio_line_info *lines = NULL;
	bool v1 = false;
	unsigned n;
	int rc = pick_chip(p, chips, pk, err, errlen);

	if (rc)
		return rc;
	n = bp_gpio_lines_read(p->root, pk->chip, &lines, &v1) ? 0 : pk->chip->lines;
	rc = bp_gpio_line_resolve(pk->chip, lines, n, p->line, &pk->line, err, errlen);
	if (!rc && p->loop_to)
		rc = bp_gpio_line_resolve(pk->chip, lines, n, p->loop_to, &pk->loop_line, err,
					  errlen);
	if (!rc && p->loop_to && pk->loop_line == pk->line) {
		snprintf(err, errlen, "--loop-to %s: that is line %u itself", p->loop_to, pk->line);
		rc = -EINVAL;
	}
	if (!rc && n)
		pk->info = lines[pk->line];
	else
		pk->info = (struct bp_gpio_line_info){ .line = pk->line };
	free(lines);
	return rc;
}

static void record_params(struct bp_result *r, const struct gpio_params *p,
			  const struct pick *pk, const struct bp_gpio_method *const *methods)
{
	json_t *o = r->params, *names = json_array();

	if (!json_is_object(o))
		return;
	for (int i = 0; methods[i]; i++) {
		json_array_append_new(names, json_string(methods[i]->name));
		if (!strcmp(methods[i]->name, "mmap")) {
			/* the SoC whose registers mmap writes: the device tree's, null if unknown */
			struct bp_gpio_soc soc;
			char e[256];

			json_object_set_new(o, "mmap.soc", bp_gpio_soc_detect(p->root, &soc, e,
					    sizeof(e)) ? json_null() : json_string(soc.compatible));
		}
	}
	json_object_set_new(o, "chip", json_string(pk->chip->name));
	json_object_set_new(o, "chip_label", json_string(pk->chip->label));
	json_object_set_new(o, "chip_lines", json_integer(pk->chip->lines));
	json_object_set_new(o, "line", json_integer(pk->line));
	json_object_set_new(o, "line_name", pk->info.name[0] ? json_string(pk->info.name) :
			    json_null());
	json_object_set_new(o, "consumer_before", pk->info.used && pk->info.consumer[0] ?
			    json_string(pk->info.consumer) : json_null());
	json_object_set_new(o, "methods", names);
	json_object_set_new(o, "loop_to", p->loop_to ? json_integer(pk->loop_line) : json_null());
	json_object_set_new(o, "allow_mmap", json_boolean(p->allow_mmap));
	json_object_del(o, "loop-to");
	json_object_del(o, "allow-mmap");
	json_object_del(o, "method");
	json_object_del(o, "list");
}

/* Interval lines: each method's periods per second as its loop runs. */
struct interval_ctx {
	struct bp_result *r;
	struct bp_live *live;
	const char *method;
	uint64_t t0;  /* the command's start */
};

static void on_interval(void *arg, uint64_t start_ns, uint64_t end_ns, uint64_t pairs)
{
	struct interval_ctx *c = arg;
	struct bp_interval *iv;
	char name[64];

	iv = bp_result_add_interval(c->r, (double)(start_ns - c->t0) / 1e9,
				    (double)(end_ns - c->t0) / 1e9);
	if (!iv || end_ns <= start_ns)
		return;
	snprintf(name, sizeof(name), "%s.periods.rate", c->method);
	bp_interval_add_metric(iv, name, (double)pairs * 1e9 / (double)(end_ns - start_ns), "Hz",
			       BP_BETTER_HIGHER);
	bp_live_interval(c->live, c->r, iv);
}

/* The methods to run: the one named, or all this build has. */
static int methods_for(int choice, const struct bp_gpio_method **out, char *err,
		       size_t errlen)
{
	int n = 0;

	if (choice == METHOD_ALL) {
		for (int i = 0; bp_gpio_methods[i]; i++)
			out[n++] = bp_gpio_methods[i];
	} else {
		out[n] = bp_gpio_method_find(method_names[choice]);
		if (!out[n]) {
			snprintf(err, errlen, "--method %s: this build of boardperf has no %s "
				 "method", method_names[choice], method_names[choice]);
			return -EOPNOTSUPP;
		}
		n++;
	}
	out[n] = NULL;
	return 0;
}

/* The loop's own cost: a volatile store in place of the write, a short run first. */
static int run_baseline(struct bp_result *r, const struct gpio_params *p,
			struct bp_gpio_loop_cfg *cfg)
{
	struct bp_gpio_loop_cfg base = *cfg;
	struct bp_gpio_loop_result res = { 0 };

	cfg->clock_ns = bp_gpio_clock_cost_ns();
	base.clock_ns = cfg->clock_ns;
	base.time_ns = p->time_ns < 200000000u ? p->time_ns : 200000000u;
	base.readback = 0;
	base.interval_ns = 0;
	base.on_interval = NULL;
	bp_gpio_loop_run(&bp_gpio_loop_baseline, bp_gpio_loop_baseline_line(), &base, &res);
	return bp_gpio_report_baseline(r, &res, cfg->clock_ns) ? -ENOMEM :
	       res.writes ? 0 : -EINTR;
}

struct gpio_job {
	const struct gpio_params *p;
	const struct bp_gpio_target *t;
	const struct pick *pk;
	struct interval_ctx ic;
	struct bp_gpio_report_opts ro;
	bool all;
};

static void method_param(struct bp_result *r, const char *method, const char *what,
			 json_t *v)
{
	char key[64];

	snprintf(key, sizeof(key), "%s.%s", method, what);
	if (json_is_object(r->params))
		json_object_set_new(r->params, key, v);
	else
		json_decref(v);
}

/* One method's turn; 0 when it ran or (--method all) when the board lacks it. */
static int run_one(struct gpio_job *j, const struct bp_gpio_method *m,
		   const struct bp_gpio_loop_cfg *lc, struct bp_result *r, char *err,
		   size_t errlen)
{
	struct bp_gpio_run_cfg cfg = { .target = j->t, .loop = *lc, .loop_to = j->p->loop_to,
				       .loop_line = j->pk->loop_line };
	struct bp_gpio_method_run mr;
	int rc;

	if (bp_gpio_method_run_init(&mr, m))
		return fail(r, "io", -ENOMEM, "out of memory", err, errlen);
	j->ic.method = m->name;
	cfg.loop.on_interval = on_interval;
	cfg.loop.arg = &j->ic;
	rc = bp_gpio_method_run(&cfg, &mr);
	if (rc && j->all && strcmp(mr.code, "line-busy") && strcmp(mr.code, "permission")) {
		/* a method this board lacks is listed with its reason */
		method_param(r, m->name, "path", json_null());
		method_param(r, m->name, "unavailable", json_string(mr.reason));
		rc = 0;
	} else if (rc) {
		rc = fail(r, mr.code, rc, mr.reason, err, errlen);
	} else {
		method_param(r, m->name, "path", json_string(mr.path));
		rc = bp_gpio_report_method(r, &mr, &j->ro) ? -ENOMEM : 0;
		if (!rc && mr.loop.error)
			rc = fail(r, "io", mr.loop.error, mr.reason, err, errlen);
	}
	bp_gpio_method_run_free(&mr);
	return rc;
}

static int run_methods(const struct gpio_params *p, const struct pick *pk,
		       const struct bp_test_ctx *ctx, struct bp_result *r, char *err,
		       size_t errlen)
{
	const struct bp_gpio_method *methods[8];
	struct bp_gpio_target t = {
		.chip_path = pk->chip->path, .chip_name = pk->chip->name,
		.chip_label = pk->chip->label, .chip_lines = pk->chip->lines, .line = pk->line,
		.sysfs_base = pk->chip->sysfs_base, .root = p->root, .allow_mmap = p->allow_mmap,
		.force = p->force,
	};
	struct bp_gpio_loop_cfg lc = { .time_ns = p->time_ns, .readback = (unsigned)p->readback,
				       .interval_ns = p->interval_ns };
	struct gpio_job j = { .p = p, .t = &t, .pk = pk, .all = p->method == METHOD_ALL,
			      .ic = { .r = r, .live = ctx->live, .t0 = bp_now_ns() },
			      .ro = { .readback = p->readback > 0, .loop_to = p->loop_to,
				      .loop_line = pk->loop_line } };
	int rc = methods_for(p->method, methods, err, errlen);

	if (rc)
		return fail(r, "unsupported", rc, err, err, errlen);
	record_params(r, p, pk, methods);
	rc = run_baseline(r, p, &lc);
	j.ro.loop_write_ns = r->nmetrics ? r->metrics[r->nmetrics - 1].value : 0;
	for (int i = 0; !rc && methods[i] && !bp_stop_requested(); i++)
		rc = run_one(&j, methods[i], &lc, r, err, errlen);
	if (!rc && bp_stop_requested()) {
		snprintf(err, errlen, "stopped by signal %d; the line was restored",
			 bp_stop_signal());
		rc = -EINTR;
	}
	return rc;
}

static int gpio_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		    char *err, size_t errlen)
{
	const struct gpio_params *p = params;
	struct bp_gpio_chips chips;
	struct pick pk = { 0 };
	int rc = bp_gpio_chips_read(p->root, &chips);

	if (rc)
		return fail(r, "io", rc, "reading the GPIO chips: out of memory", err, errlen);
	if (p->list) {
		rc = run_list(p, &chips, r, err, errlen);
	} else if (bp_gpio_chips_require(&chips, err, errlen)) {
		rc = fail(r, "no-gpio", -ENODEV, err, err, errlen);
	} else {
		rc = pick_line(p, &chips, &pk, err, errlen);
		/* A --chip or --line that names nothing here is the user's to fix, not the
		 * machine's: codes of their own, so a script can tell a typo from a failure. */
		if (rc)
			rc = fail(r, rc == -ENODEV ? "no-such-chip" :
				     rc == -ERANGE || rc == -ENOENT || rc == -EINVAL ? "no-such-line" :
				     bp_gpio_errno_code(rc), rc, err, err, errlen);
		else
			rc = run_methods(p, &pk, ctx, r, err, errlen);
	}
	bp_gpio_chips_free(&chips);
	return rc;
}

const struct bp_test bp_cmd_gpio = {
	.name = "gpio",
	.summary = "GPIO toggle rate by each access path (chardev, sysfs, mmap), verified",
	.synopsis = "[--chip CHIP] --line N [--method chardev|sysfs|mmap|all] [-t S] "
		    "[--readback[=N]] [--loop-to M] [--allow-mmap] [--force] | --list",
	.opts = gpio_opts,
	.params_size = sizeof(struct gpio_params),
	.check = gpio_check,
	.run = gpio_run,
	.kind = &bp_kind_gpio,
};
