/* test_mpath.c - the multipath decisions (lib/nvmf_mpath.c): which path takes the next I/O
 * under each policy and ANA state, which statuses move an I/O to another path, and the
 * failover record (recovery time, I/Os moved) with its line and its JSON. */
#include <stdio.h>
#include <string.h>

#include "nvmf_mpath.h"
#include "nvmf_spec.h"

#include "check.h"

static void setup(struct nvmf_mp *mp, unsigned n, int policy)
{
	memset(mp, 0, sizeof(*mp));
	mp->nr = n;
	mp->policy = policy;
	for (unsigned i = 0; i < n; i++) {
		snprintf(mp->p[i].name, sizeof(mp->p[i].name), "10.0.0.%u:4420", i + 1);
		mp->p[i].connected = 1;
	}
}

static void test_pick(void)
{
	struct nvmf_mp mp;
	int seen[3] = { 0 };

	/* numa: the first usable path, always */
	setup(&mp, 3, NVMF_MP_NUMA);
	for (int i = 0; i < 5; i++)
		CHECK_EQ(nvmf_mp_pick(&mp, 0), 0);
	mp.p[0].connected = 0;
	CHECK_EQ(nvmf_mp_pick(&mp, 0), 1);
	/* an optimized path beats an earlier non-optimized one */
	mp.p[1].ana[0] = NVME_ANA_NON_OPTIMIZED;
	mp.p[2].ana[0] = NVME_ANA_OPTIMIZED;
	CHECK_EQ(nvmf_mp_pick(&mp, 0), 2);
	/* non-optimized only when no optimized one is left */
	mp.p[2].ana[0] = NVME_ANA_INACCESSIBLE;
	CHECK_EQ(nvmf_mp_pick(&mp, 0), 1);
	/* inaccessible, persistent loss and change never take I/O */
	mp.p[1].ana[0] = NVME_ANA_PERSISTENT_LOSS;
	CHECK_EQ(nvmf_mp_pick(&mp, 0), -1);
	mp.p[1].ana[0] = NVME_ANA_CHANGE;
	CHECK_EQ(nvmf_mp_pick(&mp, 0), -1);
	CHECK(!nvmf_mp_usable(&mp.p[1], 0) && !nvmf_mp_usable(&mp.p[0], 0));

	/* round-robin: each usable path of the best rank in turn */
	setup(&mp, 3, NVMF_MP_ROUND_ROBIN);
	for (int i = 0; i < 9; i++)
		seen[nvmf_mp_pick(&mp, 0)]++;
	CHECK(seen[0] == 3 && seen[1] == 3 && seen[2] == 3);
	mp.p[1].ana[0] = NVME_ANA_NON_OPTIMIZED;    /* out of the turn while optimized ones exist */
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 8; i++)
		seen[nvmf_mp_pick(&mp, 0)]++;
	CHECK(seen[0] == 4 && seen[1] == 0 && seen[2] == 4);

	/* queue-depth: the least busy of the best rank */
	setup(&mp, 3, NVMF_MP_QUEUE_DEPTH);
	mp.p[0].inflight = 5;
	mp.p[1].inflight = 2;
	mp.p[2].inflight = 3;
	CHECK_EQ(nvmf_mp_pick(&mp, 0), 1);
	mp.p[1].connected = 0;
	CHECK_EQ(nvmf_mp_pick(&mp, 0), 2);
	mp.p[2].ana[0] = NVME_ANA_NON_OPTIMIZED;   /* busier but optimized wins */
	CHECK_EQ(nvmf_mp_pick(&mp, 0), 0);
	CHECK_STR(nvmf_mp_policy_name(NVMF_MP_QUEUE_DEPTH), "queue-depth");
}

/* Two namespaces in different ANA groups, active/passive the opposite ways over two paths:
 * each group's I/O goes to the path where it is optimized; a group inaccessible on one path
 * leaves only that group's I/O off it; the JSON names each group's state. */
