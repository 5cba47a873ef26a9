/* nvmf_discovery.c - discovery log reads over an admin-only lane, RDMA or TCP
 * (nvmf_discovery.h). */
#include "nvmf_discovery.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nvmf_err.h"

/* nvmf_discover's source: a lane per discovery controller. */
static int lane_open(void *ctx, const struct nvmf_lane_opts *o, void **conn, char *why,
		     size_t whylen)
{
	struct nvmf_lane *lane = NULL;
	int rc = nvmf_lane_connect(&lane, o, why, whylen);

	(void)ctx;
	*conn = rc ? NULL : lane;
	return rc;
}

static int lane_get_log(void *conn, uint64_t offset, void *buf, size_t len)
{
	return nvmf_lane_get_log(conn, NVME_LOG_DISCOVERY, 0, 0, offset, buf, len);
}

static const char *lane_err(void *conn)
{
	return nvmf_lane_err(conn);
}

static void lane_close(void *conn)
{
	nvmf_lane_destroy(conn);
}

static const struct nvmf_disc_source disc_lanes = {
	.open = lane_open, .get_log = lane_get_log, .err = lane_err, .close = lane_close,
};

/* One consistent log: header, entries, header again, until GENCTR held still. */
static int disc_read_log(const struct nvmf_disc_source *src, void *conn, const char *where,
			 uint8_t **log, uint64_t *numrec, uint64_t *genctr, char *err,
			 size_t errlen)
{
	uint8_t hdr[NVMF_DISC_LOG_HDR_SIZE];
	char why[160];
	uint64_t gen2, num2;
	int rc;

	*log = NULL;
	for (unsigned t = 0; t < NVMF_DISCOVERY_TRIES; t++) {
		size_t bytes;

		free(*log);
		*log = NULL;
		if ((rc = src->get_log(conn, 0, hdr, sizeof(hdr))))
			return nvmf_errf(err, errlen, rc, "%s: %s", where, src->err(conn));
		if ((rc = nvmf_disc_log_parse_hdr(hdr, sizeof(hdr), genctr, numrec, why, sizeof(why))))
			return nvmf_errf(err, errlen, rc, "%s: %s", where, why);
		bytes = NVMF_DISC_LOG_HDR_SIZE + (size_t)*numrec * NVMF_DISC_ENTRY_SIZE;
		*log = malloc(bytes);
		if (!*log)
			return nvmf_errf(err, errlen, -ENOMEM, "%s: out of memory for %zu bytes of "
					 "discovery log", where, bytes);
		memcpy(*log, hdr, sizeof(hdr));
		if (*numrec &&
		    (rc = src->get_log(conn, NVMF_DISC_LOG_HDR_SIZE, *log + NVMF_DISC_LOG_HDR_SIZE,
				       bytes - NVMF_DISC_LOG_HDR_SIZE)))
			goto fail_lane;
		if ((rc = src->get_log(conn, 0, hdr, sizeof(hdr))))
			goto fail_lane;
		/* a header that no longer parses changed too: read once more */
		if (!nvmf_disc_log_parse_hdr(hdr, sizeof(hdr), &gen2, &num2, NULL, 0) &&
		    gen2 == *genctr && num2 == *numrec)
			return 0;
	}
	free(*log);
	*log = NULL;
	return nvmf_errf(err, errlen, -EAGAIN, "%s: the discovery log changed (GENCTR) during "
			 "each of %d reads", where, NVMF_DISCOVERY_TRIES);
fail_lane:
	free(*log);
	*log = NULL;
	return nvmf_errf(err, errlen, rc, "%s: %s", where, src->err(conn));
}

