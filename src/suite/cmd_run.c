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
#include "suite/run_peer.h"
#include "suite/suite.h"

struct run_params {
	int suite;
	const char *dir;
	const char *gpio;
	const char *peer;   /* --peer HOST: the network steps against its serve; NULL: loopback */
	int64_t port;       /* its serve's port */
	int64_t http_port;  /* its serve --http port; 0: it serves none (the http step skipped) */
};

static const char *const suite_names[] = { "quick", "full", NULL };

static const struct bp_opt run_opts[] = {
	{ 0, "suite", BP_OPT_CHOICE, offsetof(struct run_params, suite), "NAME", "quick", 0, 0,
	  suite_names, "which set of tests to run" },
	{ 'd', "dir", BP_OPT_STRING, offsetof(struct run_params, dir), "PATH", NULL, 0, 0, NULL,
	  "describe and test the storage behind PATH [default for the test: /var/tmp]" },
	{ 0, "gpio", BP_OPT_STRING, offsetof(struct run_params, gpio), "CHIP:LINE", NULL, 0, 0,
	  NULL, "add a gpio step: toggle that line (chardev, 1 s, read back), e.g. gpiochip0:17" },
	{ 0, "peer", BP_OPT_STRING, offsetof(struct run_params, peer), "HOST", NULL, 0, 0, NULL,
	  "the network steps against `boardperf serve` on HOST (default: this machine, loopback)" },
	{ 'p', "port", BP_OPT_INT, offsetof(struct run_params, port), "PORT", "5201", 1, 65535,
	  NULL, "the peer's serve port" },
	{ 0, "http-port", BP_OPT_INT, offsetof(struct run_params, http_port), "PORT", "0", 0,
	  65535, NULL, "the peer's serve --http port (0: none, the http step is skipped)" },
	BP_OPT_END_WITHOUT(BP_COMMON_REPEAT),
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
	if (!rc)
		rc = bp_check_host("--peer", p->peer, "-p", err, errlen);
	if (!rc && !p->peer && (p->port != 5201 || p->http_port)) {
		snprintf(err, errlen, "%s: the peer's ports need --peer HOST",
			 p->http_port ? "--http-port" : "--port");
		rc = -EINVAL;
	}
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

/*
 * With --peer only: the other direction (the peer sends), latency under load and the
 * interference step (the network while the disk works), whose command lines the suite
 * writes with the peer's address (peer_steps).
 */
static const char *const quick_tcp_down[] = {
	"tcp", "-c", "127.0.0.1", "-p", "PORT", "-t", "2", "-P", "2", "-R", NULL,
};
static const char *const full_tcp_down[] = {
	"tcp", "-c", "127.0.0.1", "-p", "PORT", "-t", "10", "-P", "4", "-R", NULL,
};
static const char *const quick_latency[] = {
	"latency", "-c", "127.0.0.1", "-p", "PORT", "-t", "3", "--idle-time", "1", "-O", "1",
	"-P", "2", NULL,
};
static const char *const full_latency[] = { "latency", "-c", "127.0.0.1", "-p", "PORT", NULL };
/* "TOGETHER": `together "tcp -c PEER -p PORT -t S" "disk --dir DIR ... -t S" --repeat 1` */
static const char *const quick_together[] = { "together", "TOGETHER", "2", NULL };
static const char *const full_together[] = { "together", "TOGETHER", "10", NULL };

static const char *const *const quick_peer_suite[] = {
	quick_tcp_down, quick_latency, quick_together, NULL,
};
static const char *const *const full_peer_suite[] = {
	full_tcp_down, full_latency, full_together, NULL,
};

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

/* Where a suite's steps go: this machine (loopback) or --peer's serve, and the disk's folder. */
struct step_target {
	const struct run_params *p;
	const char *dir;
	char port[16];        /* the peer's port as text */
	char inner[2][512];   /* the interference step's two command lines */
	bool probed;          /* the peer answered the probe */
	bool peer_down;       /* it did not: the network steps are left out */
	char peer_err[512];   /* the probe's one line */
};

static bool is_network_step(const char *const *argv)
{
	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "PORT") || !strncmp(argv[i], "HTTP:", 5) ||
		    !strcmp(argv[i], "TOGETHER"))
			return true;
	return false;
}

/*
 * A network step on loopback measured this machine's own stack, client and server on its
 * CPUs: said in its result, so that the summary and the JSON never pass it off as a network.
 */
static void mark_loopback(struct bp_result *r)
{
	struct bp_result *c = r->nchildren ? r->children[r->nchildren - 1] : NULL;

	/* the client's own (result_this_host.h) is kept: this one only adds who the server was */
	if (c && !bp_result_has_warning(c, "loopback"))
		bp_result_add_warning(c, "loopback", "measured this machine over loopback (client "
				      "and server in this process), not a network: give --peer HOST");
}

/*
 * A step against --peer: "127.0.0.1" becomes the peer, "PORT" its port, "HTTP:/path" its
 * serve --http URL, "TOGETHER" the interference step's two lines (tcp to the peer while the
 * disk works, both S seconds, one round). 1 when the step is to be skipped (no HTTP port).
 */
