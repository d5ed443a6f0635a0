#include "board/inventory.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board/blockdev.h"
#include "board/board.h"
#include "board/clock_sync.h"
#include "board/cpu.h"
#include "board/cpufreq.h"
#include "board/gpio_chips.h"
#include "board/jsonval.h"
#include "board/memory.h"
#include "board/nic.h"
#include "board/nic_entry.h"
#include "board/nic_links.h"
#include "board/os.h"
#include "board/sysfs.h"
#include "board/thermal.h"
#include "board/throttle.h"

/* The cpu object with each core's clocks and governor merged into its entry. */
static json_t *cpu_json(const char *root, const struct bp_cpu_info *cpu)
{
	json_t *o = bp_cpu_to_json(cpu);
	json_t *cores = json_object_get(o, "cores");

	for (int i = 0; i < cpu->n_cores; i++) {
		struct bp_cpufreq_core f;
		json_t *freq;

		bp_cpufreq_read(root, cpu->cores[i].cpu, &f);
		freq = bp_cpufreq_to_json(&f);
		json_object_update(json_array_get(cores, (size_t)i), freq);
		json_decref(freq);
	}
	return o;
}

static json_t *os_json(const char *root, const struct bp_cpu_info *cpu)
{
	struct bp_os_info os;

	bp_os_read(root, cpu, &os);
	return bp_os_to_json(&os);
}

static json_t *memory_json(const char *root)
{
	struct bp_memory_info mem;

	bp_memory_read(root, &mem);
	return bp_memory_to_json(&mem);
}

static json_t *nics_json(const char *root)
{
	struct bp_nic_links links = { 0 };
	struct bp_nic_info *nics;
	int n = bp_nic_list(root, &nics);
	json_t *a = json_array();
	/* the kernel is asked only on the real machine: a saved tree has no NIC to ask */
	int sock = strcmp(root, "/") ? -1 : socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (sock >= 0)
		bp_nic_links_read(&links);	/* empty when it fails: the facts read null */
	for (int i = 0; i < n; i++)
		json_array_append_new(a, bp_nic_entry_json(&nics[i], sock, &links));
	if (sock >= 0)
		close(sock);
	bp_nic_links_free(&links);
	free(nics);
	return a;
}

static json_t *thermal_json(const char *root)
{
	struct bp_thermal_zone *zones;
	int n = bp_thermal_read(root, &zones);
	json_t *a = bp_thermal_to_json(zones, n);

	free(zones);
	return a;
}

static json_t *clock_json(const char *root)
{
	struct bp_clock_sync c;

	bp_clock_sync_read(root, &c);
	return bp_clock_sync_to_json(&c);
}

static json_t *throttle_json(const char *root)
{
	struct bp_throttle_info t;
	json_t *o;

	bp_throttle_read(root, &t);
	o = bp_throttle_to_json(&t);
	bp_throttle_free(&t);
	return o;
}

/* null without dir, so the key is always there for scripts to test */
static json_t *storage_json(const char *root, const char *dir)
{
	struct bp_blockdev_info b;

	if (!dir)
		return json_null();
	/* a path we cannot stat still gets the full, all-unknown shape */
	if (bp_blockdev_for_path(root, dir, &b) < 0)
		bp_strlcpy(b.path, dir, sizeof(b.path));
	return bp_blockdev_to_json(&b);
}

json_t *bp_inventory_collect(const char *root, const char *dir)
{
	struct bp_board_info board;
	struct bp_cpu_info cpu;
	json_t *o = json_object();

	if (!root || !*root)
		root = "/";
	bp_board_read(root, &board);
	bp_cpu_read(root, &cpu);
	bp_json_put(o, "board", bp_board_to_json(&board));
	bp_json_put(o, "cpu", cpu_json(root, &cpu));
	bp_json_put(o, "thermal", thermal_json(root));
	bp_json_put(o, "memory", memory_json(root));
	bp_json_put(o, "os", os_json(root, &cpu));
	bp_json_put(o, "nics", nics_json(root));
	bp_json_put(o, "storage", storage_json(root, dir));
	bp_json_put(o, "throttle", throttle_json(root));
	/* the clock's synchronisation: what a figure across two machines' clocks rests on */
	bp_json_put(o, "clock", clock_json(root));
	/* the GPIO chips: [{"name", "label", "lines"}], [] without gpiolib (board/gpio_chips.h) */
	bp_json_put(o, "gpio", bp_gpio_inventory_json(root));
	bp_cpu_free(&cpu);
	return o;
}
