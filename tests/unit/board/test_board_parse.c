/* Pure parsers and tables of src/board: no files involved. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "board/arm_parts.h"
#include "board/board.h"
#include "board/cpu.h"
#include "board/cpu_features.h"
#include "board/cpulist.h"
#include "board/devpath.h"
#include "board/memory.h"
#include "board/mountinfo.h"
#include "board/os.h"
#include "board/sysfs.h"
#include "board/throttle.h"
#include "tap.h"

static void test_arm_parts(void)
{
	static const struct {
		unsigned impl, part;
		const char *name;
	} cases[] = {
		{ 0x41, 0xc07, "Cortex-A7" },	{ 0x41, 0xc08, "Cortex-A8" },
		{ 0x41, 0xc09, "Cortex-A9" },	{ 0x41, 0xc0f, "Cortex-A15" },
		{ 0x41, 0xd03, "Cortex-A53" },	{ 0x41, 0xd04, "Cortex-A35" },
		{ 0x41, 0xd05, "Cortex-A55" },	{ 0x41, 0xd07, "Cortex-A57" },
		{ 0x41, 0xd08, "Cortex-A72" },	{ 0x41, 0xd09, "Cortex-A73" },
		{ 0x41, 0xd0a, "Cortex-A75" },	{ 0x41, 0xd0b, "Cortex-A76" },
		{ 0x41, 0xd0c, "Neoverse-N1" },	{ 0x41, 0xd0d, "Cortex-A77" },
		{ 0x41, 0xd41, "Cortex-A78" },	{ 0x41, 0xd44, "Cortex-X1" },
		{ 0x41, 0xd46, "Cortex-A510" },	{ 0x41, 0xd47, "Cortex-A710" },
		{ 0x41, 0xd48, "Cortex-X2" },	{ 0x41, 0xd4b, "Cortex-A78C" },
		{ 0x41, 0xd80, "Cortex-A520" },	{ 0x42, 0x100, "Brahma-B53" },
		{ 0x51, 0x803, "Kryo-3XX-Silver" }, { 0x61, 0x023, "Firestorm-M1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(bp_arm_core_name(cases[i].impl, cases[i].part), cases[i].name);
	CHECK(bp_arm_core_name(0x41, 0xfff) == NULL);
	CHECK(bp_arm_core_name(0x99, 0xd08) == NULL);
	CHECK_STR(bp_arm_implementer_name(0x51), "Qualcomm");
	CHECK_STR(bp_arm_implementer_name(0x42), "Broadcom");
	CHECK(bp_arm_implementer_name(0x00) == NULL);
}

static void test_soc(void)
{
	static const struct {
		const char *compat, *soc;
	} cases[] = {
		{ "allwinner,sun7i-a20", "Allwinner A20" },
		{ "allwinner,sun8i-h2-plus", "Allwinner H2+" },
		{ "allwinner,sun8i-h3", "Allwinner H3" },
		{ "allwinner,sun50i-h616", "Allwinner H616" },
		{ "brcm,bcm2711", "Broadcom BCM2711" },
		{ "brcm,bcm2837", "Broadcom BCM2837" },
		{ "rockchip,rk3588", "Rockchip RK3588" },
		{ "amlogic,s905x", "Amlogic S905X" },
		{ "fsl,imx6q", "NXP i.MX6Q" },
		{ "amlogic,meson-gxl", NULL },
		{ "xunlong,orangepi-zero", NULL },
		{ "raspberrypi,4-model-b", NULL },
		{ "nocomma", NULL },
		{ ",x", NULL },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(bp_soc_from_compatible(cases[i].compat, buf, sizeof(buf)), cases[i].soc);
}

static void test_cpulist(void)
{
	CHECK_INT(bp_cpulist_count("0-3"), 4);
	CHECK_INT(bp_cpulist_count("0"), 1);
	CHECK_INT(bp_cpulist_count("0-1,4-7,9"), 7);
	CHECK_INT(bp_cpulist_count("0-3\n"), 4);
	CHECK(bp_cpulist_count("") < 0);
	CHECK(bp_cpulist_count("3-1") < 0);
	CHECK(bp_cpulist_count("0-banana") < 0);
	CHECK(bp_cpulist_count(NULL) < 0);
	CHECK(bp_cpulist_contains("0-1,4-7", 5));
	CHECK(!bp_cpulist_contains("0-1,4-7", 3));
	CHECK(!bp_cpulist_contains("junk", 0));
}

static void test_features(void)
{
	unsigned a53 = bp_cpu_features_parse("fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid");
	unsigned a72 = bp_cpu_features_parse("fp asimd evtstrm crc32 cpuid");
	unsigned x86 = bp_cpu_features_parse("fpu sse4_2 aes avx avx2 sha_ni pclmulqdq lm");
	json_t *j = bp_cpu_features_to_json(a53);

	CHECK(a53 & BP_CPU_AES && a53 & BP_CPU_PMULL && a53 & BP_CPU_SHA1 && a53 & BP_CPU_SHA2);
	CHECK(a53 & BP_CPU_NEON && a53 & BP_CPU_CRC32);
	CHECK(!(a72 & BP_CPU_AES) && a72 & BP_CPU_NEON);
	CHECK(x86 & BP_CPU_SHA_NI && x86 & BP_CPU_AVX2 && x86 & BP_CPU_PCLMUL);
	CHECK(!(x86 & BP_CPU_SHA1));
	/* "sha2" must not match inside "sha256" or the like */
	CHECK_INT(bp_cpu_features_parse("sha256 aesx"), 0);
	CHECK_INT(json_array_size(j), 6);
	CHECK_STR(json_string_value(json_array_get(j, 0)), "aes");
	json_decref(j);
}

