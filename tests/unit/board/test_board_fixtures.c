/*
 * The C API of src/board against fixture trees shaped like real boards
 * (tests/unit/fixtures/<board>: their /proc and /sys, only the files we read).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board/blockdev.h"
#include "board/board.h"
#include "board/cpu.h"
#include "board/cpu_features.h"
#include "board/cpufreq.h"
#include "board/memory.h"
#include "board/mountinfo.h"
#include "board/nic.h"
#include "board/os.h"
#include "board/sysfs.h"
#include "board/thermal.h"
#include "board/throttle.h"
#include "tap.h"

static char root[4096];

static const char *at(const char *fixtures, const char *board)
{
	snprintf(root, sizeof(root), "%s/%s", fixtures, board);
	return root;
}

static const struct bp_nic_info *nic_named(const struct bp_nic_info *n, int count,
					   const char *name)
{
	for (int i = 0; i < count; i++)
		if (strcmp(n[i].name, name) == 0)
			return &n[i];
	return NULL;
}

static void cubietruck(const char *r)
{
	struct bp_board_info b;
	struct bp_cpu_info cpu;
	struct bp_os_info os;

	bp_board_read(r, &b);
	CHECK_STR(b.model, "Cubietech Cubietruck");
	CHECK_STR(b.source, "device-tree");
	CHECK_STR(b.soc, "Allwinner A20");
	CHECK_INT(b.n_compatible, 2);
	CHECK_STR(b.compatible[0], "cubietech,cubietruck");

	CHECK_INT(bp_cpu_read(r, &cpu), 0);
	CHECK_INT(cpu.n_cores, 2);
	CHECK_STR(cpu.summary, "2x Cortex-A7");
	CHECK_STR(cpu.model_name, "ARMv7 Processor rev 4 (v7l)");
	CHECK_STR(cpu.hardware, "Allwinner sun7i (A20) Family");
	CHECK_STR(cpu.vendor, "ARM");
	CHECK_INT(cpu.n_online, 2);
	CHECK_INT(cpu.cores[1].part, 0xc07);
	CHECK_INT(cpu.cores[1].revision, 4);
	CHECK_INT(cpu.cores[1].architecture, 7);
	CHECK_INT(cpu.cores[1].online, 1);

	/* 6.1 has no /proc/sys/kernel/arch: derived from "(v7l)" */
	bp_os_read(r, &cpu, &os);
	CHECK_STR(os.arch, "armv7l");
	CHECK_STR(os.arch_source, "cpuinfo");
	CHECK_STR(os.kernel_release, "6.1.63-current-sunxi");
	CHECK_STR(os.distribution, "Armbian 23.11.1 bookworm");
	CHECK_STR(os.hostname, "cubietruck");
	bp_cpu_free(&cpu);
}

static void cubietruck_clocks(const char *r)
{
	struct bp_cpufreq_core f;
	struct bp_memory_info mem;
	struct bp_throttle_info t;

	/* both cores share policy0 through the cpuN/cpufreq symlink */
	CHECK_INT(bp_cpufreq_read(r, 1, &f), 0);
	CHECK_INT(f.cur_khz, 720000);
	CHECK_INT(f.scaling_min_khz, 480000);
	CHECK_INT(f.cpuinfo_min_khz, 144000);
	CHECK_INT(f.cpuinfo_max_khz, 960000);
	CHECK_STR(f.governor, "ondemand");
	CHECK_STR(f.driver, "cpufreq-dt");
	CHECK_INT(bp_cpufreq_cur_khz(r, 0), 720000);
	CHECK(bp_cpufreq_read(r, 7, &f) < 0);

	bp_memory_read(r, &mem);
	CHECK_INT(mem.total_bytes, 2042544LL * 1024);
	CHECK_INT(mem.available_bytes, 1738212LL * 1024);
	CHECK_INT(mem.swap_total_bytes, 1021268LL * 1024);
	CHECK_INT(mem.n_zram, 2);
	CHECK_STR(mem.zram[0].algorithm, "zstd");
	CHECK_INT(mem.zram[0].disksize_bytes, 1045778432);

	bp_throttle_read(r, &t);
	CHECK(!t.fw_available);
	CHECK_INT(t.n_policies, 1);
	CHECK_INT(t.policies[0].n_states, 7);
	CHECK_INT(t.policies[0].max_khz, 960000);
	/* (183412 + 9812 + 1530 + 802) of 243766 ticks below 960 MHz */
	CHECK_NEAR(t.policies[0].below_max_pct, 80.2, 0.001);
	bp_throttle_free(&t);
}

