/* nvmf_tcp.c - NVMe/TCP queue: TCP connect, ICReq/ICResp, and the PDU stream behind the
 * queue's transport seam.
 *
 * The lane and nvmf_io build SQEs as for RDMA: a keyed SGL naming a buffer of this process, or
 * an offset SGL with in-capsule data in the send descriptor.  post_sends turns a keyed SGL into
 * the NVMe/TCP transport SGL (the data then moves by R2T/H2CData or C2HData, straight from or
 * into that buffer) and queues one CapsuleCmd PDU per capsule on a send ring that is written
 * with one sendmsg; what the socket does not take stays queued and goes out from later reaps.
 * The receive side is a state machine over a non-blocking socket: PDU headers through a small
 * buffer, C2HData payloads straight into the command's buffer (the readv of a new PDU guesses
 * it is C2HData for the oldest read expecting data: nvmf_tcp_rx_read_spec).  Completions go
 * to the queue as the verbs would report them: a SEND completion once a capsule's last byte
 * was written, a RECV completion with the CQE in one of the receive buffers the queue handed
 * over. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <linux/sock_diag.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "nvmf_crc32c.h"
#include "nvmf_err.h"
#include "nvmf_tcp.h"
#include "nvmf_trid.h"

#define NVMF_TCP_TX_HDR_MAX  128   /* CapsuleCmd 72 + digest 4, padded to CPDA 31's 128 */
#define NVMF_TCP_RX_HDR_MAX  256   /* PDO is one byte: header, digest and padding fit */
#define NVMF_TCP_RXBUF       16384
#define NVMF_TCP_IOV_MAX     192   /* three pieces per PDU: header, data, data digest */
/* Socket reads per reap: a stream that never runs dry does not hold the caller for ever. */
#define NVMF_TCP_RX_REFILLS  32
/* NVMe/TCP gives the admin queue 8 KiB capsules (4.1); I/O queues say theirs in IOCCSZ. */
#define NVMF_TCP_ADMIN_INCAPSULE 8192
#define NVMF_TCP_ARM_FLUSH_MS    100
/* Data from this size goes to the socket by reference (vmsplice into a pipe, splice to the
 * socket: the kernel initiator's way, no copy into socket buffers); smaller data is copied by
 * sendmsg. On a real CPU copying 32 KiB costs about what the two more system calls and the page
 * pinning do: twice that leaves the splice a clear gain, without tuning to the emulator (whose
 * copies are dear enough to favour splicing everything). */
#define NVMF_TCP_SPLICE_MIN      65536
#define NVMF_TCP_SPLICE_PIPE     (256 * 1024)   /* asked for; the pipe's default is 64 KiB */
/* A failing queue's H2CTermReq: how long it may take to leave before the connection is
 * aborted (a live controller acknowledges it in far less). */
#define NVMF_TCP_TERM_GRACE_MS   100
/* How long a failing queue waits for packets its socket handed below TCP to leave the host
 * (a qdisc may hold them: netem delay, a rate limit) before its commands are handed back. */
#define NVMF_TCP_DRAIN_MS        5000

enum { NVMF_TCP_DIR_NONE = 0, NVMF_TCP_DIR_H2C = 1, NVMF_TCP_DIR_C2H = 2, NVMF_TCP_DIR_BIDI = 3 };
enum { NVMF_TCP_RX_HDR, NVMF_TCP_RX_DATA, NVMF_TCP_RX_DDGST };

/* Per command slot: the data its keyed SGL named, and where its transfer stands. */
struct nvmf_tcp_cmd {
	uint8_t  *buf;
	uint32_t  len;
	uint8_t   dir;         /* NVMF_TCP_DIR_*: NONE for in-capsule and data-less commands */
	uint8_t   responded;   /* its response (or a C2HData SUCCESS) arrived: no more data */
	uint8_t   r2t_active;  /* an R2T is being answered (MAXR2T 0: one at a time) */
	uint8_t   h2c_queued;  /* one of its H2CData PDUs is on the send ring */
	uint8_t   ddgst_bad;   /* a C2HData PDU of it failed its data digest: it fails alone */
	uint16_t  ttag;
	uint32_t  c2h_next;    /* the DATAO the next C2HData must carry: data comes in order */
	uint32_t  r2t_next;
	uint32_t  r2t_end;
	int       c2h_prev;    /* the reads expecting data, in submission order (list) */
	int       c2h_fnext;
	uint8_t   c2h_listed;
};

/* The bytes in hand after a read: rx_src[rx_pos..rx_end), then the segments queued behind it.
 * A speculative read (nvmf_tcp_rx_read_spec) leaves up to four: the header area, the guessed
 * command's buffer, the data digest scratch, the receive buffer. */
enum { NVMF_TCP_SEG_RXBUF, NVMF_TCP_SEG_HDR, NVMF_TCP_SEG_GUESS, NVMF_TCP_SEG_DDGST };
struct nvmf_tcp_seg {
	uint8_t *base;
	size_t   len;
	int      kind;         /* NVMF_TCP_SEG_* */
};

/* One PDU on the send ring: header (with digest and padding), then data, then data digest. */
struct nvmf_tcp_tx {
	uint8_t        hdr[NVMF_TCP_TX_HDR_MAX];
	uint8_t        ddgst[NVME_TCP_DIGEST_LEN];
	uint16_t       hdr_len;
	uint8_t        ddgst_len;
	const uint8_t *data;
	uint32_t       data_len;
	uint64_t       wr_id;     /* a capsule: its SEND completion when written; else 0 */
	int            h2c_slot;  /* an H2CData PDU: its command's slot; else -1 */
};

struct nvmf_tcp_queue {
	struct nvmf_queue    q;
	int                  fd;
	int                  use_events;
	int                  hdgst;
	int                  ddgst;
	unsigned             cpda;
	unsigned             cpda_align;    /* (CPDA + 1) * 4: where data may start in a PDU */
	uint32_t             maxh2cdata;
	uint32_t             incapsule_max; /* Fabrics command data sent in the capsule */
	char                 addr[80];
	struct nvmf_tcp_cmd *cmds;
	unsigned            *rbufs;         /* receive buffers handed over, not yet used (stack) */
	unsigned             nr_rbufs;
	struct nvmf_wc      *pend;          /* completions found, not yet reaped */
	unsigned             nr_pend;
	unsigned             pend_cap;
	struct nvmf_tcp_tx  *tx;            /* send ring */
	unsigned             tx_cap;
	unsigned             tx_head;
	unsigned             tx_count;
	size_t               tx_off;        /* bytes of the head PDU already written */
	unsigned            *h2c_wait;      /* slots with R2T data to send, none on the ring */
	unsigned             h2c_head;
	unsigned             h2c_count;
	struct iovec         iov[NVMF_TCP_IOV_MAX];
	uint8_t              iov_data[NVMF_TCP_IOV_MAX]; /* the iov is a PDU's data */
	/* Sending by reference: zc_pipe holds data[tx_off - hdr_len ..][0..zc_inpipe) of the head
	 * PDU, taken from the buffer but not yet on the socket (tx_off counts socket bytes only). */
	int                  zc_pipe[2];    /* -1: not made yet, or splicing is off */
	int                  zc_off;        /* the pipe could not be made or filled: copy */
	size_t               zc_cap;
	size_t               zc_inpipe;
	/* receiving */
	int                  rx_state;
	int                  rx_ch_done;    /* the common header was read and checked */
	uint8_t              rx_hdr[NVMF_TCP_RX_HDR_MAX];
	uint32_t             rx_hdr_len;    /* the last PDU's header bytes in rx_hdr (HLEN, or
					     * what was in hand of one refused by its CH) */
	uint32_t             rx_have;       /* header (or data digest) bytes in hand */
	uint32_t             rx_need;
	struct nvme_tcp_pdu_info   rx_info;
	struct nvme_tcp_pdu_fields rx_f;
	unsigned             rx_slot;
	uint8_t             *rx_dst;
	uint32_t             rx_left;
	uint32_t             rx_crc;
	uint8_t              rx_ddgst[NVME_TCP_DIGEST_LEN];
	uint8_t             *rxbuf;
	uint8_t             *rx_src;        /* the segment being consumed: rx_src[rx_pos..rx_end) */
	int                  rx_src_kind;
	int                  rx_short;      /* the last read took less than it had room for */
	size_t               rx_pos;
	size_t               rx_end;
	struct nvmf_tcp_seg  rx_seg[3];     /* queued behind it */
	unsigned             rx_nseg;
	unsigned             rx_iseg;
	uint8_t              rx_spec_dd[NVME_TCP_DIGEST_LEN];
	int                  c2h_head;      /* oldest read expecting data, or -1 */
	int                  c2h_tail;
	struct nvmf_xport_stats st;
	int                  dead;          /* __atomic: failed or shut off; no more I/O on fd */
	int                  killed;        /* __atomic: kill() */
	int                  kill_err;      /* __atomic: kill_why() (kill_why written first) */
	char                 kill_why[160];
	int                  inet;          /* a TCP socket (not the unit tests' AF_UNIX pairs) */
	int                  term_sent;     /* an H2CTermReq was written: let it go before the abort */
};

static struct nvmf_tcp_queue *nvmf_tcp_of(struct nvmf_queue *q)
{
	return (struct nvmf_tcp_queue *)q;   /* q is the first member */
}

/* Abort the connection: what the socket still holds to send (bytes copied into it, or a
 * buffer's pages given by reference) is dropped, never sent nor sent again, and the target
 * gets a reset.  A plain shutdown() would let TCP deliver and retransmit all of it after the
 * I/O it belongs to was handed back, from pages fio may have refilled by then (issue 43).
 * connect(AF_UNSPEC) is Linux's disconnect: the descriptor stays open, as another thread may
 * be in a call on it; SO_LINGER {1, 0} makes the close a reset as well.  Sockets that have no
 * such disconnect (the unit tests' AF_UNIX pairs) are shut. */
static void nvmf_tcp_abort(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct sockaddr unspec;

	memset(&unspec, 0, sizeof(unspec));
	unspec.sa_family = AF_UNSPEC;
	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	(void)connect(fd, &unspec, sizeof(unspec));
	shutdown(fd, SHUT_RDWR);
}

/* Bytes of this socket the host's network stack still holds below TCP (in a qdisc, a device
 * queue): an aborted connection drops its queues, not packets TCP handed down already, and
 * those may carry a buffer's pages.  0 when unknown. */
static unsigned nvmf_tcp_below(int fd)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t ml = sizeof(mi);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &ml) < 0 ||
	    ml <= SK_MEMINFO_WMEM_ALLOC * sizeof(mi[0]))
		return 0;
	return mi[SK_MEMINFO_WMEM_ALLOC];
}

