#include "disk/disk_progress.h"

#include <stdio.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"

#define BAR_WIDTH 30
#define DRAW_EVERY_NS (100 * BP_NS_PER_MS)

void bp_disk_progress_init(struct bp_disk_progress *p)
{
	p->on = isatty(STDERR_FILENO) && bp_log_get_level() >= BP_LOG_INFO;
	p->last_ns = 0;
}

void bp_disk_progress_show(struct bp_disk_progress *p, const char *label, double done,
			   const char *detail)
{
	char bar[BAR_WIDTH + 1];
	uint64_t now;
	int fill;

	if (!p->on)
		return;
	now = bp_now_ns();
	if (p->last_ns && now - p->last_ns < DRAW_EVERY_NS && done < 1)
		return;
	p->last_ns = now;
	done = done < 0 ? 0 : done > 1 ? 1 : done;
	fill = (int)(done * BAR_WIDTH + 0.5);
	for (int i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '-';
	bar[BAR_WIDTH] = '\0';
	/* \033[K clears what a longer previous line left on the right */
	fprintf(stderr, "\r%-8s [%s] %3.0f %%  %s\033[K", label, bar, done * 100, detail);
	fflush(stderr);
}

void bp_disk_progress_clear(struct bp_disk_progress *p)
{
	if (!p->on || !p->last_ns)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->last_ns = 0;
}

void bp_disk_progress_interval(struct bp_disk_progress *p, struct bp_live *live,
			       const struct bp_result *r, const struct bp_interval *iv)
{
	if (!live)
		return;
	bp_disk_progress_clear(p);
	bp_live_interval(live, r, iv);
}
