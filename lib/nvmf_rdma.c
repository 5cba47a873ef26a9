/* nvmf_rdma.c - NVMe/RDMA queue: RDMA CM connect/disconnect and verbs transport. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmf_err.h"
#include "nvmf_rdma.h"
#include "nvmf_shim.h"
#include "nvmf_trid.h"

#define NVMF_RDMA_MAX_RD_ATOM 16

/* Into the caller's buffer (if any), the first failure's reason only. */
#define nvmf_rdma_errf(rq, rc, ...) \
	nvmf_errf(nvmf_err_unset((rq)->err, (rq)->errlen), (rq)->errlen, (rc), __VA_ARGS__)

/* IB CM REJ reason codes (IBTA spec, the REJ message's Reason field), as RDMA CM reports them
 * in the REJECTED event's status for non-consumer rejects. */
static const char *nvmf_cm_rej_reason(int status)
{
	switch (status) {
	case 1:  return "no QP available";
	case 2:  return "no EEC available";
	case 3:  return "no resources";
	case 4:  return "timeout";
	case 5:  return "unsupported request";
	case 6:  return "invalid communication ID";
	case 7:  return "invalid communication instance";
	case 8:  return "invalid service ID";
	case 9:  return "invalid transport service type";
	case 10: return "stale connection";
	case 11: return "RDC does not exist";
	case 12: return "invalid GID";
	case 13: return "invalid LID";
	case 14: return "invalid service level";
	case 15: return "invalid traffic class";
	case 16: return "invalid hop limit";
	case 17: return "invalid packet rate";
	case 24: return "port and CM redirect";
	case 25: return "port redirect";
	case 26: return "invalid MTU";
	case 27: return "insufficient responder resources";
	case 28: return "consumer defined";
	case 29: return "invalid RNR NAK retry count";
	case 30: return "duplicate local communication ID";
	case 31: return "invalid class version";
	case 32: return "invalid flow label";
	case 33: return "invalid alternate flow label";
	default: return "unknown reason";
	}
}

void nvmf_reject_describe(const void *priv, uint8_t len, char *buf, size_t buflen)
{
	const uint8_t *p = priv;

	if (!p || len < sizeof(struct nvmf_rdma_cm_rej)) {
		snprintf(buf, buflen, "no NVMe/RDMA reject data (%u bytes)", len);
		return;
	}
	/* STS only has a meaning in record format 0: name it only there. */
	if (nvmf_get_le16(p) != 0) {
		snprintf(buf, buflen, "NVMe/RDMA reject in unknown record format %u (sts %u)",
			 nvmf_get_le16(p), nvmf_get_le16(p + 2));
		return;
	}
	snprintf(buf, buflen, "NVMe/RDMA reject: %s (recfmt %u, sts %u)",
		 nvmf_rdma_cm_status_name(nvmf_get_le16(p + 2)), nvmf_get_le16(p),
		 nvmf_get_le16(p + 2));
}

