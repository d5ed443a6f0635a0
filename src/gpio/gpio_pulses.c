#include "gpio/gpio_pulses.h"

#include "stats/histogram.h"

void bp_gpio_pulses_feed(struct bp_gpio_pulses *p, uint64_t ts_ns, bool rising,
			 uint32_t line_seqno)
{
	if (!p->received)
		p->first_ns = ts_ns;
	p->received++;
	if (line_seqno > p->edges)
		p->edges = line_seqno;
	/* timestamps never run backwards on one line; a width from a disorder is not one */
	if (p->have_prev && line_seqno == p->prev_seqno + 1 && rising != p->prev_rising &&
	    ts_ns >= p->last_ns && p->widths)
		bp_histo_record(p->widths, ts_ns - p->last_ns);
	p->have_prev = true;
	p->prev_seqno = line_seqno;
	p->prev_rising = rising;
	p->last_ns = ts_ns;
}

uint64_t bp_gpio_pulses_lost(const struct bp_gpio_pulses *p)
{
	return p->edges > p->received ? p->edges - p->received : 0;
}
