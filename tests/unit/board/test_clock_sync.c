/*
 * The clock's synchronisation facts: adjtimex answers decoded (synchronised or not, the
 * state's name, an offset in ns or us), the time daemons found in a tree's /proc, and the
 * real machine's kernel asked.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board/clock_sync.h"
#include "tap.h"

static void decoded(void)
{
	struct bp_clock_sync c = { .timesyncd_synchronized = -1 };
	struct timex tx = { .status = STA_PLL, .maxerror = 1500, .esterror = 12, .offset = -250 };
	json_t *j;

	/* a daemon disciplining the clock: synchronised, the offset in microseconds */
	bp_clock_sync_from_timex(&tx, TIME_OK, &c);
	CHECK_INT(bp_clock_sync_synchronized(&c), 1);
	j = bp_clock_sync_to_json(&c);
	CHECK(json_is_true(json_object_get(j, "synchronized")));
	CHECK_STR(json_string_value(json_object_get(j, "state")), "ok");
	CHECK_INT(json_integer_value(json_object_get(j, "maxerror_us")), 1500);
	CHECK_INT(json_integer_value(json_object_get(j, "esterror_us")), 12);
	CHECK_NEAR(json_number_value(json_object_get(j, "offset_us")), -250, 1e-9);
	CHECK(json_is_null(json_object_get(j, "timesyncd_synchronized")));
	CHECK_INT(json_array_size(json_object_get(j, "daemons")), 0);
	json_decref(j);

	/* STA_NANO: the offset comes in nanoseconds */
	tx.status = STA_PLL | STA_NANO;
	tx.offset = 1500;
	bp_clock_sync_from_timex(&tx, TIME_OK, &c);
	CHECK_NEAR(c.offset_us, 1.5, 1e-9);

	/* no daemon: the flag set, the bound at the kernel's 16 s ceiling */
	tx = (struct timex){ .status = STA_UNSYNC, .maxerror = 16000000, .esterror = 16000000 };
	bp_clock_sync_from_timex(&tx, TIME_ERROR, &c);
	CHECK_INT(bp_clock_sync_synchronized(&c), 0);
	j = bp_clock_sync_to_json(&c);
	CHECK(json_is_false(json_object_get(j, "synchronized")));
	CHECK_STR(json_string_value(json_object_get(j, "state")), "error");
	json_decref(j);

	/* TIME_ERROR alone (a leap second's aftermath with the flag clear) is not synchronised */
	tx.status = 0;
	bp_clock_sync_from_timex(&tx, TIME_ERROR, &c);
	CHECK_INT(bp_clock_sync_synchronized(&c), 0);
	bp_clock_sync_from_timex(&tx, TIME_INS, &c);
	CHECK_INT(bp_clock_sync_synchronized(&c), 1);
	j = bp_clock_sync_to_json(&c);
	CHECK_STR(json_string_value(json_object_get(j, "state")), "insert-leap");
	json_decref(j);
}

/* The few words serve's log line gives its clock (its --trip-times one-way delays). */
static void described(void)
{
	struct bp_clock_sync c = { .timesyncd_synchronized = -1 };
	struct timex tx = { .status = STA_PLL, .maxerror = 1500 };
	char b[96], tiny[8];

	bp_clock_sync_from_timex(&tx, TIME_OK, &c);
	CHECK_STR(bp_clock_sync_describe(&c, b, sizeof(b)),
		  "synchronised, maxerror 1.500 ms, no time daemon");
	c.n_daemons = 2;
	strcpy(c.daemons[0], "chronyd");
	strcpy(c.daemons[1], "ntpd");
	CHECK_STR(bp_clock_sync_describe(&c, b, sizeof(b)),
		  "synchronised, maxerror 1.500 ms; chronyd, ntpd");
	c.n_daemons = 0;
	tx.status = STA_UNSYNC;
	bp_clock_sync_from_timex(&tx, TIME_ERROR, &c);
	CHECK_STR(bp_clock_sync_describe(&c, b, sizeof(b)),
		  "not synchronised (STA_UNSYNC), no time daemon");
	tx.status = 0;
	bp_clock_sync_from_timex(&tx, TIME_ERROR, &c);
	CHECK_STR(bp_clock_sync_describe(&c, b, sizeof(b)),
		  "not synchronised (TIME_ERROR), no time daemon");
	c.kernel_known = false;
	c.n_daemons = 1;
	CHECK_STR(bp_clock_sync_describe(&c, b, sizeof(b)), "kernel not asked; chronyd");
	/* cut to the buffer, never past it */
	CHECK_STR(bp_clock_sync_describe(&c, tiny, sizeof(tiny)), "kernel ");
}