static void cubietruck_storage(const char *r)
{
	struct bp_blockdev_info bd;

	/* the USB stick: partition 8:1 of sda, USB 2.0 high speed */
	CHECK_INT(bp_blockdev_from_devnum(r, 8, 1, &bd), 0);
	CHECK_STR(bd.name, "sda");
	CHECK_STR(bd.partition, "sda1");
	CHECK_STR(bd.bus, "usb");
	CHECK_STR(bd.model, "Cruzer Blade");
	CHECK_STR(bd.vendor, "SanDisk");
	CHECK_NEAR(bd.usb_speed_mbps, 480, 0);
	CHECK_INT(bd.removable, 1);
	CHECK_INT(bd.rotational, 1);
	CHECK_INT(bd.size_bytes, 60063744LL * 512);
	CHECK_STR(bd.scheduler, "mq-deadline");
	CHECK_STR(bd.fstype, "vfat");
	CHECK_STR(bd.mount_point, "/mnt/usb stick");

	/* the SD card root filesystem */
	CHECK_INT(bp_blockdev_from_devnum(r, 179, 1, &bd), 0);
	CHECK_STR(bd.name, "mmcblk0");
	CHECK_STR(bd.bus, "mmc");
	CHECK_STR(bd.mmc.name, "SC32G");
	CHECK_STR(bd.mmc.type, "SD");
	CHECK_STR(bd.mmc.manfid, "0x000003");
	CHECK_STR(bd.mmc.oemid, "0x5344");
	CHECK_STR(bd.mmc.date, "08/2019");
	CHECK_STR(bd.model, "SC32G");
	CHECK(isnan(bd.usb_speed_mbps));
	CHECK_INT(bd.rotational, 0);
	CHECK_STR(bd.fstype, "ext4");
	CHECK_STR(bd.mount_point, "/");
	CHECK(bp_blockdev_from_devnum(r, 8, 9, &bd) < 0);
}

static void cubietruck_net(const char *r)
{
	struct bp_nic_info *n;
	int count = bp_nic_list(r, &n);
	const struct bp_nic_info *eth = nic_named(n, count, "eth0");
	const struct bp_nic_info *wl = nic_named(n, count, "wlan0");
	struct bp_thermal_zone *z;
	int nz = bp_thermal_read(r, &z);

	CHECK_INT(count, 2);
	CHECK(nic_named(n, count, "lo") == NULL);
	CHECK(eth && wl);
	if (eth && wl) {
		CHECK_STR(eth->driver, "dwmac-sunxi");
		CHECK_STR(eth->bus, "platform");
		CHECK_INT(eth->speed_mbps, 1000);
		CHECK_STR(eth->duplex, "full");
		CHECK_INT(eth->mtu, 1500);
		CHECK_INT(eth->carrier, 1);
		CHECK_STR(eth->mac, "02:c6:09:c2:3e:5f");
		CHECK_STR(wl->driver, "brcmfmac");
		CHECK_STR(wl->bus, "sdio");
		/* a radio's interface has its phy80211 link; the wired one none */
		CHECK(wl->wireless && !eth->wireless);
		CHECK_INT(wl->speed_mbps, BP_INT_UNKNOWN);
	}
	free(n);
	CHECK_INT(nz, 1);
	if (nz == 1) {
		CHECK_STR(z[0].type, "cpu-thermal");
		CHECK_NEAR(z[0].temp_c, 41.3, 1e-9);
	}
	free(z);
}

