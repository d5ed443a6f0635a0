#include "core/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"

static enum bp_log_level log_level = BP_LOG_INFO;
static char log_prefix[64] = "boardperf";
static _Thread_local bp_log_sink_fn thread_sink;
static _Thread_local void *thread_sink_arg;

void bp_log_set_thread_sink(bp_log_sink_fn fn, void *arg)
{
	thread_sink = fn;
	thread_sink_arg = arg;
}

void bp_log_set_level(enum bp_log_level level)
{
	log_level = level;
}

enum bp_log_level bp_log_get_level(void)
{
	return log_level;
}

void bp_log_set_prefix(const char *prefix)
{
	snprintf(log_prefix, sizeof(log_prefix), "%s", prefix);
}

static void emit(enum bp_log_level level, const char *line)
{
	static const char *const tags[] = { "error: ", "warning: ", "", "debug: ", "trace: " };

	if (thread_sink) {
		thread_sink(thread_sink_arg, level, line);
		return;
	}
	/* One fprintf per line so lines from worker threads never interleave mid-line. */
	fprintf(stderr, "%s: %s%s\n", log_prefix, tags[level], line);
}

void bp_log(enum bp_log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	emit(level, line);
}

bool bp_ratelimit_pass(struct bp_ratelimit *rl, uint64_t now_ns, unsigned long *suppressed)
{
	const uint64_t full = BP_RATELIMIT_BURST * BP_RATELIMIT_NS;

	if (!rl->refill_ns || now_ns - rl->refill_ns >= full)
		rl->credit_ns = full;
	else if (now_ns > rl->refill_ns)
		rl->credit_ns = rl->credit_ns + (now_ns - rl->refill_ns) > full ?
				full : rl->credit_ns + (now_ns - rl->refill_ns);
	rl->refill_ns = now_ns ? now_ns : 1;  /* 0 means "never" */
	if (rl->credit_ns < BP_RATELIMIT_NS) {
		rl->suppressed++;
		return false;
	}
	rl->credit_ns -= BP_RATELIMIT_NS;
	*suppressed = rl->suppressed;
	rl->suppressed = 0;
	rl->last_ns = now_ns ? now_ns : 1;
	return true;
}

/* Limiters are touched only when a line is due, which is rare: one lock for all of them. */
static pthread_mutex_t ratelimit_lock = PTHREAD_MUTEX_INITIALIZER;

void bp_log_ratelimited(struct bp_ratelimit *rl, enum bp_log_level level, const char *fmt, ...)
{
	uint64_t now = bp_now_ns(), last;
	unsigned long dropped = 0;
	char line[1024];
	size_t used;
	va_list ap;
	bool pass;

	if (level > log_level)
		return;
	pthread_mutex_lock(&ratelimit_lock);
	last = rl->last_ns;
	pass = bp_ratelimit_pass(rl, now, &dropped);
	pthread_mutex_unlock(&ratelimit_lock);
	if (!pass)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	used = strlen(line);
	if (dropped)
		snprintf(line + used, sizeof(line) - used,
			 " (%lu similar line%s suppressed in the last %.1f s)", dropped,
			 dropped == 1 ? "" : "s", (double)(now - last) / 1e9);
	emit(level, line);
}
