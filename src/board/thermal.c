#include "board/thermal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "board/jsonval.h"
#include "board/sysfs.h"

/*
 * Zones report millidegrees. Anything outside -60..200 degC is a sensor that failed to
 * read (some drivers return -EINVAL as a number, or 0xffff-ish garbage), not a reading.
 */
double bp_thermal_temp_c(const char *root, int zone)
{
	int64_t milli;

	if (bp_sysfs_int(root, &milli, "/sys/class/thermal/thermal_zone%d/temp", zone) < 0)
		return NAN;
	if (milli < -60000 || milli > 200000)
		return NAN;
	return round((double)milli / 100.0) / 10.0;
}

int bp_thermal_read(const char *root, struct bp_thermal_zone **zones)
{
	char **names;
	int n = bp_sysfs_list(root, "thermal_zone", &names, "/sys/class/thermal");
	int count = 0;

	*zones = NULL;
	if (n <= 0)
		return 0;
	*zones = calloc((size_t)n, sizeof(**zones));
	for (int i = 0; *zones && i < n; i++) {
		struct bp_thermal_zone *z = &(*zones)[count];
		int64_t no;

		if (bp_sysfs_parse_int(names[i] + strlen("thermal_zone"), 10, &no) < 0 || no < 0 ||
		    no > 100000)
			continue;
		z->zone = (int)no;
		bp_sysfs_str(root, z->type, sizeof(z->type), "/sys/class/thermal/%s/type",
			     names[i]);
		z->temp_c = bp_thermal_temp_c(root, z->zone);
		count++;
	}
	bp_sysfs_names_free(names, n);
	return count;
}

json_t *bp_thermal_to_json(const struct bp_thermal_zone *zones, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++) {
		json_t *o = json_object();

		bp_json_put(o, "zone", json_integer(zones[i].zone));
		bp_json_put(o, "type", bp_json_str_or_null(zones[i].type));
		bp_json_put(o, "temp_c", bp_json_real_or_null(zones[i].temp_c));
		json_array_append_new(a, o);
	}
	return a;
}