/* The socket shut so that nothing more is read into the commands' buffers or written from
 * them: aborted, and (TCP) held until the packets it had handed down have left the host, so
 * that no byte of a command leaves after the command is handed back (the caller fails them
 * next).  An H2CTermReq just written gets a moment to go out first: the controller should
 * hear why.  Returns the bytes still below TCP when the wait gave up (0: none). */
static unsigned nvmf_tcp_shut(struct nvmf_tcp_queue *tq)
{
	uint64_t deadline;
	unsigned below;
	int out = 0;

	if (__atomic_load_n(&tq->dead, __ATOMIC_ACQUIRE))
		return 0;
	__atomic_store_n(&tq->dead, 1, __ATOMIC_RELEASE);
	deadline = nvmf_now_ms() + NVMF_TCP_TERM_GRACE_MS;
	while (tq->term_sent && !__atomic_load_n(&tq->killed, __ATOMIC_ACQUIRE) &&
	       ioctl(tq->fd, SIOCOUTQ, &out) == 0 && out > 0 && nvmf_now_ms() < deadline)
		usleep(1000);
	nvmf_tcp_abort(tq->fd);
	if (!tq->inet)
		return 0;
	deadline = nvmf_now_ms() + NVMF_TCP_DRAIN_MS;
	while ((below = nvmf_tcp_below(tq->fd)) && nvmf_now_ms() < deadline)
		usleep(1000);
	return below;
}

/* The queue is lost with msg (the first failure's stays), its socket shut. */
static int nvmf_tcp_fail_msg(struct nvmf_tcp_queue *tq, int err, const char *msg)
{
	char m[sizeof(tq->q.fatal_msg)];
	unsigned below = nvmf_tcp_shut(tq);

	if (!below)
		return nvmf_queue_abandon(&tq->q, err, msg);
	snprintf(m, sizeof(m), "%s (%u bytes of it were still queued below TCP after %u ms: "
		 "they may yet reach the target)", msg, below, NVMF_TCP_DRAIN_MS);
	return nvmf_queue_abandon(&tq->q, err, m);
}

/* A kill (from any thread) is the reason of what follows it on the socket: the queue fails
 * with the kill's reason, not with the broken pipe or the end of stream it caused. */
static int nvmf_tcp_killed(struct nvmf_tcp_queue *tq)
{
	char msg[sizeof(tq->q.fatal_msg)];
	int err;

	if (!__atomic_load_n(&tq->killed, __ATOMIC_ACQUIRE))
		return 0;
	err = __atomic_load_n(&tq->kill_err, __ATOMIC_ACQUIRE);
	if (err)
		return nvmf_tcp_fail_msg(tq, err, tq->kill_why);
	snprintf(msg, sizeof(msg), "queue %u: the connection to %s was shut off", tq->q.qid,
		 tq->addr);
	return nvmf_tcp_fail_msg(tq, -ECONNABORTED, msg);
}

static void nvmf_tcp_term_send(struct nvmf_tcp_queue *tq, uint16_t fes, uint32_t fei);

/* The queue fails with one line (a kill reported first); with fes, the controller hears why
 * first (H2CTermReq: a PDU the host refuses). */
static int __attribute__((format(printf, 5, 0)))
nvmf_tcp_failv(struct nvmf_tcp_queue *tq, int err, uint16_t fes, uint32_t fei, const char *fmt,
	       va_list ap)
{
	char msg[sizeof(tq->q.fatal_msg)];
	int rc;

	if (!tq->q.fatal && (rc = nvmf_tcp_killed(tq)))
		return rc;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (fes && !tq->q.fatal)
		nvmf_tcp_term_send(tq, fes, fei);
	return nvmf_tcp_fail_msg(tq, err, msg);
}

static int __attribute__((format(printf, 3, 4)))
nvmf_tcp_fail(struct nvmf_tcp_queue *tq, int err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = nvmf_tcp_failv(tq, err, 0, 0, fmt, ap);
	va_end(ap);
	return rc;
}

/* Before the host shuts a connection over a PDU it refuses, it tells the controller why: an
 * H2CTermReq with the FES, the FEI and the PDU's header (rx_hdr).  Best effort, never waiting:
 * one non-blocking sendmsg of the rest of a PDU half written (the TermReq must start on a PDU
 * boundary) and the TermReq; what the socket does not take now is never sent.  Not on a socket
 * already dead or shut off by a kill: the connection is gone, or ended for another reason. */
static void nvmf_tcp_term_send(struct nvmf_tcp_queue *tq, uint16_t fes, uint32_t fei)
{
	uint8_t pdu[NVME_TCP_TERM_MAX_PLEN];
	struct iovec iov[4];
	unsigned n = 0;
	struct msghdr m;

	if (__atomic_load_n(&tq->dead, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&tq->killed, __ATOMIC_ACQUIRE))
		return;
	if (tq->tx_count && tq->tx_off) {
		const struct nvmf_tcp_tx *t = &tq->tx[tq->tx_head];
		const uint8_t *base[3] = { t->hdr, t->data, t->ddgst };
		size_t len[3] = { t->hdr_len, t->data_len, t->ddgst_len }, skip = tq->tx_off;

		for (int k = 0; k < 3; k++) {
			if (skip >= len[k]) {
				skip -= len[k];
				continue;
			}
			iov[n].iov_base = (void *)(uintptr_t)(base[k] + skip);
			iov[n++].iov_len = len[k] - skip;
			skip = 0;
		}
	}
	iov[n].iov_base = pdu;
	iov[n++].iov_len = nvme_tcp_h2c_term_build(pdu, fes, fei, tq->rx_hdr, tq->rx_hdr_len);
	memset(&m, 0, sizeof(m));
	m.msg_iov = iov;
	m.msg_iovlen = n;
	do
		tq->st.tx_calls++;
	while (sendmsg(tq->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno == EINTR);
	tq->term_sent = 1;
}

/* The controller sent a PDU the host refuses: the controller hears why (H2CTermReq), then the
 * queue fails with one line as on any other loss. */
static int __attribute__((format(printf, 4, 5)))
nvmf_tcp_refuse(struct nvmf_tcp_queue *tq, uint16_t fes, uint32_t fei, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = nvmf_tcp_failv(tq, -EPROTO, fes, fei, fmt, ap);
	va_end(ap);
	return rc;
}

/* 0 while the queue may use its socket; else its error (a kill is reported here, first). */
static int nvmf_tcp_alive(struct nvmf_tcp_queue *tq)
{
	if (__atomic_load_n(&tq->dead, __ATOMIC_ACQUIRE))
		return tq->q.fatal ? tq->q.fatal : -ENOTCONN;
	return nvmf_tcp_killed(tq);
}

static int nvmf_tcp_push_wc(struct nvmf_tcp_queue *tq, uint64_t wr_id, int is_recv,
			    uint32_t byte_len)
{
	struct nvmf_wc *wc;

	/* Each command gives at most one SEND and one RECV before it is reaped: a bug if full. */
	if (tq->nr_pend >= tq->pend_cap)
		return nvmf_tcp_fail(tq, -EOVERFLOW, "queue %u: more completions than commands",
				     tq->q.qid);
	wc = &tq->pend[tq->nr_pend++];
	wc->wr_id = wr_id;
	wc->status = 0;
	wc->is_recv = is_recv;
	wc->byte_len = byte_len;
	return 0;
}

/* ---- sending ------------------------------------------------------------------------------ */

static unsigned nvmf_tcp_align(unsigned v, unsigned a)
{
	return (v + a - 1) / a * a;
}

/* The data direction an SQE's opcode states (for Fabrics commands, its FCTYPE's). */
static unsigned nvmf_tcp_sqe_dir(const struct nvme_sqe *c)
{
	return (c->opcode == NVME_FABRICS_OPC ? c->bytes[4] : c->opcode) & 3u;
}

static void nvmf_tcp_sgl_transport(struct nvme_sgl_desc *d, uint32_t len)
{
	memset(d, 0, sizeof(*d));
	d->data_len = htole32(len);
	d->type = NVME_SGL_TYPE_TCP_TRANSPORT;
}

static struct nvmf_tcp_tx *nvmf_tcp_tx_tail(struct nvmf_tcp_queue *tq)
{
	struct nvmf_tcp_tx *t = &tq->tx[(tq->tx_head + tq->tx_count) % tq->tx_cap];

	tq->tx_count++;
	return t;
}

static void nvmf_tcp_h2c_wait_push(struct nvmf_tcp_queue *tq, unsigned slot)
{
	tq->h2c_wait[(tq->h2c_head + tq->h2c_count) % tq->q.depth] = slot;
	tq->h2c_count++;
}

/* A PDU was written out entirely. */
static int nvmf_tcp_tx_done(struct nvmf_tcp_queue *tq, const struct nvmf_tcp_tx *t)
{
	if (t->h2c_slot >= 0) {
		struct nvmf_tcp_cmd *cmd = &tq->cmds[t->h2c_slot];

		cmd->h2c_queued = 0;
		if (cmd->r2t_next < cmd->r2t_end)
			nvmf_tcp_h2c_wait_push(tq, (unsigned)t->h2c_slot);
		else
			cmd->r2t_active = 0;
	}
	return t->wr_id ? nvmf_tcp_push_wc(tq, t->wr_id, 0, 0) : 0;
}

static int nvmf_tcp_tx_advance(struct nvmf_tcp_queue *tq, size_t n)
{
	while (n && tq->tx_count) {
		struct nvmf_tcp_tx *t = &tq->tx[tq->tx_head];
		size_t left = (size_t)t->hdr_len + t->data_len + t->ddgst_len - tq->tx_off;
		int rc;

		if (n < left) {
			tq->tx_off += n;
			return 0;
		}
		n -= left;
		tq->tx_off = 0;
		tq->tx_head = (tq->tx_head + 1) % tq->tx_cap;
		tq->tx_count--;
		if ((rc = nvmf_tcp_tx_done(tq, t)))
			return rc;
	}
	return 0;
}

static void nvmf_tcp_zc_close(struct nvmf_tcp_queue *tq)
{
	for (int k = 0; k < 2; k++) {
		if (tq->zc_pipe[k] >= 0)
			close(tq->zc_pipe[k]);
		tq->zc_pipe[k] = -1;
	}
	tq->zc_inpipe = 0;
}

/* Whether PDU t's data goes by reference: large enough, and a pipe is (or can be) had. The
 * pipe is made at the first such PDU, so a queue that never sends one never has it. */
static int nvmf_tcp_zc_wants(struct nvmf_tcp_queue *tq, const struct nvmf_tcp_tx *t)
{
	int sz;

	if (t->data_len < NVMF_TCP_SPLICE_MIN || tq->zc_off)
		return 0;
	if (tq->zc_pipe[0] >= 0)
		return 1;
	if (pipe2(tq->zc_pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
		tq->zc_pipe[0] = tq->zc_pipe[1] = -1;
		tq->zc_off = 1;
		return 0;
	}
	(void)fcntl(tq->zc_pipe[1], F_SETPIPE_SZ, NVMF_TCP_SPLICE_PIPE);   /* a smaller one works */
	sz = fcntl(tq->zc_pipe[1], F_GETPIPE_SZ);
	tq->zc_cap = sz > 0 ? (size_t)sz : 65536;
	return 1;
}

/* The head PDU's data from tx_off on, by reference: fill the pipe from the buffer (vmsplice)
 * when it is empty, then empty it into the socket (splice). 1: the socket is full; 0: progress;
 * else the queue's error. A pipe that cannot be filled turns splicing off (nothing was taken:
 * the bytes go by sendmsg instead); a failed splice into the socket fails the queue as a failed
 * sendmsg would. */
static int nvmf_tcp_tx_splice(struct nvmf_tcp_queue *tq, const struct nvmf_tcp_tx *t, int more)
{
	size_t doff = tq->tx_off - t->hdr_len;
	ssize_t w;
	int rc;

	if (!tq->zc_inpipe) {
		struct iovec v = { (void *)(uintptr_t)(t->data + doff), t->data_len - doff };

		if (v.iov_len > tq->zc_cap)
			v.iov_len = tq->zc_cap;
		tq->st.tx_calls++;
		w = vmsplice(tq->zc_pipe[1], &v, 1, SPLICE_F_NONBLOCK);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				return 0;
			nvmf_tcp_zc_close(tq);
			tq->zc_off = 1;
			return 0;
		}
		tq->zc_inpipe = (size_t)w;
	}
	tq->st.tx_calls++;
	w = splice(tq->zc_pipe[0], NULL, tq->fd, NULL, tq->zc_inpipe,
		   SPLICE_F_NONBLOCK | SPLICE_F_MOVE |
		   (more || doff + tq->zc_inpipe < t->data_len ? SPLICE_F_MORE : 0));
	if (w < 0) {
		if (errno == EINTR)
			return 0;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;
		return nvmf_tcp_fail(tq, -errno, "queue %u: sending to %s failed: %s", tq->q.qid,
				     tq->addr, strerror(errno));
	}
	tq->zc_inpipe -= (size_t)w;
	tq->st.tx_spliced += (uint64_t)w;
	if ((rc = nvmf_tcp_tx_advance(tq, (size_t)w)))
		return rc;
	return tq->zc_inpipe ? 1 : 0;   /* the socket took less than the pipe held: full */
}

/* Write what the ring holds until the socket takes no more: one sendmsg for the PDUs in a row
 * that are copied, a splice for data that goes by reference. */
static int nvmf_tcp_tx_flush(struct nvmf_tcp_queue *tq)
{
	while (tq->tx_count) {
		const struct nvmf_tcp_tx *h = &tq->tx[tq->tx_head];
		size_t skip = tq->tx_off, want = 0, data_sent = 0, left;
		unsigned niov = 0;
		int more = 0;
		struct msghdr m;
		ssize_t w;
		int rc;

		if (tq->tx_off >= h->hdr_len && tq->tx_off < (size_t)h->hdr_len + h->data_len &&
		    (tq->zc_inpipe || nvmf_tcp_zc_wants(tq, h))) {
			if ((rc = nvmf_tcp_tx_splice(tq, h, h->ddgst_len || tq->tx_count > 1)))
				return rc < 0 ? rc : 0;
			continue;
		}
		for (unsigned k = 0; k < tq->tx_count && niov + 3 <= NVMF_TCP_IOV_MAX && !more; k++) {
			const struct nvmf_tcp_tx *t = &tq->tx[(tq->tx_head + k) % tq->tx_cap];
			const uint8_t *base[3] = { t->hdr, t->data, t->ddgst };
			size_t len[3] = { t->hdr_len, t->data_len, t->ddgst_len };

			for (int s = 0; s < 3; s++) {
				if (skip >= len[s]) {
					skip -= len[s];
					continue;
				}
				/* data by reference: this sendmsg ends before it (MSG_MORE) */
				if (s == 1 && nvmf_tcp_zc_wants(tq, t)) {
					more = 1;
					break;
				}
				tq->iov[niov].iov_base = (void *)(uintptr_t)(base[s] + skip);
				tq->iov[niov].iov_len = len[s] - skip;
				tq->iov_data[niov] = s == 1;
				want += len[s] - skip;
				skip = 0;
				niov++;
			}
		}
		memset(&m, 0, sizeof(m));
		m.msg_iov = tq->iov;
		m.msg_iovlen = niov;
		tq->st.tx_calls++;
		w = sendmsg(tq->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT | (more ? MSG_MORE : 0));
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return nvmf_tcp_fail(tq, -errno, "queue %u: sending to %s failed: %s", tq->q.qid,
					     tq->addr, strerror(errno));
		}
		left = (size_t)w;
		for (unsigned k = 0; k < niov && left; k++) {
			size_t n = tq->iov[k].iov_len < left ? tq->iov[k].iov_len : left;

			if (tq->iov_data[k])
				data_sent += n;
			left -= n;
		}
		tq->st.tx_copied += data_sent;
		if ((rc = nvmf_tcp_tx_advance(tq, (size_t)w)))
			return rc;
		if ((size_t)w < want)
			return 0;   /* the socket is full: the rest goes from a later reap */
	}
	return 0;
}

