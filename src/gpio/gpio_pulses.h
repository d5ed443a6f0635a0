/*
 * The arithmetic of --loop-to: edge events of the input line (the kernel's timestamp, the
 * edge, the line's sequence number) turned into a count and pulse widths. The kernel
 * numbers every edge it detected (line_seqno, from 1 for a new request), including those it
 * dropped when its event FIFO was full, so the count is the highest number seen, and a
 * width is taken only between two events with consecutive numbers and opposite edges: a
 * gap means an edge in between was lost and the interval is not one pulse.
 */
#ifndef BP_GPIO_GPIO_PULSES_H
#define BP_GPIO_GPIO_PULSES_H

#include <stdbool.h>
#include <stdint.h>

struct bp_histo;

struct bp_gpio_pulses {
	uint64_t edges;      /* edges the kernel detected (highest line_seqno) */
	uint64_t received;   /* events read */
	uint64_t first_ns, last_ns;  /* timestamps of the first and last event read */
	struct bp_histo *widths;     /* ns between consecutive opposite edges (caller's) */
	/* the previous event */
	bool have_prev;
	uint32_t prev_seqno;
	bool prev_rising;
};

/* One event: its timestamp (ns, CLOCK_MONOTONIC), rising or falling, line_seqno. */
void bp_gpio_pulses_feed(struct bp_gpio_pulses *p, uint64_t ts_ns, bool rising,
			 uint32_t line_seqno);

/* Edges the kernel counted but the FIFO dropped before they were read. */
uint64_t bp_gpio_pulses_lost(const struct bp_gpio_pulses *p);

#endif