static void orangepi_zero(const char *r)
{
	struct bp_board_info b;
	struct bp_cpu_info cpu;
	struct bp_cpufreq_core f;
	struct bp_os_info os;
	struct bp_memory_info mem;
	struct bp_nic_info nic;
	struct bp_thermal_zone *z;

	bp_board_read(r, &b);
	CHECK_STR(b.model, "Xunlong Orange Pi Zero");
	CHECK_STR(b.soc, "Allwinner H2+");
	bp_cpu_read(r, &cpu);
	CHECK_STR(cpu.summary, "4x Cortex-A7");
	CHECK_INT(cpu.cores[3].revision, 5);
	CHECK_STR(cpu.hardware, "Allwinner sun8i Family");
	bp_os_read(r, &cpu, &os);
	CHECK_STR(os.arch, "armv7l");
	CHECK_STR(os.arch_source, "proc");
	bp_cpu_free(&cpu);
	bp_cpufreq_read(r, 3, &f);
	CHECK_STR(f.governor, "schedutil");
	CHECK_INT(f.cpuinfo_max_khz, 1008000);
	bp_memory_read(r, &mem);
	CHECK_INT(mem.total_bytes, 494852LL * 1024);
	CHECK_STR(mem.zram[0].algorithm, "lzo-rle");
	/* the H2+'s internal PHY: 100 Mb/s */
	CHECK_INT(bp_nic_read(r, "eth0", &nic), 0);
	CHECK_STR(nic.driver, "dwmac-sun8i");
	CHECK_INT(nic.speed_mbps, 100);
	CHECK_INT(bp_nic_read(r, "wlan0", &nic), 0);
	CHECK_STR(nic.driver, "xradio_wlan");
	CHECK_STR(nic.bus, "sdio");
	CHECK(nic.wireless);
	CHECK_STR(nic.operstate, "down");
	CHECK_INT(nic.carrier, -1);
	CHECK(bp_nic_read(r, "eth9", &nic) < 0);
	CHECK_INT(bp_thermal_read(r, &z), 1);
	CHECK_NEAR(z ? z[0].temp_c : NAN, 52.3, 1e-9);
	free(z);
}

static void rpi4(const char *r)
{
	struct bp_board_info b;
	struct bp_cpu_info cpu;
	struct bp_cpufreq_core f;
	struct bp_os_info os;
	struct bp_nic_info nic;
	struct bp_blockdev_info bd;
	uint32_t bits;

	bp_board_read(r, &b);
	CHECK_STR(b.model, "Raspberry Pi 4 Model B Rev 1.4");
	CHECK_STR(b.soc, "Broadcom BCM2711");
	bp_cpu_read(r, &cpu);
	CHECK_INT(cpu.n_cores, 4);
	CHECK_STR(cpu.summary, "4x Cortex-A72");
	CHECK_STR(cpu.cores[0].name, "Cortex-A72");
	CHECK_INT(cpu.cores[2].part, 0xd08);
	CHECK_INT(cpu.cores[2].architecture, 8);
	CHECK_STR(cpu.model_name, "");
	CHECK_STR(cpu.hardware, "BCM2835");
	/* BCM2711 lacks the ARMv8 crypto extensions: AES runs in software */
	CHECK(!(cpu.features & BP_CPU_AES));
	CHECK(cpu.features & BP_CPU_NEON && cpu.features & BP_CPU_CRC32);
	bp_os_read(r, &cpu, &os);
	CHECK_STR(os.arch, "aarch64");
	CHECK_STR(os.kernel_release, "6.6.51+rpt-rpi-v8");
	/* no /etc/os-release: /usr/lib/os-release is the fallback */
	CHECK_STR(os.distribution, "Debian GNU/Linux 12 (bookworm)");
	bp_cpu_free(&cpu);
	bp_cpufreq_read(r, 0, &f);
	CHECK_INT(f.cur_khz, 1800000);
	CHECK_INT(f.cpuinfo_min_khz, 600000);
	CHECK_STR(f.governor, "ondemand");

	CHECK_INT(bp_fw_throttled_read(r, &bits), 0);
	CHECK_INT(bits, 0x50005);

	bp_nic_read(r, "eth0", &nic);
	CHECK_STR(nic.driver, "bcmgenet");
	CHECK_INT(nic.speed_mbps, 1000);
	CHECK(isnan(nic.usb_speed_mbps));
	/* a USB 3 gigabit dongle on the VL805 */
	bp_nic_read(r, "eth1", &nic);
	CHECK_STR(nic.driver, "r8152");
	CHECK_STR(nic.bus, "usb");
	CHECK_NEAR(nic.usb_speed_mbps, 5000, 0);

	CHECK_INT(bp_blockdev_from_devnum(r, 179, 2, &bd), 0);
	CHECK_STR(bd.name, "mmcblk0");
	CHECK_STR(bd.partition, "mmcblk0p2");
	CHECK_STR(bd.mmc.name, "EB1QT");
	CHECK_INT(bd.partition_size_bytes, 60534784LL * 512);
	CHECK_STR(bd.mount_point, "/");
	CHECK_INT(bp_blockdev_from_devnum(r, 179, 1, &bd), 0);
	CHECK_STR(bd.fstype, "vfat");
	CHECK_STR(bd.mount_point, "/boot/firmware");
}

