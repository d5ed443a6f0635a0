/*
 * Sockets for the network tests: name resolution, connecting with a deadline, listening on
 * IPv4 and IPv6, the socket options the tests set, and TCP_INFO read safely.
 * Every failure returns a negative errno and a one-line message naming the address
 * ("connect 198.18.0.2:5201: Connection refused").
 */
#ifndef BP_IO_SOCK_H
#define BP_IO_SOCK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum bp_family { BP_FAMILY_ANY = 0, BP_FAMILY_V4 = 4, BP_FAMILY_V6 = 6 };

struct bp_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/* True for 127.0.0.0/8, ::1 and ::ffff:127.x: traffic that never reaches a qdisc or NIC. */
bool bp_addr_is_loopback(const struct bp_addr *a);

/*
 * True when a is this host's own: loopback, or an address one of its interfaces holds (the
 * kernel routes it over lo too). Client and server then share this machine's CPUs.
 */
bool bp_addr_is_this_host(const struct bp_addr *a);

/*
 * The link speed (bit/s) of the interface this host would use to reach a, from the kernel's
 * route choice (a connected UDP socket's source address) and /sys/class/net/IF/speed.
 * Returns 0 with *bps and the interface name, or -ENOENT when the kernel does not know the
 * speed (loopback, most virtual NICs).
 */
int bp_link_speed_toward(const struct bp_addr *a, double *bps, char *ifname, size_t iflen);

/* "198.18.0.2:5201" or "[::1]:5201". */
char *bp_addr_str(const struct bp_addr *a, char *buf, size_t len);

/*
 * Resolve host (name or literal; NULL for the wildcard, with passive) and port.
 * family restricts to -4/-6. Returns 0 or -EINVAL/-ENOENT with a message.
 */
int bp_resolve(const char *host, unsigned port, enum bp_family family, bool passive,
	       struct bp_addr *out, char *err, size_t errlen);

/*
 * A TCP connection to a, blocking, established before deadline_ns (-ETIMEDOUT after).
 * The socket is returned blocking with close-on-exec. Options to set before connect
 * (buffer sizes, MSS) go through pre (may be NULL) with its argument.
 */
typedef int (*bp_sock_pre_fn)(int fd, void *arg, char *err, size_t errlen);
int bp_tcp_connect(const struct bp_addr *a, uint64_t deadline_ns, bp_sock_pre_fn pre,
		   void *arg, int *fd_out, char *err, size_t errlen);

/* The same over any stream protocol: IPPROTO_TCP or IPPROTO_SCTP (one-to-one style). */
int bp_stream_connect(const struct bp_addr *a, int proto, uint64_t deadline_ns,
		      bp_sock_pre_fn pre, void *arg, int *fd_out, char *err, size_t errlen);

/*
 * A listening TCP socket on bind address a (wildcard: IPv6 dual-stack where the kernel
 * allows, so one socket takes IPv4 and IPv6), SO_REUSEADDR, non-blocking.
 */
int bp_tcp_listen(const struct bp_addr *a, int backlog, int *fd_out, char *err, size_t errlen);
/* The same over IPPROTO_TCP or IPPROTO_SCTP. */
int bp_stream_listen(const struct bp_addr *a, int proto, int backlog, int *fd_out, char *err,
		     size_t errlen);
/* The same on exactly a (no IPv4 fallback), with SO_REUSEPORT: one listener per worker. */
int bp_tcp_listen_shared(const struct bp_addr *a, int backlog, int *fd_out, char *err,
			 size_t errlen);

/* The longest congestion control name Linux takes: TCP_CA_NAME_MAX (16) with its NUL. */
#define BP_SOCK_CONGESTION_MAX 15

/* Socket options; each 0 or -errno with a message naming the option and value. */
int bp_sock_set_buffers(int fd, int bytes, char *err, size_t errlen); /* SO_SNDBUF+RCVBUF */
int bp_sock_set_nodelay(int fd, char *err, size_t errlen);
int bp_sock_set_mss(int fd, int mss, char *err, size_t errlen);
int bp_sock_set_congestion(int fd, const char *algo, char *err, size_t errlen);
int bp_sock_set_nonblocking(int fd, bool on);
/*
 * sock_sctp.c: SCTP's one-to-one sockets (SOCK_STREAM, IPPROTO_SCTP), which read and write
 * as TCP's do. BP_SCTP_MISSING is the one line a kernel without SCTP gets (socket() fails
 * with EPROTONOSUPPORT: no sctp module loaded, or none built); bp_sctp_missing(errno) says
 * whether errno is that case. bp_sctp_check: 0 when SCTP sockets can be made here, else
 * -EPROTONOSUPPORT (or socket()'s error) with the line.
 */
