/*
 * Golden-file tests of the three renderers: fixed results are rendered into memory and
 * compared byte for byte with tests/unit/golden/<name>.<txt|json|csv>.
 *
 * Usage: test_render GOLDEN_DIR   (meson passes the source tree's golden directory)
 *
 * After an intended change of the output, regenerate the files and review the diff:
 *   BP_UPDATE_GOLDEN=1 meson test -C build test_render
 * (or BP_UPDATE_GOLDEN=1 ./test_render tests/unit/golden), then `git diff tests/unit/golden`.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/render.h"
#include "result/result.h"
#include "kinds.h"
#include "tap.h"
#include "golden_check.h"

static const char *golden_dir = "tests/unit/golden";

/*
 * A Raspberry Pi 4 as the inventory (src/board) would describe it, with its key names and
 * its null for every unknown value:
 * every leaf type appears, numbers carry their unit in the key (cur_khz, total_bytes,
 * temp_c, speed_mbps, below_max_pct), and some table columns are unknown in every row
 * (driver, usb_speed_mbps, usb_speed) so that the text renderer leaves them out.
 */
static json_t *fixture_env(void)
{
	json_error_t e;
	json_t *env = json_loads(
		"{\"boardperf\": {\"version\": \"0.1.0\", \"compiler\": \"gcc 12.2.0\","
		"  \"buildtype\": \"debugoptimized\", \"sanitize\": \"none\"},"
		" \"inventory\": {"
		"  \"board\": {\"model\": \"Raspberry Pi 4 Model B Rev 1.4\","
		"    \"model_source\": \"device-tree\", \"soc\": null},"
		"  \"cpu\": {\"model_name\": null, \"vendor\": \"ARM\","
		"    \"summary\": \"4x Cortex-A72\", \"core_count\": 4,"
		"    \"features\": [\"fp\", \"asimd\", \"crc32\", \"cpuid\"],"
		"    \"crypto_extensions\": false,"
		"    \"cores\": ["
		"      {\"cpu\": 0, \"online\": true, \"implementer\": \"0x41\", \"driver\": null,"
		"       \"cur_khz\": 1800000, \"scaling_min_khz\": 600000,"
		"       \"scaling_max_khz\": 1800000, \"governor\": \"ondemand\"},"
		"      {\"cpu\": 1, \"online\": true, \"implementer\": \"0x41\", \"driver\": null,"
		"       \"cur_khz\": 1200000, \"scaling_min_khz\": 600000,"
		"       \"scaling_max_khz\": 1800000, \"governor\": \"ondemand\"},"
		"      {\"cpu\": 2, \"online\": false, \"implementer\": null, \"driver\": null,"
		"       \"cur_khz\": null, \"governor\": null},"
		"      {\"cpu\": 3, \"online\": true, \"implementer\": \"0x41\", \"driver\": null,"
		"       \"cur_khz\": 600000, \"scaling_min_khz\": 600000,"
		"       \"scaling_max_khz\": 1800000, \"governor\": \"performance\"}"
		"    ]},"
		"  \"thermal\": [{\"zone\": 0, \"type\": \"cpu-thermal\", \"temp_c\": 48.7}],"
		"  \"memory\": {\"total_bytes\": 8253505536, \"available_bytes\": 7340032000,"
		"    \"swap_total_bytes\": 0, \"zram\": []},"
		"  \"os\": {\"kernel_release\": \"6.1.21-v8+\","
		"    \"distribution\": \"Debian GNU/Linux 12 (bookworm)\"},"
		"  \"nics\": ["
		"    {\"name\": \"eth0\", \"speed_mbps\": 1000, \"carrier\": true,"
		"     \"usb_speed_mbps\": null, \"usb_speed\": null},"
		"    {\"name\": \"wlan0\", \"speed_mbps\": null, \"carrier\": null,"
		"     \"usb_speed_mbps\": null, \"usb_speed\": null}"
		"  ],"
		"  \"storage\": null,"
		"  \"throttle\": {"
		"    \"cpufreq_policies\": [{\"policy\": \"policy0\", \"cpus\": [0, 1, 2, 3],"
		"      \"max_khz\": 1800000, \"below_max_pct\": 88.2}],"
		"    \"firmware\": {\"available\": true, \"state\": \"throttling\","
		"      \"raw\": \"0x50005\", \"under_voltage\": true}"
		"  }"
		" }}", 0, &e);

	if (!env)
		printf("# fixture env: %s (line %d)\n", e.text, e.line);
	return env;
}