static void x86_pc(const char *r)
{
	struct bp_board_info b;
	struct bp_cpu_info cpu;
	struct bp_cpufreq_core f;
	struct bp_os_info os;
	struct bp_nic_info nic;

	bp_board_read(r, &b);
	CHECK_STR(b.model, "Dell Inc. OptiPlex 3050");
	CHECK_STR(b.source, "dmi");
	CHECK_STR(b.soc, "");
	CHECK_STR(b.dmi.board_name, "0JP3NX");
	CHECK_STR(b.dmi.bios_version, "1.25.0");
	bp_cpu_read(r, &cpu);
	CHECK_INT(cpu.n_cores, 4);
	CHECK_STR(cpu.model_name, "Intel(R) Core(TM) i5-7500T CPU @ 2.70GHz");
	CHECK_STR(cpu.vendor, "GenuineIntel");
	CHECK_STR(cpu.summary, "4x Intel(R) Core(TM) i5-7500T CPU @ 2.70GHz");
	CHECK_INT(cpu.cores[0].implementer, BP_INT_UNKNOWN);
	CHECK(cpu.features & BP_CPU_AES && cpu.features & BP_CPU_AVX2);
	CHECK(!(cpu.features & BP_CPU_SHA_NI));
	bp_os_read(r, &cpu, &os);
	CHECK_STR(os.arch, "x86_64");
	CHECK_STR(os.distribution, "Debian GNU/Linux 13 (trixie)");
	bp_cpu_free(&cpu);
	bp_cpufreq_read(r, 2, &f);
	CHECK_INT(f.cur_khz, 3100012);
	CHECK_STR(f.driver, "intel_pstate");
	CHECK_STR(f.governor, "powersave");

	bp_nic_read(r, "eno1", &nic);
	CHECK_STR(nic.driver, "e1000e");
	CHECK_STR(nic.bus, "pci");
	bp_nic_read(r, "docker0", &nic);
	CHECK_STR(nic.driver, "bridge");
	CHECK_STR(nic.bus, "virtual");
	CHECK_INT(nic.speed_mbps, BP_INT_UNKNOWN);
}

static void x86_storage(const char *r)
{
	struct bp_blockdev_info bd;
	struct bp_mount_info m;
	struct bp_throttle_info t;
	uint32_t bits;

	/* LVM root: dm-0 -> nvme0n1p3 -> nvme0n1 on the multipath subsystem */
	CHECK_INT(bp_blockdev_from_devnum(r, 254, 0, &bd), 0);
	CHECK_STR(bd.holder, "dm-0");
	CHECK_STR(bd.partition, "nvme0n1p3");
	CHECK_STR(bd.name, "nvme0n1");
	CHECK_STR(bd.bus, "nvme");
	CHECK_STR(bd.model, "Samsung SSD 970 EVO Plus 500GB");
	CHECK_STR(bd.scheduler, "none");
	CHECK_INT(bd.size_bytes, 976773168LL * 512);
	CHECK_STR(bd.mount_source, "/dev/mapper/optiplex--vg-root");
	CHECK_INT(bp_blockdev_from_devnum(r, 8, 1, &bd), 0);
	CHECK_STR(bd.bus, "sata");
	CHECK_STR(bd.model, "ST1000LM035-1RK1");
	CHECK_STR(bd.vendor, "ATA");
	CHECK_INT(bd.rotational, 1);

	/* tmpfs has no block device; mountinfo still names it */
	CHECK_INT(bp_mount_find(r, 0, 32, "/tmp/work", &m), 0);
	CHECK_STR(m.fstype, "tmpfs");
	CHECK_STR(m.mount_point, "/tmp");
	/* one disk mounted twice: the mount point that contains the path wins */
	CHECK_INT(bp_mount_find(r, 8, 1, "/var/www/site", &m), 0);
	CHECK_STR(m.mount_point, "/var/www");
	CHECK_INT(bp_mount_find(r, 8, 1, "/srv/data/x", &m), 0);
	CHECK_STR(m.mount_point, "/srv/data");
	CHECK(bp_mount_find(r, 0, 99, NULL, &m) < 0);

	/* intel_pstate keeps no time_in_state; not a Pi */
	bp_throttle_read(r, &t);
	CHECK_INT(t.n_policies, 4);
	CHECK_INT(t.policies[0].n_states, 0);
	CHECK_INT(t.policies[0].max_khz, 3300000);
	CHECK(isnan(t.policies[0].below_max_pct));
	CHECK(!t.fw_available);
	bp_throttle_free(&t);
	CHECK(bp_fw_throttled_read(r, &bits) < 0);
}

