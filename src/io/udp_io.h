/*
 * Batched UDP I/O for the packet-rate tests. On a weak ARM core one system call per
 * datagram is the limit, not the network (esnet/iperf #873), so both sides move many
 * datagrams per call. Each fast path is probed at run time, falls back to a plainer one
 * when the kernel refuses it, and says which one ran (bp_udp_*_mode):
 *
 *   sender    "gso"       UDP_SEGMENT: one send carries up to 64 equal datagrams that the
 *                         kernel (or the NIC) cuts apart; several such sends per sendmmsg
 *             "sendmmsg"  one sendmmsg of n datagrams
 *             "send"      one send() per datagram
 *   receiver  "gro+recvmmsg"  UDP_GRO: the kernel may hand over several equal datagrams
 *                             in one buffer, split here; many buffers per recvmmsg
 *             "recvmmsg"      one recvmmsg for up to batch datagrams
 *             "recv"          one recvmsg per datagram ("gro+recv" when GRO is on)
 *
 * Both sides work on connected UDP sockets (as iperf3's are). Neither blocks on its own:
 * the receiver reads with MSG_DONTWAIT; the sender blocks only if its socket does.
 */
#ifndef BP_IO_UDP_IO_H
#define BP_IO_UDP_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iovec;
struct mmsghdr;

enum bp_udp_send_mode { BP_UDP_SEND_GSO, BP_UDP_SEND_MMSG, BP_UDP_SEND_PLAIN };
enum bp_udp_recv_mode { BP_UDP_RECV_GRO, BP_UDP_RECV_MMSG, BP_UDP_RECV_PLAIN };

/* Largest batch: the kernel's limit on messages per sendmmsg/recvmmsg (UIO_MAXIOV). */
#define BP_UDP_MAX_BATCH 1024

/*
 * What the sender did. The stalls and refusals are the tester's own limits; a rate test
 * must report them apart from loss on the path, never as loss of the device under test.
 */
struct bp_udp_send_stats {
	uint64_t datagrams;  /* handed to the kernel */
	uint64_t calls;      /* send system calls made, failed ones included */
	uint64_t eagain;     /* calls refused because the socket send buffer was full */
	uint64_t enobufs;    /* calls refused because the device queue (qdisc) was full */
	uint64_t unsent;     /* datagrams filled but not sent, for either reason */
	uint64_t short_calls; /* sendmmsg calls that stopped early without naming the reason
			       * (EAGAIN, or ENOBUFS that a qdisc counts as a drop); the
			       * refused datagram is retried at once, so it is not lost */
	uint64_t fallbacks;  /* times a fast path was refused at run time and dropped */
};

struct bp_udp_sender {
	int fd;
	enum bp_udp_send_mode mode;
	bool mmsg_ok;          /* sendmmsg exists; GSO sends go through it too */
	size_t payload_len;
	int max_batch;
	int gso_segs;          /* datagrams per GSO send */
	uint8_t *buf;          /* max_batch slots of payload_len, filled by the caller's fill */
	struct iovec *iov;
	struct mmsghdr *msgs;
	int last_errno;        /* why the last batch stopped short, 0 when it completed */
	struct bp_udp_send_stats st;
};

/*
 * Prepare to send datagrams of payload_len bytes (1..65507), up to max_batch per call
 * (1..BP_UDP_MAX_BATCH) on the connected UDP socket fd. With try_gso, UDP_SEGMENT is
 * switched on when the kernel has it. Also asks for IP_RECVERR, without which Linux
 * swallows ENOBUFS from a full qdisc and the tester's own drops would pass unseen.
 * Returns 0 or -EINVAL/-ENOMEM.
 */
int bp_udp_sender_init(struct bp_udp_sender *s, int fd, size_t payload_len, int max_batch,
		       bool try_gso);
void bp_udp_sender_free(struct bp_udp_sender *s);