/* Wait for the next CM event, bounded; the caller acks it.  -ETIMEDOUT when none came. */
static int nvmf_cm_next(struct nvmf_rdma_queue *rq, unsigned timeout_ms, struct rdma_cm_event **ev)
{
	uint64_t deadline = nvmf_now_ms() + timeout_ms;

	for (;;) {
		struct pollfd pfd = { .fd = rq->ch->fd, .events = POLLIN };
		uint64_t now = nvmf_now_ms();
		int rc;

		if (rdma_get_cm_event(rq->ch, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return nvmf_rc_minus1(-1);
		if (now >= deadline)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, (int)(deadline - now));
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

/* The private data of the expected event, kept past the event's ack. */
struct nvmf_cm_priv {
	uint8_t data[sizeof(struct nvmf_rdma_cm_rep)];
	size_t  len;  /* bytes in data: what the CM reported, at most sizeof(data) */
};

/* Wait for `want`; any other event (or none in time) is an error described in words. */
static int nvmf_cm_expect(struct nvmf_rdma_queue *rq, enum rdma_cm_event_type want,
			  unsigned timeout_ms, const char *what, struct nvmf_cm_priv *priv)
{
	struct rdma_cm_event *ev;
	char addr[80], why[160];
	int rc = nvmf_cm_next(rq, timeout_ms, &ev);

	nvmf_sockaddr_str(rdma_get_peer_addr(rq->id), addr, sizeof(addr));
	if (rc == -ETIMEDOUT)
		return nvmf_rdma_errf(rq, rc, "%s %s: no answer within %u ms (connect_timeout)", what,
				      addr, timeout_ms);
	if (rc)
		return nvmf_rdma_errf(rq, rc, "%s: reading RDMA CM events failed: %s", what,
				      strerror(-rc));
	if (ev->event == want) {
		if (priv) {
			memset(priv, 0, sizeof(*priv));
			if (ev->param.conn.private_data) {
				priv->len = ev->param.conn.private_data_len < sizeof(priv->data) ?
					    ev->param.conn.private_data_len : sizeof(priv->data);
				memcpy(priv->data, ev->param.conn.private_data, priv->len);
			}
		}
		rdma_ack_cm_event(ev);
		return 0;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		if (ev->status == 28 /* IB_CM_REJ_CONSUMER_DEFINED: the NVMe/RDMA target refused */)
			nvmf_reject_describe(ev->param.conn.private_data,
					     ev->param.conn.private_data_len, why, sizeof(why));
		else if (ev->status == 8 /* IB_CM_REJ_INVALID_SERVICE_ID */)
			snprintf(why, sizeof(why), "nothing listens at %s", addr);
		else
			snprintf(why, sizeof(why), "rejected: %s (CM status %d)",
				 nvmf_cm_rej_reason(ev->status), ev->status);
		rc = -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		snprintf(why, sizeof(why), "address resolution failed (no RDMA device routes to %s)",
			 addr);
		rc = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		snprintf(why, sizeof(why), "route resolution failed");
		rc = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		snprintf(why, sizeof(why), "target unreachable");
		rc = -EHOSTUNREACH;
		break;
	default:
		snprintf(why, sizeof(why), "unexpected RDMA CM event %s (status %d)",
			 rdma_event_str(ev->event), ev->status);
		rc = -ECONNABORTED;
		break;
	}
	rdma_ack_cm_event(ev);
	return nvmf_rdma_errf(rq, rc, "%s %s: %s", what, addr, why);
}

static int nvmf_rdma_post_sends(void *ctx, const struct nvmf_send_desc *d, unsigned n)
{
	struct nvmf_rdma_queue *rq = ctx;
	struct ibv_send_wr *first = NULL, *prev = NULL, *bad = NULL;

	for (unsigned i = 0; i < n; i++) {
		struct ibv_send_wr *wr = &rq->wrs[d[i].slot];

		/* The slot's capsule SGE, opcode and flags were set at setup (nvmf_rdma_setup_verbs). */
		wr->num_sge = 1;
		if (d[i].inline_len) {
			struct ibv_sge *data = &wr->sg_list[1];

			data->addr = (uintptr_t)d[i].inline_addr;
			data->length = d[i].inline_len;
			data->lkey = d[i].inline_lkey;
			wr->num_sge = 2;
		}
		wr->wr_id = d[i].wr_id;
		wr->next = NULL;
		if (prev)
			prev->next = wr;
		else
			first = wr;
		prev = wr;
	}
	return nvmf_rc_positive(ibv_post_send(rq->id->qp, first, &bad));
}

/* The receive WRs are built once at setup; only their chaining changes. */
static int nvmf_rdma_post_recvs(void *ctx, const unsigned *idx, unsigned n)
{
	struct nvmf_rdma_queue *rq = ctx;
	struct ibv_recv_wr *bad = NULL;

	if (!n)
		return 0;
	for (unsigned i = 0; i + 1 < n; i++)
		rq->rwrs[idx[i]].next = &rq->rwrs[idx[i + 1]];
	rq->rwrs[idx[n - 1]].next = NULL;
	return nvmf_rc_positive(ibv_post_recv(rq->id->qp, &rq->rwrs[idx[0]], &bad));
}

/* Reap the shared CQ once: each completion goes to its queue's pending list, by QP number. */
static int nvmf_rdma_cq_reap(struct nvmf_rdma_cq *scq)
{
	int n = ibv_poll_cq(scq->cq, scq->cap, scq->ibwcs);

	if (n < 0)
		return -EIO;
	for (int i = 0; i < n; i++) {
		const struct ibv_wc *w = &scq->ibwcs[i];
		struct nvmf_rdma_queue *rq = NULL;
		struct nvmf_wc *wc;

		for (unsigned k = 0; k < scq->nr_queues && !rq; k++)
			if (scq->queues[k]->qp_num == w->qp_num)
				rq = scq->queues[k];
		if (!rq)
			continue;   /* a destroyed queue's flush */
		/* a queue never has more than its sends and receives outstanding */
		if (rq->nr_pend >= 2 * rq->q.depth)
			return -EOVERFLOW;
		wc = &rq->pend[rq->nr_pend++];
		wc->wr_id = w->wr_id;
		wc->status = w->status;
		wc->is_recv = (w->wr_id & NVMF_WRID_RECV) != 0;
		wc->byte_len = w->byte_len;
	}
	return n;
}

/* Failed completions on a queue that was shut off on purpose (nvmf_rdma_queue_kill_why): the
 * queue fails with that reason before the flushes are read as transport errors. */
static void nvmf_rdma_killed(struct nvmf_rdma_queue *rq, const struct nvmf_wc *wc, int n)
{
	int err = __atomic_load_n(&rq->kill_err, __ATOMIC_ACQUIRE);

	if (!err || rq->q.fatal)
		return;
	for (int i = 0; i < n; i++)
		if (wc[i].status) {
			nvmf_queue_abandon(&rq->q, err, rq->kill_why);
			return;
		}
}

static int nvmf_rdma_poll(void *ctx, struct nvmf_wc *wc, int max)
{
	struct nvmf_rdma_queue *rq = ctx;
	int n;

	if (rq->scq) {
		/* Alone (a synchronous command) it reaps the shared CQ itself; inside
		 * nvmf_rdma_queues_process that reaped it once for every queue. */
		if (!rq->scq->reaped && (n = nvmf_rdma_cq_reap(rq->scq)) < 0)
			return n;
		n = rq->nr_pend < (unsigned)max ? (int)rq->nr_pend : max;
		memcpy(wc, rq->pend, (size_t)n * sizeof(*wc));
		rq->nr_pend -= (unsigned)n;
		memmove(rq->pend, rq->pend + n, rq->nr_pend * sizeof(*wc));
		nvmf_rdma_killed(rq, wc, n);
		return n;
	}
	n = ibv_poll_cq(rq->cq->cq, max, rq->cq->ibwcs);

	if (n < 0)
		return -EIO;
	for (int i = 0; i < n; i++) {
		const struct ibv_wc *w = &rq->cq->ibwcs[i];

		wc[i].wr_id = w->wr_id;
		wc[i].status = w->status;
		/* Flushed completions carry no valid opcode: classify by our wr_id tag. */
		wc[i].is_recv = (w->wr_id & NVMF_WRID_RECV) != 0;
		wc[i].byte_len = w->byte_len;
	}
	nvmf_rdma_killed(rq, wc, n);
	return n;
}

static const struct nvmf_xport_ops nvmf_rdma_ops = {
	.post_sends = nvmf_rdma_post_sends,
	.post_recvs = nvmf_rdma_post_recvs,
	.poll       = nvmf_rdma_poll,
};

static int nvmf_rdma_setup_verbs(struct nvmf_rdma_queue *rq, const struct nvmf_rdma_params *p,
				 struct ibv_pd **pd)
{
	struct nvmf_queue *q = &rq->q;
	struct ibv_context *ctx = rq->id->verbs;
	struct ibv_qp_init_attr qa;
	int rc;

	for (unsigned i = 0; !*pd && i < p->nr_pds; i++)
		if (p->pds[i] && p->pds[i]->context == ctx)
			*pd = p->pds[i];
	if (!*pd) {
		*pd = ibv_alloc_pd(ctx);
		if ((rc = nvmf_rc_ptr(*pd)))
			return nvmf_rdma_errf(rq, rc, "ibv_alloc_pd on %s: %s",
					      ibv_get_device_name(ctx->device), strerror(-rc));
	} else if ((*pd)->context != ctx) {
		return nvmf_rdma_errf(rq, -EXDEV, "queue %u resolved to RDMA device %s, not the admin "
				      "queue's device", q->qid, ibv_get_device_name(ctx->device));
	}
	rq->pd = *pd;
	if (rq->scq) {
		if (rq->scq->cq->context != ctx)
			return nvmf_rdma_errf(rq, -EXDEV, "queue %u resolved to RDMA device %s, not its "
					      "lane's", q->qid, ibv_get_device_name(ctx->device));
		if (rq->scq->nr_queues == sizeof(rq->scq->queues) / sizeof(rq->scq->queues[0]))
			return nvmf_rdma_errf(rq, -ENOSPC, "queue %u: the shared CQ has no room",
					      q->qid);
		rq->cq = rq->scq;
		rq->pend = calloc(2 * q->depth, sizeof(*rq->pend));
		if (!rq->pend)
			return nvmf_rdma_errf(rq, -ENOMEM, "out of memory");
	} else if ((rc = nvmf_rdma_cq_create(&rq->cq, ctx, (int)(2 * q->depth), rq->use_events,
					     rq->err, rq->errlen))) {
		return rc;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = rq->cq->cq;
	qa.recv_cq = rq->cq->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = q->depth;
	qa.cap.max_recv_wr = q->depth;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	if ((rc = nvmf_rc_minus1(rdma_create_qp(rq->id, rq->pd, &qa))))
		return nvmf_rdma_errf(rq, rc, "rdma_create_qp (depth %u): %s", q->depth, strerror(-rc));
	rq->qp_created = 1;
	rq->qp_num = rq->id->qp->qp_num;
	if (rq->scq)
		rq->scq->queues[rq->scq->nr_queues++] = rq;
	rq->sqe_mr = ibv_reg_mr(rq->pd, q->sqes, q->depth * sizeof(*q->sqes), 0);
	rq->rsp_mr = ibv_reg_mr(rq->pd, q->rsps, q->depth * sizeof(*q->rsps), IBV_ACCESS_LOCAL_WRITE);
	/* Least access: capsules are only sent, responses only received, DSM ranges only
	 * RDMA-read by the target. */
	rq->dsm_mr = ibv_reg_mr(rq->pd, q->dsm, q->depth * sizeof(*q->dsm), IBV_ACCESS_REMOTE_READ);
	if ((rc = nvmf_rc_ptr(rq->sqe_mr)) || (rc = nvmf_rc_ptr(rq->rsp_mr)) ||
	    (rc = nvmf_rc_ptr(rq->dsm_mr)))
		return nvmf_rdma_errf(rq, rc, "registering queue buffers: %s", strerror(-rc));
	q->dsm_rkey = rq->dsm_mr->rkey;
	for (unsigned i = 0; i < q->depth; i++) {
		rq->rsges[i].addr = (uintptr_t)&q->rsps[i];
		rq->rsges[i].length = sizeof(struct nvme_cqe);
		rq->rsges[i].lkey = rq->rsp_mr->lkey;
		rq->rwrs[i].wr_id = NVMF_WRID_RECV | i;
		rq->rwrs[i].sg_list = &rq->rsges[i];
		rq->rwrs[i].num_sge = 1;
		/* Each slot sends its own SQE: all but the in-capsule data and wr_id is constant. */
		rq->sges[2 * i].addr = (uintptr_t)&q->sqes[i];
		rq->sges[2 * i].length = sizeof(struct nvme_sqe);
		rq->sges[2 * i].lkey = rq->sqe_mr->lkey;
		rq->wrs[i].sg_list = &rq->sges[2 * i];
		rq->wrs[i].opcode = IBV_WR_SEND;
		rq->wrs[i].send_flags = IBV_SEND_SIGNALED;
	}
	nvmf_queue_attach(q, &nvmf_rdma_ops, rq);
	return nvmf_queue_post_recvs(q) ? nvmf_rdma_errf(rq, q->fatal, "%s", q->fatal_msg) : 0;
}

int nvmf_rdma_queue_create(struct nvmf_rdma_queue **out, const struct nvmf_rdma_params *p,
			   struct ibv_pd **pd, char *err, size_t errlen)
{
	struct nvmf_rdma_queue *rq;
	struct rdma_conn_param cp;
	struct nvmf_rdma_cm_req req;
	struct nvmf_cm_priv rep;
	struct ibv_device_attr dattr;
	char what[64], why[128];
	int rc;

	*out = NULL;
	rq = calloc(1, sizeof(*rq));
	if (!rq)
		return -ENOMEM;
	rq->err = err;
	rq->errlen = errlen;
	rq->use_events = p->use_events;
	rq->scq = p->shared_cq;
	rc = nvmf_queue_init(&rq->q, p->qid, p->entries);
	if (rc) {
		free(rq);
		return rc;
	}
	rq->wrs = calloc(p->entries, sizeof(*rq->wrs));
	rq->sges = calloc(2 * p->entries, sizeof(*rq->sges));
	rq->rwrs = calloc(p->entries, sizeof(*rq->rwrs));
	rq->rsges = calloc(p->entries, sizeof(*rq->rsges));
	if (!rq->wrs || !rq->sges || !rq->rwrs || !rq->rsges) {
		rc = -ENOMEM;
		goto destroy;
	}
	snprintf(what, sizeof(what), "queue %u connect to", p->qid);

	rq->ch = rdma_create_event_channel();
	if ((rc = nvmf_rc_ptr(rq->ch))) {
		nvmf_rdma_errf(rq, rc, "rdma_create_event_channel: %s%s", strerror(-rc),
			       rc == -ENODEV || rc == -ENOENT ? " (is rdma_ucm loaded?)" : "");
		goto destroy;
	}
	fcntl(rq->ch->fd, F_SETFL, fcntl(rq->ch->fd, F_GETFL) | O_NONBLOCK);
	if ((rc = nvmf_rc_minus1(rdma_create_id(rq->ch, &rq->id, rq, RDMA_PS_TCP)))) {
		nvmf_rdma_errf(rq, rc, "rdma_create_id: %s", strerror(-rc));
		goto destroy;
	}
	if ((rc = nvmf_rc_minus1(rdma_resolve_addr(rq->id, (struct sockaddr *)p->src,
						   (struct sockaddr *)p->dst, (int)p->timeout_ms)))) {
		char a[80];

		nvmf_rdma_errf(rq, rc, "%s %s: rdma_resolve_addr: %s%s", what,
			       nvmf_sockaddr_str(p->dst, a, sizeof(a)), strerror(-rc),
			       p->src ? " (check host_traddr)" : "");
		goto destroy;
	}
	if ((rc = nvmf_cm_expect(rq, RDMA_CM_EVENT_ADDR_RESOLVED, p->timeout_ms, what, NULL)))
		goto destroy;
	if ((rc = nvmf_rc_minus1(rdma_resolve_route(rq->id, (int)p->timeout_ms)))) {
		nvmf_rdma_errf(rq, rc, "rdma_resolve_route: %s", strerror(-rc));
		goto destroy;
	}
	if ((rc = nvmf_cm_expect(rq, RDMA_CM_EVENT_ROUTE_RESOLVED, p->timeout_ms, what, NULL)))
		goto destroy;
	if ((rc = nvmf_rdma_setup_verbs(rq, p, pd)))
		goto destroy;

	memset(&dattr, 0, sizeof(dattr));
	ibv_query_device(rq->id->verbs, &dattr);
	nvmf_rdma_cm_req_init(&req, p->qid, (uint16_t)p->entries, (uint16_t)(p->entries - 1), 0xffff);
	memset(&cp, 0, sizeof(cp));
	/* The target RDMA-READs our buffers (writes, Connect data): it needs responder
	 * resources on our side, or the first such command hangs. */
	cp.responder_resources = (uint8_t)(dattr.max_qp_rd_atom > NVMF_RDMA_MAX_RD_ATOM ?
					   NVMF_RDMA_MAX_RD_ATOM :
					   dattr.max_qp_rd_atom ? dattr.max_qp_rd_atom : 1);
	/* The host never issues RDMA READs (the target moves all data), so it asks for no
	 * initiator depth, as Linux's nvme-rdma does; SPDK's target warns otherwise. */
	cp.initiator_depth = 0;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	cp.flow_control = 1;
	cp.private_data = &req;
	cp.private_data_len = sizeof(req);
	/* Set before connecting: the RDMA CM applies it when it moves the QP to RTS. */
	if (p->ack_timeout &&
	    (rc = nvmf_rc_minus1(rdma_set_option(rq->id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
						 (void *)&p->ack_timeout, sizeof(p->ack_timeout))))) {
		nvmf_rdma_errf(rq, rc, "rdma_set_option(ACK_TIMEOUT %u): %s", p->ack_timeout,
			       strerror(-rc));
		goto destroy;
	}
	if ((rc = nvmf_rc_minus1(rdma_connect(rq->id, &cp)))) {
		nvmf_rdma_errf(rq, rc, "rdma_connect: %s", strerror(-rc));
		goto destroy;
	}
	if ((rc = nvmf_cm_expect(rq, RDMA_CM_EVENT_ESTABLISHED, p->timeout_ms, what, &rep)))
		goto destroy;
	rq->connected = 1;  /* from here on destroy disconnects, also when the accept is bad */
	if ((rc = nvmf_rdma_cm_accept_parse(rep.data, rep.len, &rq->crqsize, why, sizeof(why)))) {
		char a[80];

		nvmf_rdma_errf(rq, rc, "%s %s: %s", what, nvmf_sockaddr_str(p->dst, a, sizeof(a)), why);
		goto destroy;
	}
	/* The target may hold fewer receive buffers than we asked for. */
	if (rq->crqsize && rq->crqsize < rq->q.max_inflight)
		rq->q.max_inflight = rq->crqsize;
	*out = rq;
	return 0;

destroy:
	nvmf_rdma_queue_destroy(rq);
	return rc;
}

void nvmf_rdma_queue_destroy(struct nvmf_rdma_queue *rq)
{
	if (!rq)
		return;
	if (rq->connected) {
		struct rdma_cm_event *ev;

		/* Best effort: let the target see the disconnect, then ack what it sends. */
		if (rdma_disconnect(rq->id) == 0 &&
		    nvmf_cm_next(rq, rq->disconnect_wait_ms ? rq->disconnect_wait_ms : 1000, &ev) == 0)
			rdma_ack_cm_event(ev);
		rq->connected = 0;
	}
	if (rq->qp_created)
		rdma_destroy_qp(rq->id);
	if (rq->sqe_mr)
		ibv_dereg_mr(rq->sqe_mr);
	if (rq->rsp_mr)
		ibv_dereg_mr(rq->rsp_mr);
	if (rq->dsm_mr)
		ibv_dereg_mr(rq->dsm_mr);
	if (rq->scq) {
		struct nvmf_rdma_cq *scq = rq->scq;

		/* its completions still in the shared CQ are dropped at the next reap */
		for (unsigned k = 0; k < scq->nr_queues; k++) {
			if (scq->queues[k] != rq)
				continue;
			scq->queues[k] = scq->queues[--scq->nr_queues];
			break;
		}
	} else {
		nvmf_rdma_cq_destroy(rq->cq);
	}
	free(rq->pend);
	if (rq->id)
		rdma_destroy_id(rq->id);
	if (rq->ch)
		rdma_destroy_event_channel(rq->ch);
	nvmf_queue_fini(&rq->q);
	free(rq->wrs);
	free(rq->sges);
	free(rq->rwrs);
	free(rq->rsges);
	free(rq);
}

/* CQ events are acked in batches: each ack takes the CQ's lock. */
#define NVMF_RDMA_ACK_BATCH 64
#define NVMF_RDMA_WAIT_MAX  64   /* queues one wait sleeps on (a lane's NVMF_MAX_IO_QUEUES) */

void nvmf_rdma_queue_dev_facts(struct nvmf_rdma_queue *rq, const char *sysfs,
			       struct nvmf_dev_facts *f, char *parent, size_t len)
{
	struct ibv_device_attr attr;

	memset(f, 0, sizeof(*f));
	parent[0] = 0;
	if (!rq || !rq->id || !rq->id->verbs)
		return;
	f->name = ibv_get_device_name(rq->id->verbs->device);
	if (!ibv_query_device(rq->id->verbs, &attr)) {
		f->vendor_known = 1;
		f->vendor_id = attr.vendor_id;
	}
	if (!nvmf_sysfs_rdma_parent(sysfs, f->name, parent, len))
		f->parent = parent;
}

uint8_t nvmf_rdma_queue_ack_timeout(struct nvmf_rdma_queue *rq)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	if (!rq || !rq->id || !rq->id->qp || ibv_query_qp(rq->id->qp, &attr, IBV_QP_TIMEOUT, &init))
		return 0;
	return attr.timeout;
}

int nvmf_rdma_cq_create(struct nvmf_rdma_cq **out, struct ibv_context *ctx, int entries,
			int use_events, char *err, size_t errlen)
{
	struct nvmf_rdma_cq *scq = calloc(1, sizeof(*scq));
	int rc;

	*out = NULL;
	if (!scq)
		return nvmf_errf(err, errlen, -ENOMEM, "out of memory");
	scq->cap = entries;
	scq->ibwcs = calloc((size_t)entries, sizeof(*scq->ibwcs));
	if (!scq->ibwcs) {
		rc = nvmf_errf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	if (use_events) {
		scq->cc = ibv_create_comp_channel(ctx);
		if ((rc = nvmf_rc_ptr(scq->cc))) {
			scq->cc = NULL;
			nvmf_errf(err, errlen, rc, "ibv_create_comp_channel: %s", strerror(-rc));
			goto fail;
		}
		fcntl(scq->cc->fd, F_SETFL, fcntl(scq->cc->fd, F_GETFL) | O_NONBLOCK);
	}
	scq->cq = ibv_create_cq(ctx, entries, scq, scq->cc, 0);
	if ((rc = nvmf_rc_ptr(scq->cq))) {
		scq->cq = NULL;
		nvmf_errf(err, errlen, rc, "ibv_create_cq(%d), shared: %s", entries, strerror(-rc));
		goto fail;
	}
	*out = scq;
	return 0;
fail:
	nvmf_rdma_cq_destroy(scq);
	return rc;
}

void nvmf_rdma_cq_destroy(struct nvmf_rdma_cq *scq)
{
	if (!scq)
		return;
	if (scq->cq) {
		/* ibv_destroy_cq waits for every event it delivered to be acked. */
		if (scq->unacked)
			ibv_ack_cq_events(scq->cq, scq->unacked);
		ibv_destroy_cq(scq->cq);
	}
	if (scq->cc)
		ibv_destroy_comp_channel(scq->cc);
	free(scq->ibwcs);
	free(scq);
}

int nvmf_rdma_queues_process(struct nvmf_rdma_queue *const *rqs, unsigned n)
{
	struct nvmf_rdma_cq *scq = n ? rqs[0]->scq : NULL;
	int sum = 0, c = 0;

	/* A shared CQ: one poll for all, then each queue works through what it got (a fatal
	 * queue still reports itself). */
	if (scq && (c = nvmf_rdma_cq_reap(scq)) < 0)
		return c;
	if (scq)
		scq->reaped = 1;
	for (unsigned i = 0; i < n; i++) {
		if (scq && !rqs[i]->nr_pend && !rqs[i]->q.fatal)
			continue;
		if ((c = nvmf_queue_process(&rqs[i]->q)) < 0)
			break;
		sum += c;
	}
	if (scq)
		scq->reaped = 0;
	return c < 0 ? c : sum;
}

/* Reap every set once: the commands completed on all of them, or the first error. */
static int nvmf_rdma_sets_process(struct nvmf_rdma_queue *const *const *sets, const unsigned *ns,
				  unsigned nsets)
{
	int sum = 0, c;

	for (unsigned s = 0; s < nsets; s++) {
		if ((c = nvmf_rdma_queues_process(sets[s], ns[s])) < 0)
			return c;
		sum += c;
	}
	return sum;
}

int nvmf_rdma_sets_wait(struct nvmf_rdma_queue *const *const *sets, const unsigned *ns,
			unsigned nsets, int timeout_ms)
{
	struct pollfd pfd[NVMF_RDMA_WAIT_MAX];
	struct nvmf_rdma_cq *cqs[NVMF_RDMA_WAIT_MAX];
	struct ibv_cq *ibcq;
	void *cq_ctx;
	unsigned ncq = 0;
	int c;

	if (!nsets || !ns[0])
		return 0;
	/* Whatever is there already is reaped without arming or sleeping: while completions
	 * keep coming, event mode costs no more than polling. */
	if (!sets[0][0]->use_events)
		return nvmf_rdma_sets_process(sets, ns, nsets);
	if ((c = nvmf_rdma_sets_process(sets, ns, nsets)))
		return c;
	/* Before arming and sleeping, let whatever else is runnable on this CPU go first (with a
	 * software RDMA device that is the work producing the next completions) and reap again:
	 * each wake-up saved is a sleep, a channel read and a re-arm.  In one testbed boot this
	 * took event mode from 0.63 to 0.24 context switches per I/O at QD128; in another it
	 * showed no gain (docs/benchmarks.md).  It costs one system call per sleep. */
	sched_yield();
	if ((c = nvmf_rdma_sets_process(sets, ns, nsets)))
		return c;
	/* The CQs to sleep on: each set's shared one, or each queue's own. */
	for (unsigned s = 0; s < nsets; s++) {
		unsigned n = sets[s][0]->scq ? 1 : ns[s];

		for (unsigned i = 0; i < n && ncq < NVMF_RDMA_WAIT_MAX; i++)
			cqs[ncq++] = sets[s][i]->cq;
	}
	for (unsigned i = 0; i < ncq; i++) {
		if (cqs[i]->armed)
			continue;
		if ((c = nvmf_rc_positive(ibv_req_notify_cq(cqs[i]->cq, 0))))
			return c;
		cqs[i]->armed = 1;
	}
	/* Anything that landed before arming is reaped now; later ones wake a channel. */
	if ((c = nvmf_rdma_sets_process(sets, ns, nsets)))
		return c;
	for (unsigned i = 0; i < ncq; i++) {
		pfd[i].fd = cqs[i]->cc->fd;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
	if (poll(pfd, ncq, timeout_ms) > 0) {
		for (unsigned i = 0; i < ncq; i++) {
			struct nvmf_rdma_cq *cq = cqs[i];

			if (!(pfd[i].revents & POLLIN) || ibv_get_cq_event(cq->cc, &ibcq, &cq_ctx))
				continue;
			cq->armed = 0;
			if (++cq->unacked >= NVMF_RDMA_ACK_BATCH) {
				ibv_ack_cq_events(ibcq, cq->unacked);
				cq->unacked = 0;
			}
		}
	}
	return nvmf_rdma_sets_process(sets, ns, nsets);
}

int nvmf_rdma_queue_arm(struct nvmf_rdma_queue *rq)
{
	struct nvmf_rdma_cq *cq = rq ? rq->cq : NULL;
	int c;

	if (!cq || !cq->cc)
		return -EINVAL;
	if ((c = nvmf_rdma_queues_process(&rq, 1)) < 0)
		return c;
	if (cq->armed)
		return cq->cc->fd;
	if ((c = nvmf_rc_positive(ibv_req_notify_cq(cq->cq, 0))))
		return c;
	cq->armed = 1;
	/* anything that landed before arming is reaped now; later ones wake the channel */
	if ((c = nvmf_rdma_queues_process(&rq, 1)) < 0)
		return c;
	return cq->cc->fd;
}

int nvmf_rdma_queue_cq_event(struct nvmf_rdma_queue *rq)
{
	struct nvmf_rdma_cq *cq = rq->cq;
	struct ibv_cq *ibcq;
	void *cq_ctx;

	if (cq->cc && !ibv_get_cq_event(cq->cc, &ibcq, &cq_ctx)) {
		cq->armed = 0;
		if (++cq->unacked >= NVMF_RDMA_ACK_BATCH) {
			ibv_ack_cq_events(ibcq, cq->unacked);
			cq->unacked = 0;
		}
	}
	return nvmf_rdma_queues_process(&rq, 1);
}

int nvmf_rdma_queues_wait(struct nvmf_rdma_queue *const *rqs, unsigned n, int timeout_ms)
{
	if (n > NVMF_RDMA_WAIT_MAX)
		n = NVMF_RDMA_WAIT_MAX;
	return nvmf_rdma_sets_wait(&rqs, &n, 1, timeout_ms);
}

void nvmf_rdma_queue_kill_why(struct nvmf_rdma_queue *rq, int err, const char *why)
{
	if (!rq)
		return;
	if (!__atomic_load_n(&rq->kill_err, __ATOMIC_ACQUIRE)) {
		snprintf(rq->kill_why, sizeof(rq->kill_why), "%s", why);
		__atomic_store_n(&rq->kill_err, err, __ATOMIC_RELEASE);
	}
	nvmf_rdma_queue_kill(rq);
}

void nvmf_rdma_queue_kill(struct nvmf_rdma_queue *rq)
{
	struct ibv_qp_attr attr;

	if (!rq || !rq->qp_created || !rq->id || !rq->id->qp)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_ERR;
	ibv_modify_qp(rq->id->qp, &attr, IBV_QP_STATE);
}

int nvmf_rdma_queue_async_fd(struct nvmf_rdma_queue *rq)
{
	int fd, fl;

	if (!rq || !rq->id || !rq->id->verbs)
		return -ENODEV;
	fd = rq->id->verbs->async_fd;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -errno;
	if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return fd;
}

int nvmf_rdma_queue_port_check(struct nvmf_rdma_queue *rq, char *why, size_t whylen)
{
	struct ibv_context *ctx = rq && rq->id ? rq->id->verbs : NULL;
	struct ibv_async_event ev;
	struct ibv_port_attr pa;
	int fatal = 0, rc;

	if (!ctx)
		return 0;
	/* Non-blocking (nvmf_rdma_queue_async_fd): -1 with EAGAIN once none is left. */
	while (ibv_get_async_event(ctx, &ev) == 0) {
		fatal |= ev.event_type == IBV_EVENT_DEVICE_FATAL;
		ibv_ack_async_event(&ev);
	}
	if (fatal) {
		snprintf(why, whylen, "the RDMA device %s reported a fatal error (IBV_EVENT_DEVICE_FATAL)",
			 ibv_get_device_name(ctx->device));
		return -ENODEV;
	}
	rc = nvmf_rc_positive(ibv_query_port(ctx, rq->id->port_num, &pa));
	if (rc)
		return 0;        /* no answer is no news: the queues say the rest */
	if (pa.state == IBV_PORT_ACTIVE || pa.state == IBV_PORT_ACTIVE_DEFER)
		return 0;
	snprintf(why, whylen, "the link of %s port %u is down (port state %s)",
		 ibv_get_device_name(ctx->device), rq->id->port_num, ibv_port_state_str(pa.state));
	return -ENETDOWN;
}

int nvmf_rdma_queue_cm_check(struct nvmf_rdma_queue *rq, char *why, size_t whylen)
{
	struct rdma_cm_event *ev;
	char addr[80];
	int rc;

	if (!rq || !rq->ch)
		return 0;
	if (rdma_get_cm_event(rq->ch, &ev))
		return 0;        /* EAGAIN: nothing happened (the channel is non-blocking) */
	nvmf_sockaddr_str(rdma_get_peer_addr(rq->id), addr, sizeof(addr));
	switch (ev->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
		snprintf(why, whylen, "the target disconnected queue %u (%s, RDMA CM DISCONNECTED)",
			 rq->q.qid, addr);
		rc = -ENOTCONN;
		/* The connection is gone: destroy need not disconnect it again. */
		rq->connected = 0;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		snprintf(why, whylen, "the RDMA device of queue %u went away (RDMA CM DEVICE_REMOVAL)",
			 rq->q.qid);
		rc = -ENODEV;
		rq->connected = 0;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		snprintf(why, whylen, "queue %u (%s) left the connected state (RDMA CM TIMEWAIT_EXIT)",
			 rq->q.qid, addr);
		rc = -ENOTCONN;
		rq->connected = 0;
		break;
	default:
		snprintf(why, whylen, "queue %u (%s): unexpected RDMA CM event %s (status %d)",
			 rq->q.qid, addr, rdma_event_str(ev->event), ev->status);
		rc = -ECONNABORTED;
		break;
	}
	rdma_ack_cm_event(ev);
	return rc;
}

/* ---- The lane's seam (nvmf_fabric.h) ---------------------------------------------------- */
/* The queue the lane holds is the first member of ours. */
static struct nvmf_rdma_queue *nvmf_rq(struct nvmf_queue *q)
{
	return (struct nvmf_rdma_queue *)q;
}

struct nvmf_rdma_queue *nvmf_rdma_of(struct nvmf_queue *q)
{
	return q && q->ops == &nvmf_rdma_ops ? nvmf_rq(q) : NULL;
}

static int nvmf_fab_rdma_create(struct nvmf_queue **out, const struct nvmf_fabric_params *p,
				char *err, size_t errlen)
{
	struct nvmf_rdma_params rp;
	struct nvmf_rdma_queue *rq = NULL;
	int rc;

	memset(&rp, 0, sizeof(rp));
	rp.src = p->src;
	rp.dst = p->dst;
	rp.qid = p->qid;
	rp.entries = p->entries;
	rp.timeout_ms = p->timeout_ms;
	rp.ack_timeout = p->ack_timeout;
	rp.use_events = p->use_events;
	rp.shared_cq = p->shared_cq;
	rp.pds = p->pds;
	rp.nr_pds = p->nr_pds;
	rc = nvmf_rdma_queue_create(&rq, &rp, p->pd, err, errlen);
	*out = rq ? &rq->q : NULL;
	return rc;
}

static void nvmf_fab_rdma_destroy(struct nvmf_queue *q, unsigned disconnect_wait_ms)
{
	struct nvmf_rdma_queue *rq = nvmf_rq(q);

	if (rq && disconnect_wait_ms)
		rq->disconnect_wait_ms = disconnect_wait_ms;
	nvmf_rdma_queue_destroy(rq);
}

static void nvmf_fab_rdma_kill(struct nvmf_queue *q)
{
	nvmf_rdma_queue_kill(nvmf_rq(q));
}

static void nvmf_fab_rdma_kill_why(struct nvmf_queue *q, int err, const char *why)
{
	nvmf_rdma_queue_kill_why(nvmf_rq(q), err, why);
}

static int nvmf_fab_rdma_conn_check(struct nvmf_queue *q, char *why, size_t whylen)
{
	return nvmf_rdma_queue_cm_check(nvmf_rq(q), why, whylen);
}

/* The RDMA CM channel: a disconnect or a device removal arrives there as an event. */
static int nvmf_fab_rdma_watch(struct nvmf_queue *q, short *events)
{
	struct nvmf_rdma_queue *rq = nvmf_rq(q);

	*events = POLLIN;
	return rq && rq->ch ? rq->ch->fd : -1;
}

static int nvmf_fab_rdma_arm(struct nvmf_queue *q)
{
	return nvmf_rdma_queue_arm(nvmf_rq(q));
}

static int nvmf_fab_rdma_event(struct nvmf_queue *q)
{
	return nvmf_rdma_queue_cq_event(nvmf_rq(q));
}

/* A lane's queues as ours (at most NVMF_RDMA_WAIT_MAX of them, as every wait takes). */
static unsigned nvmf_rqs(struct nvmf_queue *const *qs, unsigned n, struct nvmf_rdma_queue **rqs)
{
	if (n > NVMF_RDMA_WAIT_MAX)
		n = NVMF_RDMA_WAIT_MAX;
	for (unsigned i = 0; i < n; i++)
		rqs[i] = nvmf_rq(qs[i]);
	return n;
}

static int nvmf_fab_rdma_process(struct nvmf_queue *const *qs, unsigned n)
{
	struct nvmf_rdma_queue *rqs[NVMF_RDMA_WAIT_MAX];

	n = nvmf_rqs(qs, n, rqs);
	return nvmf_rdma_queues_process(rqs, n);
}

static int nvmf_fab_rdma_wait(struct nvmf_queue *const *qs, unsigned n, int timeout_ms)
{
	struct nvmf_rdma_queue *rqs[NVMF_RDMA_WAIT_MAX];

	n = nvmf_rqs(qs, n, rqs);
	return nvmf_rdma_queues_wait(rqs, n, timeout_ms);
}

#define NVMF_RDMA_SETS_MAX 16
static int nvmf_fab_rdma_sets_wait(struct nvmf_queue *const *const *sets, const unsigned *ns,
				   unsigned nsets, int timeout_ms)
{
	struct nvmf_rdma_queue *rqs[NVMF_RDMA_SETS_MAX][NVMF_RDMA_WAIT_MAX];
	struct nvmf_rdma_queue *const *rsets[NVMF_RDMA_SETS_MAX];
	unsigned rns[NVMF_RDMA_SETS_MAX];

	if (nsets > NVMF_RDMA_SETS_MAX)
		nsets = NVMF_RDMA_SETS_MAX;
	for (unsigned s = 0; s < nsets; s++) {
		rns[s] = nvmf_rqs(sets[s], ns[s], rqs[s]);
		rsets[s] = rqs[s];
	}
	return nvmf_rdma_sets_wait(rsets, rns, nsets, timeout_ms);
}

static void nvmf_fab_rdma_addrs(struct nvmf_queue *q, struct sockaddr_storage *local,
				struct sockaddr_storage *peer)
{
	struct nvmf_rdma_queue *rq = nvmf_rq(q);
	struct sockaddr *l = rq && rq->id ? rdma_get_local_addr(rq->id) : NULL;
	struct sockaddr *r = rq && rq->id ? rdma_get_peer_addr(rq->id) : NULL;

	memset(local, 0, sizeof(*local));
	memset(peer, 0, sizeof(*peer));
	if (l)
		memcpy(local, l, nvmf_sockaddr_len(l));
	if (r)
		memcpy(peer, r, nvmf_sockaddr_len(r));
}

const struct nvmf_fabric nvmf_fabric_rdma = {
	.name       = "rdma",
	.trtype     = NVMF_TRTYPE_RDMA,
	.create     = nvmf_fab_rdma_create,
	.destroy    = nvmf_fab_rdma_destroy,
	.kill       = nvmf_fab_rdma_kill,
	.kill_why   = nvmf_fab_rdma_kill_why,
	.conn_check = nvmf_fab_rdma_conn_check,
	.watch      = nvmf_fab_rdma_watch,
	.arm        = nvmf_fab_rdma_arm,
	.event      = nvmf_fab_rdma_event,
	.process    = nvmf_fab_rdma_process,
	.wait       = nvmf_fab_rdma_wait,
	.sets_wait  = nvmf_fab_rdma_sets_wait,
	.addrs      = nvmf_fab_rdma_addrs,
};
