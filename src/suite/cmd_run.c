/*
 * `boardperf run`: the quick suite on this machine. Each test it runs becomes a child
 * result; the suite's own result carries the environment once for all of them (the text
 * form leaves the inventory to `boardperf info`).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "board/env.h"
#include "core/checks.h"
#include "core/cpuacct.h"
#include "core/side_cpu.h"
#include "core/signals.h"
#include "core/test.h"
#include "http/http_server.h"
#include "result/result.h"
#include "suite/local_server.h"
#include "suite/suite.h"

struct run_params {
	int suite;
	const char *dir;
	const char *gpio;
};

static const char *const suite_names[] = { "quick", "full", NULL };

static const struct bp_opt run_opts[] = {
	{ 0, "suite", BP_OPT_CHOICE, offsetof(struct run_params, suite), "NAME", "quick", 0, 0,
	  suite_names, "which set of tests to run" },
	{ 'd', "dir", BP_OPT_STRING, offsetof(struct run_params, dir), "PATH", NULL, 0, 0, NULL,
	  "describe and test the storage behind PATH [default for the test: /var/tmp]" },
	{ 0, "gpio", BP_OPT_STRING, offsetof(struct run_params, gpio), "CHIP:LINE", NULL, 0, 0,
	  NULL, "add a gpio step: toggle that line (chardev, 1 s, read back), e.g. gpiochip0:17" },
	BP_OPT_END,
};

/*
 * "gpiochip0:17" into its chip and line (the last ':' splits: a line name has none).
 * 0, or -EINVAL when either part is empty or the line is neither an offset nor a name.
 */
static int split_gpio(const char *arg, char *chip, size_t len, const char **line)
{
	const char *colon = strrchr(arg, ':');

	if (!colon || colon == arg || !colon[1] || colon[1] == '-' ||
	    (colon[1] >= '0' && colon[1] <= '9' &&
	     strspn(colon + 1, "0123456789") != strlen(colon + 1)))
		return -EINVAL;
	if (chip)
		snprintf(chip, len, "%.*s", (int)(colon - arg), arg);
	if (line)
		*line = colon + 1;
	return 0;
}

/* The gpio step: what `boardperf gpio --chip CHIP --line LINE -t 1 --readback` does. */
static int run_gpio_step(struct bp_result *r, const char *gpio, const struct bp_test_ctx *ctx,
			 char *err, size_t errlen)
{
	char chip[128];
	const char *line = NULL;
	const char *argv[] = { "gpio", "--chip", chip, "--line", NULL, "-t", "1", "--readback",
			       "-i", "0", NULL };

	if (split_gpio(gpio, chip, sizeof(chip), &line))
		return -EINVAL;
	argv[4] = line;
	return bp_suite_run_child(r, argv, ctx, err, errlen);
}

static int run_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	const struct run_params *p = params;
	int rc = bp_check_no_positional(parsed, err, errlen);

	if (!rc)
		rc = bp_check_dir("--dir", p->dir, err, errlen);
	if (!rc && p->gpio && split_gpio(p->gpio, NULL, 0, NULL)) {
		snprintf(err, errlen, "--gpio '%s': expected CHIP:LINE (gpiochip0:17)", p->gpio);
		rc = -EINVAL;
	}
	return rc;
}

/*
 * The suites as command lines, each what a user could type alone. Quick: about half a
 * minute on a small board; full: every item at each command's own defaults.
 */
static const char *const quick_cpu[] = {
	"cpu", "--algo", "rsa2048,sha256,aes-128-gcm", "--sizes", "16,8192", "-t", "0.3",
	"--threads", "all", NULL,
};
static const char *const quick_mem[] = { "mem", "-t", "0.25", NULL };
/* Loopback TCP against a server in this process; "PORT" becomes the port it listens on. */
static const char *const quick_tcp[] = {
	"tcp", "-c", "127.0.0.1", "-p", "PORT", "-t", "2", "-P", "2", NULL,
};
static const char *const full_cpu[] = { "cpu", "--full", "--threads", "all", NULL };
static const char *const full_mem[] = { "mem", NULL };

