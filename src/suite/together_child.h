/*
 * One test of `together` in a process of its own: forked from this one (which runs no
 * thread of its own then), it sets its test up, says it is ready on a pipe every child
 * shares, and waits for the common start: the parent closes the start pipe's write end
 * once every child is ready, so all of them wake at one moment. It then runs the test
 * with a JSON Lines sink (result/live.h) on a pipe to the parent, which reads each line as
 * it comes and notes when it came: an interval line arrives as its interval ends, so its
 * arrival less its "end" is when the test's own clock started, measured from the common
 * start. The last line is the whole result document.
 */
#ifndef BP_SUITE_TOGETHER_CHILD_H
#define BP_SUITE_TOGETHER_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "core/test.h"
#include "suite/together_args.h"

struct bp_together_child {
	pid_t pid;           /* 0: not started (or reaped) */
	int out_fd;          /* the read end of its JSON Lines; -1 once at its end */
	bool ready;
	char *line;          /* a line not complete yet (malloc'd) */
	size_t len, cap;
	/* when its clock started, seconds after the common start (has_start) */
	double start_s;
	bool has_start;
	json_t *doc;         /* the "end" event's document, NULL until it came */
	int wait_status;     /* as waitpid gave it, once reaped */
	bool killed;         /* this process stopped it: it ran past its bound */
};

/* The pipes every child of one phase shares: "ready" bytes up, the start by EOF down. */
struct bp_together_gate {
	int ready[2];
	int start[2];
};

/* Both pipes, or -errno with err. */
int bp_together_gate_open(struct bp_together_gate *g, char *err, size_t errlen);
/* The common start: the start pipe's write end closed. Its time (bp_now_ns) returned. */
uint64_t bp_together_gate_release(struct bp_together_gate *g);
void bp_together_gate_close(struct bp_together_gate *g);

/*
 * Fork a child that runs in (parsed already) as test label with ctx's lookup and binary.
 * others[0..nothers) are fds the child must not keep (earlier children's pipes). 0 or
 * -errno with err.
 */
int bp_together_child_start(struct bp_together_child *c, const struct bp_inner *in,
			    const char *label, const struct bp_test_ctx *ctx,
			    const struct bp_together_gate *g, const int *others, size_t nothers,
			    char *err, size_t errlen);

/*
 * Wait until every child said it is ready (true), or one ended first, or deadline_ns
 * passed (false: the phase cannot start together).
 */
bool bp_together_await_ready(struct bp_together_child *cs, size_t n,
			     const struct bp_together_gate *g, uint64_t deadline_ns);

/*
 * Read every child's lines until all ended, t0_ns being the common start; at deadline_ns
 * those still running get SIGTERM (they stop and print what they measured), 5 s later
 * SIGKILL. Then each is reaped.
 */
void bp_together_collect(struct bp_together_child *cs, size_t n, uint64_t t0_ns,
			 uint64_t deadline_ns);

/* Stop (SIGKILL) and reap a child that is still there; free what it holds. */
void bp_together_child_release(struct bp_together_child *c);

/* "exited with status 3" / "killed by signal 9" for a child that left no document. */
void bp_together_child_why(const struct bp_together_child *c, char *buf, size_t len);

#endif
