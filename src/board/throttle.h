/*
 * Evidence that the board slowed itself down: cpufreq's time_in_state per policy, and on
 * a Raspberry Pi the firmware's throttle bits (under-voltage, frequency cap, thermal
 * throttling), which the Raspberry Pi kernel shows in
 * /sys/devices/platform/soc/soc:firmware/get_throttled as a hex number.
 */
#ifndef BP_BOARD_THROTTLE_H
#define BP_BOARD_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#define BP_THROTTLE_MAX_STATES 64

struct bp_freq_state {
	int64_t khz;
	int64_t time_ms;	/* time spent at khz since boot */
};

struct bp_cpufreq_policy {
	char name[16];		/* "policy0" */
	char cpus[64];		/* related_cpus as a list: "0-3" */
	int n_states;		/* 0 when the kernel keeps no stats (intel_pstate) */
	struct bp_freq_state states[BP_THROTTLE_MAX_STATES];
	int64_t max_khz;	/* the highest state listed, else cpuinfo_max_freq */
	double below_max_pct;	/* share of time below max_khz; NaN without stats */
};

/* Firmware bits, vcgencmd get_throttled's layout: low bits now, bit+16 since boot. */
enum bp_fw_throttle_bit {
	BP_FW_UNDER_VOLTAGE = 1u << 0,
	BP_FW_FREQ_CAPPED = 1u << 1,
	BP_FW_THROTTLED = 1u << 2,
	BP_FW_SOFT_TEMP_LIMIT = 1u << 3,
	BP_FW_OCCURRED_SHIFT = 16,
};

struct bp_throttle_info {
	int n_policies;
	struct bp_cpufreq_policy *policies;	/* malloc'd; bp_throttle_free */
	bool fw_available;
	uint32_t fw_bits;
};

/* Parses time_in_state text ("600000 12345\n...", times in 10 ms units). */
int bp_time_in_state_parse(const char *text, struct bp_cpufreq_policy *p);

/* One policy's stats (by directory name); the monitor samples it before and after a test. */
int bp_cpufreq_policy_read(const char *root, const char *name, struct bp_cpufreq_policy *p);

/* The firmware bits; -ENOENT when the kernel does not expose them (not a Pi). */
int bp_fw_throttled_read(const char *root, uint32_t *bits);

int bp_throttle_read(const char *root, struct bp_throttle_info *t);
void bp_throttle_free(struct bp_throttle_info *t);

/* {"under_voltage": .., "freq_capped": .., ..._occurred: ..}; every value null if !available. */
json_t *bp_fw_throttle_to_json(bool available, uint32_t bits);
json_t *bp_throttle_to_json(const struct bp_throttle_info *t);

#endif
