/*
 * Diagnostics on stderr. Results never go through here: they are rendered from a result.
 * A line is one line whatever its arguments hold: what a peer sent (a server's error, a
 * test's name, a username) may sit in one, so every line is escaped on its way out
 * (core/text_escape.h: a newline, ESC or invalid UTF-8 shows as \xNN). Lines a peer can
 * make a server write go through core/log_limit.h instead of bp_log.
 */
#ifndef BP_CORE_LOG_H
#define BP_CORE_LOG_H

enum bp_log_level {
	BP_LOG_ERROR = 0, /* shown even with -q */
	BP_LOG_WARN = 1,
	BP_LOG_INFO = 2,  /* default */
	BP_LOG_DEBUG = 3, /* -v */
	BP_LOG_TRACE = 4, /* -vv */
};

/* Set once by the CLI from -q/-v before any thread starts. */
void bp_log_set_level(enum bp_log_level level);
enum bp_log_level bp_log_get_level(void);

/* Prefix every line with "boardperf: " (or "boardperf CMD: " once a command is known). */
void bp_log_set_prefix(const char *prefix);

__attribute__((format(printf, 2, 3)))
void bp_log(enum bp_log_level level, const char *fmt, ...);

/*
 * Lines logged on the calling thread go to fn instead of stderr (fn NULL: stderr again);
 * the level filter still applies. A server that runs inside another command's process
 * (`boardperf run`) keeps its log apart this way. The line has no prefix and no newline.
 */
typedef void (*bp_log_sink_fn)(void *arg, enum bp_log_level level, const char *line);
void bp_log_set_thread_sink(bp_log_sink_fn fn, void *arg);

/*
 * A line already formatted, as bp_log writes one (the level filter, the prefix, the
 * escaping); core/log_limit.c's lines come out this way.
 */
void bp_log_line(enum bp_log_level level, const char *line);

#define bp_error(...) bp_log(BP_LOG_ERROR, __VA_ARGS__)
#define bp_warn(...)  bp_log(BP_LOG_WARN, __VA_ARGS__)
#define bp_info(...)  bp_log(BP_LOG_INFO, __VA_ARGS__)
#define bp_debug(...) bp_log(BP_LOG_DEBUG, __VA_ARGS__)

#endif