/* Called once per datagram before the send, index 0..n-1 in the batch, to write its header. */
typedef void (*bp_udp_fill_fn)(void *arg, uint8_t *payload, size_t len, int index);

/*
 * Fill and send n datagrams (1..max_batch). Returns how many went out, in order: the
 * first k of the n filled. When k < n, s->last_errno says why (EAGAIN: socket buffer
 * full; ENOBUFS: device queue full) and the caller rewinds its sequence numbers by n - k,
 * since those datagrams never left. A hard error before anything went out returns
 * -errno (-ECONNREFUSED when the peer's port is closed, -EINVAL for a bad n).
 *
 * A limit of GSO: a qdisc that cuts super-datagrams apart itself (tbf, cake) and then
 * drops some of the pieces still reports success, so those datagrams count as sent and
 * look like loss on the path (seen on 6.18 with tbf: 201 of 320 "sent" never left). A
 * qdisc that drops whole super-datagrams (pfifo_fast, fq_codel) returns ENOBUFS for all
 * of them. Where the tester's own interface is rate-limited, send without GSO.
 */
int bp_udp_send_batch(struct bp_udp_sender *s, int n, bp_udp_fill_fn fill, void *arg);

/* "gso", "sendmmsg" or "send": the path that ran last. */
const char *bp_udp_sender_mode(const struct bp_udp_sender *s);

/*
 * Test hook: behave as if the kernel lacked the paths faster than mode (GSO > sendmmsg
 * > send). Returns -EINVAL when asked for a faster path than the one in use.
 */
int bp_udp_sender_limit_mode(struct bp_udp_sender *s, enum bp_udp_send_mode mode);

struct bp_udp_recv_stats {
	uint64_t datagrams;  /* handed to the handler */
	uint64_t calls;      /* receive system calls, including those that found nothing */
	uint64_t coalesced;  /* buffers that held several datagrams (GRO) */
	uint64_t truncated;  /* datagrams longer than max_payload, cut to it */
};

struct bp_udp_receiver {
	int fd;
	enum bp_udp_recv_mode mode;
	bool gro;              /* UDP_GRO is on (stays on when recvmmsg is missing) */
	bool ovfl_ok;          /* SO_RXQ_OVFL is on: the drop counter rides with datagrams */
	bool meminfo_ok;       /* SO_MEMINFO reads the drop counter on demand */
	bool stamps;           /* SO_TIMESTAMPNS is on (bp_udp_receiver_stamps) */
	/* with stamps: the kernel's arrival time (CLOCK_REALTIME, ns) of the buffer being
	 * handed over, read in the handler; 0 when none came with it */
	uint64_t stamp_ns;
	size_t max_payload;
	size_t slot_len;       /* per-message buffer: max_payload, or 64 KiB with GRO */
	int batch;
	uint8_t *buf;
	uint8_t *ctrl;         /* control-message space per message */
	struct iovec *iov;
	struct mmsghdr *msgs;
	uint32_t drops_raw;    /* the kernel's 32-bit counter, last value seen */
	uint64_t drops;        /* the same, widened */
	struct bp_udp_recv_stats st;
};

/*
 * Prepare to read datagrams of up to max_payload bytes (1..65535), up to batch per call,
 * from the UDP socket fd. Switches on SO_RXQ_OVFL (the kernel's count of datagrams it
 * dropped because this socket's buffer was full) and, with try_gro, UDP_GRO.
 * With GRO each of the batch buffers is 64 KiB, since one may hold 64 datagrams; pages
 * that no coalesced datagram reaches are never touched. Returns 0 or -EINVAL/-ENOMEM.
 */
int bp_udp_receiver_init(struct bp_udp_receiver *r, int fd, size_t max_payload, int batch,
			 bool try_gro);
void bp_udp_receiver_free(struct bp_udp_receiver *r);

