#include "suite/together_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board/monitor_result.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/starve.h"
#include "result/live.h"
#include "result/result.h"
#include "result/result_starve.h"

/* A document far beyond any test's (a long tcp -P 128 run is a few MiB) is refused. */
#define LINE_MAX_BYTES (64u << 20)
/* How long a child that ran past its bound has after SIGTERM to print what it has. */
#define TERM_GRACE_NS (5 * BP_NS_PER_SEC)

int bp_together_gate_open(struct bp_together_gate *g, char *err, size_t errlen)
{
	g->ready[0] = g->ready[1] = g->start[0] = g->start[1] = -1;
	if (pipe2(g->ready, O_CLOEXEC) || pipe2(g->start, O_CLOEXEC)) {
		int rc = -errno;

		snprintf(err, errlen, "together: pipe: %s", strerror(errno));
		bp_together_gate_close(g);
		return rc;
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

uint64_t bp_together_gate_release(struct bp_together_gate *g)
{
	uint64_t t0 = bp_now_ns();

	close_fd(&g->start[1]);
	return t0;
}

void bp_together_gate_close(struct bp_together_gate *g)
{
	close_fd(&g->ready[0]);
	close_fd(&g->ready[1]);
	close_fd(&g->start[0]);
	close_fd(&g->start[1]);
}

/* The child's ends of the gate; -1 once passed. */
struct gate_ends {
	int ready_fd, start_fd;
};

/* In the child: ready, then block until the parent closes the start pipe (EOF). */
static void pass_gate(void *arg)
{
	struct gate_ends *g = arg;
	char b = 'r';
	ssize_t n;

	if (g->ready_fd < 0)
		return;
	while (write(g->ready_fd, &b, 1) < 0 && errno == EINTR)
		;
	close(g->ready_fd);
	g->ready_fd = -1;
	/* EOF is the start; a signal (the user's Ctrl-C) starts it too, and the test stops */
	do
		n = read(g->start_fd, &b, 1);
	while (n > 0);
	close(g->start_fd);
	g->start_fd = -1;
}

/* The child's whole life; never returns. */
static void child_main(const struct bp_inner *in, const char *label,
		       const struct bp_test_ctx *ctx, int ready_fd, int start_fd, int out_fd)
{
	struct bp_test_ctx cctx = *ctx;
	struct gate_ends gate = { ready_fd, start_fd };
	struct bp_result *r = bp_result_new(in->t->name);
	FILE *out = fdopen(out_fd, "w");
	struct bp_live *live = out ? bp_live_new(out, BP_LIVE_JSON_STREAM) : NULL;
	struct bp_monitor *mon;
	struct bp_starve_snap s0;
	struct bp_starve_figures starved;
	char prefix[64], err[512] = "";
	int rc;

	snprintf(prefix, sizeof(prefix), "boardperf together: %s (%s)", label, in->t->name);
	bp_log_set_prefix(prefix);
	if (!r || !live)
		_exit(1);
	cctx.common = &in->common;
	cctx.parsed = &in->parsed;
	cctx.live = live;
	bp_result_set_params(r, bp_opts_to_json(in->t->opts, in->params));
	bp_live_start(live, r);
	/* a test that sets itself up first passes the gate from its run (core/test.h) */
	if (in->t->ready_after_setup) {
		cctx.ready = pass_gate;
		cctx.ready_arg = &gate;
	} else {
		pass_gate(&gate);
	}
	/* each test's own monitor, as run's children have (the suite's --no-monitor and
	 * --busy-warn); together itself runs none (cmd_together.c says why) */
	mon = in->t->no_monitor ? NULL : bp_monitor_begin(r, ctx->common);
	bp_starve_snap_take(&s0);
	rc = in->t->run(in->params, &cctx, r, err, sizeof(err));
	/* one that failed before it was ready: the others are waiting for it */
	pass_gate(&gate);
	bp_starve_since(&s0, &starved);
	bp_result_add_starvation(r, &starved);
	bp_monitor_end(mon, r, ctx->common);
	if (rc && !r->error.code)
		bp_result_set_error(r, bp_error_code(rc), "%s", err[0] ? err : strerror(-rc));
	rc = bp_live_finish(live, r) || fflush(out) ? 1 : rc ? 1 : 0;
	/* _exit: no atexit handler and no stdio buffer of the parent's runs a second time */
	_exit(rc);
}

int bp_together_child_start(struct bp_together_child *c, const struct bp_inner *in,
			    const char *label, const struct bp_test_ctx *ctx,
			    const struct bp_together_gate *g, const int *others, size_t nothers,
			    char *err, size_t errlen)
{
	int out[2];
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->out_fd = -1;
	if (pipe2(out, O_CLOEXEC)) {
		snprintf(err, errlen, "together: pipe: %s", strerror(errno));
		return -errno;
	}
	/* nothing buffered in this process's stdio may be written twice, once by the child */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int rc = -errno;

		snprintf(err, errlen, "together: fork: %s", strerror(errno));
		close(out[0]);
		close(out[1]);
		return rc;
	}
	if (!pid) {
		/* ends with this process (a test left running alone measures nothing useful) */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		close(out[0]);
		close(g->ready[0]);
		close(g->start[1]);
		for (size_t i = 0; i < nothers; i++)
			if (others[i] >= 0)
				close(others[i]);
		child_main(in, label, ctx, g->ready[1], g->start[0], out[1]);
	}
	close(out[1]);
	c->pid = pid;
	c->out_fd = out[0];
	return 0;
}

/* A child that ended before it was ready: reaped here, true. */
static bool any_ended(struct bp_together_child *cs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cs[i].pid > 0 && waitpid(cs[i].pid, &cs[i].wait_status, WNOHANG) == cs[i].pid) {
			cs[i].pid = 0;
			return true;
		}
	return false;
}