static int put(const char *root, const char *rel, const char *text)
{
	char path[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int rm_entry(const char *p, const struct stat *s, int flag, struct FTW *ftw)
{
	(void)s, (void)flag, (void)ftw;
	return remove(p);
}

/* A tree's /proc: daemons by their comm, once each, no kernel asked below a fixture root. */
static void tree(void)
{
	char root[] = "/tmp/bp-clock-XXXXXX";
	struct bp_clock_sync c;
	json_t *j, *d;

	if (!mkdtemp(root)) {
		CHECK(!"mkdtemp");
		return;
	}
	CHECK(put(root, "proc/1/comm", "systemd\n") == 0);
	CHECK(put(root, "proc/412/comm", "systemd-timesyn\n") == 0);
	CHECK(put(root, "proc/977/comm", "chronyd\n") == 0);
	CHECK(put(root, "proc/978/comm", "chronyd\n") == 0);	/* its helper: named once */
	CHECK(put(root, "proc/net/comm", "ntpd\n") == 0);	/* not a process */
	CHECK(put(root, "proc/55/comm", "ntpdate\n") == 0);	/* not a daemon we name */
	bp_clock_sync_read(root, &c);
	CHECK(!c.kernel_known);
	CHECK_INT(bp_clock_sync_synchronized(&c), -1);
	CHECK_INT(c.timesyncd_synchronized, 0);
	j = bp_clock_sync_to_json(&c);
	d = json_object_get(j, "daemons");
	CHECK_INT(json_array_size(d), 2);
	CHECK_STR(json_string_value(json_array_get(d, 0)), "systemd-timesyncd");
	CHECK_STR(json_string_value(json_array_get(d, 1)), "chronyd");
	CHECK(json_is_null(json_object_get(j, "synchronized")));
	CHECK(json_is_null(json_object_get(j, "maxerror_us")));
	CHECK(json_is_false(json_object_get(j, "timesyncd_synchronized")));
	json_decref(j);

	CHECK(put(root, "run/systemd/timesync/synchronized", "") == 0);
	bp_clock_sync_read(root, &c);
	CHECK_INT(c.timesyncd_synchronized, 1);

	/* a tree with no /proc at all */
	nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	bp_clock_sync_read(root, &c);
	CHECK_INT(c.n_daemons, 0);
	CHECK_INT(c.timesyncd_synchronized, -1);
}

/* The real kernel answers an unprivileged read: a state, a flag, a bound. */
static void real_machine(void)
{
	struct bp_clock_sync c;

	bp_clock_sync_read("/", &c);
	CHECK(c.kernel_known);
	CHECK(bp_clock_sync_synchronized(&c) == 0 || bp_clock_sync_synchronized(&c) == 1);
	CHECK(c.maxerror_us >= 0);
	printf("# this machine: synchronised %d, state %d, maxerror %lld us, %d daemon(s)\n",
	       bp_clock_sync_synchronized(&c), c.state, (long long)c.maxerror_us, c.n_daemons);
}

int main(void)
{
	decoded();
	tree();
	described();
	real_machine();
	return tap_done();
}