#define BP_SCTP_MISSING "SCTP is not available in this kernel (module sctp not loaded or not built)"
bool bp_sctp_missing(int err);
int bp_sctp_check(char *err, size_t errlen);
/*
 * A recv whose bytes are thrown away: MSG_TRUNC on TCP discards them in the kernel, but on
 * SCTP it copies into the NULL buffer, fails with EFAULT and loses the message it took, so
 * an SCTP socket's bytes go through a scratch buffer of this thread's (at most 64 KiB a call).
 */
ssize_t bp_recv_discard(int fd, size_t len, int flags, bool sctp);
/* True when fd is an SCTP socket (SO_PROTOCOL). */
bool bp_sock_is_sctp(int fd);
int bp_sctp_set_nodelay(int fd, char *err, size_t errlen);           /* SCTP_NODELAY */
int bp_sctp_set_maxseg(int fd, int bytes, char *err, size_t errlen); /* SCTP_MAXSEG */
int bp_sctp_set_ostreams(int fd, int n, char *err, size_t errlen);   /* SCTP_INITMSG */
/* sock_qos.c: IP TOS / IPv6 traffic class, kernel pacing (SO_MAX_PACING_RATE), DF. */
int bp_sock_set_tos(int fd, int tos, char *err, size_t errlen);
int bp_sock_set_pacing(int fd, double bits_per_s, char *err, size_t errlen);
int bp_sock_set_dont_fragment(int fd, char *err, size_t errlen);

/*
 * What TCP_INFO says about a connection. The kernel (or qemu-user, which fills only 4
 * bytes) may return fewer bytes than the structure: fields it did not fill are marked
 * unknown rather than read as zero.
 */
struct bp_tcp_info {
	bool valid;            /* tcpi_total_retrans and the fields below were filled */
	uint32_t total_retrans;
	uint32_t snd_cwnd;     /* segments */
	uint32_t snd_mss;      /* bytes */
	uint32_t rtt_us, rttvar_us;
	uint64_t bytes_acked;  /* 0 when the kernel is too old to report it */
	uint64_t bytes_received; /* in order, as bytes_acked from Linux 4.1 */
	bool has_bytes;        /* the kernel reported bytes_acked and bytes_received */
	uint64_t delivery_rate; /* bytes/s, 0 when unknown */
	uint32_t pmtu;         /* bytes, the path MTU TCP uses; 0 when unknown */
};

/* An SCTP socket (TCP_INFO: ENOPROTOOPT or EOPNOTSUPP) answers through bp_sctp_info_read. */
int bp_tcp_info_read(int fd, struct bp_tcp_info *ti);
/*
 * What SCTP says of a one-to-one socket's association, in TCP_INFO's terms: retransmitted
 * chunks as total_retrans, the primary path's cwnd in bytes (snd_cwnd, with snd_mss 1), its
 * smoothed RTT (ms resolution) and MTU; no byte counts (has_bytes false). -ENOPROTOOPT (or
 * getsockopt's error) for another socket.
 */
int bp_sctp_info_read(int fd, struct bp_tcp_info *ti);

/*
 * The host an address stands for, as the server's per-host counts key it: an IPv4 address
 * (or IPv4-mapped IPv6) as its mapped 16 bytes, an IPv6 address as its /64 (what one
 * customer usually owns whole and so could spread a flood over), zeros padding.
 */
void bp_addr_host_key(const struct bp_addr *a, unsigned char key[16]);

/*
 * The socket's close resets the connection (SO_LINGER 0: an RST, nothing queued sent) - a
 * refusal the peer sees at once, and no TIME_WAIT left behind by a flood of them.
 */
void bp_sock_reset_on_close(int fd);

#endif
