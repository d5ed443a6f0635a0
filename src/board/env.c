#include "board/env.h"

#include <time.h>

#include "board/inventory.h"
#include "core/buildinfo.h"

json_t *bp_env_snapshot(const char *root, const char *dir)
{
	char stamp[32];
	const char *at = NULL;	/* null in JSON when the clock cannot be read */
	time_t now = time(NULL);
	struct tm tm;

	/* Wall time only labels the result; nothing is measured with it. */
	if (gmtime_r(&now, &tm) && strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm))
		at = stamp;
	return json_pack("{s:o, s:s?, s:o}",
			 "boardperf", bp_buildinfo_json(),
			 "collected_at", at,
			 "inventory", bp_inventory_collect(root, dir));
}
