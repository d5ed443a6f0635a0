/*
 * bp_inventory_collect as `boardperf info --json` shows it: decoded values per fixture
 * board, the same keys everywhere (null where absent, never the word "unknown"), an empty
 * root, a tree of damaged files, and the real machine.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board/inventory.h"
#include "tap.h"

/* Value at a dotted path: "cpu.cores.0.name". */
static json_t *jget(json_t *j, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); j && k; k = strtok_r(NULL, ".", &save))
		j = json_is_array(j) ? json_array_get(j, strtoul(k, NULL, 10)) :
				       json_object_get(j, k);
	return j;
}

static const char *jstr(json_t *j, const char *path)
{
	return json_string_value(jget(j, path));
}

static long long jint(json_t *j, const char *path)
{
	json_t *v = jget(j, path);

	return json_is_integer(v) ? json_integer_value(v) : -999999;
}

static int jnull(json_t *j, const char *path)
{
	return json_is_null(jget(j, path));
}

static json_t *collect(const char *fixtures, const char *board, const char *dir)
{
	char root[4096];

	snprintf(root, sizeof(root), "%s/%s", fixtures, board);
	return bp_inventory_collect(root, dir);
}

static const char *kind(const json_t *v)
{
	return !v ? "nothing" : json_is_array(v) ? "an array" : json_is_object(v) ? "an object" :
	       "a scalar";
}

/*
 * Every object in want has the same keys in got, recursively; arrays by their first entry.
 * A container must stay one (else every key under it would go unchecked); a null in want
 * is a value the reference board lacks, so it says nothing about got's shape.
 */
static int same_shape(json_t *want, json_t *got, const char *where)
{
	const char *key;
	json_t *w;
	int ok = 1;

	if (json_is_null(want))
		return 1;
	if (json_is_array(want) != json_is_array(got) ||
	    json_is_object(want) != json_is_object(got)) {
		printf("# %s: %s where the reference has %s\n", where, kind(got), kind(want));
		return 0;
	}
	if (json_is_array(want))
		return !json_array_size(want) || !json_array_size(got) ||
		       same_shape(json_array_get(want, 0), json_array_get(got, 0), where);
	if (!json_is_object(want))
		return 1;
	json_object_foreach(want, key, w) {
		json_t *g = json_object_get(got, key);

		if (!g) {
			printf("# %s: missing key %s\n", where, key);
			ok = 0;
		} else {
			ok &= same_shape(w, g, key);
		}
	}
	return ok && json_object_size(want) == json_object_size(got);
}

/*
 * The JSON contract (docs/json.md, "JSON result contract"): an unknown value is null. A
 * string "unknown" anywhere (a label, a kernel's word copied through) would make scripts test
 * for a magic word; names the path.
 */
static int no_unknown_word(json_t *v, const char *where)
{
	const char *key;
	json_t *item;
	size_t i;
	int ok = 1;

	if (json_is_string(v) && !strcmp(json_string_value(v), "unknown")) {
		printf("# %s: the string \"unknown\" where null is the contract\n", where);
		return 0;
	}
	if (json_is_array(v))
		json_array_foreach(v, i, item)
			ok &= no_unknown_word(item, where);
	json_object_foreach(v, key, item)
		ok &= no_unknown_word(item, key);
	return ok;
}

static const char *const top_keys[] = {
	"board", "cpu", "thermal", "memory", "os", "nics", "storage", "throttle", "clock",
};

static void check_top_keys(json_t *j)
{
	int ok = json_is_object(j);

	for (size_t i = 0; ok && i < sizeof(top_keys) / sizeof(top_keys[0]); i++)
		ok = json_object_get(j, top_keys[i]) != NULL;
	CHECK(ok);
}