bool bp_together_await_ready(struct bp_together_child *cs, size_t n,
			     const struct bp_together_gate *g, uint64_t deadline_ns)
{
	size_t ready = 0;

	while (ready < n) {
		uint64_t now = bp_now_ns();
		struct pollfd p = { .fd = g->ready[0], .events = POLLIN };
		char buf[BP_TOGETHER_MAX];
		ssize_t got;

		if (now >= deadline_ns || any_ended(cs, n))
			return false;
		/* a tenth of a second at most, so a child that died is seen */
		if (poll(&p, 1, 100) <= 0)
			continue;
		got = read(g->ready[0], buf, n - ready);
		if (got <= 0)
			return false;
		ready += (size_t)got;
	}
	for (size_t i = 0; i < n; i++)
		cs[i].ready = true;
	return true;
}

/* One complete line of a child's JSON Lines, arrived at now_s after the common start. */
static void take_line(struct bp_together_child *c, const char *line, size_t len, double now_s)
{
	json_t *j = json_loadb(line, len, 0, NULL);
	const char *event = json_string_value(json_object_get(j, "event"));
	json_t *data = json_object_get(j, "data");

	if (event && !strcmp(event, "interval") && json_is_number(json_object_get(data, "end"))) {
		/* a line comes at its interval's end or later: the earliest estimate is best */
		double start = now_s - json_number_value(json_object_get(data, "end"));

		if (!c->has_start || start < c->start_s)
			c->start_s = start;
		c->has_start = true;
	} else if (event && !strcmp(event, "end") && json_is_object(data)) {
		json_decref(c->doc);
		c->doc = json_incref(data);
	}
	json_decref(j);
}