/* The next H2CData PDU of the R2T slot is answering: at most MAXH2CDATA bytes from the
 * command's buffer, LAST on the R2T's final one. */
static void nvmf_tcp_h2c_queue(struct nvmf_tcp_queue *tq, unsigned slot)
{
	struct nvmf_tcp_cmd *cmd = &tq->cmds[slot];
	struct nvmf_tcp_tx *t = nvmf_tcp_tx_tail(tq);
	unsigned hd = tq->hdgst ? NVME_TCP_DIGEST_LEN : 0, dd = tq->ddgst ? NVME_TCP_DIGEST_LEN : 0;
	unsigned pdo = nvmf_tcp_align(NVME_TCP_DATA_HLEN + hd, tq->cpda_align);
	uint32_t chunk = cmd->r2t_end - cmd->r2t_next;
	uint8_t *h = t->hdr;

	if (chunk > tq->maxh2cdata)
		chunk = tq->maxh2cdata;
	memset(h, 0, pdo);
	h[0] = NVME_TCP_PDU_H2C_DATA;
	h[1] = (uint8_t)((hd ? NVME_TCP_F_HDGST : 0) | (dd ? NVME_TCP_F_DDGST : 0) |
			 (cmd->r2t_next + chunk == cmd->r2t_end ? NVME_TCP_F_DATA_LAST : 0));
	h[2] = NVME_TCP_DATA_HLEN;
	h[3] = (uint8_t)pdo;
	nvmf_put_le32(h + 4, pdo + chunk + dd);
	nvmf_put_le16(h + 8, tq->q.reqs[slot].cid);
	nvmf_put_le16(h + 10, cmd->ttag);
	nvmf_put_le32(h + 12, cmd->r2t_next);
	nvmf_put_le32(h + 16, chunk);
	if (hd)
		nvmf_put_le32(h + NVME_TCP_DATA_HLEN, nvmf_crc32c(h, NVME_TCP_DATA_HLEN));
	t->hdr_len = (uint16_t)pdo;
	t->data = cmd->buf + cmd->r2t_next;
	t->data_len = chunk;
	t->ddgst_len = (uint8_t)dd;
	if (dd)
		nvmf_put_le32(t->ddgst, nvmf_crc32c(t->data, chunk));
	t->wr_id = 0;
	t->h2c_slot = (int)slot;
	cmd->r2t_next += chunk;
	cmd->h2c_queued = 1;
}

/* Queue the H2CData the R2Ts ask for while the ring has room, and write. */
static int nvmf_tcp_tx_pump(struct nvmf_tcp_queue *tq)
{
	/* Shut by the host (a refused PDU): the queue fails on what was read, not on the pipe. */
	if (__atomic_load_n(&tq->dead, __ATOMIC_ACQUIRE))
		return 0;
	for (;;) {
		int rc;

		while (tq->h2c_count && tq->tx_count < tq->tx_cap) {
			unsigned slot = tq->h2c_wait[tq->h2c_head];

			tq->h2c_head = (tq->h2c_head + 1) % tq->q.depth;
			tq->h2c_count--;
			nvmf_tcp_h2c_queue(tq, slot);
		}
		if ((rc = nvmf_tcp_tx_flush(tq)))
			return rc;
		if (tq->tx_count || !tq->h2c_count)
			return 0;
	}
}

/* The reads expecting data, oldest first: where a speculative read guesses the next C2HData
 * goes (targets answer in order; at QD1 there is one).  Linked when posted, unlinked when the
 * slot is posted again or when a guess finds it no longer expecting data. */
static void nvmf_tcp_c2h_unlink(struct nvmf_tcp_queue *tq, unsigned slot)
{
	struct nvmf_tcp_cmd *cmd = &tq->cmds[slot];

	if (!cmd->c2h_listed)
		return;
	if (cmd->c2h_prev >= 0)
		tq->cmds[cmd->c2h_prev].c2h_fnext = cmd->c2h_fnext;
	else
		tq->c2h_head = cmd->c2h_fnext;
	if (cmd->c2h_fnext >= 0)
		tq->cmds[cmd->c2h_fnext].c2h_prev = cmd->c2h_prev;
	else
		tq->c2h_tail = cmd->c2h_prev;
	cmd->c2h_listed = 0;
}

static void nvmf_tcp_c2h_link(struct nvmf_tcp_queue *tq, unsigned slot)
{
	struct nvmf_tcp_cmd *cmd = &tq->cmds[slot];

	cmd->c2h_prev = tq->c2h_tail;
	cmd->c2h_fnext = -1;
	if (tq->c2h_tail >= 0)
		tq->cmds[tq->c2h_tail].c2h_fnext = (int)slot;
	else
		tq->c2h_head = (int)slot;
	tq->c2h_tail = (int)slot;
	cmd->c2h_listed = 1;
}

