#include "board/os.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "board/cpu.h"
#include "board/jsonval.h"
#include "board/sysfs.h"

int bp_os_release_pretty(const char *line, char *out, size_t len)
{
	static const char key[] = "PRETTY_NAME=";
	const char *s = line + sizeof(key) - 1;
	size_t o = 0;
	char quote = 0;

	out[0] = '\0';
	if (strncmp(line, key, sizeof(key) - 1) != 0)
		return -ENOENT;
	if (*s == '"' || *s == '\'')
		quote = *s++;
	/* shell-style value: a backslash escapes the next character inside double quotes */
	for (; *s && *s != '\n' && o + 1 < len; s++) {
		if (quote && *s == quote)
			break;
		if (quote == '"' && *s == '\\' && s[1] && s[1] != '\n')
			s++;
		out[o++] = *s;
	}
	out[o] = '\0';
	bp_trim(out);
	return out[0] ? 0 : -ENODATA;
}

static void read_os_release(const char *root, struct bp_os_info *os)
{
	/* os-release(5): /etc first, /usr/lib as the fallback */
	static const char *const paths[] = { "/etc/os-release", "/usr/lib/os-release" };
	char line[512], *dist = os->distribution;

	for (size_t i = 0; i < 2 && !dist[0]; i++) {
		FILE *f = bp_sysfs_fopen(root, "%s", paths[i]);

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (bp_os_release_pretty(line, dist, sizeof(os->distribution)) == 0)
				break;
		}
		fclose(f);
	}
}

/* The name uname -m would print, from what the kernel says about the cores. */
static void arch_from_cpu(const struct bp_cpu_info *cpu, char *out, size_t len)
{
	const char *v = cpu ? strrchr(cpu->model_name, '(') : NULL;
	int64_t a = cpu && cpu->n_cores ? cpu->cores[0].architecture : BP_INT_UNKNOWN;
	size_t n;

	/* 32-bit ARM kernels end the model name with "(v7l)": uname -m is "armv7l" */
	if (v && v[1] == 'v') {
		n = strcspn(v + 1, ")");
		if (v[1 + n] == ')' && v[2 + n] == '\0' && n < 8) {
			snprintf(out, len, "arm%.*s", (int)n, v + 1);
			return;
		}
	}
	/*
	 * arm64 kernels print no model name, only "CPU architecture: 8". x86 is left to
	 * /proc/sys/kernel/arch or uname: cpuinfo cannot tell a 32-bit kernel from a 64-bit one.
	 */
	if (a == 8 || a == 9)
		bp_strlcpy(out, "aarch64", len);
}

static void read_arch(const char *root, const struct bp_cpu_info *cpu, struct bp_os_info *os)
{
	struct utsname u;

	if (bp_sysfs_str(root, os->arch, sizeof(os->arch), "/proc/sys/kernel/arch") == 0) {
		bp_strlcpy(os->arch_source, "proc", sizeof(os->arch_source));
		return;
	}
	arch_from_cpu(cpu, os->arch, sizeof(os->arch));
	if (os->arch[0]) {
		bp_strlcpy(os->arch_source, "cpuinfo", sizeof(os->arch_source));
		return;
	}
	/* only the real machine's uname describes the root we were given */
	if ((!root || strcmp(root, "/") == 0) && uname(&u) == 0) {
		bp_strlcpy(os->arch, u.machine, sizeof(os->arch));
		bp_strlcpy(os->arch_source, "uname", sizeof(os->arch_source));
	}
}

int bp_os_read(const char *root, const struct bp_cpu_info *cpu, struct bp_os_info *os)
{
	memset(os, 0, sizeof(*os));
	bp_sysfs_str(root, os->kernel_release, sizeof(os->kernel_release),
		     "/proc/sys/kernel/osrelease");
	bp_sysfs_str(root, os->kernel_version, sizeof(os->kernel_version),
		     "/proc/sys/kernel/version");
	bp_sysfs_str(root, os->hostname, sizeof(os->hostname), "/proc/sys/kernel/hostname");
	read_arch(root, cpu, os);
	read_os_release(root, os);
	return 0;
}

json_t *bp_os_to_json(const struct bp_os_info *os)
{
	json_t *o = json_object();

	bp_json_put(o, "kernel_release", bp_json_str_or_null(os->kernel_release));
	bp_json_put(o, "kernel_version", bp_json_str_or_null(os->kernel_version));
	bp_json_put(o, "arch", bp_json_str_or_null(os->arch));
	bp_json_put(o, "arch_source", bp_json_str_or_null(os->arch_source));
	bp_json_put(o, "distribution", bp_json_str_or_null(os->distribution));
	bp_json_put(o, "hostname", bp_json_str_or_null(os->hostname));
	return o;
}