/*
 * Called for each datagram received, in arrival order. arrival_ns is bp_now_ns() taken
 * once per system call, right after it returned: every datagram of a batch gets the same
 * time, a bound above the true one by at most the time the batch waited in the socket.
 * SO_TIMESTAMPNS would be per datagram, but it stamps with CLOCK_REALTIME (which NTP
 * slews, so it cannot be subtracted from monotonic send times), costs 32 bytes of control
 * message per datagram, and turns on timestamping of every packet the host receives.
 */
typedef void (*bp_udp_handler_fn)(void *arg, const uint8_t *payload, size_t len,
				  uint64_t arrival_ns);

/*
 * Per-datagram arrival times from the kernel (SO_TIMESTAMPNS) in stamp_ns, for a receiver
 * that compares them with the sender's wall-clock send times (iperf 2's one-way delay and
 * jitter, as iperf -s reads them): the stamp is taken where the packet entered the host,
 * before the wait for this process's read. The costs above are why it is not the default.
 * 0 or -errno.
 */
int bp_udp_receiver_stamps(struct bp_udp_receiver *r);

/*
 * Read what is queued, up to batch buffers (more datagrams with GRO), calling handler for
 * each datagram. Returns the number of datagrams, 0 when nothing was queued, or -errno.
 */
int bp_udp_recv_batch(struct bp_udp_receiver *r, bp_udp_handler_fn handler, void *arg);

/*
 * A stopping receiver's drain: read as bp_udp_recv_batch does until the socket stayed empty
 * for idle_ns (the peer's last datagrams follow each other at its pace), or until until_ns
 * (absolute, bp_now_ns), whichever comes first; a peer that goes on sending ends it at
 * until_ns. Pauses of at most idle_ns / 10 on the monotonic clock between empty reads.
 * Returns the datagrams read.
 */
uint64_t bp_udp_drain(struct bp_udp_receiver *r, bp_udp_handler_fn handler, void *arg,
		      uint64_t until_ns, uint64_t idle_ns);

/*
 * Datagrams the kernel dropped for want of room in this socket's buffer since the socket
 * was made (cumulative). Read through SO_MEMINFO when the kernel has it (one system call,
 * so call it per interval, not per datagram); otherwise the newest SO_RXQ_OVFL value,
 * which arrives only with a later datagram: drops after the last datagram read are not
 * seen until another one comes.
 * The kernel counts buffers, not datagrams: with GRO a dropped buffer of coalesced
 * datagrams counts once (seen on 6.18), so the figure is then a lower bound. It still
 * tells whether the receiving tester lost anything; sequence gaps tell how much.
 */
uint64_t bp_udp_receiver_kernel_drops(struct bp_udp_receiver *r);

/*
 * Whether the count above means anything: false when the kernel (or qemu-user, which
 * answers ENOPROTOOPT to SO_RXQ_OVFL and SO_MEMINFO) offers neither way to read it. A
 * result must then say the receiving tester's drops are unknown, not that there were none.
 */
bool bp_udp_receiver_drops_known(const struct bp_udp_receiver *r);

/* "gro+recvmmsg", "recvmmsg", "gro+recv" or "recv". */
const char *bp_udp_receiver_mode(const struct bp_udp_receiver *r);

/* Test hook, as bp_udp_sender_limit_mode; BP_UDP_RECV_MMSG and below switch GRO off. */
int bp_udp_receiver_limit_mode(struct bp_udp_receiver *r, enum bp_udp_recv_mode mode);

/*
 * Set SO_SNDBUF and SO_RCVBUF of fd to bytes. Where net.core.[rw]mem_max caps them and we
 * are allowed (CAP_NET_ADMIN), SO_*BUFFORCE goes past the cap. Returns the smaller of the
 * two sizes in effect as getsockopt reports them: the kernel doubles what it is given,
 * the second half paying for its own bookkeeping. A cap that stays leaves a note in err
 * with a positive return; a failure returns -errno with a message.
 */
int bp_udp_set_buffers(int fd, int bytes, char *err, size_t errlen);

#endif