static int nvmf_tcp_post_sends(void *ctx, const struct nvmf_send_desc *d, unsigned n)
{
	struct nvmf_tcp_queue *tq = ctx;
	struct nvmf_queue *q = &tq->q;
	unsigned hd = tq->hdgst ? NVME_TCP_DIGEST_LEN : 0, dd = tq->ddgst ? NVME_TCP_DIGEST_LEN : 0;
	int rc;

	if ((rc = nvmf_tcp_alive(tq)))
		return rc;
	for (unsigned i = 0; i < n; i++) {
		unsigned slot = d[i].slot;
		const uint8_t *data = d[i].inline_addr;
		uint32_t dlen = d[i].inline_len;
		struct nvmf_tcp_cmd *cmd;
		struct nvmf_tcp_tx *t;
		struct nvme_sqe *c;
		unsigned pdo;

		if (slot >= q->depth || tq->tx_count >= tq->tx_cap)
			return nvmf_tcp_fail(tq, -EOVERFLOW, "queue %u: capsule for slot %u does not "
					     "fit the send ring", q->qid, slot);
		c = &q->sqes[slot];
		cmd = &tq->cmds[slot];
		nvmf_tcp_c2h_unlink(tq, slot);
		memset(cmd, 0, sizeof(*cmd));
		if (c->dptr.type == NVME_SGL_TYPE_KEYED_ADDR) {
			uint64_t addr = le64toh(c->dptr.addr);
			uint32_t len = nvmf_get_le24(c->dptr.length);
			unsigned dir = nvmf_tcp_sqe_dir(c);

			if (len && !addr)
				return nvmf_tcp_fail(tq, -EINVAL, "queue %u: command 0x%04x names %u "
						     "bytes of data at address 0", q->qid,
						     le16toh(c->cid), len);
			if (len && dir == NVMF_TCP_DIR_BIDI)
				return nvmf_tcp_fail(tq, -EOPNOTSUPP, "queue %u: command 0x%04x (opcode "
						     "0x%02x) moves data both ways", q->qid,
						     le16toh(c->cid), c->opcode);
			if (len && dir == NVMF_TCP_DIR_H2C && !dlen && len <= tq->incapsule_max) {
				/* Data that fits goes in the capsule, as the kernel and SPDK hosts
				 * send it: Connect's must (the controller has no queue to send an
				 * R2T on before it accepted the Connect), and the kernel target
				 * (6.1) never answers an R2T write that would fit (a DSM's ranges,
				 * a write sent keyed). */
				data = (const uint8_t *)(uintptr_t)addr;
				dlen = len;
				nvme_sqe_set_sgl_inline(c, 0, len);
			} else {
				cmd->buf = (uint8_t *)(uintptr_t)addr;
				cmd->len = len;
				cmd->dir = (uint8_t)(len ? dir : NVMF_TCP_DIR_NONE);
				nvmf_tcp_sgl_transport(&c->dptr, len);
				if (cmd->dir == NVMF_TCP_DIR_C2H)
					nvmf_tcp_c2h_link(tq, slot);
			}
		}
		t = nvmf_tcp_tx_tail(tq);
		pdo = dlen ? nvmf_tcp_align(NVME_TCP_CMD_HLEN + hd, tq->cpda_align) : 0;
		memset(t->hdr, 0, dlen ? pdo : NVME_TCP_CMD_HLEN + hd);
		t->hdr[0] = NVME_TCP_PDU_CMD;
		t->hdr[1] = (uint8_t)((hd ? NVME_TCP_F_HDGST : 0) | (dlen && dd ? NVME_TCP_F_DDGST : 0));
		t->hdr[2] = NVME_TCP_CMD_HLEN;
		t->hdr[3] = (uint8_t)pdo;
		nvmf_put_le32(t->hdr + 4, dlen ? pdo + dlen + dd : NVME_TCP_CMD_HLEN + hd);
		memcpy(t->hdr + 8, c, sizeof(*c));
		if (hd)
			nvmf_put_le32(t->hdr + NVME_TCP_CMD_HLEN, nvmf_crc32c(t->hdr, NVME_TCP_CMD_HLEN));
		t->hdr_len = (uint16_t)(dlen ? pdo : NVME_TCP_CMD_HLEN + hd);
		t->data = dlen ? data : NULL;
		t->data_len = dlen;
		t->ddgst_len = (uint8_t)(dlen ? dd : 0);
		if (dlen && dd)
			nvmf_put_le32(t->ddgst, nvmf_crc32c(data, dlen));
		t->wr_id = d[i].wr_id;
		t->h2c_slot = -1;
	}
	return nvmf_tcp_tx_flush(tq);
}

/* ---- receiving ---------------------------------------------------------------------------- */

static int nvmf_tcp_post_recvs(void *ctx, const unsigned *idx, unsigned n)
{
	struct nvmf_tcp_queue *tq = ctx;

	for (unsigned i = 0; i < n; i++) {
		if (idx[i] >= tq->q.depth || tq->nr_rbufs >= tq->q.depth)
			return -EINVAL;
		tq->rbufs[tq->nr_rbufs++] = idx[i];
	}
	return 0;
}

static void nvmf_tcp_rx_next_pdu(struct nvmf_tcp_queue *tq)
{
	tq->rx_state = NVMF_TCP_RX_HDR;
	tq->rx_ch_done = 0;
	tq->rx_have = 0;
	tq->rx_need = sizeof(struct nvme_tcp_ch);
}

/* The in-flight command cid names on this queue, or NULL. */
static struct nvmf_tcp_cmd *nvmf_tcp_cmd_of(struct nvmf_tcp_queue *tq, uint16_t cid, unsigned *slot)
{
	unsigned s = cid & tq->q.slot_mask;

	if (s >= tq->q.depth || tq->q.reqs[s].cid != cid || tq->q.reqs[s].state != NVMF_REQ_INFLIGHT)
		return NULL;
	*slot = s;
	return &tq->cmds[s];
}

/* A CQE into one of the receive buffers the queue handed over, as a RECV completion. */
static int nvmf_tcp_deliver_cqe(struct nvmf_tcp_queue *tq, const void *cqe)
{
	unsigned idx;

	if (!tq->nr_rbufs)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_PDU_SEQ_ERR, 0, "queue %u: more responses "
				       "than commands (no receive buffer left)", tq->q.qid);
	idx = tq->rbufs[--tq->nr_rbufs];
	memcpy(&tq->q.rsps[idx], cqe, sizeof(struct nvme_cqe));
	return nvmf_tcp_push_wc(tq, NVMF_WRID_RECV | idx, 1, sizeof(struct nvme_cqe));
}

/* A command some of whose data failed its digest reports Data Transfer Error (SCT 0h, SC 04h)
 * where the controller said success; the phase bit stays. */
static void nvmf_tcp_spoil_cqe(const struct nvmf_tcp_cmd *cmd, uint8_t *cqe)
{
	uint16_t st = nvmf_get_le16(cqe + 14);

	if (cmd->ddgst_bad && !(st & 0xfffe))
		nvmf_put_le16(cqe + 14, (uint16_t)((st & 1) | (NVME_SC_DATA_XFER_ERROR << 1)));
}

static int nvmf_tcp_on_rsp(struct nvmf_tcp_queue *tq, const uint8_t *cqe)
{
	uint16_t cid = nvmf_get_le16(cqe + 12);
	struct nvmf_tcp_cmd *cmd;
	unsigned slot;

	cmd = nvmf_tcp_cmd_of(tq, cid, &slot);
	if (!cmd) {
		/* The queue fails on it in its own words once the CQE reaches it; the controller
		 * hears of it here, and nothing more is read. */
		nvmf_tcp_term_send(tq, NVME_TCP_FES_INVALID_PDU_HDR,
				   offsetof(struct nvme_tcp_rsp_pdu, cqe) + offsetof(struct nvme_cqe, cid));
		nvmf_tcp_shut(tq);
		return nvmf_tcp_deliver_cqe(tq, cqe);
	}
	if (cmd->responded)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_PDU_SEQ_ERR, 0, "queue %u: second response "
				       "for command 0x%04x", tq->q.qid, cid);
	/* Its buffer is the caller's again once it completes: not while H2CData from it is still
	 * to be written. */
	if (cmd->r2t_active)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_PDU_SEQ_ERR, 0, "queue %u: response for "
				       "command 0x%04x while its data was still being sent (R2T at "
				       "%u+%u)", tq->q.qid, cid, cmd->r2t_next,
				       cmd->r2t_end - cmd->r2t_next);
	cmd->responded = 1;
	if (cmd->ddgst_bad) {
		uint8_t spoiled[sizeof(struct nvme_cqe)];

		memcpy(spoiled, cqe, sizeof(spoiled));
		nvmf_tcp_spoil_cqe(cmd, spoiled);
		return nvmf_tcp_deliver_cqe(tq, spoiled);
	}
	return nvmf_tcp_deliver_cqe(tq, cqe);
}

#define DATA_OFF(field) offsetof(struct nvme_tcp_data_pdu, field)
#define R2T_OFF(field)  offsetof(struct nvme_tcp_r2t_pdu, field)

static int nvmf_tcp_on_c2h(struct nvmf_tcp_queue *tq, const struct nvme_tcp_pdu_fields *f)
{
	unsigned qid = tq->q.qid, slot;
	struct nvmf_tcp_cmd *cmd = nvmf_tcp_cmd_of(tq, f->cccid, &slot);

	if (!cmd)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_INVALID_PDU_HDR, DATA_OFF(cccid), "queue %u: "
				       "C2HData for unknown command 0x%04x", qid, f->cccid);
	if (cmd->dir != NVMF_TCP_DIR_C2H)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_INVALID_PDU_HDR, DATA_OFF(cccid), "queue %u: "
				       "C2HData for command 0x%04x, which reads no data", qid, f->cccid);
	if (cmd->responded)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_PDU_SEQ_ERR, 0, "queue %u: C2HData for "
				       "command 0x%04x after its response", qid, f->cccid);
	if ((uint64_t)f->off + f->len > cmd->len)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0, "queue %u: C2HData for "
				       "command 0x%04x at offset %u+%u beyond its %u-byte buffer", qid,
				       f->cccid, f->off, f->len, cmd->len);
	if (f->off != cmd->c2h_next)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_INVALID_PDU_HDR, DATA_OFF(datao), "queue %u: "
				       "C2HData for command 0x%04x at offset %u, expected %u (data out "
				       "of order)", qid, f->cccid, f->off, cmd->c2h_next);
	cmd->c2h_next += f->len;
	tq->rx_slot = slot;
	tq->rx_dst = cmd->buf + f->off;
	tq->rx_left = f->len;
	tq->rx_crc = NVMF_CRC32C_INIT;
	tq->rx_state = NVMF_TCP_RX_DATA;
	return 0;
}

