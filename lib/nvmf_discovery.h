/* nvmf_discovery.h - the discovery service of an NVMe/RDMA fabric: connect to a discovery
 * controller, read its discovery log in full, decode every entry, follow referrals once. */
#ifndef FIO_NVMEOF_DISCOVERY_H
#define FIO_NVMEOF_DISCOVERY_H

#include <stddef.h>
#include <stdint.h>

#include "nvmf_lane.h"
#include "nvmf_spec.h"

#define NVMF_DISCOVERY_PORT  "8009"  /* the discovery service's IANA port for NVMe/RDMA */
#define NVMF_DISCOVERY_TRIES 4       /* log reads before a changing GENCTR is an error */

/* Read the discovery log at base->traddr: an admin-only lane (no_io_queue, no keep-alive) to
 * the discovery NQN at base->trsvcid (NVMF_DISCOVERY_PORT when NULL or empty; base->subnqn,
 * kato_ms and no_io_queue are not used; host identity, host_traddr, adrfam and timeouts are).
 * The header, then all NUMREC entries, then the header again: read again while GENCTR changed
 * between them, up to NVMF_DISCOVERY_TRIES times.  Every RDMA referral entry (subtype 1) of
 * that log is then read the same way, once (the referral's own referrals are listed, not
 * followed), its entries appended with from_referral set.  *entries (free() it) and *nr get
 * the entries in log order; *genctr the first log's GENCTR.  0, or a negative errno with one
 * line in err (connect failure, NVMe status, a log that kept changing, an entry that does not
 * decode: each named). */
int nvmf_discover(const struct nvmf_lane_opts *base, struct nvmf_disc_entry **entries,
		  unsigned *nr, uint64_t *genctr, char *err, size_t errlen);

#endif