/*
 * Small datagrams, unpaced, over loopback: datagrams per second through this machine's UDP
 * stack with sender and receiver on its own CPUs (one packet each: no GSO on loopback), not
 * the packet rate of a NIC, which loopback does not have.
 */
static const char *const quick_udp[] = {
	"udp", "-c", "127.0.0.1", "-p", "PORT", "-t", "1", "-b", "0", "-l", "64", NULL,
};
static const char *const full_tcp[] = {
	"tcp", "-c", "127.0.0.1", "-p", "PORT", "-t", "10", "-P", "4", NULL,
};

static const char *const full_udp[] = {
	"udp", "-c", "127.0.0.1", "-p", "PORT", "-t", "5", "-b", "0", "-l", "64", NULL,
};

/* Round trips on one connection, and new connections per second, over loopback. */
static const char *const quick_rr[] = {
	"rr", "-c", "127.0.0.1", "-p", "PORT", "-t", "1", "-l", "64", NULL,
};
static const char *const quick_crr[] = {
	"crr", "-c", "127.0.0.1", "-p", "PORT", "-t", "1", "-P", "4", NULL,
};
static const char *const full_rr[] = {
	"rr", "-c", "127.0.0.1", "-p", "PORT", "-t", "10", "-P", "2", "-l", "64", NULL,
};
static const char *const full_crr[] = {
	"crr", "-c", "127.0.0.1", "-p", "PORT", "-t", "10", "-P", "8", NULL,
};

/* HTTP requests against the built-in responder ("HTTP:/1k": its URL with that path). */
static const char *const quick_http[] = {
	"http", "HTTP:/1k", "-t", "1", "-c", "8", "-i", "0", NULL,
};
static const char *const full_http[] = {
	"http", "HTTP:/1k", "-t", "10", "-c", "32", NULL,
};

/*
 * sysbench's rndrw with its defaults but a small set, in a folder of its own under "DIR":
 * --dir, else /var/tmp (meant to be on disk, where /tmp is often a tmpfs, i.e. RAM).
 */
static const char *const quick_disk[] = {
	"disk", "--dir", "DIR", "--size", "32M", "-t", "1", "-i", "0", NULL,
};
static const char *const full_disk[] = { "disk", "--dir", "DIR", NULL };

static const char *const *const quick_suite[] = {
	quick_cpu, quick_mem, quick_disk, quick_tcp, quick_udp, quick_rr, quick_crr, quick_http,
	NULL,
};
static const char *const *const full_suite[] = {
	full_cpu, full_mem, full_disk, full_tcp, full_udp, full_rr, full_crr, full_http, NULL,
};

#define MAX_ARGS 24

/*
 * Client and server of a network test shared this process: each side's "cpu" figure is its
 * own threads' (core/side_cpu.h); "process" is the whole process over the child, both sides
 * and the set-up, so that a reader sees that local + remote is what the machine spent (http:
 * local and the in-process responder, which reports no CPU of its own).
 */
static void add_process_cpu(struct bp_result *child, const struct bp_cpu_times *c0)
{
	struct bp_cpu_times c1;
	struct bp_cpu_usage u;

	if (!json_is_object(child->cpu) || bp_cpu_process_times(&c1))
		return;
	bp_cpu_usage_between(c0, &c1, &u);
	json_object_set_new(child->cpu, "process", bp_cpu_usage_json(&u));
}

/*
 * The HTTP responder's threads take the local server's name (core/side_cpu.h), as the
 * stream server's do: a thread is named after its creator, so this thread carries that name
 * while it starts them, and http's cpu.local is then its client's threads alone.
 */