static int peer_args(struct step_target *tg, const char *const *argv, const char **args,
		     char *url, size_t urllen)
{
	const struct run_params *p = tg->p;
	int i;

	for (i = 0; argv[i] && i < MAX_ARGS - 3; i++) {
		args[i] = argv[i];
		if (!strcmp(argv[i], "127.0.0.1"))
			args[i] = p->peer;
		else if (!strcmp(argv[i], "PORT"))
			args[i] = tg->port;
		else if (!strcmp(argv[i], "DIR"))
			args[i] = tg->dir;
		else if (!strncmp(argv[i], "HTTP:", 5) && !p->http_port)
			return 1;
		else if (!strncmp(argv[i], "HTTP:", 5)) {
			bool v6 = strchr(p->peer, ':');

			snprintf(url, urllen, "http://%s%s%s:%u%s", v6 ? "[" : "", p->peer,
				 v6 ? "]" : "", (unsigned)p->http_port, argv[i] + 5);
			args[i] = url;
		} else if (!strcmp(argv[i], "TOGETHER")) {
			const char *t = argv[++i];

			snprintf(tg->inner[0], sizeof(tg->inner[0]), "tcp -c %s -p %s -t %s",
				 p->peer, tg->port, t);
			snprintf(tg->inner[1], sizeof(tg->inner[1]), "disk --dir %s --size 32M -t %s "
				 "-i 0", tg->dir, t);
			args[i - 1] = tg->inner[0];
			args[i] = tg->inner[1];
			args[++i] = "--repeat";
			args[++i] = "1";
			args[i + 1] = NULL;
			return 0;
		}
	}
	args[i] = NULL;
	return 0;
}

static int run_peer_child(struct bp_result *r, const char *const *argv,
			  struct step_target *tg, const struct bp_test_ctx *ctx, char *err,
			  size_t errlen)
{
	const char *args[MAX_ARGS];
	char url[600];

	if (peer_args(tg, argv, args, url, sizeof(url))) {
		bp_result_add_warning(r, "skipped", "%s: the peer serves no HTTP (start it with "
				      "`boardperf serve --http PORT` and give run --http-port PORT)",
				      argv[0]);
		return 0;
	}
	return bp_suite_run_child(r, args, ctx, err, errlen);
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
	if (ls || hs)
		mark_loopback(r);
	/* the server's log says why a test failed; otherwise it is not the suite's output */
	bp_local_server_stop(ls, rc != 0);
	bp_http_server_stop(hs);
	return rc;
}

/*
 * One step. With --peer, the first network step probes the peer first: unreachable, every
 * network step is left out (one line naming the peer), the local steps' results kept.
 */
static int run_step(struct bp_result *r, const char *const *argv, struct step_target *tg,
		    const struct bp_test_ctx *ctx, char *err, size_t errlen)
{
	if (!tg->p->peer || !is_network_step(argv))
		return run_child(r, argv, tg->dir, ctx, err, errlen);
	if (tg->peer_down)
		return 0;
	if (!tg->probed) {
		int rc = bp_run_peer_probe(tg->p->peer, (unsigned)tg->p->port, tg->peer_err,
					   sizeof(tg->peer_err));

		if (rc) {
			tg->peer_down = true;
			return rc;
		}
		tg->probed = true;
	}
	return run_peer_child(r, argv, tg, ctx, err, errlen);
}

static int run_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct run_params *p = params;
	const char *const *const *steps[2] = { p->suite ? full_suite : quick_suite,
					       p->suite ? full_peer_suite : quick_peer_suite };
	json_t *env = bp_env_snapshot("/", p->dir);
	struct step_target tg = { .p = p, .dir = p->dir ? p->dir : "/var/tmp" };
	int failed = 0, total = 0;
	char child_err[512];

	if (!env) {
		snprintf(err, errlen, "could not build the inventory: out of memory");
		return -ENOMEM;
	}
	snprintf(tg.port, sizeof(tg.port), "%u", (unsigned)p->port);
	/* the snapshot with --dir's storage replaces the CLI's; --start-at's record stays */
	if (r->env && json_object_get(r->env, "start"))
		json_object_set(env, "start", json_object_get(r->env, "start"));
	bp_result_set_env(r, env);
	for (int pass = 0; pass < (p->peer ? 2 : 1); pass++)
		for (const char *const *const *s = steps[pass]; *s && !bp_stop_requested(); s++) {
			child_err[0] = '\0';
			total++;
			if (run_step(r, *s, &tg, ctx, child_err, sizeof(child_err)))
				failed++;
		}
	if (p->gpio && !bp_stop_requested()) {
		total++;
		child_err[0] = '\0';
		if (run_gpio_step(r, p->gpio, ctx, child_err, sizeof(child_err)))
			failed++;
	}
	if (tg.peer_down) {
		bp_result_add_warning(r, "peer-unreachable", "%s", tg.peer_err);
		snprintf(err, errlen, "%s; the network steps were not run", tg.peer_err);
		return -EHOSTUNREACH;
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
	.synopsis = "[--suite quick|full] [--dir PATH] [--gpio CHIP:LINE] "
		    "[--peer HOST [-p PORT] [--http-port PORT]]",
	.opts = run_opts,
	.params_size = sizeof(struct run_params),
	.check = run_check,
	.run = run_run,
	.no_monitor = true,  /* each test it runs has a monitor of its own */
};