static void test_groups(void)
{
	struct nvmf_mp mp;
	char json[4096];
	FILE *f;

	setup(&mp, 2, NVMF_MP_NUMA);
	mp.nr_groups = 2;
	mp.grpid[0] = 1;
	mp.grpid[1] = 2;
	mp.p[0].ana[0] = NVME_ANA_OPTIMIZED;
	mp.p[0].ana[1] = NVME_ANA_NON_OPTIMIZED;
	mp.p[1].ana[0] = NVME_ANA_NON_OPTIMIZED;
	mp.p[1].ana[1] = NVME_ANA_OPTIMIZED;
	CHECK_EQ(nvmf_mp_pick(&mp, 0), 0);
	CHECK_EQ(nvmf_mp_pick(&mp, 1), 1);
	/* group 2 inaccessible on path 2: its I/O goes to path 1 (non-optimized), group 1's
	 * stays where it was */
	mp.p[1].ana[1] = NVME_ANA_INACCESSIBLE;
	CHECK_EQ(nvmf_mp_pick(&mp, 1), 0);
	CHECK_EQ(nvmf_mp_pick(&mp, 0), 0);
	CHECK(nvmf_mp_usable(&mp.p[1], 0) && !nvmf_mp_usable(&mp.p[1], 1));
	CHECK(nvmf_mp_usable_any(&mp, &mp.p[1]));
	mp.p[1].ana[0] = NVME_ANA_CHANGE;
	CHECK(!nvmf_mp_usable_any(&mp, &mp.p[1]));
	/* a group index past the table is never usable */
	CHECK_EQ(nvmf_mp_pick(&mp, NVMF_MP_MAX_GROUPS), -1);

	f = fmemopen(json, sizeof(json), "w");
	CHECK(f != NULL);
	if (f) {
		size_t n;

		CHECK(nvmf_mp_write_json(&mp, "g", f) == 0);
		n = (size_t)ftell(f);
		fclose(f);
		json[n < sizeof(json) ? n : sizeof(json) - 1] = 0;
		CHECK(strstr(json, "\"ana_state\": \"optimized\", \"ana_groups\": [{\"grpid\": 1, "
			     "\"state\": \"optimized\"}, {\"grpid\": 2, \"state\": "
			     "\"non-optimized\"}]}") != NULL);
		CHECK(strstr(json, "{\"grpid\": 2, \"state\": \"inaccessible\"}") != NULL);
	}
}

static void test_status(void)
{
	/* (SCT << 8) | SC, as nvmf_io keeps it */
	CHECK(nvmf_mp_status_is_path(0x302));
	CHECK(nvmf_mp_status_is_path(0x300));
	CHECK(nvmf_mp_status_is_path(0x360));
	CHECK(nvmf_mp_status_is_path(0x370));
	CHECK(nvmf_mp_status_is_path(0x371));
	CHECK(!nvmf_mp_status_is_path(0x002));     /* generic: invalid field */
	CHECK(!nvmf_mp_status_is_path(0x281));     /* media: unrecovered read */
	CHECK(!nvmf_mp_status_is_path(0x102));
	CHECK(!nvmf_mp_status_is_path(0));
	CHECK_EQ(nvmf_mp_status_ana(0x301), NVME_ANA_PERSISTENT_LOSS);
	CHECK_EQ(nvmf_mp_status_ana(0x302), NVME_ANA_INACCESSIBLE);
	CHECK_EQ(nvmf_mp_status_ana(0x303), NVME_ANA_CHANGE);
	CHECK_EQ(nvmf_mp_status_ana(0x370), NVMF_ANA_UNKNOWN);
	CHECK_EQ(nvmf_mp_status_ana(0x002), NVMF_ANA_UNKNOWN);
	CHECK_STR(nvme_ana_state_name(NVME_ANA_INACCESSIBLE), "inaccessible");
	CHECK_STR(nvme_ana_state_name(7), "reserved");
}

