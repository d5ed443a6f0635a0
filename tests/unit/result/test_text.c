/* The text helpers behind the renderers: tables, JSON scalars, number text, cleaning. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/text_table.h"
#include "result/text_tree.h"
#include "tap.h"

/* Run fn into memory and return what it printed (malloc'd). */
#define CAPTURE(buf, call) do { \
	size_t len_; \
	FILE *f_ = open_memstream(&(buf), &len_); \
	call; \
	fclose(f_); \
} while (0)

static void test_double_exact(void)
{
	static const struct { double v; const char *want; } cases[] = {
		{ 0.1, "0.1" },
		{ 94.1e6, "94100000" },
		{ 1.0 / 3, "0.3333333333333333" },   /* 16 digits */
		{ 0.1 + 0.2, "0.30000000000000004" }, /* 17 digits */
		{ 1e300, "1e+300" },
		{ -2.5, "-2.5" },
		{ 0, "0" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bp_format_double_exact(buf, sizeof(buf), cases[i].v);
		CHECK_STR(buf, cases[i].want);
		CHECK(strtod(buf, NULL) == cases[i].v);
	}
}

static void test_scalar_text(void)
{
	static const struct {
		const char *json;
		const char *human, *plain;
	} cases[] = {
		{ "\"Cortex-A72\"", "Cortex-A72", "Cortex-A72" },
		{ "1800000000", "1800000000", "1800000000" },
		{ "1800000000.0", "1800000000", "1800000000" },
		{ "47.75", "47.75", "47.75" },
		{ "0.1", "0.1", "0.1" },
		{ "true", "yes", "true" },
		{ "false", "no", "false" },
		{ "null", "unknown", "" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);

		CHECK_STR(bp_json_scalar_text(v, BP_SCALAR_HUMAN, buf, sizeof(buf)),
			  cases[i].human);
		CHECK_STR(bp_json_scalar_text(v, BP_SCALAR_PLAIN, buf, sizeof(buf)),
			  cases[i].plain);
		json_decref(v);
	}
}

static void test_inline_text(void)
{
	static const struct { const char *json, *want; } cases[] = {
		{ "[\"fp\", \"asimd\"]", "fp, asimd" },
		{ "[]", "none" },
		{ "{}", "none" },
		{ "[1, [2, 3], {\"a\": null}]", "1, [2,3], {\"a\":null}" },
		{ "{\"a\": 1}", "{\"a\":1}" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
		char *s = bp_json_inline_text(v, BP_SCALAR_HUMAN);

		CHECK_STR(s, cases[i].want);
		free(s);
		json_decref(v);
	}
}

static void test_clean(void)
{
	char s[] = "one\r\ntwo\tthree\x1b[31m";
	char *out = NULL;

	CHECK_STR(bp_text_clean(s), "one two three [31m");
	CAPTURE(out, bp_text_put(f_, "a\n\nb\x7f"));
	CHECK_STR(out, "a b ");
	free(out);
	CHECK_INT(bp_text_width("1.50 \xc2\xb5s"), 7);
}

/* Right-aligned numbers, padded to the widest cell, and no blanks at the end of a row. */
static void test_table(void)
{
	struct bp_table t;
	char *out = NULL;

	CHECK_INT(bp_table_init(&t, 3, 2), 0);
	t.right[1] = true;
	bp_table_add(&t, (const char *[]){ "name", "value", "note" });
	bp_table_add(&t, (const char *[]){ "a", "1", NULL });
	bp_table_add(&t, (const char *[]){ "longer", "12345", "x" });
	bp_table_add(&t, (const char *[]){ "\xc2\xb5s", "2", "y" });
	CHECK_INT(bp_table_set(&t, 3, "too far"), -EINVAL);
	CAPTURE(out, CHECK_INT(bp_table_print(f_, &t), 0));
	CHECK_STR(out,
		  "  name    value  note\n"
		  "  a           1\n"
		  "  longer  12345  x\n"
		  "  \xc2\xb5s          2  y\n");
	free(out);
	bp_table_free(&t);
}

static void test_tree(void)
{
	json_t *v = json_loads("{\"a\": 1, \"long_key\": \"x\", \"sub\": {\"k\": null},"
			       " \"rows\": [{\"id\": 1, \"n\": \"p\"}, {\"id\": 10}], \"z\": []}",
			       0, NULL);
	char *out = NULL;

	CAPTURE(out, CHECK_INT(bp_text_tree(f_, v, 0), 0));
	CHECK_STR(out,
		  "a         1\n"
		  "long_key  x\n"
		  "\n"
		  "sub\n"
		  "  k  unknown\n"
		  "\n"
		  "rows\n"
		  "  id  n\n"
		  "   1  p\n"
		  "  10\n"
		  "\n"
		  "z         none\n");
	free(out);
	CHECK_INT(bp_text_tree(stdout, json_array_get(json_object_get(v, "z"), 0), 0), -EINVAL);
	json_decref(v);
}

/* The key names the unit; the number is in that unit (JSON keeps base units). */
static void test_format_by_key(void)
{
	static const struct { const char *key; double v; const char *want; } cases[] = {
		{ "total_bytes", 3975688192.0, "3.70 GiB" },
		{ "swap_total_bytes", 0, "0 B" },
		{ "bytes", 512, "512 B" },
		{ "cur_khz", 1800000, "1800 MHz" },
		{ "scaling_max_khz", 1.2e6, "1200 MHz" },
		{ "cur_khz", 899998, "900 MHz" },
		{ "cur_khz", 1200034, "1200 MHz" },
		{ "khz", 144000, "144 MHz" },
		{ "speed_mbps", 1000, "1000 Mbit/s" },
		{ "usb_speed_mbps", 480, "480 Mbit/s" },
		{ "speed_mbps", 2.5, "2.5 Mbit/s" },
		{ "temp_c", 48.7, "48.7 \xc2\xb0" "C" },
		{ "temp_c", 38, "38 \xc2\xb0" "C" },
		{ "temp_c", -5.25, "-5.25 \xc2\xb0" "C" },
		{ "below_max_pct", 88.2, "88.2 %" },
		{ "below_max_pct", 100, "100 %" },
		{ "time_ms", 1500, "1.50 s" },
		{ "time_ms", 0.25, "250 us" },
		/* Seconds stay seconds: no "300 ms" beside "10.0 s", no "0 ns" for nothing. */
		{ "wall_s", 10, "10.0 s" },
		{ "user_s", 0.3, "0.300 s" },
		{ "system_s", 0, "0 s" },
		{ "system_s", 0.0021, "0.00210 s" },
		{ "wall_s", 123.4, "123 s" },
		/* A share (CPU time over wall time) reads as percent, above 100 % too. */
		{ "busy_share", 1.494033599, "149.4 %" },
		{ "machine_busy_share", 0.5275, "52.75 %" },
		{ "busiest_worker_share", 0, "0 %" },
		{ "user_percent", 31.62, "31.62 %" },
	};
	/* No unit in the key: a count, a name, a word that merely ends in a unit's letters. */
	static const char *const plain[] = {
		"core_count", "mtu", "zone", "disc", "bus", "ms_count", "cpus", "", NULL,
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(bp_format_by_key(buf, sizeof(buf), cases[i].key, cases[i].v),
			  cases[i].want);
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		CHECK(bp_format_by_key(buf, sizeof(buf), plain[i], 1) == NULL);
	CHECK(bp_format_by_key(buf, sizeof(buf), "temp_c", NAN) == NULL);
}

/*
 * Units in leaves and table cells, columns unknown in every row left out (null, absent
 * or "unknown"), and a null among numbers keeps the column right-aligned.
 */
static void test_tree_units(void)
{
	json_t *v = json_loads("{\"total_bytes\": 1048576, \"count\": 3,"
			       " \"nics\": [{\"name\": \"eth0\", \"speed_mbps\": 1000,"
			       "   \"part\": \"unknown\", \"usb_speed_mbps\": null},"
			       "  {\"name\": \"wlan0\", \"speed_mbps\": null, \"part\": null}],"
			       " \"none\": [{\"a\": null}, {\"b\": \"unknown\"}]}", 0, NULL);
	char *out = NULL;

	CAPTURE(out, CHECK_INT(bp_text_tree(f_, v, 0), 0));
	CHECK_STR(out,
		  "total_bytes  1.00 MiB\n"
		  "count        3\n"
		  "\n"
		  "nics\n"
		  "  name    speed_mbps\n"
		  "  eth0   1000 Mbit/s\n"
		  "  wlan0      unknown\n"
		  "\n"
		  "none\n"
		  "  unknown\n");
	free(out);
	json_decref(v);
}

int main(void)
{
	test_double_exact();
	test_scalar_text();
	test_inline_text();
	test_clean();
	test_table();
	test_tree();
	test_format_by_key();
	test_tree_units();
	return tap_done();
}
