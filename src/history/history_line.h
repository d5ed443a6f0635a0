/*
 * One stored result as `boardperf history` lists it: id, time, label, test and its headline
 * figures (those `run`'s summary leads with, else the first with a direction; at most
 * three; a suite: its tests). Gathered from the
 * metrics table, printed apart, so the line's text has one place.
 */
#ifndef BP_HISTORY_HISTORY_LINE_H
#define BP_HISTORY_HISTORY_LINE_H

#include <stdio.h>

#include <jansson.h>

#include "store/store.h"

#define BP_HISTORY_FIGURES 3

struct bp_history_entry {
	struct bp_store_row row;
	int nfigures;
	struct {
		char name[128];
		char unit[32];
		double value;
	} figures[BP_HISTORY_FIGURES];
	char tests[160];   /* a suite's tests, "cpu, mem, tcp" */
	char error[48];    /* the document's error code, "" without */
};

/* Fills e for row from s. 0 or -errno. */
int bp_history_gather(struct bp_store *s, const struct bp_store_row *row,
		      struct bp_history_entry *e);

/* The column heads, then one line per entry. */
void bp_history_print_head(FILE *out);
void bp_history_print_line(FILE *out, const struct bp_history_entry *e);

/* The entry as history --json lists it: id, parent, time, test, label, board, version,
 * figures, tests, error. New reference. */
json_t *bp_history_entry_json(const struct bp_history_entry *e);

/* "2026-11-30 12:00:00" (UTC) into buf of at least 24 bytes. */
char *bp_history_time(char *buf, size_t len, long long unix_s);

#endif
