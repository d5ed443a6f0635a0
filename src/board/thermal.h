/*
 * Temperatures from /sys/class/thermal/thermal_zone*: SoC boards without a heatsink
 * throttle within minutes, so every result records how hot the board was.
 */
#ifndef BP_BOARD_THERMAL_H
#define BP_BOARD_THERMAL_H

#include <jansson.h>

struct bp_thermal_zone {
	int zone;		/* N of thermal_zoneN */
	char type[48];		/* "cpu-thermal", "x86_pkg_temp", "acpitz" */
	double temp_c;		/* one decimal; NaN when unreadable */
};

/*
 * All zones in zone order; returns the count (0 when there are none).
 * *zones is malloc'd; free() it.
 */
int bp_thermal_read(const char *root, struct bp_thermal_zone **zones);

/* One zone's temperature in degrees C (one decimal), NaN when unreadable. */
double bp_thermal_temp_c(const char *root, int zone);

json_t *bp_thermal_to_json(const struct bp_thermal_zone *zones, int n);

#endif
