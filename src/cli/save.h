/*
 * The save hook of the one CLI path: after a command printed its result, the result goes
 * to the results database (src/store) unless --no-save. It never changes what was printed
 * or the exit status: a database that is locked, read-only, full or cannot be opened is
 * one warning line on stderr.
 */
#ifndef BP_CLI_SAVE_H
#define BP_CLI_SAVE_H

#include <stddef.h>

#include "core/options.h"
#include "result/result.h"

/* --label and --db as given: 0, or -EINVAL with a one-line message (a usage error). */
int bp_cli_check_store_opts(const struct bp_common_opts *c, char *err, size_t errlen);

/*
 * Saves r as printed: printed (len bytes, NULL when the copy was lost) in format ("text",
 * "json", "csv", "json-stream"). Says nothing on success but at -v ("saved as result 12").
 */
void bp_cli_save(const struct bp_result *r, const struct bp_common_opts *c, const char *printed,
		 size_t len, const char *format);

#endif
