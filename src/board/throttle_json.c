#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/jsonval.h"
#include "board/sysfs.h"
#include "board/throttle.h"

/* One word for the text renderer; the bits below carry the detail. NULL: not known. */
static const char *fw_state(bool available, uint32_t bits)
{
	uint32_t now = BP_FW_UNDER_VOLTAGE | BP_FW_FREQ_CAPPED | BP_FW_THROTTLED |
		       BP_FW_SOFT_TEMP_LIMIT;

	if (!available)
		return NULL;
	if (bits & now)
		return "throttling";
	if (bits & (now << BP_FW_OCCURRED_SHIFT))
		return "throttled_since_boot";
	return "ok";
}

json_t *bp_fw_throttle_to_json(bool available, uint32_t bits)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} flags[] = {
		{ "under_voltage", BP_FW_UNDER_VOLTAGE },
		{ "freq_capped", BP_FW_FREQ_CAPPED },
		{ "throttled", BP_FW_THROTTLED },
		{ "soft_temp_limit", BP_FW_SOFT_TEMP_LIMIT },
	};
	json_t *o = json_object();
	char key[48], raw[16];

	snprintf(raw, sizeof(raw), "0x%x", bits);
	bp_json_put(o, "available", json_boolean(available));
	bp_json_put(o, "state", bp_json_str_or_null(fw_state(available, bits)));
	bp_json_put(o, "raw", available ? json_string(raw) : json_null());
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		uint32_t now = flags[i].bit, past = flags[i].bit << BP_FW_OCCURRED_SHIFT;

		int is_now = available ? !!(bits & now) : -1;
		int was = available ? !!(bits & past) : -1;

		bp_json_put(o, flags[i].name, bp_json_bool_or_null(is_now));
		snprintf(key, sizeof(key), "%s_occurred", flags[i].name);
		bp_json_put(o, key, bp_json_bool_or_null(was));
	}
	return o;
}

/* related_cpus is a space-separated list of numbers ("0 1 2 3"). */
static json_t *cpus_to_json(const char *s)
{
	json_t *a = json_array();
	char *end;

	while (*s) {
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		json_array_append_new(a, json_integer(v));
		s = end;
	}
	return a;
}

static json_t *policy_to_json(const struct bp_cpufreq_policy *p)
{
	json_t *o = json_object(), *states = json_array();

	for (int i = 0; i < p->n_states; i++) {
		json_t *s = json_object();

		bp_json_put(s, "khz", json_integer(p->states[i].khz));
		bp_json_put(s, "time_ms", json_integer(p->states[i].time_ms));
		json_array_append_new(states, s);
	}
	bp_json_put(o, "policy", json_string(p->name));
	bp_json_put(o, "cpus", cpus_to_json(p->cpus));
	bp_json_put(o, "max_khz", bp_json_int_or_null(p->max_khz));
	bp_json_put(o, "below_max_pct", bp_json_real_or_null(p->below_max_pct));
	bp_json_put(o, "time_in_state", states);
	return o;
}

json_t *bp_throttle_to_json(const struct bp_throttle_info *t)
{
	json_t *o = json_object(), *pol = json_array();

	for (int i = 0; i < t->n_policies; i++)
		json_array_append_new(pol, policy_to_json(&t->policies[i]));
	bp_json_put(o, "cpufreq_policies", pol);
	bp_json_put(o, "firmware", bp_fw_throttle_to_json(t->fw_available, t->fw_bits));
	return o;
}
