#include "board/clock_sync.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "board/jsonval.h"
#include "board/sysfs.h"

/* A process's comm (15 characters at most) and the daemon's name as its users know it. */
static const struct {
	const char *comm, *name;
} daemons[] = {
	{ "chronyd", "chronyd" },
	{ "ntpd", "ntpd" },	/* ntp, ntpsec, OpenNTPD and busybox's all run as ntpd */
	{ "systemd-timesyn", "systemd-timesyncd" },
	{ "ptp4l", "ptp4l" },
	{ "phc2sys", "phc2sys" },
	{ "htpdate", "htpdate" },
};

void bp_clock_sync_from_timex(const struct timex *tx, int state, struct bp_clock_sync *c)
{
	c->kernel_known = true;
	c->state = state;
	c->status = tx->status;
	c->maxerror_us = tx->maxerror;
	c->esterror_us = tx->esterror;
	c->offset_us = tx->status & STA_NANO ? (double)tx->offset / 1e3 : (double)tx->offset;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static void add_daemon(struct bp_clock_sync *c, const char *name)
{
	for (int i = 0; i < c->n_daemons; i++)
		if (strcmp(c->daemons[i], name) == 0)
			return;
	if (c->n_daemons < BP_CLOCK_MAX_DAEMONS)
		bp_strlcpy(c->daemons[c->n_daemons++], name, sizeof(c->daemons[0]));
}

static void find_daemons(const char *root, struct bp_clock_sync *c)
{
	char **names = NULL, comm[32];
	int n = bp_sysfs_list(root, "", &names, "/proc");

	for (int i = 0; i < n; i++) {
		if (!all_digits(names[i]) ||
		    bp_sysfs_str(root, comm, sizeof(comm), "/proc/%s/comm", names[i]) < 0)
			continue;
		for (size_t d = 0; d < sizeof(daemons) / sizeof(daemons[0]); d++)
			if (strcmp(comm, daemons[d].comm) == 0)
				add_daemon(c, daemons[d].name);
	}
	if (n > 0)
		bp_sysfs_names_free(names, n);
}

void bp_clock_sync_read(const char *root, struct bp_clock_sync *c)
{
	*c = (struct bp_clock_sync){ .timesyncd_synchronized = -1 };
	find_daemons(root, c);
	for (int i = 0; i < c->n_daemons; i++)
		if (strcmp(c->daemons[i], "systemd-timesyncd") == 0)
			/* it creates the file once it has synchronised the clock (systemd 239+) */
			c->timesyncd_synchronized =
				bp_sysfs_exists(root, "/run/systemd/timesync/synchronized");
	/* only the real machine's kernel describes the root we were given */
	if (!root || strcmp(root, "/") == 0) {
		struct timex tx = { .modes = 0 };	/* read only: changes nothing */
		int state = adjtimex(&tx);

		if (state >= 0)
			bp_clock_sync_from_timex(&tx, state, c);
	}
}

int bp_clock_sync_synchronized(const struct bp_clock_sync *c)
{
	if (!c->kernel_known)
		return -1;
	return !(c->status & STA_UNSYNC) && c->state != TIME_ERROR;
}

const char *bp_clock_sync_describe(const struct bp_clock_sync *c, char *buf, size_t len)
{
	int synced = bp_clock_sync_synchronized(c);
	size_t n;

	if (synced > 0)
		n = (size_t)snprintf(buf, len, "synchronised, maxerror %.3f ms",
				     (double)c->maxerror_us / 1e3);
	else if (synced == 0)
		n = (size_t)snprintf(buf, len, "not synchronised (%s)",
				     c->state == TIME_ERROR && !(c->status & STA_UNSYNC) ?
				     "TIME_ERROR" : "STA_UNSYNC");
	else
		n = (size_t)snprintf(buf, len, "kernel not asked");
	for (int i = 0; i < c->n_daemons && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "; ", c->daemons[i]);
	if (!c->n_daemons && n < len)
		snprintf(buf + n, len - n, ", no time daemon");
	return buf;
}

static const char *state_name(int state)
{
	switch (state) {
	case TIME_OK: return "ok";
	case TIME_INS: return "insert-leap";
	case TIME_DEL: return "delete-leap";
	case TIME_OOP: return "leap-in-progress";
	case TIME_WAIT: return "leap-done";
	case TIME_ERROR: return "error";
	default: return NULL;
	}
}

json_t *bp_clock_sync_to_json(const struct bp_clock_sync *c)
{
	json_t *o = json_object(), *d = json_array();
	bool k = c->kernel_known;

	bp_json_put(o, "synchronized", bp_json_bool_or_null(bp_clock_sync_synchronized(c)));
	bp_json_put(o, "state", k ? bp_json_str_or_null(state_name(c->state)) : json_null());
	bp_json_put(o, "maxerror_us", k ? json_integer(c->maxerror_us) : json_null());
	bp_json_put(o, "esterror_us", k ? json_integer(c->esterror_us) : json_null());
	bp_json_put(o, "offset_us", k ? bp_json_number_or_null(c->offset_us) : json_null());
	for (int i = 0; i < c->n_daemons; i++)
		json_array_append_new(d, json_string(c->daemons[i]));
	bp_json_put(o, "daemons", d);
	bp_json_put(o, "timesyncd_synchronized", bp_json_bool_or_null(c->timesyncd_synchronized));
	return o;
}