static void test_summary(void)
{
	struct bp_cpu_core c[8];
	char buf[128];

	memset(c, 0, sizeof(c));
	for (int i = 0; i < 8; i++)
		strcpy(c[i].name, i < 4 ? "Cortex-A53" : "Cortex-A73");
	bp_cpu_summary(c, 8, buf, sizeof(buf));
	CHECK_STR(buf, "4x Cortex-A53 + 4x Cortex-A73");
	/* RK3399: two big then four little */
	for (int i = 0; i < 6; i++)
		strcpy(c[i].name, i < 2 ? "Cortex-A72" : "Cortex-A53");
	bp_cpu_summary(c, 6, buf, sizeof(buf));
	CHECK_STR(buf, "2x Cortex-A72 + 4x Cortex-A53");
	c[0].name[0] = c[1].name[0] = '\0';
	bp_cpu_summary(c, 6, buf, sizeof(buf));
	CHECK_STR(buf, "4x Cortex-A53");
	bp_cpu_summary(c, 0, buf, sizeof(buf));
	CHECK_STR(buf, "");
}

static void test_text_parsers(void)
{
	char buf[64];
	int64_t v;

	CHECK_INT(bp_zram_selected_algorithm("lzo lzo-rle lz4 [zstd] ", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "zstd");
	CHECK(bp_zram_selected_algorithm("lzo lz4", buf, sizeof(buf)) < 0);
	CHECK(bp_zram_selected_algorithm("[]", buf, sizeof(buf)) < 0);

	CHECK_INT(bp_os_release_pretty("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n", buf,
				       sizeof(buf)), 0);
	CHECK_STR(buf, "Debian GNU/Linux 12 (bookworm)");
	bp_os_release_pretty("PRETTY_NAME='Alpine Linux v3.20'", buf, sizeof(buf));
	CHECK_STR(buf, "Alpine Linux v3.20");
	bp_os_release_pretty("PRETTY_NAME=\"Say \\\"hi\\\"\"", buf, sizeof(buf));
	CHECK_STR(buf, "Say \"hi\"");
	bp_os_release_pretty("PRETTY_NAME=Plain", buf, sizeof(buf));
	CHECK_STR(buf, "Plain");
	CHECK(bp_os_release_pretty("NAME=\"Debian\"", buf, sizeof(buf)) < 0);
	CHECK(bp_os_release_pretty("PRETTY_NAME=\"\"", buf, sizeof(buf)) < 0);

	CHECK(bp_sysfs_parse_int(" 42\n", 10, &v) == 0 && v == 42);
	CHECK(bp_sysfs_parse_int("0x41", 0, &v) == 0 && v == 0x41);
	CHECK(bp_sysfs_parse_int("12x34", 10, &v) < 0 && v == BP_INT_UNKNOWN);
	CHECK(bp_sysfs_parse_int("", 10, &v) < 0);
	CHECK(bp_sysfs_parse_int("99999999999999999999999", 10, &v) < 0);
	strcpy(buf, " \t padded \n");
	CHECK_STR(bp_trim(buf), "padded");
}

static void test_mountinfo_line(void)
{
	struct bp_mount_info m;

	CHECK_INT(bp_mountinfo_parse_line("36 35 98:0 /mnt1 /mnt/with\\040space rw,noatime "
					  "master:1 shared:2 - ext3 /dev/root rw,errors=continue\n",
					  &m), 0);
	CHECK_INT(m.major, 98);
	CHECK_INT(m.minor, 0);
	CHECK_STR(m.mount_point, "/mnt/with space");
	CHECK_STR(m.fstype, "ext3");
	CHECK_STR(m.source, "/dev/root");
	CHECK(bp_mountinfo_parse_line("1 2 3\n", &m) < 0);
	CHECK(bp_mountinfo_parse_line("24 1 8:0 / / rw - \n", &m) < 0);
	CHECK(bp_mountinfo_parse_line("", &m) < 0);
}

static void test_time_in_state(void)
{
	struct bp_cpufreq_policy p;

	memset(&p, 0, sizeof(p));
	CHECK_INT(bp_time_in_state_parse("600000 100\n1500000 300\n", &p), 0);
	CHECK_INT(p.n_states, 2);
	CHECK_INT(p.states[1].khz, 1500000);
	/* clock_t ticks of 10 ms */
	CHECK_INT(p.states[1].time_ms, 3000);
	CHECK(bp_time_in_state_parse("600000 abc\n", &p) < 0);
	CHECK_INT(p.n_states, 0);
	CHECK(bp_time_in_state_parse("600000 1 2\n", &p) < 0);
	CHECK_INT(bp_time_in_state_parse("", &p), 0);
	CHECK_INT(p.n_states, 0);
}

static void test_bus(void)
{
	static const struct {
		const char *path;
		enum bp_bus bus;
	} cases[] = {
		{ "/sys/devices/platform/soc/1c14000.usb/usb1/1-1/1-1:1.0/host0/target0:0:0/"
		  "0:0:0:0/block/sda", BP_BUS_USB },
		{ "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-3/2-3:1.0/host6/target6:0:0/6:0:0:0/"
		  "block/sdb", BP_BUS_USB },
		{ "/sys/devices/platform/soc/1c0f000.mmc/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0",
		  BP_BUS_MMC },
		{ "/sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1",
		  BP_BUS_NVME },
		{ "/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1", BP_BUS_NVME },
		{ "/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda", BP_BUS_VIRTIO },
		{ "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda",
		  BP_BUS_SATA },
		{ "/sys/devices/pci0000:00/0000:00:10.0/host2/target2:0:0/2:0:0:0/block/sda",
		  BP_BUS_SCSI },
		{ "/sys/devices/pci0000:00/0000:00:1f.6/net/eno1", BP_BUS_PCI },
		{ "/sys/devices/platform/scb/fd580000.ethernet/net/eth0", BP_BUS_PLATFORM },
		{ "/sys/devices/virtual/net/docker0", BP_BUS_VIRTUAL },
		{ "/somewhere/else", BP_BUS_UNKNOWN },
	};
	char label[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(bp_bus_name(bp_devpath_bus(cases[i].path)), bp_bus_name(cases[i].bus));
	CHECK_INT(bp_devpath_bus(NULL), BP_BUS_UNKNOWN);
	bp_usb_speed_label(480, label, sizeof(label));
	CHECK_STR(label, "480M");
	bp_usb_speed_label(5000, label, sizeof(label));
	CHECK_STR(label, "5G");
	bp_usb_speed_label(1.5, label, sizeof(label));
	CHECK_STR(label, "1.5M");
	bp_usb_speed_label(NAN, label, sizeof(label));
	CHECK_STR(label, "unknown");
}

static void test_fw_bits(void)
{
	json_t *j = bp_fw_throttle_to_json(true, 0x80008);

	CHECK(json_is_true(json_object_get(j, "soft_temp_limit")));
	CHECK(json_is_true(json_object_get(j, "soft_temp_limit_occurred")));
	CHECK(json_is_false(json_object_get(j, "under_voltage")));
	CHECK_STR(json_string_value(json_object_get(j, "raw")), "0x80008");
	CHECK_STR(json_string_value(json_object_get(j, "state")), "throttling");
	json_decref(j);
	j = bp_fw_throttle_to_json(true, 0x20000);
	CHECK(json_is_true(json_object_get(j, "freq_capped_occurred")));
	CHECK(json_is_false(json_object_get(j, "freq_capped")));
	CHECK_STR(json_string_value(json_object_get(j, "state")), "throttled_since_boot");
	json_decref(j);
	j = bp_fw_throttle_to_json(false, 0);
	CHECK(json_is_null(json_object_get(j, "throttled")));
	CHECK(json_is_null(json_object_get(j, "state")));
	json_decref(j);
}

int main(void)
{
	test_arm_parts();
	test_soc();
	test_cpulist();
	test_features();
	test_summary();
	test_text_parsers();
	test_mountinfo_line();
	test_time_in_state();
	test_bus();
	test_fw_bits();
	return tap_done();
}
