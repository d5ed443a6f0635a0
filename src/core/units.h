/*
 * Units as users type them and as boardperf prints them.
 *
 * Network rates are decimal bits per second, read as iperf3 reads them: "100M" is
 * 100,000,000 bit/s, "1.5G" 1.5e9, "64k" 64,000 (k/K, m/M, g/G, t/T all decimal).
 * Storage and memory sizes are binary bytes: "16K" and "16KiB" are 16,384; "1G" is 2^30.
 * Durations: a bare number is seconds ("10"), or a suffix ns/us/ms/s/m/h ("500ms", "2m").
 *
 * Parsers return 0, -EINVAL for malformed text or -ERANGE for a value that does not fit;
 * bp_units_expected() gives the phrase an error message shows the user.
 */
#ifndef BP_CORE_UNITS_H
#define BP_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

enum bp_unit_kind {
	BP_UNIT_INT,
	BP_UNIT_NUMBER,
	BP_UNIT_RATE,
	BP_UNIT_SIZE,
	BP_UNIT_DURATION,
};

/* "an integer such as 4", "a rate such as 100M, 1.5G or 64k (bit/s)", ... */
const char *bp_units_expected(enum bp_unit_kind kind);

int bp_parse_int(const char *text, int64_t *out);
int bp_parse_number(const char *text, double *out);
int bp_parse_rate(const char *text, double *bits_per_sec);
int bp_parse_size(const char *text, uint64_t *bytes);
int bp_parse_duration(const char *text, uint64_t *ns);

/*
 * Formatting for people: three significant digits are what a measurement deserves.
 * Each writes at most len bytes including the NUL and returns buf.
 */
char *bp_format_rate(char *buf, size_t len, double bits_per_sec); /* "94.1 Mbit/s" */
char *bp_format_bytes(char *buf, size_t len, double bytes);       /* "16.0 MiB" */
char *bp_format_byte_rate(char *buf, size_t len, double bytes_per_sec); /* "512 MiB/s" */
char *bp_format_duration(char *buf, size_t len, double ns);       /* "1.50 ms" */
char *bp_format_count(char *buf, size_t len, double count);       /* "1.49M" */

/* Whole byte figures below this print exactly in bp_format_value ("1518 B"): see units.c. */
#define BP_EXACT_BYTES_BELOW 10240.0

/*
 * A value in a base unit ("bit/s", "B", "B/s", "ns", "op/s", "percent", ...) made readable.
 * Unlike bp_format_bytes, a whole "B" figure below 10 KiB keeps every digit ("1518 B").
 */
char *bp_format_value(char *buf, size_t len, double value, const char *unit);

#endif
