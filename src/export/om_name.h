/*
 * A stored figure's name in Prometheus's terms. A result's metric is a dotted name in the
 * result's base unit ("receiver.bitrate", bit/s); Prometheus wants snake_case, the base
 * unit spelled out at the end of the name, and what varies between figures of one kind in
 * labels. So:
 *
 *   boardperf_ + the dotted name with every run of other characters as one '_' +
 *   _ + the unit: bit/s -> bytes_per_second (the value / 8: promtool refuses "bits"),
 *   B/s -> bytes_per_second, B -> bytes, ns -> seconds (/ 1e9), percent -> ratio (/ 100),
 *   op/s -> operations_per_second, pkt/s -> packets_per_second, Hz -> hertz, op ->
 *   operations, count -> nothing (a plain number).
 *
 * A few dotted parts are a parameter of the figure rather than its kind, and become a
 * label (docs/results.md, "Prometheus"): cpu's block size (sha256.8192 -> boardperf_sha256_
 * bytes_per_second{block_size="8192"}) and its workers (worker2 -> worker="2"),
 * rfc2544's frame size (frame1518 -> frame_size="1518"), http's status code (status.200 ->
 * code="200"), mem's buffer size (latency.16KiB -> size="16KiB"). Names are lower case. A name that would end like the samples of another type (_total, _count,
 * _sum, _bucket, _created, _info) gets _value.
 */
#ifndef BP_EXPORT_OM_NAME_H
#define BP_EXPORT_OM_NAME_H

#include <stddef.h>

#define BP_OM_NAME_MAX 192

struct bp_om_name {
	char family[BP_OM_NAME_MAX]; /* boardperf_receiver_bitrate_bytes_per_second */
	const char *unit;            /* the OpenMetrics unit ("bytes_per_second"); "" none */
	double scale;                /* the family's value is the stored one times this */
	const char *label;           /* the label a dotted part became; NULL: none */
	char label_value[24];
	size_t part_off, part_len;   /* where that part is in the dotted name */
};

/*
 * The name of metric (of a result of test, in unit). 0, or -EINVAL when nothing of the
 * name is left (no letter or digit in it) or it does not fit.
 */
int bp_om_name_of(const char *test, const char *metric, const char *unit,
		  struct bp_om_name *n);

#endif