/* A C2HData PDU's data (and digest) arrived. */
static int nvmf_tcp_c2h_done(struct nvmf_tcp_queue *tq)
{
	const struct nvme_tcp_pdu_fields *f = &tq->rx_f;

	struct nvmf_tcp_cmd *cmd = &tq->cmds[tq->rx_slot];

	/* A wrong data digest under a good header (or with none) spoils this PDU's data only:
	 * the stream is still in step.  The command fails alone, with Data Transfer Error, once
	 * its answer comes (as the kernel's host does); the queue goes on. */
	if (tq->ddgst && nvmf_get_le32(tq->rx_ddgst) != nvmf_crc32c_final(tq->rx_crc)) {
		cmd->ddgst_bad = 1;
		tq->st.ddgst_errors++;
	}
	nvmf_tcp_rx_next_pdu(tq);
	if (tq->rx_info.flags & NVME_TCP_F_DATA_SUCCESS) {
		/* The controller skips the response capsule: a successful CQE stands for it. */
		uint8_t cqe[sizeof(struct nvme_cqe)] = { 0 };

		cmd->responded = 1;
		nvmf_put_le16(cqe + 10, tq->q.qid);
		nvmf_put_le16(cqe + 12, f->cccid);
		nvmf_tcp_spoil_cqe(cmd, cqe);
		return nvmf_tcp_deliver_cqe(tq, cqe);
	}
	return 0;
}

/* k bytes of C2HData landed at rx_dst. */
static int nvmf_tcp_data_in(struct nvmf_tcp_queue *tq, size_t k)
{
	if (tq->ddgst)
		tq->rx_crc = nvmf_crc32c_update(tq->rx_crc, tq->rx_dst, k);
	tq->rx_dst += k;
	tq->rx_left -= (uint32_t)k;
	if (tq->rx_left)
		return 0;
	if (tq->ddgst) {
		tq->rx_state = NVMF_TCP_RX_DDGST;
		tq->rx_have = 0;
		return 0;
	}
	return nvmf_tcp_c2h_done(tq);
}

static int nvmf_tcp_on_r2t(struct nvmf_tcp_queue *tq, const struct nvme_tcp_pdu_fields *f)
{
	unsigned qid = tq->q.qid, slot;
	struct nvmf_tcp_cmd *cmd = nvmf_tcp_cmd_of(tq, f->cccid, &slot);

	if (!cmd)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_INVALID_PDU_HDR, R2T_OFF(cccid), "queue %u: "
				       "R2T for unknown command 0x%04x", qid, f->cccid);
	if (cmd->dir != NVMF_TCP_DIR_H2C)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_INVALID_PDU_HDR, R2T_OFF(cccid), "queue %u: "
				       "R2T for command 0x%04x, which has no data for the controller to "
				       "fetch", qid, f->cccid);
	if (cmd->responded)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_PDU_SEQ_ERR, 0, "queue %u: R2T for command "
				       "0x%04x after its response", qid, f->cccid);
	if (cmd->r2t_active)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_R2T_LIMIT_EXCEEDED, 0, "queue %u: R2T for "
				       "command 0x%04x while its previous R2T is still being answered "
				       "(MAXR2T 0: one at a time)", qid, f->cccid);
	if ((uint64_t)f->off + f->len > cmd->len)
		return nvmf_tcp_refuse(tq, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0, "queue %u: R2T for "
				       "command 0x%04x at offset %u+%u beyond its %u-byte buffer", qid,
				       f->cccid, f->off, f->len, cmd->len);
	cmd->r2t_active = 1;
	cmd->ttag = f->ttag;
	cmd->r2t_next = f->off;
	cmd->r2t_end = f->off + f->len;
	nvmf_tcp_h2c_wait_push(tq, slot);
	return 0;
}

/* A whole PDU header (digest and padding included) is in rx_hdr. */
static int nvmf_tcp_on_header(struct nvmf_tcp_queue *tq)
{
	const struct nvme_tcp_pdu_info *info = &tq->rx_info;
	const uint8_t *h = tq->rx_hdr;
	char why[128];

	if (tq->hdgst && info->type != NVME_TCP_PDU_C2H_TERM) {
		uint32_t got = nvmf_get_le32(h + info->hlen), want = nvmf_crc32c(h, info->hlen);

		if (got != want)
			return nvmf_tcp_refuse(tq, NVME_TCP_FES_HDR_DIGEST_ERR, 0, "queue %u: header "
					       "digest mismatch on a %s PDU (received 0x%08x, computed "
					       "0x%08x)", tq->q.qid, nvme_tcp_pdu_type_name(info->type),
					       got, want);
	}
	if (nvme_tcp_pdu_parse(h, info, &tq->rx_f, why, sizeof(why)))
		return nvmf_tcp_refuse(tq, tq->rx_f.err_fes, tq->rx_f.err_fei, "queue %u: %s",
				       tq->q.qid, why);
	switch (info->type) {
	case NVME_TCP_PDU_C2H_DATA:
		return nvmf_tcp_on_c2h(tq, &tq->rx_f);
	case NVME_TCP_PDU_RSP:
		nvmf_tcp_rx_next_pdu(tq);
		return nvmf_tcp_on_rsp(tq, h + sizeof(struct nvme_tcp_ch));
	case NVME_TCP_PDU_R2T:
		nvmf_tcp_rx_next_pdu(tq);
		return nvmf_tcp_on_r2t(tq, &tq->rx_f);
	default:   /* C2HTermReq: nvme_tcp_ch_parse lets no other type through */
		return nvmf_tcp_fail(tq, -ECONNABORTED, "queue %u: the controller at %s ended the "
				     "connection: C2HTermReq, %s (FES 0x%x, FEI 0x%x)", tq->q.qid,
				     tq->addr, nvme_tcp_fes_name(tq->rx_f.fes), tq->rx_f.fes,
				     tq->rx_f.fei);
	}
}

/* A common header refused: the H2CTermReq carries the header as far as it is in hand (its
 * HLEN, when that is believable and the bytes came with it; the 8 bytes at least).  A
 * C2HTermReq, even a malformed one, is the controller ending the connection: no answer. */
static int nvmf_tcp_ch_refused(struct nvmf_tcp_queue *tq, int rc, const char *why)
{
	size_t want = tq->rx_info.hlen, extra;

	if (tq->rx_info.type == NVME_TCP_PDU_C2H_TERM)
		return nvmf_tcp_fail(tq, rc, "queue %u: %s", tq->q.qid, why);
	if (want > NVME_TCP_TERM_MAX_DATA)
		want = NVME_TCP_TERM_MAX_DATA;
	extra = want > tq->rx_have ? want - tq->rx_have : 0;
	if (extra > tq->rx_end - tq->rx_pos)
		extra = tq->rx_end - tq->rx_pos;
	memmove(tq->rx_hdr + tq->rx_have, tq->rx_src + tq->rx_pos, extra);
	tq->rx_hdr_len = tq->rx_have + (uint32_t)extra;
	return nvmf_tcp_refuse(tq, tq->rx_info.err_fes, tq->rx_info.err_fei, "queue %u: %s",
			       tq->q.qid, why);
}

/* Bytes a wrong guess put into a command's buffer, once moved out to where they belong, are
 * zeroed: where that command's own data never comes (a short transfer, one that fails) its
 * buffer holds no other PDU's bytes, another command's data among them, and a buffer zeroed
 * before the command (nvmf_get_log's) keeps zeros past what was transferred.  moved_to: where
 * the bytes went when that is in the same buffer (a payload moved back to its offset): not
 * cleared there. */
static void nvmf_tcp_guess_clear(uint8_t *p, size_t k, const uint8_t *moved_to)
{
	uint8_t *from = p;

	/* a payload moves back, never forward: a command's data comes in order */
	if (moved_to && moved_to <= p && moved_to + k > p)
		from = (uint8_t *)(uintptr_t)(moved_to + k);
	if (from < p + k)
		memset(from, 0, (size_t)(p + k - from));
}

/* Take what the state needs from the bytes in hand.  Bytes a speculative read put where they
 * belong (a header in rx_hdr, C2HData at its place in the command's buffer) are not copied;
 * others are moved (memmove: after a wrong guess, a C2HData payload can be moved within the
 * same command's buffer). */
static int nvmf_tcp_rx_consume(struct nvmf_tcp_queue *tq)
{
	uint8_t *p = tq->rx_src + tq->rx_pos;
	size_t avail = tq->rx_end - tq->rx_pos, k;
	int guess = tq->rx_src_kind == NVMF_TCP_SEG_GUESS;
	char why[128];
	int rc;

	switch (tq->rx_state) {
	case NVMF_TCP_RX_DATA:
		k = avail < tq->rx_left ? avail : tq->rx_left;
		tq->rx_pos += k;
		if (p == tq->rx_dst) {
			tq->st.rx_direct += k;
		} else {
			memmove(tq->rx_dst, p, k);
			tq->st.rx_copied += k;
			if (guess) {
				tq->st.rx_spec_miss += k;
				nvmf_tcp_guess_clear(p, k, tq->rx_dst);
			}
		}
		return nvmf_tcp_data_in(tq, k);
	case NVMF_TCP_RX_DDGST:
		k = NVME_TCP_DIGEST_LEN - tq->rx_have;
		k = avail < k ? avail : k;
		memcpy(tq->rx_ddgst + tq->rx_have, p, k);
		tq->rx_pos += k;
		tq->rx_have += (uint32_t)k;
		if (guess) {
			tq->st.rx_spec_miss += k;
			nvmf_tcp_guess_clear(p, k, NULL);
		}
		return tq->rx_have == NVME_TCP_DIGEST_LEN ? nvmf_tcp_c2h_done(tq) : 0;
	default:
		k = tq->rx_need - tq->rx_have;
		k = avail < k ? avail : k;
		if (p != tq->rx_hdr + tq->rx_have)
			memmove(tq->rx_hdr + tq->rx_have, p, k);
		tq->rx_pos += k;
		tq->rx_have += (uint32_t)k;
		if (guess) {
			tq->st.rx_spec_miss += k;
			nvmf_tcp_guess_clear(p, k, NULL);
		}
		if (tq->rx_have < tq->rx_need)
			return 0;
		if (!tq->rx_ch_done) {
			if ((rc = nvme_tcp_ch_parse(tq->rx_hdr, tq->hdgst, tq->ddgst, &tq->rx_info, why,
						    sizeof(why))))
				return nvmf_tcp_ch_refused(tq, rc, why);
			tq->rx_ch_done = 1;
			tq->rx_hdr_len = tq->rx_info.hlen;
			tq->rx_need = tq->rx_info.hdr_len;   /* at most 255: fits rx_hdr */
			if (tq->rx_have < tq->rx_need)
				return 0;
		}
		return nvmf_tcp_on_header(tq);
	}
}

