/* Names, units and labels of stored figures in Prometheus's terms (om_name.h). */
#include <errno.h>

#include "export/om_name.h"
#include "export/om_text.h"
#include "kinds.h"
#include "tap.h"

static const struct {
	const char *test, *metric, *unit;
	const char *family, *om_unit;
	double scale;
	const char *label, *value;
} cases[] = {
	{ "tcp", "receiver.bitrate", "bit/s", "boardperf_receiver_bitrate_bytes_per_second",
	  "bytes_per_second", 0.125, NULL, "" },
	{ "tcp", "receiver.bytes", "B", "boardperf_receiver_bytes", "bytes", 1, NULL, "" },
	{ "tcp", "sender.span", "ns", "boardperf_sender_span_seconds", "seconds", 1e-9, NULL, "" },
	{ "udp", "loss.percent", "percent", "boardperf_loss_percent_ratio", "ratio", 0.01, NULL,
	  "" },
	{ "tcp", "sender.retransmits", "count", "boardperf_sender_retransmits", "", 1, NULL, "" },
	{ "cpu", "sha256.8192", "B/s", "boardperf_sha256_bytes_per_second", "bytes_per_second",
	  1, "block_size", "8192" },
	{ "cpu", "aes-128-gcm.16.cpu", "percent", "boardperf_aes_128_gcm_cpu_ratio", "ratio",
	  0.01, "block_size", "16" },
	{ "cpu", "rsa2048.sign", "op/s", "boardperf_rsa2048_sign_operations_per_second",
	  "operations_per_second", 1, NULL, "" },
	{ "cpu", "rsa2048.sign.worker3", "op/s",
	  "boardperf_rsa2048_sign_operations_per_second", "operations_per_second", 1, "worker",
	  "3" },
	{ "rfc2544", "frame1518.zero_loss.fps", "pkt/s",
	  "boardperf_zero_loss_fps_packets_per_second", "packets_per_second", 1, "frame_size",
	  "1518" },
	{ "http", "status.200", "count", "boardperf_status", "", 1, "code", "200" },
	/* Only the first such part: the next stays in the name. */
	{ "cpu", "sha1.64.128", "B/s", "boardperf_sha1_128_bytes_per_second", "bytes_per_second",
	  1, "block_size", "64" },
	/* A digits part of another test stays in the name. */
	{ "tcp", "stream.1.bytes", "B", "boardperf_stream_1_bytes", "bytes", 1, NULL, "" },
	{ "gpio", "chardev.periods.rate", "Hz", "boardperf_chardev_periods_rate_hertz", "hertz",
	  1, NULL, "" },
	{ "disk", "ops", "op", "boardperf_ops_operations", "operations", 1, NULL, "" },
	/* Names that would read as another type's samples. */
	{ "http", "requests.total", "count", "boardperf_requests_total_value", "", 1, NULL, "" },
	{ "x", "a.count", "count", "boardperf_a_count_value", "", 1, NULL, "" },
	/* Runs of other characters are one '_', none at either end. */
	{ "x", "..a--b..", "count", "boardperf_a_b", "", 1, NULL, "" },
	{ "x", "wei\xc3\x9f.x", "count", "boardperf_wei_x", "", 1, NULL, "" },
	/* An unknown unit: no suffix, no conversion. */
	{ "x", "thing", "furlong/fortnight", "boardperf_thing", "", 1, NULL, "" },
	{ "x", "bytes", "B", "boardperf_bytes", "bytes", 1, NULL, "" },
	/* mem's buffer sizes; capitals elsewhere become lower case (snake_case). */
	{ "mem", "latency.16KiB", "ns", "boardperf_latency_seconds", "seconds", 1e-9, "size",
	  "16KiB" },
	{ "mem", "memcpy.bandwidth.all", "B/s", "boardperf_memcpy_bandwidth_all_bytes_per_second",
	  "bytes_per_second", 1, NULL, "" },
	{ "x", "latency.16KiB", "ns", "boardperf_latency_16kib_seconds", "seconds", 1e-9, NULL,
	  "" },
	{ "mem", "latency.16KB", "ns", "boardperf_latency_16kb_seconds", "seconds", 1e-9, NULL,
	  "" },
	{ "x", "xbytes", "B", "boardperf_xbytes_bytes", "bytes", 1, NULL, "" },
};

int main(void)
{
	struct bp_om_name n;
	char longname[400];
	install_all_kinds(); /* label parts are the kinds' (result/kind.h) */

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = bp_om_name_of(cases[i].test, cases[i].metric, cases[i].unit, &n);

		CHECK_INT(rc, 0);
		CHECK_STR(n.family, cases[i].family);
		CHECK_STR(n.unit, cases[i].om_unit);
		CHECK_NEAR(n.scale, cases[i].scale, 1e-15);
		CHECK_STR(n.label, cases[i].label);
		CHECK_STR(n.label_value, cases[i].value);
		CHECK(bp_om_valid_name(n.family, false));
		CHECK(!n.label || bp_om_valid_name(n.label, true));
	}
	/* Nothing left of the name, or too long: no name. */
	CHECK_INT(bp_om_name_of("x", "...", "B", &n), -EINVAL);
	CHECK_INT(bp_om_name_of("x", "", "B", &n), -EINVAL);
	CHECK_INT(bp_om_name_of("cpu", "8192", "B/s", &n), -EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK_INT(bp_om_name_of("x", longname, "B", &n), -EINVAL);
	/* A digits part too long for a label value stays in the name. */
	CHECK_INT(bp_om_name_of("cpu", "sha1.123456789012345678901234567890", "B/s", &n), 0);
	CHECK_STR(n.family, "boardperf_sha1_123456789012345678901234567890_bytes_per_second");
	CHECK(n.label == NULL);
	return tap_done();
}
