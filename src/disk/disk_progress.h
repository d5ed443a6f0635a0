/*
 * A one-line progress bar on stderr for the slow parts of a disk test (writing a 2 GiB
 * file set to an SD card takes minutes). Only on a terminal: when stderr is a pipe or a
 * file, or with -q, nothing is drawn, so logs and scripts never see it. It is the CLI's
 * face of the test, fed by callbacks; the measuring code itself prints nothing.
 */
#ifndef BP_DISK_DISK_PROGRESS_H
#define BP_DISK_DISK_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "result/live.h"

struct bp_disk_progress {
	bool on;
	uint64_t last_ns;  /* last drawn, to draw at most ten times a second */
};

/* On when stderr is a terminal and the log level shows information (-q hides it). */
void bp_disk_progress_init(struct bp_disk_progress *p);

/* "prepare [#########-----------]  45 %  0.90 GiB of 2.00 GiB"; done is 0..1. */
void bp_disk_progress_show(struct bp_disk_progress *p, const char *label, double done,
			   const char *detail);

/* Wipes the line, so that what follows starts on a clean one. */
void bp_disk_progress_clear(struct bp_disk_progress *p);

/*
 * Interval iv of result r to the live sink (nothing when live is NULL). The bar shares the
 * terminal line the interval line would start on, so it goes first; its next draw brings it
 * back under the line.
 */
void bp_disk_progress_interval(struct bp_disk_progress *p, struct bp_live *live,
			       const struct bp_result *r, const struct bp_interval *iv);

#endif
