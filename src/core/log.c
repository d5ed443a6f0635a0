#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/text_escape.h"

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

static void emit(enum bp_log_level level, const char *raw)
{
	static const char *const tags[] = { "error: ", "warning: ", "", "debug: ", "trace: " };
	char line[4 * 1024 + 1];  /* a 1 KiB line escaped whole */

	bp_text_escape(line, sizeof(line), raw, strlen(raw), 0);
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

void bp_log_line(enum bp_log_level level, const char *line)
{
	if (level <= log_level)
		emit(level, line);
}