static struct bp_http_server *start_http_responder(const struct bp_http_server_opts *o,
						   char *err, size_t errlen)
{
	char name[16] = "";
	struct bp_http_server *hs;
	bool named = !pthread_getname_np(pthread_self(), name, sizeof(name)) &&
		     !pthread_setname_np(pthread_self(), BP_THREAD_NAME_LOCAL_SERVER);

	hs = bp_http_server_start(o, err, errlen);
	if (named)
		pthread_setname_np(pthread_self(), name);
	return hs;
}

/*
 * A child that talks to "PORT" gets a server in this process and its port in the argv;
 * "HTTP:/path" an HTTP responder in this process and its URL; "DIR" becomes the directory
 * the disk step writes in.
 */
static int run_child(struct bp_result *r, const char *const *argv, const char *dir,
		     const struct bp_test_ctx *ctx, char *err, size_t errlen)
{
	const char *args[MAX_ARGS];
	struct bp_local_server *ls = NULL;
	struct bp_http_server *hs = NULL;
	struct bp_http_server_opts ho = { .bind = "127.0.0.1", .port = 0 };
	char port[16], url[128];
	struct bp_cpu_times c0;
	int i, rc;

	for (i = 0; argv[i] && i < MAX_ARGS - 1; i++) {
		args[i] = strcmp(argv[i], "DIR") ? argv[i] : dir;
		if (!strncmp(argv[i], "HTTP:", 5)) {
			hs = hs ? hs : start_http_responder(&ho, err, errlen);
			if (!hs) {
				bp_result_add_warning(r, "child-failed", "%s: %s", argv[0], err);
				return -EIO;
			}
			snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", bp_http_server_port(hs),
				 argv[i] + 5);
			args[i] = url;
		}
		if (strcmp(argv[i], "PORT"))
			continue;
		if (!ls)
			ls = bp_local_server_start(err, errlen);
		if (!ls) {
			bp_result_add_warning(r, "child-failed", "%s: %s", argv[0], err);
			return -EIO;
		}
		snprintf(port, sizeof(port), "%u", bp_local_server_port(ls));
		args[i] = port;
	}
	args[i] = NULL;
	bp_cpu_process_times(&c0);
	rc = bp_suite_run_child(r, args, ctx, err, errlen);
	if ((ls || hs) && r->nchildren)
		add_process_cpu(r->children[r->nchildren - 1], &c0);
	/* the server's log says why a test failed; otherwise it is not the suite's output */
	bp_local_server_stop(ls, rc != 0);
	bp_http_server_stop(hs);
	return rc;
}

static int run_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct run_params *p = params;
	const char *const *const *suite = p->suite ? full_suite : quick_suite;
	json_t *env = bp_env_snapshot("/", p->dir);
	int failed = 0, total = 0;
	char child_err[512];

	if (!env) {
		snprintf(err, errlen, "could not build the inventory: out of memory");
		return -ENOMEM;
	}
	bp_result_set_env(r, env);
	for (; *suite && !bp_stop_requested(); suite++, total++) {
		child_err[0] = '\0';
		if (run_child(r, *suite, p->dir ? p->dir : "/var/tmp", ctx, child_err,
			      sizeof(child_err)))
			failed++;
	}
	if (p->gpio && !bp_stop_requested()) {
		total++;
		child_err[0] = '\0';
		if (run_gpio_step(r, p->gpio, ctx, child_err, sizeof(child_err)))
			failed++;
	}
	if (failed) {
		snprintf(err, errlen, "%d of %d tests could not measure (see the warnings)",
			 failed, total);
		return -EIO;
	}
	return 0;
}

const struct bp_test bp_cmd_run = {
	.name = "run",
	.summary = "the quick suite on this machine (the default command)",
	.synopsis = "[--suite quick|full] [--dir PATH] [--gpio CHIP:LINE]",
	.opts = run_opts,
	.params_size = sizeof(struct run_params),
	.check = run_check,
	.run = run_run,
	.no_monitor = true,  /* each test it runs has a monitor of its own */
};