/* A throwaway root holding only /proc/cpuinfo with the given text. */
static int cpuinfo_root(char *dir, const char *text)
{
	char path[256];
	FILE *f;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void cpuinfo_root_remove(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
}

/* Linux 3.4 (sunxi legacy) printed the MIDR lines once, after all processors. */
static void legacy_cpuinfo(void)
{
	static const char text[] =
		"Processor\t: ARMv7 Processor rev 4 (v7l)\nprocessor\t: 0\n"
		"BogoMIPS\t: 1001.88\n\nprocessor\t: 1\nBogoMIPS\t: 1001.88\n\n"
		"Features\t: swp half thumb fastmult vfp edsp thumbee neon vfpv3 tls vfpv4 "
		"idiva idivt \nCPU implementer\t: 0x41\nCPU architecture: 7\n"
		"CPU variant\t: 0x0\nCPU part\t: 0xc07\nCPU revision\t: 4\n\n"
		"Hardware\t: sun7i\nRevision\t: 0000\nSerial\t\t: 1651660f0c43c8b2\n";
	char dir[] = "/tmp/bp-cpuinfo-XXXXXX";
	struct bp_cpu_info cpu;
	struct bp_os_info os;

	if (cpuinfo_root(dir, text) < 0) {
		CHECK(!"temporary root");
		return;
	}
	bp_cpu_read(dir, &cpu);
	CHECK_INT(cpu.n_cores, 2);
	CHECK_STR(cpu.summary, "2x Cortex-A7");
	CHECK_STR(cpu.model_name, "ARMv7 Processor rev 4 (v7l)");
	CHECK_STR(cpu.hardware, "sun7i");
	CHECK_INT(cpu.cores[0].revision, 4);
	bp_os_read(dir, &cpu, &os);
	CHECK_STR(os.arch, "armv7l");
	bp_cpu_free(&cpu);
	cpuinfo_root_remove(dir);
}

/* An Amlogic S922X (Odroid N2): two little cores, then four big ones. */
static void big_little_cpuinfo(void)
{
	char text[2048], dir[] = "/tmp/bp-cpuinfo-XXXXXX";
	struct bp_cpu_info cpu;
	size_t off = 0;

	for (int i = 0; i < 6; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"processor\t: %d\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd "
					"evtstrm aes pmull sha1 sha2 crc32 cpuid\nCPU implementer\t: "
					"0x41\nCPU architecture: 8\nCPU variant\t: 0x%d\nCPU part\t: "
					"0x%s\nCPU revision\t: %d\n\n", i, i < 2 ? 0 : 2,
					i < 2 ? "d03" : "d09", i < 2 ? 4 : 2);
	if (cpuinfo_root(dir, text) < 0) {
		CHECK(!"temporary root");
		return;
	}
	bp_cpu_read(dir, &cpu);
	CHECK_INT(cpu.n_cores, 6);
	CHECK_STR(cpu.summary, "2x Cortex-A53 + 4x Cortex-A73");
	CHECK_INT(cpu.cores[5].variant, 2);
	CHECK(cpu.features & BP_CPU_AES && cpu.features & BP_CPU_PMULL);
	bp_cpu_free(&cpu);
	cpuinfo_root_remove(dir);
}

int main(int argc, char **argv)
{
	const char *fx = argc > 1 ? argv[1] : "tests/unit/fixtures";

	cubietruck(at(fx, "cubietruck"));
	cubietruck_clocks(at(fx, "cubietruck"));
	cubietruck_storage(at(fx, "cubietruck"));
	cubietruck_net(at(fx, "cubietruck"));
	orangepi_zero(at(fx, "orangepi-zero"));
	rpi4(at(fx, "rpi4"));
	x86_pc(at(fx, "x86-pc"));
	x86_storage(at(fx, "x86-pc"));
	legacy_cpuinfo();
	big_little_cpuinfo();
	return tap_done();
}
