/*
 * The result model: everything a test measured, in base units, plus what is needed to
 * trust it later (effective parameters, environment snapshot, the tester's own CPU use,
 * warnings). Renderers (text, JSON, CSV) and the store only read it. Its JSON form is a
 * contract, versioned by BP_RESULT_SCHEMA; see docs/json.md, "JSON result contract".
 */
#ifndef BP_RESULT_RESULT_H
#define BP_RESULT_RESULT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define BP_RESULT_SCHEMA "boardperf/1"

enum bp_better {
	BP_BETTER_NONE = 0,  /* informational (e.g. a count of retransmits) */
	BP_BETTER_HIGHER,
	BP_BETTER_LOWER,
};

/* "higher", "lower" or "none", as JSON carries it. */
const char *bp_better_name(enum bp_better better);

struct bp_metric {
	char *name;  /* dotted and stable: "rsa2048.sign", "receiver.bitrate" */
	double value;
	char *unit;  /* base unit: "bit/s", "B/s", "op/s", "ns", "B", "percent", "count" */
	enum bp_better better;
};

/* A latency distribution summarised as the contract shows it. Values in `unit` (ns). */
struct bp_latency {
	const char *what;  /* "rtt", "connect", "read", ... (the result keeps its own copy) */
	const char *unit;
	uint64_t count;
	double min, mean, p50, p90, p99, p999, p9999, max;
	/*
	 * The distribution itself, as the document carries it ({"buckets": [[low, count], ...]},
	 * result/latency_histogram.h), NULL where only the summary is known: what `merge`
	 * combines several testers' percentiles from. The result holds a reference of its own.
	 */
	json_t *histogram;
};

struct bp_interval {
	double start, end;  /* seconds since the test's start */
	size_t nmetrics;
	struct bp_metric *metrics;
	/* What the board did meanwhile (board/monitor_result.c; docs/json.md, "The monitor"), NULL
	 * for none: clocks, temperatures, throttle bits, other processes' share. Owned. */
	json_t *monitor;
};

struct bp_warning {
	char *code;     /* stable: "tester-cpu-bound", "throttled", "page-cache", ... */
	char *message;  /* one sentence for a person */
};

/*
 * Why a test could not measure (exit status 1): a stable short code (bp_error_code) and
 * the one-line message the CLI also prints on stderr. Both NULL when it measured.
 */
struct bp_result_error {
	char *code;     /* "connect-refused", "peer-gone", "interrupted", ... */
	char *message;
};

struct bp_result {
	char *test;        /* test kind: "info", "tcp", "cpu", ... */
	json_t *params;    /* effective parameters (object), in base units */
	/* params' keys at their option's default ({"port": true}): the text's default leaves
	 * them out, -v and JSON keep them; not part of the document. NULL: none known. */
	json_t *params_defaulted;
	json_t *env;       /* environment snapshot (object) */
	json_t *cpu;       /* the tester's CPU use: {"local": {...}, "remote": {...}} or NULL */

	size_t nmetrics, cap_metrics;
	struct bp_metric *metrics;
	size_t nlatency, cap_latency;
	struct bp_latency *latency;
	size_t nintervals, cap_intervals;
	struct bp_interval *intervals;
	size_t nwarnings, cap_warnings;
	struct bp_warning *warnings;

	/* A suite (`boardperf run`) holds the results of the tests it ran. */
	size_t nchildren, cap_children;
	struct bp_result **children;

	struct bp_result_error error;

	/* The text renderer prints the whole environment tree (for `boardperf info`). */
	bool text_show_env;
	/*
	 * The text leaves the children out (`together`: its own figures compare them; each
	 * run's document is in the JSON, the CSV and the store).
	 */
	bool text_hide_children;
	/*
	 * The text shows the children only as the summary's rows, one line each (`--repeat`:
	 * the runs; each run's whole document is in the JSON, the CSV and the store).
	 */
	bool text_children_as_rows;

	/*
	 * Per-stream figures of a test with streams (tcp, udp), NULL otherwise:
	 * {"end": [stream, ...], "intervals": [[stream, ...] or null, ...]}, the intervals in
	 * step with `intervals` (docs/network.md, "Per-stream figures"). Set with
	 * bp_result_set_streams (result_streams.c); the text shows the per-interval ones only when
	 * asked (-v).
	 */
	json_t *streams;
	bool text_show_stream_intervals;

	/*
	 * How the text is laid out (docs/results.md, "Text output"): text_verbose (-v) adds the
	 * long forms (every param, the tester-CPU table, each warning's whole sentence);
	 * text_width is the columns the default text fits, 0 for BP_TERM_DEFAULT_WIDTH. Set on
	 * a whole tree with bp_result_set_text_layout.
	 */
	int text_verbose;
	int text_width;

