/*
 * A file replaced whole or not at all: written to a temporary file in the same directory
 * (".NAME.XXXXXX": node_exporter's textfile collector reads only *.prom, so it never sees a
 * half-written one), flushed to disk, then renamed over NAME. A reader sees the old file
 * or the new one, never a part; a failure leaves the old one and no temporary file.
 */
#ifndef BP_EXPORT_OM_FILE_H
#define BP_EXPORT_OM_FILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Calls fill with the temporary file, then puts it in place as path (mode 0644). 0, or
 * -errno with a line naming path in err (fill's own non-zero return is passed on, its
 * message in err).
 */
int bp_om_write_file(const char *path, int (*fill)(FILE *out, void *arg, char *err,
						    size_t errlen),
		     void *arg, char *err, size_t errlen);

#endif