/* Connect to the discovery controller at o, read its log, decode it onto *list (grown). */
static int disc_one(const struct nvmf_disc_source *src, const struct nvmf_lane_opts *o,
		    unsigned from_referral, struct nvmf_disc_entry **list, unsigned *nr,
		    uint64_t *genctr, char *err, size_t errlen)
{
	void *conn = NULL;
	struct nvmf_disc_entry *grown;
	char where[320], why[160];
	uint64_t numrec = 0;
	uint8_t *log = NULL;
	int rc;

	snprintf(where, sizeof(where), "discovery at %s:%s", o->traddr, o->trsvcid);
	if ((rc = src->open(src->ctx, o, &conn, why, sizeof(why))))
		return nvmf_errf(err, errlen, rc, "%s: %s", where, why);
	rc = disc_read_log(src, conn, where, &log, &numrec, genctr, err, errlen);
	src->close(conn);
	if (rc)
		return rc;
	grown = realloc(*list, ((size_t)*nr + numrec + 1) * sizeof(**list));
	if (!grown) {
		free(log);
		return nvmf_errf(err, errlen, -ENOMEM, "%s: out of memory", where);
	}
	*list = grown;
	for (uint64_t i = 0; i < numrec; i++) {
		struct nvmf_disc_entry *e = &(*list)[*nr];

		rc = nvmf_disc_entry_decode(log + NVMF_DISC_LOG_HDR_SIZE + i * NVMF_DISC_ENTRY_SIZE,
					    e, why, sizeof(why));
		if (rc) {
			free(log);
			/* 1-based, as "of NUMREC" reads and as nvmf_disc_paths numbers them */
			return nvmf_errf(err, errlen, rc, "%s: entry %llu of %llu: %s", where,
					 (unsigned long long)i + 1, (unsigned long long)numrec, why);
		}
		e->from_referral = from_referral;
		(*nr)++;
	}
	free(log);
	return 0;
}

int nvmf_discover(const struct nvmf_lane_opts *base, struct nvmf_disc_entry **entries,
		  unsigned *nr, uint64_t *genctr, char *err, size_t errlen)
{
	return nvmf_discover_via(&disc_lanes, base, entries, nr, genctr, err, errlen);
}

int nvmf_discover_via(const struct nvmf_disc_source *src, const struct nvmf_lane_opts *base,
		      struct nvmf_disc_entry **entries, unsigned *nr, uint64_t *genctr, char *err,
		      size_t errlen)
{
	struct nvmf_lane_opts o = *base;
	struct nvmf_disc_entry *list = NULL;
	unsigned n = 0, first;
	uint64_t gen;
	int rc, tr = base->trtype ? base->trtype : NVMF_TRTYPE_RDMA;

	*entries = NULL;
	*nr = 0;
	*genctr = 0;
	if (err && errlen)
		err[0] = 0;
	o.subnqn = NVMF_DISCOVERY_NQN;
	o.no_io_queue = 1;
	o.kato_ms = 0;
	o.io_queues = 0;
	o.io_queues_auto = 0;
	if (!o.trsvcid || !*o.trsvcid)
		o.trsvcid = NVMF_DISCOVERY_PORT;
	if (!o.traddr || !*o.traddr)
		return nvmf_errf(err, errlen, -EINVAL, "discovery: traddr is required");
	if ((rc = disc_one(src, &o, 0, &list, &n, genctr, err, errlen)))
		goto fail;
	/* Referrals of the first log only: a referral's referrals are listed, not followed, so
	 * two services that refer to each other cost one read each.  Only those over the
	 * transport asked: the caller takes that transport's entries, and a service over another
	 * (an RDMA one for a host with no RDMA device) could only fail the read. */
	first = n;
	for (unsigned i = 0; i < first; i++) {
		struct nvmf_lane_opts r = o;
		char traddr[NVMF_TRADDR_SIZE + 1], trsvcid[NVMF_TRSVCID_SIZE + 1];

		if (list[i].subtype != NVMF_SUBTYPE_REFERRAL || list[i].trtype != tr)
			continue;
		/* list moves as it grows: the referral's address is copied out first */
		memcpy(traddr, list[i].traddr, sizeof(traddr));
		memcpy(trsvcid, list[i].trsvcid, sizeof(trsvcid));
		r.traddr = traddr;
		r.trsvcid = trsvcid[0] ? trsvcid : NVMF_DISCOVERY_PORT;
		r.adrfam = list[i].adrfam == NVMF_ADRFAM_IPV6 ? AF_INET6 :
			   list[i].adrfam == NVMF_ADRFAM_IPV4 ? AF_INET : AF_UNSPEC;
		if ((rc = disc_one(src, &r, i + 1, &list, &n, &gen, err, errlen)))
			goto fail;
	}
	*entries = list;
	*nr = n;
	return 0;
fail:
	free(list);
	*genctr = 0;
	return rc;
}