/* The bytes in hand: the receive buffer's r, nothing queued behind them. */
static void nvmf_tcp_rx_src_rxbuf(struct nvmf_tcp_queue *tq, size_t r)
{
	tq->rx_src = tq->rxbuf;
	tq->rx_src_kind = NVMF_TCP_SEG_RXBUF;
	tq->rx_pos = 0;
	tq->rx_end = r;
	tq->rx_nseg = tq->rx_iseg = 0;
}

/* The next segment in hand, if any: 1 when there was one. */
static int nvmf_tcp_rx_next_seg(struct nvmf_tcp_queue *tq)
{
	const struct nvmf_tcp_seg *g;

	if (tq->rx_iseg == tq->rx_nseg)
		return 0;
	g = &tq->rx_seg[tq->rx_iseg++];
	tq->rx_src = g->base;
	tq->rx_src_kind = g->kind;
	tq->rx_pos = 0;
	tq->rx_end = g->len;
	return 1;
}

static size_t nvmf_tcp_iov_len(const struct iovec *iov, unsigned n)
{
	size_t len = 0;

	for (unsigned i = 0; i < n; i++)
		len += iov[i].iov_len;
	return len;
}

/* Read from the socket: into the receive buffer, or, inside a C2HData payload with the buffer
 * drained, straight into the command's buffer, then the data digest, then the receive buffer
 * (whatever follows).  Bytes read, 0 at EOF, or a negative errno. */
static ssize_t nvmf_tcp_rx_read(struct nvmf_tcp_queue *tq)
{
	struct iovec iov[3];
	unsigned n = 0;
	size_t k1 = 0, k2 = 0;
	ssize_t r;
	int rc;

	if (tq->rx_state == NVMF_TCP_RX_DATA) {
		iov[n].iov_base = tq->rx_dst;
		iov[n++].iov_len = tq->rx_left;
		if (tq->ddgst) {
			iov[n].iov_base = tq->rx_ddgst;
			iov[n++].iov_len = NVME_TCP_DIGEST_LEN;
		}
	}
	iov[n].iov_base = tq->rxbuf;
	iov[n++].iov_len = NVMF_TCP_RXBUF;
	tq->st.rx_calls++;
	r = readv(tq->fd, iov, (int)n);
	if (r <= 0)
		return r < 0 ? -errno : 0;
	tq->rx_short = (size_t)r < nvmf_tcp_iov_len(iov, n);
	nvmf_tcp_rx_src_rxbuf(tq, 0);
	if (n == 1) {
		tq->rx_end = (size_t)r;
		return r;
	}
	k1 = (size_t)r < tq->rx_left ? (size_t)r : tq->rx_left;
	tq->st.rx_direct += k1;
	if ((rc = nvmf_tcp_data_in(tq, k1)))
		return rc;
	if (tq->rx_state == NVMF_TCP_RX_DDGST) {
		k2 = (size_t)r - k1 < NVME_TCP_DIGEST_LEN ? (size_t)r - k1 : NVME_TCP_DIGEST_LEN;
		tq->rx_have = (uint32_t)k2;
		if (k2 == NVME_TCP_DIGEST_LEN && (rc = nvmf_tcp_c2h_done(tq)))
			return rc;
	}
	tq->rx_end = (size_t)r - k1 - k2;
	return r;
}

/* The read a C2HData is most likely to come for next, when a new PDU is due: the oldest read
 * still expecting data, or NULL.  Only a read command's own buffer, at and past the data it
 * has received (c2h_next), is ever guessed: see nvmf_tcp_rx_read_spec. */
static struct nvmf_tcp_cmd *nvmf_tcp_guess(struct nvmf_tcp_queue *tq)
{
	unsigned hl = NVME_TCP_DATA_HLEN + (tq->hdgst ? NVME_TCP_DIGEST_LEN : 0);

	/* A CPDA that pads C2HData headers puts the data past one header's worth: no guess. */
	if (tq->rx_state != NVMF_TCP_RX_HDR || tq->rx_have ||
	    nvmf_tcp_align(hl, tq->cpda_align) != hl)
		return NULL;
	while (tq->c2h_head >= 0) {
		unsigned s = (unsigned)tq->c2h_head;
		struct nvmf_tcp_cmd *cmd = &tq->cmds[s];

		/* Host memory only: a TCP command's keyed SGL always names it (GPU memory is
		 * staged through host memory on TCP, docs/tcp.md), and dir C2H says it is a
		 * buffer the controller writes into. */
		if (cmd->dir == NVMF_TCP_DIR_C2H && !cmd->responded && cmd->buf &&
		    cmd->c2h_next < cmd->len && tq->q.reqs[s].state == NVMF_REQ_INFLIGHT)
			return cmd;
		nvmf_tcp_c2h_unlink(tq, s);
	}
	return NULL;
}

/* A speculative read, when a new PDU is due and a read expects data: one C2HData header's
 * worth into rx_hdr, then the guessed command's buffer at c2h_next for the rest of its data,
 * then the data digest (a scratch), then the receive buffer.  A C2HData for that command with
 * no padding then lands where it belongs and nvmf_tcp_rx_consume copies none of it; anything
 * else (a response, an R2T, a C2HData for another command, a C2HTermReq, a shorter PDU than
 * the guess and what follows it) is consumed from where it landed, in stream order, and moved
 * to where it belongs: every byte of the stream is consumed once, in order, as before.
 *
 * The invariant that makes the guess safe: only a read command in flight, with no response
 * and data still to come, is guessed, and only its range [c2h_next, len) is written, which
 * that command's own C2HData overwrites before it completes successfully (data comes in
 * order, and a read completes with all its data); a read that fails has no defined data.
 * Its buffer is read back (the bytes moved) within the same reap, before any completion
 * reaches the caller. */
static ssize_t nvmf_tcp_rx_read_spec(struct nvmf_tcp_queue *tq, struct nvmf_tcp_cmd *cmd)
{
	struct iovec iov[4];
	int kinds[4];
	unsigned n = 0;
	size_t left;
	ssize_t r;

	iov[n].iov_base = tq->rx_hdr;
	iov[n].iov_len = NVME_TCP_DATA_HLEN + (tq->hdgst ? NVME_TCP_DIGEST_LEN : 0);
	kinds[n++] = NVMF_TCP_SEG_HDR;
	iov[n].iov_base = cmd->buf + cmd->c2h_next;
	iov[n].iov_len = cmd->len - cmd->c2h_next;
	kinds[n++] = NVMF_TCP_SEG_GUESS;
	if (tq->ddgst) {
		iov[n].iov_base = tq->rx_spec_dd;
		iov[n].iov_len = NVME_TCP_DIGEST_LEN;
		kinds[n++] = NVMF_TCP_SEG_DDGST;
	}
	iov[n].iov_base = tq->rxbuf;
	iov[n].iov_len = NVMF_TCP_RXBUF;
	kinds[n++] = NVMF_TCP_SEG_RXBUF;
	tq->st.rx_calls++;
	r = readv(tq->fd, iov, (int)n);
	if (r <= 0)
		return r < 0 ? -errno : 0;
	tq->rx_short = (size_t)r < nvmf_tcp_iov_len(iov, n);
	tq->st.rx_spec++;
	left = (size_t)r;
	tq->rx_nseg = tq->rx_iseg = 0;
	for (unsigned i = 0; i < n && left; i++) {
		size_t k = left < iov[i].iov_len ? left : iov[i].iov_len;

		left -= k;
		if (!i) {
			tq->rx_src = tq->rx_hdr;
			tq->rx_src_kind = NVMF_TCP_SEG_HDR;
			tq->rx_pos = 0;
			tq->rx_end = k;
			continue;
		}
		tq->rx_seg[tq->rx_nseg].base = iov[i].iov_base;
		tq->rx_seg[tq->rx_nseg].len = k;
		tq->rx_seg[tq->rx_nseg++].kind = kinds[i];
	}
	return r;
}

static int nvmf_tcp_rx(struct nvmf_tcp_queue *tq)
{
	unsigned reads = 0;

	for (;;) {
		int rc;

		/* Shut by the host over a refused PDU: nothing after it is read. */
		if (__atomic_load_n(&tq->dead, __ATOMIC_ACQUIRE))
			return tq->q.fatal;
		if (tq->rx_pos == tq->rx_end) {
			struct nvmf_tcp_cmd *guess;
			ssize_t r;

			if (nvmf_tcp_rx_next_seg(tq))
				continue;
			/* A read of this reap found the socket drained (it took less than it had room
			 * for): what came since waits for the next reap, rather than one more read
			 * that would mostly fail with EAGAIN (one system call per I/O, measured by
			 * make cost).  Event mode's poll() is level-triggered: nothing is lost. */
			if (reads && tq->rx_short)
				return 0;
			if (reads++ == NVMF_TCP_RX_REFILLS)
				return 0;
			guess = nvmf_tcp_guess(tq);
			r = guess ? nvmf_tcp_rx_read_spec(tq, guess) : nvmf_tcp_rx_read(tq);
			if (r == 0)
				return nvmf_tcp_fail(tq, -ENOTCONN, "queue %u: the target at %s closed the "
						     "connection", tq->q.qid, tq->addr);
			if (r < 0 && tq->q.fatal)
				return tq->q.fatal;   /* a PDU completed by the read failed the queue */
			if (r == -EINTR)
				continue;
			if (r == -EAGAIN || r == -EWOULDBLOCK)
				return 0;
			if (r < 0) {
				return nvmf_tcp_fail(tq, (int)r, "queue %u: receiving from %s failed: %s",
						     tq->q.qid, tq->addr, strerror((int)-r));
			}
			continue;
		}
		if ((rc = nvmf_tcp_rx_consume(tq)))
			return rc;
	}
}

static int nvmf_tcp_poll(void *ctx, struct nvmf_wc *wc, int max)
{
	struct nvmf_tcp_queue *tq = ctx;
	unsigned n;
	int rc;

	if ((rc = nvmf_tcp_alive(tq)) || (rc = nvmf_tcp_tx_pump(tq)) || (rc = nvmf_tcp_rx(tq)) ||
	    (rc = nvmf_tcp_tx_pump(tq)))
		return rc;
	n = tq->nr_pend < (unsigned)max ? tq->nr_pend : (unsigned)max;
	memcpy(wc, tq->pend, n * sizeof(*wc));
	tq->nr_pend -= n;
	memmove(tq->pend, tq->pend + n, tq->nr_pend * sizeof(*wc));
	return (int)n;
}

