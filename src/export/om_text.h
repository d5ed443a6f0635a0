/*
 * The two text formats Prometheus scrapes, written line by line: OpenMetrics 1.0.0
 * (`# TYPE`, `# UNIT`, `# HELP`, samples, `# EOF`) and the Prometheus text format 0.0.4
 * (what node_exporter's textfile collector and promtool read: no `# UNIT`, no `# EOF`, a
 * counter's TYPE line naming its `_total` sample). Escaping is the specs': a label value
 * escapes backslash, double quote and newline; HELP escapes backslash and newline (and, in
 * OpenMetrics, the double quote). Bytes that are not UTF-8 become '?': both formats are
 * UTF-8, and a stored board name or label is not trusted to be.
 */
#ifndef BP_EXPORT_OM_TEXT_H
#define BP_EXPORT_OM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum bp_om_format {
	BP_OM_OPENMETRICS,   /* application/openmetrics-text; version=1.0.0 */
	BP_OM_PROMETHEUS,    /* text/plain; version=0.0.4 */
};

/* The Content-Type of a format, for an HTTP answer. */
const char *bp_om_content_type(enum bp_om_format f);

enum bp_om_type { BP_OM_GAUGE, BP_OM_COUNTER };

struct bp_om_label {
	const char *name;    /* [a-zA-Z_][a-zA-Z0-9_]*, the writer's own (not checked here) */
	const char *value;   /* any bytes: escaped */
};

/* Writes s escaped as a label value (help false) or as HELP text (help true). */
void bp_om_escape(FILE *out, enum bp_om_format f, const char *s, bool help);

/*
 * A family's header: TYPE, UNIT (OpenMetrics only, when unit is not empty) and HELP.
 * name is the family's name; a counter's samples are name + "_total".
 */
void bp_om_family(FILE *out, enum bp_om_format f, const char *name, enum bp_om_type type,
		  const char *unit, const char *help);

/*
 * One sample of family name: "name{a="x",b="y"} value" (a counter's name gets "_total").
 * Labels with an empty value are left out (Prometheus reads them as absent anyway). A value
 * that is not finite is not written: false.
 */
bool bp_om_sample(FILE *out, enum bp_om_type type, const char *name,
		  const struct bp_om_label *labels, size_t nlabels, double value);

/* A finite value as the fewest digits that read back the same ("11700000", "0.5"). */
void bp_om_number(FILE *out, double v);

/* The end: "# EOF" in OpenMetrics, nothing in the text format. */
void bp_om_end(FILE *out, enum bp_om_format f);

/*
 * Replaces each byte of s that is not part of well-formed UTF-8 with '?', in place: what
 * bp_om_escape would write, so that two label values compare as they will be written.
 */
void bp_om_utf8_clean(char *s);

/* Whether s is a valid metric or label name of our own (ASCII [a-zA-Z_:][a-zA-Z0-9_:]*). */
bool bp_om_valid_name(const char *s, bool label);

#endif
