/*
 * SCTP's one-to-one sockets: the socket options the stream and rr tests set, and whether
 * the kernel has SCTP at all. The constants come from the kernel's own UAPI header
 * (<linux/sctp.h>, in every libc's kernel headers), so nothing links libsctp: a one-to-one
 * socket connects, accepts, reads and writes through the plain socket calls.
 */
#include "io/sock.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sctp.h>

bool bp_sctp_missing(int err)
{
	/* No sctp module: the inet family knows no such protocol. */
	return err == EPROTONOSUPPORT || err == ESOCKTNOSUPPORT;
}

int bp_sctp_check(char *err, size_t errlen)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_SCTP), e;

	if (fd < 0 && errno == EAFNOSUPPORT)  /* an IPv6-only host */
		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_SCTP);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	e = errno;
	if (bp_sctp_missing(e)) {
		snprintf(err, errlen, "%s", BP_SCTP_MISSING);
		return -EPROTONOSUPPORT;
	}
	snprintf(err, errlen, "SCTP socket: %s", strerror(e));
	return -e;
}

ssize_t bp_recv_discard(int fd, size_t len, int flags, bool sctp)
{
	static _Thread_local char scratch[64 * 1024];

	if (!sctp)
		return recv(fd, NULL, len, flags | MSG_TRUNC);
	return recv(fd, scratch, len < sizeof(scratch) ? len : sizeof(scratch), flags);
}

int bp_sctp_info_read(int fd, struct bp_tcp_info *ti)
{
	struct sctp_status st = { .sstat_assoc_id = 0 };
	struct sctp_assoc_stats as = { .sas_assoc_id = 0 };
	socklen_t len = sizeof(st), alen = sizeof(as);

	memset(ti, 0, sizeof(*ti));
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_STATUS, &st, &len))
		return -errno;
	ti->valid = true;
	ti->snd_cwnd = st.sstat_primary.spinfo_cwnd;
	ti->snd_mss = 1;
	ti->rtt_us = st.sstat_primary.spinfo_srtt * 1000u;
	ti->pmtu = st.sstat_primary.spinfo_mtu;
	/* Kernels before 3.8 have no association statistics: no retransmissions then. */
	if (!getsockopt(fd, IPPROTO_SCTP, SCTP_GET_ASSOC_STATS, &as, &alen) &&
	    alen >= offsetof(struct sctp_assoc_stats, sas_rtxchunks) + sizeof(as.sas_rtxchunks))
		ti->total_retrans = (uint32_t)as.sas_rtxchunks;
	return 0;
}

bool bp_sock_is_sctp(int fd)
{
	int proto = 0;
	socklen_t len = sizeof(proto);

	return !getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) && proto == IPPROTO_SCTP;
}

int bp_sctp_set_nodelay(int fd, char *err, size_t errlen)
{
	int one = 1, rc;

	if (setsockopt(fd, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof(one))) {
		rc = -errno;
		snprintf(err, errlen, "-N: SCTP_NODELAY: %s", strerror(errno));
		return rc;
	}
	return 0;
}

int bp_sctp_set_maxseg(int fd, int bytes, char *err, size_t errlen)
{
	/* Linux takes struct sctp_assoc_value; id 0 on a one-to-one socket: its association. */
	struct sctp_assoc_value av = { .assoc_id = 0, .assoc_value = (uint32_t)bytes };
	int rc;

	if (setsockopt(fd, IPPROTO_SCTP, SCTP_MAXSEG, &av, sizeof(av))) {
		rc = -errno;
		snprintf(err, errlen, "-M %d: SCTP_MAXSEG: %s", bytes, strerror(errno));
		return rc;
	}
	return 0;
}

int bp_sctp_set_ostreams(int fd, int n, char *err, size_t errlen)
{
	/* Set before connect: the INIT chunk offers this many outbound streams. */
	struct sctp_initmsg im = { .sinit_num_ostreams = (uint16_t)n };
	int rc;

	if (setsockopt(fd, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof(im))) {
		rc = -errno;
		snprintf(err, errlen, "--nstreams %d: SCTP_INITMSG: %s", n, strerror(errno));
		return rc;
	}
	return 0;
}