/* A two-stream TCP test as `boardperf tcp` would fill it. */
static struct bp_result *fixture_tcp(void)
{
	struct bp_result *r = bp_result_new("tcp");
	struct bp_latency rtt = {
		.what = "rtt", .unit = "ns", .count = 1200,
		.min = 101000, .mean = 180500, .p50 = 150000, .p90 = 210000,
		.p99 = 480000, .p999 = 1200000, .p9999 = 2300000, .max = 2500000,
	};
	struct bp_interval *iv;

	/* bind is an option left unset: JSON and CSV keep the null, the text line does not. */
	bp_result_set_params(r, json_pack("{s:s, s:n, s:i, s:i, s:i, s:b, s:{s:i}}",
					  "host", "198.18.0.2", "bind", "port", 5201, "duration", 10,
					  "parallel", 2, "reverse", 0,
					  "socket", "window", 131072));
	bp_result_set_env(r, fixture_env());
	bp_result_add_metric(r, "sender.bitrate", 941.2e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "receiver.bitrate", 938.55e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "retransmits", 12, "count", BP_BETTER_LOWER);
	bp_result_add_metric(r, "receiver.bytes", 1173187500, "B", BP_BETTER_NONE);
	bp_result_add_latency(r, &rtt);
	iv = bp_result_add_interval(r, 0, 1);
	bp_interval_add_metric(iv, "sender.bitrate", 940e6, "bit/s", BP_BETTER_HIGHER);
	bp_interval_add_metric(iv, "receiver.bitrate", 937.1e6, "bit/s", BP_BETTER_HIGHER);
	bp_interval_add_metric(iv, "retransmits", 7, "count", BP_BETTER_LOWER);
	iv = bp_result_add_interval(r, 1, 2);
	bp_interval_add_metric(iv, "sender.bitrate", 942.4e6, "bit/s", BP_BETTER_HIGHER);
	bp_interval_add_metric(iv, "receiver.bitrate", 940e6, "bit/s", BP_BETTER_HIGHER);
	bp_interval_add_metric(iv, "retransmits", 5, "count", BP_BETTER_LOWER);
	/* As bp_cpu_usage_json() writes it: seconds in the key, the share as a fraction. */
	bp_result_set_cpu(r, json_pack("{s:{s:f, s:f, s:f, s:f}, s:{s:f, s:f, s:f, s:n}}",
				       "local", "user_s", 1.25, "system_s", 4.025,
				       "wall_s", 10.0, "busy_share", 0.5275,
				       "remote", "user_s", 0.3, "system_s", 0.0021,
				       "wall_s", 10.0, "busy_share"));
	bp_result_add_warning(r, "tester-cpu-bound",
			      "worker %d was busy %.0f %% of its core; the bitrate may be the tester's limit",
			      0, 97.0);
	return r;
}

/* `boardperf info`: the environment is the whole point. */
static struct bp_result *fixture_info(void)
{
	struct bp_result *r = bp_result_new("info");

	bp_result_set_env(r, fixture_env());
	r->text_show_env = true;
	bp_result_add_warning(r, "throttled", "the SoC was throttled since boot (0x%x)", 0x50000);
	return r;
}

static struct bp_result *fixture_suite(void)
{
	struct bp_result *r = bp_result_new("run");
	struct bp_result *cpu = bp_result_new("cpu");
	struct bp_result *mem = bp_result_new("mem");

	bp_result_set_params(r, json_pack("{s:s}", "profile", "quick"));
	bp_result_set_env(r, fixture_env());
	bp_result_add_metric(cpu, "sha256.8192", 401.5e6, "B/s", BP_BETTER_HIGHER);
	bp_result_add_metric(cpu, "rsa2048.sign", 1489.6, "op/s", BP_BETTER_HIGHER);
	bp_result_add_metric(mem, "copy.bandwidth", 3.2e9, "B/s", BP_BETTER_HIGHER);
	bp_result_add_metric(mem, "latency.random", 142.3, "ns", BP_BETTER_LOWER);
	bp_result_add_warning(mem, "page-cache", "the buffer fits in the L2 cache");
	bp_result_add_child(r, cpu);
	bp_result_add_child(r, mem);
	return r;
}