static const struct nvmf_xport_ops nvmf_tcp_ops = {
	.post_sends = nvmf_tcp_post_sends,
	.post_recvs = nvmf_tcp_post_recvs,
	.poll       = nvmf_tcp_poll,
};

/* ---- connection set-up -------------------------------------------------------------------- */

/* Sleep until fd is ready for ev or the deadline: 0, -ETIMEDOUT, or a negative errno. */
static int nvmf_tcp_io_wait(int fd, short ev, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = ev };
	uint64_t now = nvmf_now_ms();
	int rc;

	if (now >= deadline)
		return -ETIMEDOUT;
	rc = poll(&pfd, 1, (int)(deadline - now));
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc ? 0 : -ETIMEDOUT;
}

static int nvmf_tcp_send_all(int fd, const void *buf, size_t len, uint64_t deadline)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		int rc;

		if (w > 0) {
			p += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if ((rc = nvmf_tcp_io_wait(fd, POLLOUT, deadline)))
			return rc;
	}
	return 0;
}

/* Exactly len bytes: 0; -ECONNRESET when the peer closed first; -ETIMEDOUT; -errno. */
static int nvmf_tcp_recv_all(int fd, void *buf, size_t len, uint64_t deadline)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t r = recv(fd, p, len, MSG_DONTWAIT);
		int rc;

		if (r > 0) {
			p += r;
			len -= (size_t)r;
			continue;
		}
		if (r == 0)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if ((rc = nvmf_tcp_io_wait(fd, POLLIN, deadline)))
			return rc;
	}
	return 0;
}

#define nvmf_tcp_conn_errf(err, errlen, tq, rc, fmt, ...) \
	nvmf_errf(err, errlen, rc, "NVMe/TCP connection to %s: " fmt, (tq)->addr, __VA_ARGS__)

/* ICReq out, ICResp in and checked, each step within timeout_ms. */
static int nvmf_tcp_icreq(struct nvmf_tcp_queue *tq, const struct nvmf_fabric_params *p,
			  char *err, size_t errlen)
{
	struct nvme_tcp_icresp_info info;
	struct nvme_tcp_icreq req;
	uint8_t rsp[NVME_TCP_IC_LEN];
	size_t have = sizeof(struct nvme_tcp_ch);
	char why[128];
	int rc;

	nvme_tcp_icreq_init(&req, 0,
			    (uint8_t)((p->hdr_digest ? NVME_TCP_DGST_HDGST_ENABLE : 0) |
				      (p->data_digest ? NVME_TCP_DGST_DDGST_ENABLE : 0)), 0);
	rc = nvmf_tcp_send_all(tq->fd, &req, sizeof(req), nvmf_now_ms() + p->timeout_ms);
	if (rc == -ETIMEDOUT)
		return nvmf_tcp_conn_errf(err, errlen, tq, rc, "ICReq: could not be sent within %u ms "
					  "(connect_timeout)", p->timeout_ms);
	if (rc)
		return nvmf_tcp_conn_errf(err, errlen, tq, rc, "ICReq: %s", strerror(-rc));
	rc = nvmf_tcp_recv_all(tq->fd, rsp, have, nvmf_now_ms() + p->timeout_ms);
	/* the rest of an ICResp, or of a C2HTermReq that refuses the ICReq */
	if (!rc && rsp[0] == NVME_TCP_PDU_ICRESP && rsp[2] == NVME_TCP_IC_LEN &&
	    nvmf_get_le32(rsp + 4) == NVME_TCP_IC_LEN)
		have = NVME_TCP_IC_LEN;
	else if (!rc && rsp[0] == NVME_TCP_PDU_C2H_TERM && rsp[2] == NVME_TCP_TERM_HLEN)
		have = NVME_TCP_TERM_HLEN;
	if (!rc && have > sizeof(struct nvme_tcp_ch))
		rc = nvmf_tcp_recv_all(tq->fd, rsp + sizeof(struct nvme_tcp_ch),
				       have - sizeof(struct nvme_tcp_ch), nvmf_now_ms() + p->timeout_ms);
	if (rc == -ETIMEDOUT)
		return nvmf_tcp_conn_errf(err, errlen, tq, rc, "ICResp: no answer within %u ms "
					  "(connect_timeout)", p->timeout_ms);
	if (rc == -ECONNRESET)
		return nvmf_tcp_conn_errf(err, errlen, tq, rc, "ICResp: %s",
					  "the controller closed the connection after ICReq");
	if (rc)
		return nvmf_tcp_conn_errf(err, errlen, tq, rc, "ICResp: %s", strerror(-rc));
	if (rsp[0] == NVME_TCP_PDU_C2H_TERM && have == NVME_TCP_TERM_HLEN)
		return nvmf_tcp_conn_errf(err, errlen, tq, -ECONNREFUSED, "ICResp: the controller "
					  "refused ICReq with C2HTermReq, %s (FES 0x%x, FEI 0x%x)",
					  nvme_tcp_fes_name(nvmf_get_le16(rsp + 8)),
					  nvmf_get_le16(rsp + 8), nvmf_get_le32(rsp + 10));
	if ((rc = nvme_tcp_icresp_parse(rsp, have, p->hdr_digest, p->data_digest, &info, why,
					sizeof(why))))
		return nvmf_tcp_conn_errf(err, errlen, tq, rc, "ICResp: %s", why);
	tq->cpda = info.cpda;
	tq->cpda_align = (info.cpda + 1u) * 4u;
	tq->hdgst = info.hdgst;
	tq->ddgst = info.ddgst;
	tq->maxh2cdata = info.maxh2cdata;
	return 0;
}

static void nvmf_tcp_destroy(struct nvmf_queue *q, unsigned disconnect_wait_ms);

int nvmf_tcp_queue_create_fd(struct nvmf_queue **out, int fd, const struct nvmf_fabric_params *p,
			     char *err, size_t errlen)
{
	struct nvmf_tcp_queue *tq;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	unsigned depth = p->entries;
	int rc, fl;

	*out = NULL;
	tq = calloc(1, sizeof(*tq));
	if (!tq) {
		close(fd);
		return nvmf_errf(err, errlen, -ENOMEM, "out of memory");
	}
	tq->fd = fd;
	tq->zc_pipe[0] = tq->zc_pipe[1] = -1;
	if (!getsockname(fd, (struct sockaddr *)&ss, &sl))
		tq->inet = ss.ss_family == AF_INET || ss.ss_family == AF_INET6;
	sl = sizeof(ss);
	tq->use_events = p->use_events;
	if (p->dst)
		nvmf_sockaddr_str(p->dst, tq->addr, sizeof(tq->addr));
	else if (!getpeername(fd, (struct sockaddr *)&ss, &sl))
		nvmf_sockaddr_str((struct sockaddr *)&ss, tq->addr, sizeof(tq->addr));
	else
		snprintf(tq->addr, sizeof(tq->addr), "?");
	/* The Connect data (1024 bytes) always fits: without a limit from the lane, the admin
	 * queue's 8 KiB is the spec's own. */
	tq->incapsule_max = p->incapsule_max ? p->incapsule_max :
			    p->qid == 0 ? NVMF_TCP_ADMIN_INCAPSULE : 0;
	if (tq->incapsule_max < sizeof(struct nvmf_connect_data))
		tq->incapsule_max = sizeof(struct nvmf_connect_data);
	if ((rc = nvmf_queue_init(&tq->q, p->qid, depth))) {
		nvmf_errf(err, errlen, rc, "NVMe/TCP connection to %s: queue %u of %u entries: %s",
			  tq->addr, p->qid, depth, strerror(-rc));
		goto fail;
	}
	tq->pend_cap = 2 * depth;
	tq->tx_cap = 2 * depth;   /* a capsule per slot and an H2CData PDU per slot */
	tq->cmds = calloc(depth, sizeof(*tq->cmds));
	tq->rbufs = calloc(depth, sizeof(*tq->rbufs));
	tq->pend = calloc(tq->pend_cap, sizeof(*tq->pend));
	tq->tx = calloc(tq->tx_cap, sizeof(*tq->tx));
	tq->h2c_wait = calloc(depth, sizeof(*tq->h2c_wait));
	tq->rxbuf = malloc(NVMF_TCP_RXBUF);
	if (!tq->cmds || !tq->rbufs || !tq->pend || !tq->tx || !tq->h2c_wait || !tq->rxbuf) {
		rc = nvmf_errf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		rc = nvmf_tcp_conn_errf(err, errlen, tq, -errno, "O_NONBLOCK: %s", strerror(errno));
		goto fail;
	}
	if ((rc = nvmf_tcp_icreq(tq, p, err, errlen)))
		goto fail;
	nvmf_tcp_rx_next_pdu(tq);
	tq->rx_src = tq->rxbuf;
	tq->c2h_head = tq->c2h_tail = -1;
	nvmf_queue_attach(&tq->q, &nvmf_tcp_ops, tq);
	if ((rc = nvmf_queue_post_recvs(&tq->q))) {
		nvmf_errf(err, errlen, rc, "%s", tq->q.fatal_msg);
		goto fail;
	}
	*out = &tq->q;
	return 0;
fail:
	nvmf_tcp_destroy(&tq->q, 0);
	return rc;
}

