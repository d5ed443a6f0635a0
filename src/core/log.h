/* Diagnostics on stderr. Results never go through here: they are rendered from a result. */
#ifndef BP_CORE_LOG_H
#define BP_CORE_LOG_H

#include <stdbool.h>
#include <stdint.h>

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
 * A line that a peer can make the server write at any rate (a flood's "accept: Too many
 * open files", a junk connection's "bad cookie") goes through a limiter of its own: at
 * most one line per second, the next one saying how many were suppressed since the last.
 * A limiter is zero-initialised (static, or in a struct) and may be shared by threads.
 */
struct bp_ratelimit {
	uint64_t last_ns;        /* when the last line went out; 0: never */
	unsigned long suppressed; /* lines dropped since */
	uint64_t credit_ns;      /* a line costs BP_RATELIMIT_NS of it (see below) */
	uint64_t refill_ns;      /* when credit was last added; 0: never (a full bucket) */
};

/*
 * A token bucket: a line a second, with a burst of BP_RATELIMIT_BURST lines after a quiet
 * while, so that a few events close together (two clients refused in the same second) are
 * each logged, while a flood comes down to one line a second per limiter, each saying how
 * many like it were dropped.
 */
#define BP_RATELIMIT_NS 1000000000ull
#define BP_RATELIMIT_BURST 5

/*
 * The decision alone (no locking; callers on several threads use bp_log_ratelimited): true
 * when a line may go out at now_ns, with *suppressed the count dropped before it (then
 * reset); false counts one more suppressed line.
 */
bool bp_ratelimit_pass(struct bp_ratelimit *rl, uint64_t now_ns, unsigned long *suppressed);

/* bp_log through rl: "LINE (N similar lines suppressed in the last 1.2 s)" when some were. */
__attribute__((format(printf, 3, 4)))
void bp_log_ratelimited(struct bp_ratelimit *rl, enum bp_log_level level, const char *fmt, ...);

#define bp_error(...) bp_log(BP_LOG_ERROR, __VA_ARGS__)
#define bp_warn(...)  bp_log(BP_LOG_WARN, __VA_ARGS__)
#define bp_info(...)  bp_log(BP_LOG_INFO, __VA_ARGS__)
#define bp_debug(...) bp_log(BP_LOG_DEBUG, __VA_ARGS__)
#define bp_warn_ratelimited(rl, ...) bp_log_ratelimited(rl, BP_LOG_WARN, __VA_ARGS__)
#define bp_info_ratelimited(rl, ...) bp_log_ratelimited(rl, BP_LOG_INFO, __VA_ARGS__)

#endif
