/* nvmf_discovery.h - the discovery service of an NVMe over Fabrics fabric (RDMA or TCP):
 * connect to a discovery controller, read its discovery log in full, decode every entry,
 * follow referrals once. */
#ifndef FIO_NVMEOF_DISCOVERY_H
#define FIO_NVMEOF_DISCOVERY_H

#include <stddef.h>
#include <stdint.h>

#include "nvmf_lane.h"
#include "nvmf_spec.h"
#include "nvmf_trid.h"

/* The discovery service's IANA port (nvme-disc), NVMe/TCP's convention for discovery; this
 * project asks it on RDMA too (a Linux kernel target answers discovery on every port). */
#define NVMF_DISCOVERY_PORT  "8009"
#define NVMF_DISCOVERY_TRIES 4       /* log reads before a changing GENCTR is an error */

/* Read the discovery log at base->traddr: an admin-only lane (no_io_queue, no keep-alive) to
 * the discovery NQN at base->trsvcid (NVMF_DISCOVERY_PORT when NULL or empty; base->subnqn,
 * kato_ms and no_io_queue are not used; the transport (trtype, 0: RDMA), its digests, host
 * identity, host_traddr, adrfam and timeouts are).  The header, then all NUMREC entries, then
 * the header again: read again while GENCTR changed between them, up to NVMF_DISCOVERY_TRIES
 * times.  Every referral entry (subtype 1) of that log over the same transport is then read
 * the same way, once (the referral's own referrals are listed, not followed; so are the
 * referrals over another transport: nvmf_disc_referrals_other counts them), its entries
 * appended with from_referral set.  *entries (free() it) and *nr get
 * the entries in log order; *genctr the first log's GENCTR.  0, or a negative errno with one
 * line in err (connect failure, NVMe status, a log that kept changing, an entry that does not
 * decode: each named). */
int nvmf_discover(const struct nvmf_lane_opts *base, struct nvmf_disc_entry **entries,
		  unsigned *nr, uint64_t *genctr, char *err, size_t errlen);

/* Where nvmf_discover_via reads discovery logs.  nvmf_discover's is a lane per discovery
 * controller (nvmf_lane_connect, nvmf_lane_get_log, nvmf_lane_err, nvmf_lane_destroy); the unit
 * tests play discovery controllers through their own, with no fabric. */
struct nvmf_disc_source {
	void *ctx;
	/* connect to the discovery controller o names: 0 with *conn set, or a negative errno with
	 * one line in why */
	int (*open)(void *ctx, const struct nvmf_lane_opts *o, void **conn, char *why,
		    size_t whylen);
	/* len bytes of the discovery log from byte offset into buf, bytes the controller did not
	 * send left zero (as nvmf_lane_get_log leaves them): 0, or a negative errno with the
	 * reason in err(conn) */
	int (*get_log)(void *conn, uint64_t offset, void *buf, size_t len);
	const char *(*err)(void *conn);
	void (*close)(void *conn);
};

/* nvmf_discover, its logs read through src. */
int nvmf_discover_via(const struct nvmf_disc_source *src, const struct nvmf_lane_opts *base,
		      struct nvmf_disc_entry **entries, unsigned *nr, uint64_t *genctr, char *err,
		      size_t errlen);

/* The paths to one subsystem in a discovery log: every entry of an NVM subsystem (subtype 2)
 * over transport trtype (NVMF_TRTYPE_RDMA or _TCP; 0: RDMA) whose SUBNQN is subnqn, in log
 * order, duplicates dropped.  subnqn NULL or "": the log must list exactly one NVM subsystem
 * (over any transport), which is taken (its NQN in subnqn_out); several are refused naming
 * them.  Entries of subnqn over another transport are counted in *other_transport.  0 (at
 * least one path), or -ENOENT/-EINVAL/-E2BIG with one line in err (naming the transport). */
int nvmf_disc_paths(const struct nvmf_disc_entry *e, unsigned nr, int trtype, const char *subnqn,
		    struct nvmf_addr *paths, unsigned max, unsigned *npaths, char *subnqn_out,
		    size_t subnqn_len, unsigned *other_transport, char *err, size_t errlen);

/* The referrals nvmf_discover listed and did not follow because they are over another
 * transport than trtype (0: RDMA): referral entries of the first log (from_referral 0). */
unsigned nvmf_disc_referrals_other(const struct nvmf_disc_entry *e, unsigned nr, int trtype);

/* "TCP" for NVMF_TRTYPE_TCP, else "RDMA" (0 is RDMA): the word the messages use. */
const char *nvmf_disc_transport_word(int trtype);

#endif