/* Everything a careless renderer gets wrong: separators in text, NaN, infinity. */
static struct bp_result *fixture_odd(void)
{
	struct bp_result *r = bp_result_new("odd,test");
	struct bp_interval *iv;

	r->text_show_env = true;
	bp_result_set_env(r, json_pack("{s:s, s:[i, s, n], s:{}}", "mount", "/mnt/a,b \"c\"",
				       "mixed", 1, "two", "empty", "nothing"));
	bp_result_add_metric(r, "loss.percent", NAN, "percent", BP_BETTER_LOWER);
	bp_result_add_metric(r, "ratio", INFINITY, "", BP_BETTER_NONE);
	bp_result_add_metric(r, "odd \"name\"", 0.1, "x,y", BP_BETTER_NONE);
	iv = bp_result_add_interval(r, 0, 0.5);
	bp_interval_add_metric(iv, "loss.percent", NAN, "percent", BP_BETTER_LOWER);
	iv = bp_result_add_interval(r, 0.5, 1);
	bp_interval_add_metric(iv, "ratio", 2.5, "", BP_BETTER_NONE);
	bp_result_add_warning(r, "note", "line one, with \"quotes\"\r\nline two");
	return r;
}

/* A tcp test whose server went away after a second: what was measured, and why it ended. */
static struct bp_result *fixture_error(void)
{
	struct bp_result *r = bp_result_new("tcp");
	struct bp_interval *iv;

