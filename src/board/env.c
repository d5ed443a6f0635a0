#include "board/env.h"

#include <time.h>

#include "board/inventory.h"
#include "core/buildinfo.h"

json_t *bp_env_snapshot(const char *root, const char *dir)
{
	char stamp[32] = "unknown";
	time_t now = time(NULL);
	struct tm tm;

	/* Wall time only labels the result; nothing is measured with it. */
	if (gmtime_r(&now, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_pack("{s:o, s:s, s:o}",
			 "boardperf", bp_buildinfo_json(),
			 "collected_at", stamp,
			 "inventory", bp_inventory_collect(root, dir));
}