/* What the pipe has now; false at its end (or when the child's output is unreadable). */
static bool read_lines(struct bp_together_child *c, uint64_t t0_ns)
{
	char buf[65536];
	ssize_t got = read(c->out_fd, buf, sizeof(buf));
	double now_s = (double)(bp_now_ns() - t0_ns) / 1e9;
	size_t at = 0;

	if (got < 0 && errno == EINTR)
		return true;
	if (got <= 0)
		return false;
	while (at < (size_t)got) {
		const char *nl = memchr(buf + at, '\n', (size_t)got - at);
		size_t part = nl ? (size_t)(nl - (buf + at)) : (size_t)got - at;

		if (c->len + part + 1 > c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 65536;
			char *p;

			while (cap < c->len + part + 1)
				cap *= 2;
			p = cap <= LINE_MAX_BYTES ? realloc(c->line, cap) : NULL;
			if (!p)
				return false;
			c->line = p;
			c->cap = cap;
		}
		memcpy(c->line + c->len, buf + at, part);
		c->len += part;
		at += part + (nl ? 1 : 0);
		if (nl) {
			take_line(c, c->line, c->len, now_s);
			c->len = 0;
		}
	}
	return true;
}

static void signal_running(struct bp_together_child *cs, size_t n, int sig)
{
	for (size_t i = 0; i < n; i++)
		if (cs[i].pid > 0 && cs[i].out_fd >= 0) {
			kill(cs[i].pid, sig);
			cs[i].killed = true;
		}
}

void bp_together_collect(struct bp_together_child *cs, size_t n, uint64_t t0_ns,
			 uint64_t deadline_ns)
{
	bool termed = false;

	for (;;) {
		struct pollfd p[BP_TOGETHER_MAX];
		size_t idx[BP_TOGETHER_MAX], np = 0;
		uint64_t now = bp_now_ns(), until;

		for (size_t i = 0; i < n && np < BP_TOGETHER_MAX; i++)
			if (cs[i].out_fd >= 0) {
				p[np] = (struct pollfd){ .fd = cs[i].out_fd, .events = POLLIN };
				idx[np++] = i;
			}
		if (!np)
			break;
		/* Ctrl-C or SIGTERM to this process alone: each test stops and prints what it has */
		if (bp_stop_requested() && !termed) {
			signal_running(cs, n, SIGTERM);
			termed = true;
			deadline_ns = now + TERM_GRACE_NS;
		} else if (now >= deadline_ns && !termed) {
			signal_running(cs, n, SIGTERM);
			termed = true;
			deadline_ns = now + TERM_GRACE_NS;
		} else if (now >= deadline_ns) {
			signal_running(cs, n, SIGKILL);
			deadline_ns = now + TERM_GRACE_NS;
		}
		until = deadline_ns > now ? deadline_ns - now : 0;
		if (poll(p, np, (int)(until / BP_NS_PER_MS) + 1) <= 0)
			continue;
		for (size_t k = 0; k < np; k++) {
			struct bp_together_child *c = &cs[idx[k]];

			if ((p[k].revents & (POLLIN | POLLHUP | POLLERR)) && !read_lines(c, t0_ns))
				close_fd(&c->out_fd);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (cs[i].pid > 0) {
			/* its output ended: it is exiting (or killed above) */
			while (waitpid(cs[i].pid, &cs[i].wait_status, 0) < 0 && errno == EINTR)
				;
			cs[i].pid = 0;
		}
}

void bp_together_child_release(struct bp_together_child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, &c->wait_status, 0) < 0 && errno == EINTR)
			;
		c->pid = 0;
	}
	close_fd(&c->out_fd);
	free(c->line);
	c->line = NULL;
	json_decref(c->doc);
	c->doc = NULL;
}

void bp_together_child_why(const struct bp_together_child *c, char *buf, size_t len)
{
	if (WIFSIGNALED(c->wait_status))
		snprintf(buf, len, "its process was killed by signal %d%s",
			 WTERMSIG(c->wait_status), c->killed ? " (it ran past its time)" : "");
	else
		snprintf(buf, len, "its process exited with status %d and printed no result",
			 WEXITSTATUS(c->wait_status));
}