	bp_result_set_params(r, json_pack("{s:s, s:i, s:i}", "host", "198.18.0.2", "port", 5201,
					  "duration", 10));
	bp_result_add_metric(r, "sender.bytes", 117187500, "B", BP_BETTER_NONE);
	iv = bp_result_add_interval(r, 0, 1);
	bp_interval_add_metric(iv, "sender.bitrate", 937.5e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_set_error(r, bp_error_code(-ECONNRESET), "control connection to %s lost: %s",
			    "the server", "Connection reset by peer");
	return r;
}

static char *render(const struct bp_result *r, enum bp_format format)
{
	return golden_render(r, format);
}

static void check_golden(const struct bp_result *r, const char *name, enum bp_format format)
{
	golden_check(golden_dir, r, name, format);
}

/*
 * A warning too long for its line shows its first clause; a one-word subject before ": "
 * (a gpio method's name) is no clause of its own (it showed "sysfs" alone).
 */
static void test_warning_brief(void)
{
	struct bp_result *r = bp_result_new("gpio");
	char *text;

	bp_result_add_warning(r, "sysfs-deprecated", "sysfs: /sys/class/gpio is deprecated and "
			      "slow by design (a write(2) per level); new code uses the character "
			      "device");
	bp_result_add_warning(r, "loopback", "server 127.0.0.1:5201 is on this machine: the "
			      "figures are its loopback's, not a network's; run the server on "
			      "another host");
	text = render(r, BP_FORMAT_TEXT);
	/* the clause after the subject, cut at a word to fit 80 columns */
	CHECK(text && strstr(text, "warning [sysfs-deprecated]: sysfs: /sys/class/gpio is "
			     "deprecated and slow ...\n"));
	CHECK(text && strstr(text, "warning [loopback]: server 127.0.0.1:5201 is on this "
			     "machine\n"));
	free(text);
	bp_result_free(r);
}

/* The contract's keys, in the contract's order, and what they hold. */
static void check_json_shape(void)
{
	static const char *const keys[] = {
		"schema", "test", "params", "env", "metrics", "latency", "intervals", "cpu",
		"warnings", "error",
	};
	struct bp_result *r = fixture_tcp();
	char *text = render(r, BP_FORMAT_JSON);
	json_t *j = text ? json_loads(text, 0, NULL) : NULL, *v;
	const char *key;
	size_t i = 0;

	CHECK(j != NULL);
	json_object_foreach(j, key, v) {
		CHECK(i < 10 && !strcmp(key, keys[i]));
		i++;
	}
	CHECK_INT(i, 10);
	CHECK_STR(json_string_value(json_object_get(j, "schema")), BP_RESULT_SCHEMA);
	CHECK_STR(json_string_value(json_object_get(j, "test")), "tcp");
	v = json_array_get(json_object_get(j, "metrics"), 0);
	CHECK_STR(json_string_value(json_object_get(v, "name")), "sender.bitrate");
	CHECK_NEAR(json_number_value(json_object_get(v, "value")), 941.2e6, 0);
	CHECK_STR(json_string_value(json_object_get(v, "better")), "higher");
	v = json_object_get(json_object_get(j, "latency"), "rtt");
	CHECK_INT(json_integer_value(json_object_get(v, "count")), 1200);
	CHECK_NEAR(json_number_value(json_object_get(v, "p99.9")), 1200000, 0);
	CHECK_NEAR(json_number_value(json_object_get(v, "p99.99")), 2300000, 0);
	v = json_array_get(json_object_get(j, "intervals"), 1);
	CHECK_NEAR(json_number_value(json_object_get(v, "start")), 1, 0);
	CHECK_NEAR(json_number_value(json_object_get(json_object_get(v, "metrics"),
						     "retransmits")), 5, 0);
	v = json_array_get(json_object_get(j, "warnings"), 0);
	CHECK_STR(json_string_value(json_object_get(v, "code")), "tester-cpu-bound");
	CHECK(json_is_null(json_object_get(j, "error")));
	CHECK(json_object_get(j, "results") == NULL);
	json_decref(j);
	free(text);
	bp_result_free(r);
}

/* An empty result still carries every key; absent trees are {} and cpu is null. */
static void check_json_empty(void)
{
	struct bp_result *r = bp_result_new("empty");
	json_t *j = bp_result_to_json(r);

	CHECK(json_is_object(json_object_get(j, "params")));
	CHECK(json_is_object(json_object_get(j, "env")));
	CHECK_INT(json_array_size(json_object_get(j, "metrics")), 0);
	CHECK(json_is_object(json_object_get(j, "latency")));
	CHECK_INT(json_array_size(json_object_get(j, "intervals")), 0);
	CHECK(json_is_null(json_object_get(j, "cpu")));
	CHECK(json_is_array(json_object_get(j, "warnings")));
	CHECK(json_is_null(json_object_get(j, "error")));
	CHECK(json_object_get(j, "results") == NULL);
	json_decref(j);
	bp_result_free(r);
}

/* JSON has no NaN: the document must still parse, with null where the figure was. */
static void check_json_nan(void)
{
	struct bp_result *r = fixture_odd();
	char *text = render(r, BP_FORMAT_JSON);
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	json_t *m = json_object_get(j, "metrics");
	json_t *iv = json_array_get(json_object_get(j, "intervals"), 0);

	CHECK(j != NULL);
	CHECK(json_is_null(json_object_get(json_array_get(m, 0), "value")));
	CHECK(json_is_null(json_object_get(json_array_get(m, 1), "value")));
	CHECK_NEAR(json_number_value(json_object_get(json_array_get(m, 2), "value")), 0.1, 0);
	CHECK(json_is_null(json_object_get(json_object_get(iv, "metrics"), "loss.percent")));
	json_decref(j);
	free(text);
	bp_result_free(r);
}

/* A suite nests complete result objects, each with its own schema. */
static void check_json_suite(void)
{
	struct bp_result *r = fixture_suite();
	json_t *j = bp_result_to_json(r);
	json_t *kids = json_object_get(j, "results");

	CHECK_INT(json_array_size(kids), 2);
	CHECK_STR(json_string_value(json_object_get(json_array_get(kids, 1), "test")), "mem");
	CHECK_STR(json_string_value(json_object_get(json_array_get(kids, 0), "schema")),
		  BP_RESULT_SCHEMA);
	json_decref(j);
	bp_result_free(r);
}

/* A failed test's document: error.code and .message beside what was measured. */
static void check_json_error(void)
{
	struct bp_result *r = fixture_error();
	char *text = render(r, BP_FORMAT_JSON);
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	json_t *e = json_object_get(j, "error");

	CHECK(json_is_object(e));
	CHECK_INT(json_object_size(e), 2);
	CHECK_STR(json_string_value(json_object_get(e, "code")), "peer-gone");
	CHECK_STR(json_string_value(json_object_get(e, "message")),
		  "control connection to the server lost: Connection reset by peer");
	CHECK_INT(json_array_size(json_object_get(j, "metrics")), 1);
	json_decref(j);
	free(text);
	/* a second error replaces the first */
	CHECK_INT(bp_result_set_error(r, "interrupted", "stopped by signal %d", 2), 0);
	CHECK_STR(r->error.code, "interrupted");
	CHECK_STR(r->error.message, "stopped by signal 2");
	bp_result_free(r);
}

/* A failing stream must be reported, not ignored. */
static void check_write_error(void)
{
	struct bp_result *r = fixture_tcp();
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		printf("ok %d - # SKIP no /dev/full\n", ++tap_n);
		bp_result_free(r);
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	CHECK_INT(bp_render(f, r, BP_FORMAT_TEXT), -EIO);
	CHECK_INT(bp_render(f, r, BP_FORMAT_JSON), -EIO);
	CHECK_INT(bp_render(f, r, BP_FORMAT_CSV), -EIO);
	fclose(f);
	bp_result_free(r);
}

/* rfc2544's trial table: the frame size reads as the size given, "1518 B", not "1.48 KiB". */
static void check_text_frame_size(void)
{
	struct bp_result *r = bp_result_new("rfc2544");
	struct bp_interval *iv = bp_result_add_interval(r, 0, 2);
	char *text;

	bp_interval_add_metric(iv, "frame", 1518, "B", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "target.fps", 81274, "pkt/s", BP_BETTER_NONE);
	iv = bp_result_add_interval(r, 2, 4);
	bp_interval_add_metric(iv, "frame", 9216, "B", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "target.fps", 13552, "pkt/s", BP_BETTER_NONE);
	text = render(r, BP_FORMAT_TEXT);
	CHECK(text && strstr(text, " 1518 B ") && strstr(text, " 9216 B "));
	CHECK(text && !strstr(text, "KiB"));
	if (text && (!strstr(text, " 1518 B ") || strstr(text, "KiB")))
		printf("# text:\n%s", text);
	free(text);
	bp_result_free(r);
}

/*
 * cpu in openssl speed's units: the Cubietruck's published SHA-1 and RSA-1024 figures
 * (48,000 kB/s at 8192 bytes, 158 signatures/s) read as openssl prints them; the companions
 * (.cpu, .workerN) stay out, and the summed ".all" figures get their own table.
 */
static void check_text_speed_units(void)
{
	struct bp_result *r = bp_result_new("cpu");
	char *text;

	bp_result_set_params(r, json_pack("{s:i}", "workers", 2));
	bp_result_add_metric(r, "rsa1024.sign", 158, "op/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "rsa1024.sign.all", 316, "op/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "rsa1024.verify", 2500, "op/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sha1.16", 12.5e6, "B/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sha1.8192", 48e6, "B/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sha1.8192.cpu", 99, "percent", BP_BETTER_NONE);
	bp_result_add_metric(r, "sha1.8192.worker0", 47e6, "B/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sha1.8192.all", 96e6, "B/s", BP_BETTER_HIGHER);
	text = render(r, BP_FORMAT_TEXT);
	CHECK(text && strstr(text, "type   16 bytes  8192 bytes\n"
				   "sha1  12500.00k   48000.00k\n"));
	CHECK(text && strstr(text, "rsa1024  0.006329s  0.000400s   158.0    2500.0\n"));
	CHECK(text && strstr(text, "as openssl speed -multi 2)\ntype  8192 bytes\n"
				   "sha1   96000.00k\n"));
	CHECK(text && strstr(text, "rsa1024  0.003165s           316.0\n"));
	CHECK(text && !strstr(text, "47000.00k") && !strstr(text, "99.00k"));
	if (text && !strstr(text, "48000.00k"))
		printf("# text:\n%s", text);
	free(text);
	bp_result_free(r);
}

/* A result with a verdict (metric "pass": crr) ends with it, PASS or FAIL and the ratio. */
static void check_text_verdict(void)
{
	for (int pass = 0; pass <= 1; pass++) {
		struct bp_result *r = bp_result_new("crr");
		const char *want = pass ? "\nverdict: PASS, failure_ratio 0.0000 %\n" :
				   "\nverdict: FAIL (exit status 3), failure_ratio 2.5000 %\n";
		char *text, *at;

		bp_result_add_metric(r, "failure_ratio", pass ? 0 : 2.5, "percent",
				     BP_BETTER_LOWER);
		bp_result_add_metric(r, "pass", pass, "count", BP_BETTER_HIGHER);
		text = render(r, BP_FORMAT_TEXT);
		at = text ? strstr(text, want) : NULL;
		CHECK(at && at[strlen(want)] == '\0');  /* the last line */
		if (!at)
			printf("# text:\n%s", text ? text : "(none)");
		free(text);
		bp_result_free(r);
	}
}

/*
 * A suite ends with one line per child: its status (the error's code when it failed), its
 * headline figures (rr's round-trip p50 among them) and its warning codes.
 */
static void check_text_summary(void)
{
	struct bp_result *r = bp_result_new("run");
	struct bp_result *tcp = bp_result_new("tcp"), *rr = bp_result_new("rr");
	struct bp_latency lat = { .what = "transaction", .unit = "ns", .count = 10, .p50 = 21500 };
	char *text;

	bp_result_add_metric(tcp, "sender.bytes", 1e9, "B", BP_BETTER_NONE);
	bp_result_add_metric(tcp, "receiver.bitrate", 9.41e9, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_warning(tcp, "tester-cpu-bound", "busy");
	bp_result_add_warning(tcp, "interrupted", "stopped");
	bp_result_add_metric(rr, "transactions.rate", 46500, "op/s", BP_BETTER_HIGHER);
	bp_result_add_latency(rr, &lat);
	bp_result_set_error(rr, "connect-refused", "connect 127.0.0.1:1: refused");
	bp_result_add_child(r, tcp);
	bp_result_add_child(r, rr);
	/* 80 columns: a test a line, its figures filled under it, its warnings' codes after */
	text = render(r, BP_FORMAT_TEXT);
	CHECK(text && strstr(text, "\nsummary\ntcp    ok  receiver.bitrate 9.41 Gbit/s\n"
				   "            warnings: tester-cpu-bound, interrupted\n"));
	CHECK(text && strstr(text, "\nrr     failed: connect-refused transactions.rate 46.5k op/s,\n"
				   "            transaction p50 21.5 us\n"));
	free(text);
	/* a terminal wide enough for the table */
	bp_result_set_text_layout(r, 0, 200);
	text = render(r, BP_FORMAT_TEXT);
	CHECK(text && strstr(text, "\nsummary\ntest  status                   headline"));
	CHECK(text && strstr(text, "\ntcp   ok                       receiver.bitrate 9.41 Gbit/s"
				   "                           tester-cpu-bound, interrupted\n"));
	CHECK(text && strstr(text, "\nrr    failed: connect-refused  transactions.rate 46.5k op/s, "
				   "transaction p50 21.5 us\n"));
	if (text && !strstr(text, "failed: connect-refused  transactions"))
		printf("# text:\n%s", text);
	free(text);
	bp_result_free(r);
}

int main(int argc, char **argv)
{
	install_all_kinds();
	static const struct {
		const char *name;
		struct bp_result *(*make)(void);
	} fixtures[] = {
		{ "tcp", fixture_tcp },
		{ "info", fixture_info },
		{ "suite", fixture_suite },
		{ "odd", fixture_odd },
		{ "error", fixture_error },
	};

	if (argc > 1)
		golden_dir = argv[1];
	else if (getenv("BP_GOLDEN_DIR"))
		golden_dir = getenv("BP_GOLDEN_DIR");
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct bp_result *r = fixtures[i].make();

		for (int f = BP_FORMAT_TEXT; f <= BP_FORMAT_CSV; f++)
			check_golden(r, fixtures[i].name, (enum bp_format)f);
		bp_result_free(r);
	}
	check_json_shape();
	check_json_empty();
	check_json_nan();
	check_json_suite();
	check_json_error();
	check_write_error();
	check_text_frame_size();
	check_text_speed_units();
	check_text_summary();
	check_text_verdict();
	test_warning_brief();
	return tap_done();
}
