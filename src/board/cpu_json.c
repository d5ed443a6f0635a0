#include <stdio.h>
#include <string.h>

#include "board/cpu.h"
#include "board/cpu_features.h"
#include "board/jsonval.h"
#include "board/sysfs.h"

void bp_cpu_summary(const struct bp_cpu_core *cores, int n, char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		int count = 0, seen = 0;

		if (!cores[i].name[0])
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(cores[j].name, cores[i].name) == 0;
		if (seen)
			continue;
		for (int j = i; j < n; j++)
			count += strcmp(cores[j].name, cores[i].name) == 0;
		if (off < len) {
			int w = snprintf(buf + off, len - off, "%s%dx %s", off ? " + " : "", count,
					 cores[i].name);

			off += w > 0 ? (size_t)w : 0;
		}
	}
}

/* MIDR fields read best as cpuinfo prints them: "0x41", "0xd08". */
static json_t *hex_or_null(int64_t v, int width)
{
	char buf[24];

	if (v == BP_INT_UNKNOWN)
		return json_null();
	snprintf(buf, sizeof(buf), "0x%0*llx", width, (unsigned long long)v);
	return json_string(buf);
}

json_t *bp_cpu_core_to_json(const struct bp_cpu_core *c)
{
	json_t *o = json_object();

	bp_json_put(o, "cpu", json_integer(c->cpu));
	bp_json_put(o, "name", bp_json_str_or_null(c->name));
	bp_json_put(o, "online", bp_json_bool_or_null(c->online));
	bp_json_put(o, "implementer", hex_or_null(c->implementer, 2));
	bp_json_put(o, "part", hex_or_null(c->part, 3));
	bp_json_put(o, "variant", hex_or_null(c->variant, 1));
	bp_json_put(o, "revision", bp_json_int_or_null(c->revision));
	bp_json_put(o, "architecture", bp_json_int_or_null(c->architecture));
	return o;
}

json_t *bp_cpu_to_json(const struct bp_cpu_info *cpu)
{
	json_t *o = json_object(), *cores = json_array();

	bp_json_put(o, "model_name", bp_json_str_or_null(cpu->model_name));
	bp_json_put(o, "hardware", bp_json_str_or_null(cpu->hardware));
	bp_json_put(o, "vendor", bp_json_str_or_null(cpu->vendor));
	bp_json_put(o, "summary", bp_json_str_or_null(cpu->summary));
	bp_json_put(o, "core_count", json_integer(cpu->n_cores));
	bp_json_put(o, "online", bp_json_str_or_null(cpu->online));
	bp_json_put(o, "online_count", bp_json_int_or_null(cpu->n_online < 0 ? BP_INT_UNKNOWN :
							   cpu->n_online));
	bp_json_put(o, "features", cpu->have_flags ? bp_cpu_features_to_json(cpu->features) :
						     json_array());
	/* AES in hardware is what splits boards in the crypto tests (ARMv8 CE, AES-NI) */
	bp_json_put(o, "crypto_extensions",
		    bp_json_bool_or_null(cpu->have_flags ? !!(cpu->features & BP_CPU_AES) : -1));
	for (int i = 0; i < cpu->n_cores; i++)
		json_array_append_new(cores, bp_cpu_core_to_json(&cpu->cores[i]));
	bp_json_put(o, "cores", cores);
	return o;
}