static void test_failover_record(void)
{
	struct nvmf_mp mp;
	struct nvmf_mp_event *ev;
	char line[1024];
	FILE *f;
	char json[4096];
	size_t n;

	setup(&mp, 2, NVMF_MP_NUMA);
	nvmf_mp_completed(&mp, 0, 1000);
	nvmf_mp_completed(&mp, 0, 1200);
	ev = nvmf_mp_failover(&mp, 0, 1700, "the target disconnected \"queue\" 1");
	CHECK(ev != NULL);
	CHECK_EQ(ev->quiet_ms, 500);
	nvmf_mp_moved(&mp, ev, 7);
	/* a completion on the lost path itself closes nothing */
	nvmf_mp_completed(&mp, 0, 1750);
	CHECK(!ev->recovered);
	nvmf_mp_completed(&mp, 1, 1830);
	CHECK(ev->recovered && ev->to_path == 1);
	CHECK_EQ(ev->recovery_ms, 130);
	CHECK_EQ(mp.moved, 7);
	CHECK_EQ(mp.p[1].ios, 1);
	nvmf_mp_completed(&mp, 1, 1900);
	CHECK_EQ(ev->recovery_ms, 130);   /* the first completion counts */

	mp.p[0].losses = 1;
	nvmf_mp_summary(&mp, line, sizeof(line));
	CHECK(strstr(line, "numa over 2 paths: 10.0.0.1:4420 3 I/Os (lost 1x") != NULL);
	CHECK(strstr(line, "not connected at the end") == NULL);
	/* a path that ends the job still lost says why (the engine keeps why current) */
	mp.p[0].connected = 0;
	snprintf(mp.p[0].why, sizeof(mp.p[0].why), "lost: x; reconnecting, 3 attempts failed");
	nvmf_mp_summary(&mp, line, sizeof(line));
	CHECK(strstr(line, "10.0.0.1:4420 3 I/Os (lost 1x, left for ANA/path status 0x) [not "
			   "connected at the end: lost: x; reconnecting, 3 attempts failed], "
			   "10.0.0.2:4420 2 I/Os;") != NULL);
	mp.p[0].connected = 1;
	CHECK(strstr(line, "failovers 1, I/Os moved 7, recovery max 130 ms") != NULL);
	CHECK(strstr(line, "silence before loss max 500 ms") != NULL);
	if (!strstr(line, "recovery max 130 ms"))
		fprintf(stderr, "  summary: %s\n", line);

	f = fmemopen(json, sizeof(json), "w");
	CHECK(f != NULL);
	if (f) {
		CHECK(nvmf_mp_write_json(&mp, "job\"1", f) == 0);
		n = (size_t)ftell(f);
		fclose(f);
		json[n < sizeof(json) ? n : sizeof(json) - 1] = 0;
		CHECK(strstr(json, "\"job\": \"job\\\"1\"") != NULL);
		CHECK(strstr(json, "\"why\": \"the target disconnected \\\"queue\\\" 1\"") != NULL);
		CHECK(strstr(json, "\"recovery_ms\": 130") != NULL);
		CHECK(strstr(json, "\"ios_moved\": 7") != NULL);
		CHECK(strstr(json, "\"to_path\": \"10.0.0.2:4420\"") != NULL);
		CHECK(strstr(json, "\"ana_notices\": 0") != NULL);
		CHECK(strstr(json, "\"cqt_wait_ms\": 0") != NULL);
	}

	/* past the record's room failovers are still counted */
	setup(&mp, 2, NVMF_MP_NUMA);
	for (unsigned i = 0; i < NVMF_MP_MAX_EVENTS + 3; i++) {
		ev = nvmf_mp_failover(&mp, i % 2, 10 * i, "x");
		nvmf_mp_moved(&mp, ev, 1);
	}
	CHECK(ev == NULL);
	CHECK_EQ(mp.nr_ev, NVMF_MP_MAX_EVENTS);
	CHECK_EQ(mp.nr_failovers, NVMF_MP_MAX_EVENTS + 3);
	CHECK_EQ(mp.moved, NVMF_MP_MAX_EVENTS + 3);
}

int main(void)
{
	test_pick();
	test_groups();
	test_status();
	test_failover_record();
	return check_done("test_mpath");
}
