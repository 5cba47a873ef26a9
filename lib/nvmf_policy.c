/* nvmf_policy.c - the fabric-dependent defaults and their reasons (nvmf_policy.h). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "nvmf_policy.h"

int nvmf_policy_classify_device(const struct nvmf_dev_facts *f, char *why, size_t len)
{
	const char *name = f->name ? f->name : "the RDMA device";

	if (f->vendor_known && f->vendor_id == NVMF_VENDOR_RXE) {
		snprintf(why, len, "%s is Soft-RoCE (rxe, vendor ID 0x%x)", name, f->vendor_id);
		return 1;
	}
	if (f->vendor_known && f->vendor_id == NVMF_VENDOR_SIW) {
		snprintf(why, len, "%s is soft-iWARP (siw, vendor ID 0x%x)", name, f->vendor_id);
		return 1;
	}
	if (f->vendor_known && f->vendor_id) {
		snprintf(why, len, "%s is hardware (vendor ID 0x%x)", name, f->vendor_id);
		return 0;
	}
	if (f->parent && *f->parent) {
		const char *leaf = strrchr(f->parent, '/');

		snprintf(why, len, "%s is hardware (vendor ID unknown; device %s)", name,
			 leaf ? leaf + 1 : f->parent);
		return 0;
	}
	snprintf(why, len, "%s is a software device (vendor ID unknown, no parent device)", name);
	return 1;
}

int nvmf_policy_target_local(const struct sockaddr *local, const struct sockaddr *peer,
			     char *why, size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "?";

	if (!peer) {
		snprintf(why, len, "the target's address is unknown: taken as remote");
		return 0;
	}
	if (peer->sa_family == AF_INET) {
		const struct in_addr *p = &((const struct sockaddr_in *)peer)->sin_addr;

		inet_ntop(AF_INET, p, addr, sizeof(addr));
		if ((ntohl(p->s_addr) >> 24) == 127) {
			snprintf(why, len, "the target %s is loopback", addr);
			return 1;
		}
		if (local && local->sa_family == AF_INET &&
		    p->s_addr == ((const struct sockaddr_in *)local)->sin_addr.s_addr) {
			snprintf(why, len, "the target %s is this host's own address", addr);
			return 1;
		}
	} else if (peer->sa_family == AF_INET6) {
		const struct in6_addr *p = &((const struct sockaddr_in6 *)peer)->sin6_addr;

		inet_ntop(AF_INET6, p, addr, sizeof(addr));
		/* an IPv4 address as IPv6 (::ffff:a.b.c.d): IPv4's loopback range is 127/8 */
		if (IN6_IS_ADDR_LOOPBACK(p) || (IN6_IS_ADDR_V4MAPPED(p) && p->s6_addr[12] == 127)) {
			snprintf(why, len, "the target %s is loopback", addr);
			return 1;
		}
		if (local && local->sa_family == AF_INET6 &&
		    !memcmp(p, &((const struct sockaddr_in6 *)local)->sin6_addr, sizeof(*p))) {
			snprintf(why, len, "the target %s is this host's own address", addr);
			return 1;
		}
	}
	snprintf(why, len, "the target %s is remote", addr);
	return 0;
}

void nvmf_policy_decide(const struct nvmf_policy_facts *f, struct nvmf_policy *out)
{
	/* Only Soft-RoCE with a local target was measured; NVMe/TCP gets SPDK's defaults. */
	int measured = !f->tcp && f->rdma_software && f->target_local;
	unsigned max_depth = f->host_jobs > 1 ? NVMF_INLINE_LOCAL_MAX_DEPTH_JOBS :
				NVMF_INLINE_LOCAL_MAX_DEPTH;
	/* what sets a lane apart from the measured fabric, for the reasons below */
	const char *anchor = f->tcp ? "NVMe/TCP" : !f->rdma_software ? "hardware RDMA device" :
			     "remote target";
	unsigned batch;

	memset(out, 0, sizeof(*out));
	if (measured && f->io_depth > max_depth) {
		out->inline_keyed.value = 1;
		snprintf(out->inline_keyed.why, sizeof(out->inline_keyed.why),
			 "iodepth %u > %u: software RDMA device, local target", f->io_depth,
			 max_depth);
	} else if (measured) {
		snprintf(out->inline_keyed.why, sizeof(out->inline_keyed.why),
			 "iodepth %u <= %u: software RDMA device, local target", f->io_depth,
			 max_depth);
	} else {
		snprintf(out->inline_keyed.why, sizeof(out->inline_keyed.why),
			 "%s: in the capsule when offered, as SPDK", anchor);
	}

	if (measured) {
		batch = f->io_depth / NVMF_SUBMIT_BATCH_DIV_LOCAL;
		out->submit_batch.value = batch ? batch : 1;
		snprintf(out->submit_batch.why, sizeof(out->submit_batch.why),
			 "iodepth/%u%s: software RDMA device, local target",
			 NVMF_SUBMIT_BATCH_DIV_LOCAL, batch ? "" : ", at least 1");
	} else {
		out->submit_batch.value = 1;
		snprintf(out->submit_batch.why, sizeof(out->submit_batch.why),
			 "%s: held I/Os go out at every poll, as SPDK's delay_cmd_submit", anchor);
	}

	out->pick_cpu.value = (unsigned)measured;
	if (measured)
		snprintf(out->pick_cpu.why, sizeof(out->pick_cpu.why),
			 "software RDMA device, local target");
	else
		snprintf(out->pick_cpu.why, sizeof(out->pick_cpu.why), "%s", anchor);
}

unsigned nvmf_policy_auto_io_queues(unsigned cpus, char *why, size_t len)
{
	if (cpus < 1)
		cpus = 1;
	if (cpus > NVMF_AUTO_IO_QUEUES_MAX) {
		snprintf(why, len, "%u of the job's %u CPUs: one thread polls every queue",
			 NVMF_AUTO_IO_QUEUES_MAX, cpus);
		return NVMF_AUTO_IO_QUEUES_MAX;
	}
	snprintf(why, len, "one per CPU the job may run on (%u)", cpus);
	return cpus;
}

unsigned nvmf_policy_keepalive_interval(unsigned kato_ms, char *why, size_t len)
{
	unsigned every = kato_ms / 2;

	why[0] = 0;
	if (every >= NVMF_KEEPALIVE_MIN_INTERVAL_MS)
		return every;
	snprintf(why, len, "every %u ms at most: KATO %u ms leaves less",
		 NVMF_KEEPALIVE_MIN_INTERVAL_MS, kato_ms);
	return NVMF_KEEPALIVE_MIN_INTERVAL_MS;
}