const char *nvmf_disc_transport_word(int trtype)
{
	return trtype == NVMF_TRTYPE_TCP ? "TCP" : "RDMA";
}

unsigned nvmf_disc_referrals_other(const struct nvmf_disc_entry *e, unsigned nr, int trtype)
{
	int tr = trtype ? trtype : NVMF_TRTYPE_RDMA;
	unsigned n = 0;

	for (unsigned i = 0; i < nr; i++)
		n += e[i].subtype == NVMF_SUBTYPE_REFERRAL && !e[i].from_referral &&
		     e[i].trtype != tr;
	return n;
}

int nvmf_disc_paths(const struct nvmf_disc_entry *e, unsigned nr, int trtype, const char *subnqn,
		    struct nvmf_addr *paths, unsigned max, unsigned *npaths, char *subnqn_out,
		    size_t subnqn_len, unsigned *other_transport, char *err, size_t errlen)
{
	const char *want = subnqn && *subnqn ? subnqn : NULL;
	const char *word = nvmf_disc_transport_word(trtype);
	int tr = trtype ? trtype : NVMF_TRTYPE_RDMA;

	*npaths = 0;
	*other_transport = 0;
	if (!want) {
		char names[512] = "";
		size_t o = 0;
		unsigned kinds = 0;

		for (unsigned i = 0; i < nr; i++) {
			int seen = 0;

			if (e[i].subtype != NVMF_SUBTYPE_NVME)
				continue;
			for (unsigned k = 0; k < i; k++)
				seen |= e[k].subtype == NVMF_SUBTYPE_NVME &&
					!strcmp(e[k].subnqn, e[i].subnqn);
			if (seen)
				continue;
			if (!kinds++)
				want = e[i].subnqn;
			if (o < sizeof(names))
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s",
						      kinds > 1 ? ", " : "", e[i].subnqn);
		}
		if (!kinds)
			return nvmf_errf(err, errlen, -ENOENT, "discovery: the log lists no NVM "
					 "subsystem");
		if (kinds > 1)
			return nvmf_errf(err, errlen, -EINVAL, "discovery: the log lists %u "
					 "subsystems (%s): set subnqn to one of them", kinds, names);
	}
	for (unsigned i = 0; i < nr; i++) {
		int dup = 0;

		if (e[i].subtype != NVMF_SUBTYPE_NVME || strcmp(e[i].subnqn, want))
			continue;
		if (e[i].trtype != tr) {
			(*other_transport)++;
			continue;
		}
		for (unsigned k = 0; k < *npaths; k++)
			dup |= !strcmp(paths[k].traddr, e[i].traddr) &&
			       !strcmp(paths[k].trsvcid, e[i].trsvcid);
		if (dup)
			continue;
		if (*npaths == max)
			return nvmf_errf(err, errlen, -E2BIG, "discovery: more than %u %s paths to "
					 "%s", max, word, want);
		if (strlen(e[i].traddr) >= sizeof(paths->traddr) ||
		    strlen(e[i].trsvcid) >= sizeof(paths->trsvcid) || !nvmf_port_valid(e[i].trsvcid))
			return nvmf_errf(err, errlen, -EINVAL, "discovery: entry %u: traddr '%.64s' "
					 "trsvcid '%.32s' is not an address and port", i + 1,
					 e[i].traddr, e[i].trsvcid);
		snprintf(paths[*npaths].traddr, sizeof(paths->traddr), "%s", e[i].traddr);
		snprintf(paths[*npaths].trsvcid, sizeof(paths->trsvcid), "%s", e[i].trsvcid);
		(*npaths)++;
	}
	if (!*npaths)
		return nvmf_errf(err, errlen, -ENOENT, "discovery: no %s entry for %s%s", word, want,
				 *other_transport ? " (only other transports)" : "");
	snprintf(subnqn_out, subnqn_len, "%s", want);
	return 0;
}
