/*
 * The kernel's complaints during a test (issue 36): the seed's Cubietruck lost its VLAN
 * throughput to a driver that tried an offload it could not do, and only `dmesg` said so
 * (`GMAC TX status: VLAN frame`). The monitor opens /dev/kmsg at a test's start, positioned
 * at its end, and reads what came meanwhile: each record of warning level or worse (emerg,
 * alert, crit, err, warning; the kernel's own and those a program wrote there) is kept, at
 * most BP_KMSG_KEEP of them and the rest counted, so a driver logging in a loop cannot grow
 * a result without end. The result carries them in monitor.kernel_messages, each marked
 * when it names a device or driver on the test's path (board/net_path.h), and the warning
 * `kernel-messages` quotes the first.
 *
 * A record, as the kernel writes it (Documentation/ABI/testing/dev-kmsg):
 *
 *   "4,1234,5140900,-;GMAC TX status: VLAN frame\n SUBSYSTEM=net\n DEVICE=n2\n"
 *
 * the syslog priority (level in its low three bits, facility above: 0 the kernel's own,
 * 1 and up a program's), a sequence number, microseconds since boot, flags, then the text,
 * non-printable bytes escaped as \xNN; dictionary lines follow. Reading needs CAP_SYSLOG
 * where kernel.dmesg_restrict is 1 (Debian's default); without it the result says
 * kernel_messages null and the process says so once on stderr.
 */
#ifndef BP_BOARD_KMSG_H
#define BP_BOARD_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Records kept per test; past it they are counted */
#define BP_KMSG_KEEP 20
/* A record's text kept, NUL included; a longer one ends in "..." */
#define BP_KMSG_TEXT 240
/* Levels kept: LOG_WARNING and worse */
#define BP_KMSG_WORST_KEPT 4

struct bp_kmsg_record {
	int level;		/* 0 emerg .. 7 debug */
	bool kernel;		/* facility 0: the kernel's own, not a program's */
	uint64_t seq;
	uint64_t usec;		/* since boot */
	char text[BP_KMSG_TEXT];
};

/*
 * One record of len bytes (one read(2) of /dev/kmsg). 0, or -EPROTO for a record out of its
 * domain: no ';', a priority, sequence or time that is not a decimal number in range.
 */
int bp_kmsg_parse(const char *rec, size_t len, struct bp_kmsg_record *out);

struct bp_kmsg {
	int fd;			/* -1: not readable */
	int open_errno;		/* why not, when fd is -1 */
	size_t n;		/* records kept */
	uint64_t more;		/* records of a kept level past BP_KMSG_KEEP */
	uint64_t lost;		/* records the ring overwrote before they were read (EPIPE) */
	struct bp_kmsg_record kept[BP_KMSG_KEEP];
};

/* Opens path ("/dev/kmsg") at its end. Never fails: k->fd -1 and open_errno say why. */
void bp_kmsg_open(struct bp_kmsg *k, const char *path);

/* Reads every record there is now, without waiting, keeping those of a kept level. */
void bp_kmsg_drain(struct bp_kmsg *k);

void bp_kmsg_close(struct bp_kmsg *k);

/* "warning", "err", ...; NULL outside 0-7 */
const char *bp_kmsg_level_name(int level);

/*
 * Whether text names one of names (devices or drivers, NULL-terminated) as a word of its
 * own: "eth0" in "eth0: link down" and "r8152 2-1:1.0 eth1:", not in "veth0".
 */
bool bp_kmsg_names_any(const char *text, const char *const *names);

/*
 * The kept records as JSON (new reference): [{"level", "kernel", "at_s", "text",
 * "on_path"}], on_path by bp_kmsg_names_any against names (NULL: none marked).
 */
json_t *bp_kmsg_json(const struct bp_kmsg *k, const char *const *names);

#endif
