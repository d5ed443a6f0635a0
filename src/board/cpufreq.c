#include "board/cpufreq.h"

#include <errno.h>
#include <string.h>

#include "board/jsonval.h"
#include "board/sysfs.h"

#define CPUFREQ "/sys/devices/system/cpu/cpu%d/cpufreq/"

/* kHz values are positive; zero or negative means a broken file, not a clock. */
static int64_t khz(const char *root, int cpu, const char *file)
{
	int64_t v;

	if (bp_sysfs_int(root, &v, CPUFREQ "%s", cpu, file) < 0 || v <= 0)
		return BP_INT_UNKNOWN;
	return v;
}

int64_t bp_cpufreq_cur_khz(const char *root, int cpu)
{
	int64_t v = khz(root, cpu, "scaling_cur_freq");

	/* cpuinfo_cur_freq asks the hardware but is readable by root only */
	return v != BP_INT_UNKNOWN ? v : khz(root, cpu, "cpuinfo_cur_freq");
}

int bp_cpufreq_read(const char *root, int cpu, struct bp_cpufreq_core *f)
{
	memset(f, 0, sizeof(*f));
	f->cpu = cpu;
	f->cur_khz = bp_cpufreq_cur_khz(root, cpu);
	f->scaling_min_khz = khz(root, cpu, "scaling_min_freq");
	f->scaling_max_khz = khz(root, cpu, "scaling_max_freq");
	f->cpuinfo_min_khz = khz(root, cpu, "cpuinfo_min_freq");
	f->cpuinfo_max_khz = khz(root, cpu, "cpuinfo_max_freq");
	bp_sysfs_str(root, f->governor, sizeof(f->governor), CPUFREQ "scaling_governor", cpu);
	bp_sysfs_str(root, f->driver, sizeof(f->driver), CPUFREQ "scaling_driver", cpu);
	return bp_sysfs_exists(root, "/sys/devices/system/cpu/cpu%d/cpufreq", cpu) ? 0 : -ENOENT;
}

json_t *bp_cpufreq_to_json(const struct bp_cpufreq_core *f)
{
	json_t *o = json_object();

	bp_json_put(o, "cur_khz", bp_json_int_or_null(f->cur_khz));
	bp_json_put(o, "scaling_min_khz", bp_json_int_or_null(f->scaling_min_khz));
	bp_json_put(o, "scaling_max_khz", bp_json_int_or_null(f->scaling_max_khz));
	bp_json_put(o, "cpuinfo_min_khz", bp_json_int_or_null(f->cpuinfo_min_khz));
	bp_json_put(o, "cpuinfo_max_khz", bp_json_int_or_null(f->cpuinfo_max_khz));
	bp_json_put(o, "governor", bp_json_str_or_null(f->governor));
	bp_json_put(o, "driver", bp_json_str_or_null(f->driver));
	return o;
}
