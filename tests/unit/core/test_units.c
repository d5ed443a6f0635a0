/* Units as users type them: every accepted form, every rejected one, and the formatting. */
#include <errno.h>
#include <stdint.h>

#include "core/units.h"
#include "tap.h"

static void test_rates(void)
{
	static const struct { const char *in; double want; } ok[] = {
		{ "100M", 100e6 }, { "1.5G", 1.5e9 }, { "64k", 64e3 }, { "64K", 64e3 },
		{ "10m", 10e6 }, { "0", 0 }, { "1000", 1000 }, { "2.5t", 2.5e12 }, { ".5G", 0.5e9 },
	};
	static const char *const bad[] = { "", "M", "100X", "100MM", "1.5.5G", " 10M", "10M ",
					   "inf", "nan", "0x10", "100Mbit" };
	double v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK_INT(bp_parse_rate(ok[i].in, &v), 0);
		CHECK_NEAR(v, ok[i].want, ok[i].want * 1e-12);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(bp_parse_rate(bad[i], &v), -EINVAL);
	CHECK_INT(bp_parse_rate("-5M", &v), -ERANGE);
	CHECK_INT(bp_parse_rate("5000T", &v), -ERANGE);
}

static void test_sizes(void)
{
	static const struct { const char *in; uint64_t want; } ok[] = {
		{ "4096", 4096 }, { "16K", 16384 }, { "16k", 16384 }, { "16KiB", 16384 },
		{ "16KB", 16384 }, { "1G", 1ULL << 30 }, { "1GiB", 1ULL << 30 }, { "1.5M", 1572864 },
		{ "512B", 512 }, { "2T", 2ULL << 40 }, { "0", 0 },
	};
	static const char *const bad[] = { "", "K", "16X", "1.5", "16KiBB", "16 K", "16Ki B",
					   "-1K", "0.3K" };
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK_INT(bp_parse_size(ok[i].in, &v), 0);
		CHECK_INT(v, ok[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(bp_parse_size(bad[i], &v) < 0);
	CHECK_INT(bp_parse_size("-1K", &v), -ERANGE);
	CHECK_INT(bp_parse_size("9000P", &v), -ERANGE);
}

static void test_durations(void)
{
	static const struct { const char *in; uint64_t want; } ok[] = {
		{ "10", 10000000000ULL }, { "10s", 10000000000ULL }, { "500ms", 500000000ULL },
		{ "2m", 120000000000ULL }, { "1.5s", 1500000000ULL }, { "250us", 250000ULL },
		{ "1h", 3600000000000ULL }, { "0", 0 }, { "100ns", 100 },
	};
	static const char *const bad[] = { "", "s", "10x", "10 s", "10sec", "1e", "ms10" };
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK_INT(bp_parse_duration(ok[i].in, &v), 0);
		CHECK_INT(v, ok[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(bp_parse_duration(bad[i], &v), -EINVAL);
	CHECK_INT(bp_parse_duration("-1", &v), -ERANGE);
	CHECK_INT(bp_parse_duration("400d", &v), -EINVAL);
	CHECK_INT(bp_parse_duration("9000h", &v), -ERANGE);
}

static void test_ints(void)
{
	int64_t i;
	double d;

	CHECK_INT(bp_parse_int("42", &i), 0);
	CHECK_INT(i, 42);
	CHECK_INT(bp_parse_int("-7", &i), 0);
	CHECK_INT(i, -7);
	CHECK_INT(bp_parse_int("4x", &i), -EINVAL);
	CHECK_INT(bp_parse_int("", &i), -EINVAL);
	CHECK_INT(bp_parse_int(" 4", &i), -EINVAL);
	CHECK_INT(bp_parse_int("99999999999999999999", &i), -ERANGE);
	CHECK_INT(bp_parse_number("2.5", &d), 0);
	CHECK_NEAR(d, 2.5, 0);
	CHECK_INT(bp_parse_number("-0.5", &d), 0);
	CHECK_NEAR(d, -0.5, 0);
	CHECK_INT(bp_parse_number("nan", &d), -EINVAL);
}

static void test_formatting(void)
{
	char b[64];

	CHECK_STR(bp_format_rate(b, sizeof(b), 94.12e6), "94.1 Mbit/s");
	CHECK_STR(bp_format_rate(b, sizeof(b), 941e6), "941 Mbit/s");
	CHECK_STR(bp_format_rate(b, sizeof(b), 999.9e6), "1.00 Gbit/s");
	CHECK_STR(bp_format_rate(b, sizeof(b), 0), "0 bit/s");
	CHECK_STR(bp_format_bytes(b, sizeof(b), 16384), "16.0 KiB");
	CHECK_STR(bp_format_bytes(b, sizeof(b), 3.0 * (1 << 30)), "3.00 GiB");
	CHECK_STR(bp_format_bytes(b, sizeof(b), 512), "512 B");
	CHECK_STR(bp_format_byte_rate(b, sizeof(b), 0.74 * (1 << 20)), "758 KiB/s");
	CHECK_STR(bp_format_duration(b, sizeof(b), 1.5e6), "1.50 ms");
	CHECK_STR(bp_format_duration(b, sizeof(b), 850), "850 ns");
	CHECK_STR(bp_format_duration(b, sizeof(b), 12.3e3), "12.3 us");
	CHECK_STR(bp_format_duration(b, sizeof(b), 2.5e9), "2.50 s");
	CHECK_STR(bp_format_count(b, sizeof(b), 1488095), "1.49M");
	CHECK_STR(bp_format_value(b, sizeof(b), 2800, "op/s"), "2.80k op/s");
	CHECK_STR(bp_format_value(b, sizeof(b), 158, "op/s"), "158 op/s");
	CHECK_STR(bp_format_value(b, sizeof(b), 12.5, "percent"), "12.50 %");
	CHECK_STR(bp_format_value(b, sizeof(b), 17, "count"), "17");
	CHECK_STR(bp_format_value(b, sizeof(b), 0.0 / 0.0, "bit/s"), "n/a");
	/* A frame or request size as given: every Ethernet frame size, jumbo ones too. */
	CHECK_STR(bp_format_value(b, sizeof(b), 1518, "B"), "1518 B");
	CHECK_STR(bp_format_value(b, sizeof(b), 64, "B"), "64 B");
	CHECK_STR(bp_format_value(b, sizeof(b), 1024, "B"), "1024 B");
	CHECK_STR(bp_format_value(b, sizeof(b), 9216, "B"), "9216 B");
	CHECK_STR(bp_format_value(b, sizeof(b), 10239, "B"), "10239 B");
	/* Amounts and means stay measurements: three digits and a prefix. */
	CHECK_STR(bp_format_value(b, sizeof(b), 10240, "B"), "10.0 KiB");
	CHECK_STR(bp_format_value(b, sizeof(b), 1517.5, "B"), "1.48 KiB");
	CHECK_STR(bp_format_value(b, sizeof(b), 1173187500, "B"), "1.09 GiB");
	CHECK_STR(bp_format_bytes(b, sizeof(b), 1518), "1.48 KiB");
}

int main(void)
{
	test_rates();
	test_sizes();
	test_durations();
	test_ints();
	test_formatting();
	return tap_done();
}