static void rpi4(json_t *j)
{
	CHECK_STR(jstr(j, "board.model"), "Raspberry Pi 4 Model B Rev 1.4");
	CHECK_STR(jstr(j, "board.soc"), "Broadcom BCM2711");
	CHECK(jnull(j, "board.dmi.sys_vendor"));
	CHECK_STR(jstr(j, "cpu.summary"), "4x Cortex-A72");
	CHECK(jnull(j, "cpu.model_name"));
	CHECK_INT(jint(j, "cpu.online_count"), 4);
	CHECK(json_is_false(jget(j, "cpu.crypto_extensions")));
	CHECK_STR(jstr(j, "cpu.cores.3.name"), "Cortex-A72");
	CHECK_STR(jstr(j, "cpu.cores.3.part"), "0xd08");
	CHECK_STR(jstr(j, "cpu.cores.3.implementer"), "0x41");
	CHECK_INT(jint(j, "cpu.cores.3.cur_khz"), 1800000);
	CHECK_INT(jint(j, "cpu.cores.3.cpuinfo_max_khz"), 1800000);
	CHECK_STR(jstr(j, "cpu.cores.3.governor"), "ondemand");
	CHECK_NEAR(json_real_value(jget(j, "thermal.0.temp_c")), 48.7, 1e-9);
	CHECK_INT(jint(j, "memory.total_bytes"), 3882508LL * 1024);
	CHECK_INT(json_array_size(jget(j, "memory.zram")), 0);
	CHECK_STR(jstr(j, "os.arch"), "aarch64");
	CHECK_STR(jstr(j, "nics.0.name"), "eth0");
	CHECK_STR(jstr(j, "nics.0.duplex"), "full");
	CHECK_INT(jint(j, "nics.0.speed_mbps"), 1000);
	CHECK_STR(jstr(j, "nics.1.usb_speed"), "5G");
	CHECK_INT(jint(j, "nics.1.usb_speed_mbps"), 5000);
	CHECK(jnull(j, "nics.2.speed_mbps"));
	CHECK(jnull(j, "storage"));
	CHECK_STR(jstr(j, "throttle.firmware.raw"), "0x50005");
	CHECK(json_is_true(jget(j, "throttle.firmware.under_voltage")));
	CHECK(json_is_true(jget(j, "throttle.firmware.throttled_occurred")));
	CHECK(json_is_false(jget(j, "throttle.firmware.freq_capped")));
	CHECK_INT(jint(j, "throttle.cpufreq_policies.0.max_khz"), 1800000);
	CHECK_INT(json_array_size(jget(j, "throttle.cpufreq_policies.0.cpus")), 4);
	CHECK_INT(json_array_size(jget(j, "throttle.cpufreq_policies.0.time_in_state")), 13);
}