	/*
	 * The GPIO chips and lines of `boardperf gpio --list` (test "gpio-list"), NULL
	 * otherwise: [{"name", "path", "label", "lines", "sysfs_base", "lines_info": [...]}]
	 * (docs/board.md, "boardperf gpio"). JSON carries it as "chips", the text as gpioinfo does
	 * (result/render_chips.c). Set with bp_result_set_chips.
	 */
	json_t *chips;

	/*
	 * The monitor's summary of the whole test (board/monitor_result.c; docs/json.md, "The
	 * monitor"), NULL when no monitor ran (info, run's own result, --no-monitor). Set with
	 * bp_result_set_monitor; each interval's own figures are in its `monitor`.
	 */
	json_t *monitor;

	/*
	 * What a merged result (`boardperf merge`, src/merge/) was made of, NULL otherwise: each
	 * tester's own figures, start and share, and the overlap of their spans (docs/json.md,
	 * "One result of several testers"). Set with bp_result_set_merged; the text shows one row
	 * per tester (result/text_merged.c).
	 */
	json_t *merged;
};

struct bp_result *bp_result_new(const char *test);
void bp_result_free(struct bp_result *r);

/* Setters take ownership of the JSON reference (NULL clears). */
void bp_result_set_params(struct bp_result *r, json_t *params);
void bp_result_set_params_defaulted(struct bp_result *r, json_t *keys);

/* r's and its children's text layout: -v's count and the width to fit (0: the default). */
void bp_result_set_text_layout(struct bp_result *r, int verbose, int width);
void bp_result_set_env(struct bp_result *r, json_t *env);
void bp_result_set_cpu(struct bp_result *r, json_t *cpu);
/* Takes ownership of streams (NULL clears); see the field. */
void bp_result_set_streams(struct bp_result *r, json_t *streams);
/* Takes ownership of chips (NULL clears); see the field. */
void bp_result_set_chips(struct bp_result *r, json_t *chips);
/* Takes ownership of monitor (NULL clears); see the field. */
void bp_result_set_monitor(struct bp_result *r, json_t *monitor);
/* Takes ownership of merged (NULL clears); see the field. */
void bp_result_set_merged(struct bp_result *r, json_t *merged);
/* Takes ownership of monitor (NULL clears): the interval's `monitor`. */
void bp_interval_set_monitor(struct bp_interval *iv, json_t *monitor);

/* Each returns 0 or -ENOMEM. Names and units are copied. */
int bp_result_add_metric(struct bp_result *r, const char *name, double value,
			 const char *unit, enum bp_better better);
int bp_result_add_latency(struct bp_result *r, const struct bp_latency *lat);
/* NULL when out of memory. The pointer is valid until the next interval is added. */
struct bp_interval *bp_result_add_interval(struct bp_result *r, double start, double end);
int bp_interval_add_metric(struct bp_interval *iv, const char *name, double value,
			   const char *unit, enum bp_better better);
/*
 * Free the metrics of an interval that lives outside a result (one a test builds for the
 * live sink, on its stack and zeroed), leaving it empty. Those of a result are the result's.
 */
void bp_interval_clear(struct bp_interval *iv);
__attribute__((format(printf, 3, 4)))
int bp_result_add_warning(struct bp_result *r, const char *code, const char *fmt, ...);
/*
 * Record why the test could not measure (replacing an earlier error); 0 or -ENOMEM (then
 * the result holds no error). The code is bp_error_code()'s word or another stable one.
 */
__attribute__((format(printf, 3, 4)))
int bp_result_set_error(struct bp_result *r, const char *code, const char *fmt, ...);

/*
 * The stable short word for a negative errno a test's run returned, as the JSON's
 * error.code carries it (docs/json.md, "JSON result contract"): "connect-refused",
 * "server-refused", "timeout", "unreachable", "peer-gone", "no-space", "permission",
 * "not-found", "interrupted", "protocol", "out-of-memory", "io-error", "address-in-use",
 * "read-only", "invalid", and "failed" for any other.
 */
const char *bp_error_code(int rc);

/* Something was measured: a metric, a latency summary, an interval or a child result. */
bool bp_result_measured(const struct bp_result *r);

/* Takes ownership of child, even on failure (then it is freed); -EINVAL for NULL. */
int bp_result_add_child(struct bp_result *r, struct bp_result *child);

const struct bp_metric *bp_result_find_metric(const struct bp_result *r, const char *name);
/*
 * The first metric (in the order emitted) whose name a catalogue pattern matches, a "*"
 * segment standing for any one (result/kind.h): a headline's "*.zero_loss.fps" is rfc2544's
 * first frame size's. A name without "*" is found as bp_result_find_metric finds it.
 */
const struct bp_metric *bp_result_find_matching(const struct bp_result *r, const char *pattern);
bool bp_result_has_warning(const struct bp_result *r, const char *code);

#endif