static int nvmf_tcp_create(struct nvmf_queue **out, const struct nvmf_fabric_params *p, char *err,
			   size_t errlen)
{
	char addr[80], src[80];
	int fd, rc, one = 1, soerr = 0;
	socklen_t sl = sizeof(soerr);

	*out = NULL;
	nvmf_sockaddr_str(p->dst, addr, sizeof(addr));
	if (!p->dst || (p->dst->sa_family != AF_INET && p->dst->sa_family != AF_INET6))
		return nvmf_errf(err, errlen, -EAFNOSUPPORT, "NVMe/TCP connection to %s: not an IPv4 "
				 "or IPv6 address", addr);
	fd = socket(p->dst->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (fd < 0)
		return nvmf_errf(err, errlen, -errno, "NVMe/TCP connection to %s: socket: %s", addr,
				 strerror(errno));
	if (p->src && bind(fd, p->src, nvmf_sockaddr_len(p->src)) < 0) {
		rc = nvmf_errf(err, errlen, -errno, "NVMe/TCP connection to %s: bind to %s: %s (check "
			       "host_traddr)", addr, nvmf_sockaddr_str(p->src, src, sizeof(src)),
			       strerror(errno));
		goto fail;
	}
	if (connect(fd, p->dst, nvmf_sockaddr_len(p->dst)) < 0) {
		if (errno != EINPROGRESS) {
			rc = nvmf_errf(err, errlen, -errno, "NVMe/TCP connection to %s: connect: %s",
				       addr, strerror(errno));
			goto fail;
		}
		rc = nvmf_tcp_io_wait(fd, POLLOUT, nvmf_now_ms() + p->timeout_ms);
		if (rc == -ETIMEDOUT) {
			nvmf_errf(err, errlen, rc, "NVMe/TCP connection to %s: connect: no answer "
				  "within %u ms (connect_timeout)", addr, p->timeout_ms);
			goto fail;
		}
		if (!rc && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
			rc = -errno;
		if (!rc && soerr)
			rc = -soerr;
		if (rc) {
			nvmf_errf(err, errlen, rc, "NVMe/TCP connection to %s: connect: %s", addr,
				  strerror(-rc));
			goto fail;
		}
	}
	/* Capsules are small and each is waited for: no Nagle delay. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return nvmf_tcp_queue_create_fd(out, fd, p, err, errlen);
fail:
	close(fd);
	return rc;
}

/* Closing is the disconnect: the controller sees the FIN (or a reset) at once, so there is
 * nothing to wait for. */
static void nvmf_tcp_destroy(struct nvmf_queue *q, unsigned disconnect_wait_ms)
{
	struct nvmf_tcp_queue *tq = q ? nvmf_tcp_of(q) : NULL;

	(void)disconnect_wait_ms;
	if (!tq)
		return;
	/* Commands still out, or bytes still to send: abort, as a kill would (a queue that ends
	 * idle closes in order). */
	if (tq->fd >= 0 && (tq->q.nr_inflight || tq->tx_count || tq->zc_inpipe))
		nvmf_tcp_shut(tq);
	if (tq->fd >= 0)
		close(tq->fd);
	nvmf_tcp_zc_close(tq);
	nvmf_queue_fini(&tq->q);
	free(tq->cmds);
	free(tq->rbufs);
	free(tq->pend);
	free(tq->tx);
	free(tq->h2c_wait);
	free(tq->rxbuf);
	free(tq);
}

/* ---- the lane's seam ---------------------------------------------------------------------- */

/* Aborting the connection stops the controller's data at once (nothing is read into the
 * commands' buffers after it) and drops what was still to be sent; the next reap fails the
 * queue (and waits for what had left TCP already: nvmf_tcp_shut).  Safe from another thread:
 * fd stays open until destroy. */
static void nvmf_tcp_kill(struct nvmf_queue *q)
{
	struct nvmf_tcp_queue *tq = q ? nvmf_tcp_of(q) : NULL;

	if (!tq)
		return;
	__atomic_store_n(&tq->killed, 1, __ATOMIC_RELEASE);
	nvmf_tcp_abort(tq->fd);
}

static void nvmf_tcp_kill_why(struct nvmf_queue *q, int err, const char *why)
{
	struct nvmf_tcp_queue *tq = q ? nvmf_tcp_of(q) : NULL;

	if (!tq)
		return;
	if (!__atomic_load_n(&tq->kill_err, __ATOMIC_ACQUIRE)) {
		snprintf(tq->kill_why, sizeof(tq->kill_why), "%s", why);
		__atomic_store_n(&tq->kill_err, err, __ATOMIC_RELEASE);
	}
	nvmf_tcp_kill(q);
}

static int nvmf_tcp_conn_check(struct nvmf_queue *q, char *why, size_t whylen)
{
	struct nvmf_tcp_queue *tq = q ? nvmf_tcp_of(q) : NULL;
	struct pollfd pfd;
	int soerr = 0;
	socklen_t sl = sizeof(soerr);

	/* Shut off or failed here: the next reap says why, not a closed socket. */
	if (!tq || __atomic_load_n(&tq->killed, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&tq->dead, __ATOMIC_ACQUIRE))
		return 0;
	pfd.fd = tq->fd;
	pfd.events = POLLRDHUP;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) <= 0)
		return 0;
	if (pfd.revents & POLLERR) {
		if (getsockopt(tq->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
			soerr = errno;
		snprintf(why, whylen, "queue %u: the connection to %s failed: %s", q->qid, tq->addr,
			 soerr ? strerror(soerr) : "socket error");
		return soerr ? -soerr : -ECONNABORTED;
	}
	if (pfd.revents & (POLLRDHUP | POLLHUP)) {
		snprintf(why, whylen, "queue %u: the target at %s closed the connection", q->qid,
			 tq->addr);
		return -ENOTCONN;
	}
	return 0;
}

/* The keep-alive thread sleeps on the socket for the target's FIN or reset only: POLLIN
 * would wake it for every response. */
static int nvmf_tcp_watch(struct nvmf_queue *q, short *events)
{
	struct nvmf_tcp_queue *tq = q ? nvmf_tcp_of(q) : NULL;

	*events = POLLRDHUP;
	return tq ? tq->fd : -1;
}

static int nvmf_tcp_process(struct nvmf_queue *const *qs, unsigned n)
{
	int sum = 0, c = 0;

	for (unsigned i = 0; i < n; i++) {
		if ((c = nvmf_queue_process(qs[i])) < 0)
			return c;
		sum += c;
	}
	return sum;
}

static int nvmf_tcp_sets_process(struct nvmf_queue *const *const *sets, const unsigned *ns,
				 unsigned nsets)
{
	int sum = 0, c;

	for (unsigned s = 0; s < nsets; s++) {
		if ((c = nvmf_tcp_process(sets[s], ns[s])) < 0)
			return c;
		sum += c;
	}
	return sum;
}

/* Event mode: reap; when nothing completed, sleep in poll() on every queue's socket (POLLIN,
 * and POLLOUT while it has bytes to write) up to timeout_ms, then reap again. */
static int nvmf_tcp_sets_wait(struct nvmf_queue *const *const *sets, const unsigned *ns,
			      unsigned nsets, int timeout_ms)
{
	struct pollfd pfd[NVMF_TCP_WAIT_MAX];
	unsigned npfd = 0;
	int c;

	if (!nsets || !ns[0])
		return 0;
	c = nvmf_tcp_sets_process(sets, ns, nsets);
	if (c || !nvmf_tcp_of(sets[0][0])->use_events)
		return c;
	for (unsigned s = 0; s < nsets; s++) {
		for (unsigned i = 0; i < ns[s] && npfd < NVMF_TCP_WAIT_MAX; i++) {
			struct nvmf_tcp_queue *tq = nvmf_tcp_of(sets[s][i]);

			pfd[npfd].fd = tq->fd;
			pfd[npfd].events = (short)(POLLIN | (tq->tx_count ? POLLOUT : 0));
			pfd[npfd++].revents = 0;
		}
	}
	if (poll(pfd, npfd, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	return nvmf_tcp_sets_process(sets, ns, nsets);
}

static int nvmf_tcp_wait(struct nvmf_queue *const *qs, unsigned n, int timeout_ms)
{
	return nvmf_tcp_sets_wait(&qs, &n, 1, timeout_ms);
}

/* A thread that sleeps on POLLIN alone would wait for ever for the answer to a capsule still
 * on the send ring: write it out first (a short wait for room, this thread sleeps anyway). */
static int nvmf_tcp_arm(struct nvmf_queue *q)
{
	struct nvmf_tcp_queue *tq = nvmf_tcp_of(q);
	uint64_t deadline = nvmf_now_ms() + NVMF_TCP_ARM_FLUSH_MS;
	int c;

	if ((c = nvmf_tcp_process(&q, 1)) < 0)
		return c;
	while (tq->tx_count && !q->fatal && !nvmf_tcp_io_wait(tq->fd, POLLOUT, deadline))
		if ((c = nvmf_tcp_process(&q, 1)) < 0)
			return c;
	return tq->fd;
}

static int nvmf_tcp_event(struct nvmf_queue *q)
{
	return nvmf_tcp_process(&q, 1);
}

static void nvmf_tcp_addrs(struct nvmf_queue *q, struct sockaddr_storage *local,
			   struct sockaddr_storage *peer)
{
	struct nvmf_tcp_queue *tq = nvmf_tcp_of(q);
	socklen_t l = sizeof(*local), r = sizeof(*peer);

	memset(local, 0, sizeof(*local));
	memset(peer, 0, sizeof(*peer));
	if (getsockname(tq->fd, (struct sockaddr *)local, &l) < 0)
		memset(local, 0, sizeof(*local));
	if (getpeername(tq->fd, (struct sockaddr *)peer, &r) < 0)
		memset(peer, 0, sizeof(*peer));
}

int nvmf_tcp_queue_fd(struct nvmf_queue *q)
{
	return q ? nvmf_tcp_of(q)->fd : -EINVAL;
}

void nvmf_tcp_queue_negotiated(struct nvmf_queue *q, struct nvmf_tcp_negotiated *n)
{
	struct nvmf_tcp_queue *tq = nvmf_tcp_of(q);

	n->cpda = tq->cpda;
	n->maxh2cdata = tq->maxh2cdata;
	n->hdgst = tq->hdgst;
	n->ddgst = tq->ddgst;
}

static void nvmf_tcp_stats(struct nvmf_queue *q, struct nvmf_xport_stats *st)
{
	const struct nvmf_tcp_queue *tq = nvmf_tcp_of(q);

	st->rx_calls += tq->st.rx_calls;
	st->tx_calls += tq->st.tx_calls;
	st->rx_copied += tq->st.rx_copied;
	st->rx_direct += tq->st.rx_direct;
	st->rx_spec += tq->st.rx_spec;
	st->rx_spec_miss += tq->st.rx_spec_miss;
	st->ddgst_errors += tq->st.ddgst_errors;
	st->tx_copied += tq->st.tx_copied;
	st->tx_spliced += tq->st.tx_spliced;
}

const struct nvmf_fabric nvmf_fabric_tcp = {
	.name       = "tcp",
	.trtype     = NVMF_TRTYPE_TCP,
	.create     = nvmf_tcp_create,
	.destroy    = nvmf_tcp_destroy,
	.kill       = nvmf_tcp_kill,
	.kill_why   = nvmf_tcp_kill_why,
	.conn_check = nvmf_tcp_conn_check,
	.watch      = nvmf_tcp_watch,
	.arm        = nvmf_tcp_arm,
	.event      = nvmf_tcp_event,
	.process    = nvmf_tcp_process,
	.wait       = nvmf_tcp_wait,
	.sets_wait  = nvmf_tcp_sets_wait,
	.addrs      = nvmf_tcp_addrs,
	.stats      = nvmf_tcp_stats,
};