static void boards(const char *fx)
{
	json_t *ref = collect(fx, "rpi4", NULL);
	json_t *j;

	check_top_keys(ref);
	rpi4(ref);
	CHECK(no_unknown_word(ref, "rpi4"));

	j = collect(fx, "cubietruck", NULL);
	CHECK(same_shape(ref, j, "cubietruck"));
	CHECK(no_unknown_word(j, "cubietruck"));
	CHECK_STR(jstr(j, "board.soc"), "Allwinner A20");
	CHECK_STR(jstr(j, "cpu.summary"), "2x Cortex-A7");
	CHECK_STR(jstr(j, "nics.0.driver"), "dwmac-sunxi");
	CHECK(jnull(j, "throttle.firmware.state"));
	CHECK(jnull(j, "throttle.firmware.under_voltage"));
	json_decref(j);

	j = collect(fx, "orangepi-zero", NULL);
	CHECK(same_shape(ref, j, "orangepi-zero"));
	CHECK(no_unknown_word(j, "orangepi-zero"));
	CHECK_STR(jstr(j, "board.soc"), "Allwinner H2+");
	CHECK_INT(jint(j, "nics.0.speed_mbps"), 100);
	CHECK_STR(jstr(j, "nics.1.driver"), "xradio_wlan");
	CHECK_STR(jstr(j, "memory.zram.0.algorithm"), "lzo-rle");
	json_decref(j);

	j = collect(fx, "x86-pc", NULL);
	CHECK(same_shape(ref, j, "x86-pc"));
	CHECK(no_unknown_word(j, "x86-pc"));
	CHECK_STR(jstr(j, "board.model"), "Dell Inc. OptiPlex 3050");
	CHECK_STR(jstr(j, "board.model_source"), "dmi");
	CHECK(jnull(j, "board.soc"));
	CHECK(json_is_true(jget(j, "cpu.crypto_extensions")));
	CHECK(jnull(j, "cpu.cores.0.implementer"));
	CHECK_STR(jstr(j, "cpu.cores.1.driver"), "intel_pstate");
	CHECK_STR(jstr(j, "thermal.1.type"), "x86_pkg_temp");
	CHECK_STR(jstr(j, "nics.0.name"), "docker0");
	CHECK_STR(jstr(j, "nics.1.driver"), "e1000e");
	CHECK(jnull(j, "throttle.cpufreq_policies.0.below_max_pct"));
	json_decref(j);
	json_decref(ref);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* An empty root: every field present, unknown or null, and no crash. */
static void empty_root(const char *fx)
{
	char dir[] = "/tmp/bp-empty-root-XXXXXX";
	json_t *ref = collect(fx, "rpi4", NULL), *j;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	j = bp_inventory_collect(dir, "/nonexistent/path/for/boardperf");
	check_top_keys(j);
	CHECK(no_unknown_word(j, "empty root"));
	CHECK(same_shape(json_object_get(ref, "board"), json_object_get(j, "board"), "board"));
	CHECK(same_shape(json_object_get(ref, "cpu"), json_object_get(j, "cpu"), "cpu"));
	CHECK(same_shape(json_object_get(ref, "os"), json_object_get(j, "os"), "os"));
	CHECK(same_shape(json_object_get(ref, "memory"), json_object_get(j, "memory"), "memory"));
	CHECK(same_shape(json_object_get(ref, "throttle"), json_object_get(j, "throttle"), "thr"));
	CHECK(jnull(j, "board.model"));
	CHECK(jnull(j, "cpu.summary"));
	CHECK_INT(jint(j, "cpu.core_count"), 0);
	CHECK(jnull(j, "cpu.online_count"));
	CHECK(jnull(j, "cpu.crypto_extensions"));
	CHECK(jnull(j, "memory.total_bytes"));
	CHECK(jnull(j, "os.kernel_release"));
	CHECK(jnull(j, "os.distribution"));
	CHECK_INT(json_array_size(jget(j, "nics")), 0);
	CHECK_INT(json_array_size(jget(j, "thermal")), 0);
	CHECK_STR(jstr(j, "storage.path"), "/nonexistent/path/for/boardperf");
	CHECK(jnull(j, "storage.bus"));
	CHECK(jnull(j, "storage.size_bytes"));
	CHECK(jnull(j, "storage.is_block_device"));
	CHECK(jnull(j, "throttle.firmware.state"));
	/* no kernel below a tree: the clock's facts unknown, no daemon */
	CHECK(same_shape(json_object_get(ref, "clock"), json_object_get(j, "clock"), "clock"));
	CHECK(jnull(j, "clock.synchronized"));
	CHECK(jnull(j, "clock.maxerror_us"));
	CHECK_INT(json_array_size(jget(j, "clock.daemons")), 0);
	json_decref(j);
	json_decref(ref);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Garbage numbers and truncated lines read as unknown, never as values. */
static void corrupt(const char *fx)
{
	json_t *j = collect(fx, "corrupt", NULL);

	check_top_keys(j);
	CHECK(no_unknown_word(j, "corrupt"));
	CHECK(jnull(j, "board.model"));
	CHECK_INT(json_array_size(jget(j, "board.compatible")), 0);
	CHECK(jnull(j, "cpu.online"));
	CHECK(jnull(j, "cpu.online_count"));
	CHECK(jnull(j, "cpu.cores.0.part"));
	CHECK(jnull(j, "cpu.cores.0.revision"));
	CHECK(jnull(j, "cpu.cores.0.cur_khz"));
	CHECK(jnull(j, "cpu.cores.0.scaling_max_khz"));
	CHECK(jnull(j, "cpu.cores.0.cpuinfo_max_khz"));
	CHECK(jnull(j, "cpu.cores.0.governor"));
	CHECK(jnull(j, "thermal.0.temp_c"));
	CHECK(jnull(j, "thermal.1.temp_c"));
	CHECK(jnull(j, "memory.total_bytes"));
	CHECK(jnull(j, "memory.available_bytes"));
	CHECK(jnull(j, "memory.swap_total_bytes"));
	CHECK(jnull(j, "memory.swap_free_bytes"));
	CHECK(jnull(j, "memory.zram.0.disksize_bytes"));
	CHECK(jnull(j, "memory.zram.0.algorithm"));
	CHECK(jnull(j, "os.kernel_release"));
	CHECK(jnull(j, "os.distribution"));
	CHECK(jnull(j, "nics.0.speed_mbps"));
	CHECK(jnull(j, "nics.0.mtu"));
	CHECK(jnull(j, "nics.0.carrier"));
	CHECK(jnull(j, "nics.0.duplex"));
	CHECK(jnull(j, "throttle.firmware.state"));
	CHECK_INT(json_array_size(jget(j, "throttle.cpufreq_policies.0.time_in_state")), 0);
	json_decref(j);
}

/* The real machine: whatever it is, every top-level key is there. */
static void real_machine(void)
{
	char cwd[4096];
	json_t *j = bp_inventory_collect("/", getcwd(cwd, sizeof(cwd)) ? cwd : "/");
	json_t *tmp = bp_inventory_collect("/", "/dev/shm");
	char *text = json_dumps(j, 0);

	check_top_keys(j);
	CHECK(json_is_string(jget(j, "os.kernel_release")));
	CHECK(json_is_string(jget(j, "os.arch")));
	CHECK(jint(j, "cpu.core_count") >= 1);
	CHECK(json_is_string(jget(j, "storage.description")));
	CHECK(json_is_string(jget(tmp, "storage.fstype")));
	CHECK(text && text[0] == '{');
	printf("# real machine: %s\n", jstr(j, "cpu.summary"));
	free(text);
	json_decref(tmp);
	json_decref(j);
}

int main(int argc, char **argv)
{
	const char *fx = argc > 1 ? argv[1] : "tests/unit/fixtures";

	boards(fx);
	empty_root(fx);
	corrupt(fx);
	real_machine();
	return tap_done();
}
