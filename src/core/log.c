#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void bp_log(enum bp_log_level level, const char *fmt, ...)
{
	static const char *const tags[] = { "error: ", "warning: ", "", "debug: ", "trace: " };
	char line[1024];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (thread_sink) {
		thread_sink(thread_sink_arg, level, line);
		return;
	}
	/* One fprintf per line so lines from worker threads never interleave mid-line. */
	fprintf(stderr, "%s: %s%s\n", log_prefix, tags[level], line);
}
