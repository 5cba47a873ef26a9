/* test_discovery.c - the paths a discovery log gives for one subsystem (nvmf_disc_paths):
 * RDMA entries only, duplicates once, the one subsystem taken when none is named, several
 * refused naming them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmf_discovery.h"

#include "check.h"

static struct nvmf_disc_entry ent(uint8_t trtype, uint8_t subtype, const char *nqn,
				  const char *addr, const char *port)
{
	struct nvmf_disc_entry e;

	memset(&e, 0, sizeof(e));
	e.trtype = trtype;
	e.subtype = subtype;
	snprintf(e.subnqn, sizeof(e.subnqn), "%s", nqn);
	snprintf(e.traddr, sizeof(e.traddr), "%s", addr);
	snprintf(e.trsvcid, sizeof(e.trsvcid), "%s", port);
	return e;
}

int main(void)
{
	struct nvmf_disc_entry e[8];
	struct nvmf_addr p[4];
	char nqn[257], err[256];
	unsigned n, other;
	int rc;

	e[0] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_CURRENT, NVMF_DISCOVERY_NQN, "10.0.0.1", "8009");
	e[1] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420");
	e[2] = ent(NVMF_TRTYPE_TCP, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420");
	e[3] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.2", "4421");
	e[4] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420"); /* again */
	e[5] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.b", "10.0.0.1", "4420");
	e[6] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_REFERRAL, "", "10.0.0.9", "8009");

	rc = nvmf_disc_paths(e, 7, "nqn.a", p, 4, &n, nqn, sizeof(nqn), &other, err, sizeof(err));
	CHECK(rc == 0 && n == 2 && other == 1);
	CHECK(!strcmp(p[0].traddr, "10.0.0.1") && !strcmp(p[0].trsvcid, "4420"));
	CHECK(!strcmp(p[1].traddr, "10.0.0.2") && !strcmp(p[1].trsvcid, "4421"));
	CHECK(!strcmp(nqn, "nqn.a"));

	/* no subnqn: two subsystems listed, refused naming both */
	rc = nvmf_disc_paths(e, 7, NULL, p, 4, &n, nqn, sizeof(nqn), &other, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "2 subsystems (nqn.a, nqn.b)") && strstr(err, "subnqn"));
	/* no subnqn, one subsystem: taken */
	rc = nvmf_disc_paths(e, 5, "", p, 4, &n, nqn, sizeof(nqn), &other, err, sizeof(err));
	CHECK(rc == 0 && n == 2 && !strcmp(nqn, "nqn.a"));
	/* a subsystem not listed, or only over TCP */
	rc = nvmf_disc_paths(e, 7, "nqn.zz", p, 4, &n, nqn, sizeof(nqn), &other, err, sizeof(err));
	CHECK(rc == -ENOENT && strstr(err, "no RDMA entry for nqn.zz"));
	rc = nvmf_disc_paths(&e[2], 1, "nqn.a", p, 4, &n, nqn, sizeof(nqn), &other, err, sizeof(err));
	CHECK(rc == -ENOENT && strstr(err, "only other transports") && other == 1);
	rc = nvmf_disc_paths(e, 1, NULL, p, 4, &n, nqn, sizeof(nqn), &other, err, sizeof(err));
	CHECK(rc == -ENOENT && strstr(err, "no NVM subsystem"));
	/* more paths than room; a port that is not one */
	rc = nvmf_disc_paths(e, 7, "nqn.a", p, 1, &n, nqn, sizeof(nqn), &other, err, sizeof(err));
	CHECK(rc == -E2BIG && strstr(err, "more than 1 RDMA paths"));
	e[7] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.c", "10.0.0.3", "http");
	rc = nvmf_disc_paths(&e[7], 1, "nqn.c", p, 4, &n, nqn, sizeof(nqn), &other, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "entry 1"));
	if (check_failures)
		fprintf(stderr, "  last err: %s\n", err);
	return check_done("test_discovery");
}
