#include "board/throttle.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/sysfs.h"

#define POLICY "/sys/devices/system/cpu/cpufreq/%s/"

/* Share of time below the top state; idle time at low clocks counts too. */
static void derive(struct bp_cpufreq_policy *p)
{
	int64_t total = 0, below = 0;

	p->below_max_pct = NAN;
	if (p->n_states)
		p->max_khz = p->states[0].khz;
	for (int i = 1; i < p->n_states; i++)
		if (p->states[i].khz > p->max_khz)
			p->max_khz = p->states[i].khz;
	for (int i = 0; i < p->n_states; i++) {
		total += p->states[i].time_ms;
		if (p->states[i].khz < p->max_khz)
			below += p->states[i].time_ms;
	}
	if (total > 0)
		p->below_max_pct = round(1000.0 * (double)below / (double)total) / 10.0;
}

int bp_time_in_state_parse(const char *text, struct bp_cpufreq_policy *p)
{
	const char *s = text;

	p->n_states = 0;
	while (*s) {
		long long khz, ticks;
		int used = 0;

		s += strspn(s, " \t\n");
		if (!*s)
			break;
		if (sscanf(s, "%lld %lld%n", &khz, &ticks, &used) != 2 || khz <= 0 || ticks < 0 ||
		    ticks > INT64_MAX / 10 || (s[used] && s[used] != '\n') ||
		    p->n_states == BP_THROTTLE_MAX_STATES) {
			p->n_states = 0;
			return -EINVAL;
		}
		/* the kernel counts in clock_t, USER_HZ = 100 on every Linux architecture */
		p->states[p->n_states++] = (struct bp_freq_state){ khz, ticks * 10 };
		s += used;
	}
	return 0;
}

int bp_cpufreq_policy_read(const char *root, const char *name, struct bp_cpufreq_policy *p)
{
	char text[4096];
	int64_t v;

	memset(p, 0, sizeof(*p));
	p->max_khz = BP_INT_UNKNOWN;
	p->below_max_pct = NAN;
	bp_strlcpy(p->name, name, sizeof(p->name));
	if (!bp_sysfs_exists(root, POLICY, name))
		return -ENOENT;
	bp_sysfs_str(root, p->cpus, sizeof(p->cpus), POLICY "related_cpus", name);
	if (bp_sysfs_raw(root, text, sizeof(text), POLICY "stats/time_in_state", name) > 0)
		bp_time_in_state_parse(text, p);
	if (bp_sysfs_int(root, &v, POLICY "cpuinfo_max_freq", name) == 0 && v > 0)
		p->max_khz = v;
	derive(p);
	return 0;
}

/* Raspberry Pi kernels put the firmware node under the SoC bus: soc/soc:firmware. */
static int find_fw_file(const char *root, char *path, size_t len)
{
	char **names;
	int n, ret = -ENOENT;

	snprintf(path, len, "/sys/devices/platform/soc/soc:firmware/get_throttled");
	if (bp_sysfs_exists(root, "%s", path))
		return 0;
	/* other bus node names (soc@..., axi) follow the same "<bus>/<bus>:firmware" shape */
	n = bp_sysfs_list(root, "", &names, "/sys/devices/platform");
	for (int i = 0; i < n && ret; i++) {
		snprintf(path, len, "/sys/devices/platform/%s/%s:firmware/get_throttled",
			 names[i], names[i]);
		if (bp_sysfs_exists(root, "%s", path))
			ret = 0;
	}
	if (n > 0)
		bp_sysfs_names_free(names, n);
	return ret;
}

int bp_fw_throttled_read(const char *root, uint32_t *bits)
{
	char path[512], buf[32];
	int64_t v;
	int ret;

	*bits = 0;
	ret = find_fw_file(root, path, sizeof(path));
	if (ret < 0)
		return ret;
	/* printed with "%x": hex without the 0x */
	ret = bp_sysfs_str(root, buf, sizeof(buf), "%s", path);
	if (ret < 0)
		return ret;
	if (bp_sysfs_parse_int(buf, 16, &v) < 0 || v < 0 || v > UINT32_MAX)
		return -EINVAL;
	*bits = (uint32_t)v;
	return 0;
}

int bp_throttle_read(const char *root, struct bp_throttle_info *t)
{
	char **names;
	int n;

	memset(t, 0, sizeof(*t));
	t->fw_available = bp_fw_throttled_read(root, &t->fw_bits) == 0;
	n = bp_sysfs_list(root, "policy", &names, "/sys/devices/system/cpu/cpufreq");
	if (n <= 0)
		return 0;
	t->policies = calloc((size_t)n, sizeof(*t->policies));
	for (int i = 0; t->policies && i < n; i++)
		if (bp_cpufreq_policy_read(root, names[i], &t->policies[t->n_policies]) == 0)
			t->n_policies++;
	bp_sysfs_names_free(names, n);
	return t->policies ? 0 : -ENOMEM;
}

void bp_throttle_free(struct bp_throttle_info *t)
{
	free(t->policies);
	t->policies = NULL;
	t->n_policies = 0;
}
