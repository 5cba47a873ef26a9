/* test_policy.c - the fabric policy (lib/nvmf_policy.c): telling a software RDMA device from a
 * hardware one, a local target from a remote one, and every default that depends on them
 * (in-capsule writes, the submit batch, the queue pick, io_queues=auto), each with its reason. */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "nvmf_policy.h"

#include "check.h"

static void test_classify_device(void)
{
	static const struct {
		const char *name;
		uint32_t vendor;
		int known;
		const char *parent;
		int software;
		const char *why;
	} cases[] = {
		/* the kernel's software devices by vendor ID, whatever sysfs says */
		{ "rxe0", 0xffffff, 1, NULL, 1, "rxe0 is Soft-RoCE (rxe, vendor ID 0xffffff)" },
		{ "siw0", 0x626d74, 1, NULL, 1, "siw0 is soft-iWARP (siw, vendor ID 0x626d74)" },
		/* a ConnectX PCI function */
		{ "mlx5_0", 0x02c9, 1, "../../../0000:17:00.0", 0,
		  "mlx5_0 is hardware (vendor ID 0x2c9)" },
		/* an mlx5 sub-function hangs off the auxiliary bus, not PCI: still hardware (a
		 * classification by "is its parent a PCI address" called it software) */
		{ "mlx5_2", 0x02c9, 1, "../../../mlx5_core.sf.2", 0,
		  "mlx5_2 is hardware (vendor ID 0x2c9)" },
		{ "mlx5_3", 0x02c9, 1, NULL, 0, "mlx5_3 is hardware (vendor ID 0x2c9)" },
		/* vendor unknown (rxe before Linux 5.x said 0): sysfs decides */
		{ "rxe1", 0, 1, NULL, 1,
		  "rxe1 is a software device (vendor ID unknown, no parent device)" },
		{ "xyz0", 0, 0, "../../../0000:3b:00.1", 0,
		  "xyz0 is hardware (vendor ID unknown; device 0000:3b:00.1)" },
		{ "abc0", 0, 1, "../../../abc.aux.1", 0,
		  "abc0 is hardware (vendor ID unknown; device abc.aux.1)" },
		{ NULL, 0, 0, NULL, 1,
		  "the RDMA device is a software device (vendor ID unknown, no parent device)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nvmf_dev_facts f = {
			.name = cases[i].name, .vendor_id = cases[i].vendor,
			.vendor_known = cases[i].known, .parent = cases[i].parent,
		};
		char why[NVMF_POLICY_WHY_LEN];

		CHECK_EQ(nvmf_policy_classify_device(&f, why, sizeof(why)), cases[i].software);
		CHECK_STR(why, cases[i].why);
	}
}

/* An IPv4 or IPv6 address into ss (NULL: no address). */
static const struct sockaddr *mk_addr(struct sockaddr_storage *ss, const char *ip)
{
	memset(ss, 0, sizeof(*ss));
	if (!ip)
		return NULL;
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		CHECK_EQ(inet_pton(AF_INET6, ip, &a->sin6_addr), 1);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		CHECK_EQ(inet_pton(AF_INET, ip, &a->sin_addr), 1);
	}
	return (const struct sockaddr *)ss;
}

static void test_target_local(void)
{
	static const struct {
		const char *local, *peer;
		int want;
		const char *why;
	} cases[] = {
		{ "10.99.0.1", "10.99.0.1", 1, "the target 10.99.0.1 is this host's own address" },
		{ "10.99.0.1", "10.99.0.2", 0, "the target 10.99.0.2 is remote" },
		{ "10.99.0.1", "127.0.0.1", 1, "the target 127.0.0.1 is loopback" },
		{ "10.99.0.1", "127.8.9.10", 1, "the target 127.8.9.10 is loopback" },
		{ "10.99.0.1", "126.255.255.255", 0, "the target 126.255.255.255 is remote" },
		{ "fd00::1", "fd00::1", 1, "the target fd00::1 is this host's own address" },
		{ "fd00::1", "fd00::2", 0, "the target fd00::2 is remote" },
		{ "10.99.0.1", "::1", 1, "the target ::1 is loopback" },
		/* IPv4 written as IPv6 (issue 43, item 10: these were remote) */
		{ "10.99.0.1", "::ffff:127.0.0.1", 1, "the target ::ffff:127.0.0.1 is loopback" },
		{ "10.99.0.1", "::ffff:127.3.0.9", 1, "the target ::ffff:127.3.0.9 is loopback" },
		{ "::ffff:10.99.0.1", "::ffff:10.99.0.1", 1, "the target ::ffff:10.99.0.1 is this host's own address" },
		{ "10.99.0.1", "::ffff:10.99.0.2", 0, "the target ::ffff:10.99.0.2 is remote" },
		{ "10.99.0.1", "::ffff:128.0.0.1", 0, "the target ::ffff:128.0.0.1 is remote" },
		{ "10.99.0.1", "fd00::1", 0, "the target fd00::1 is remote" },   /* families differ */
		{ NULL, "10.99.0.1", 0, "the target 10.99.0.1 is remote" },
		{ "10.99.0.1", NULL, 0, "the target's address is unknown: taken as remote" },
	};
	struct sockaddr_storage l, p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[NVMF_POLICY_WHY_LEN];

		CHECK_EQ(nvmf_policy_target_local(mk_addr(&l, cases[i].local),
						  mk_addr(&p, cases[i].peer), why, sizeof(why)),
			 cases[i].want);
		CHECK_STR(why, cases[i].why);
	}
}

static void decide(int software, int local, unsigned depth, unsigned jobs, struct nvmf_policy *p)
{
	struct nvmf_policy_facts f = {
		.rdma_software = software, .target_local = local, .io_depth = depth,
		.host_jobs = jobs,
	};

	memset(p, 0xa5, sizeof(*p));
	nvmf_policy_decide(&f, p);
}

/* inline_data=auto sends writes keyed only in a job deeper than 4 (16 when fio runs several
 * jobs) on a software RDMA device with the target on this host. */
static void test_inline_keyed(void)
{
	static const struct {
		unsigned depth, jobs;
		int software, local, want;
	} cases[] = {
		{ 5, 1, 1, 1, 1 }, { 8, 1, 1, 1, 1 }, { 128, 1, 1, 1, 1 },
		{ 4, 1, 1, 1, 0 }, { 1, 1, 1, 1, 0 },                 /* shallow: in-capsule */
		{ 8, 0, 1, 1, 1 }, { 4, 0, 1, 1, 0 },                 /* jobs not known: one */
		{ 16, 4, 1, 1, 0 }, { 8, 2, 1, 1, 0 },                /* several jobs: to 16 */
		{ 17, 4, 1, 1, 1 }, { 32, 2, 1, 1, 1 },
		{ 0, 1, 1, 1, 0 },                                    /* depth not known */
		{ 128, 1, 0, 1, 0 }, { 128, 1, 1, 0, 0 }, { 128, 4, 0, 0, 0 },  /* only both */
	};
	struct nvmf_policy p;

	CHECK_EQ(NVMF_INLINE_LOCAL_MAX_DEPTH, 4);
	CHECK_EQ(NVMF_INLINE_LOCAL_MAX_DEPTH_JOBS, 16);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		decide(cases[i].software, cases[i].local, cases[i].depth, cases[i].jobs, &p);
		CHECK_EQ(p.inline_keyed.value, cases[i].want);
	}
	decide(1, 1, 8, 1, &p);
	CHECK_STR(p.inline_keyed.why, "iodepth 8 > 4: software RDMA device, local target");
	decide(1, 1, 16, 3, &p);
	CHECK_STR(p.inline_keyed.why, "iodepth 16 <= 16: software RDMA device, local target");
	decide(0, 1, 128, 1, &p);
	CHECK_STR(p.inline_keyed.why, "hardware RDMA device: in the capsule when offered, as SPDK");
	decide(1, 0, 128, 1, &p);
	CHECK_STR(p.inline_keyed.why, "remote target: in the capsule when offered, as SPDK");
}

/* submit_batch=0: iodepth/2 with a software RDMA device and a local target (each post a system
 * call that runs the target's receive); anywhere else 1, held I/Os going out at every poll as
 * with SPDK's delay_cmd_submit (iodepth/8 before: never measured on a NIC). */
static void test_submit_batch(void)
{
	static const struct {
		unsigned depth;
		int software, local;
		unsigned want;
	} cases[] = {
		{ 32, 0, 0, 1 }, { 128, 0, 0, 1 }, { 8, 0, 0, 1 }, { 0, 0, 0, 1 },
		{ 32, 1, 0, 1 }, { 32, 0, 1, 1 }, { 65535, 0, 0, 1 },   /* only both together */
		{ 32, 1, 1, 16 }, { 128, 1, 1, 64 }, { 8, 1, 1, 4 }, { 3, 1, 1, 1 }, { 2, 1, 1, 1 },
		{ 1, 1, 1, 1 }, { 0, 1, 1, 1 }, { 65535, 1, 1, 32767 },
	};
	struct nvmf_policy p;

	CHECK_EQ(NVMF_SUBMIT_BATCH_DIV_LOCAL, 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		decide(cases[i].software, cases[i].local, cases[i].depth, 1, &p);
		CHECK_EQ(p.submit_batch.value, cases[i].want);
	}
	decide(1, 1, 32, 1, &p);
	CHECK_STR(p.submit_batch.why, "iodepth/2: software RDMA device, local target");
	decide(1, 1, 1, 1, &p);
	CHECK_STR(p.submit_batch.why, "iodepth/2, at least 1: software RDMA device, local target");
	decide(0, 0, 32, 1, &p);
	CHECK_STR(p.submit_batch.why, "hardware RDMA device: held I/Os go out at every poll, as "
		  "SPDK's delay_cmd_submit");
}

/* io_queue_pick=auto: by CPU only with a software RDMA device and a local target. */
static void test_pick_cpu(void)
{
	struct nvmf_policy p;

	decide(1, 1, 32, 1, &p);
	CHECK_EQ(p.pick_cpu.value, 1);
	CHECK_STR(p.pick_cpu.why, "software RDMA device, local target");
	decide(1, 0, 32, 1, &p);
	CHECK_EQ(p.pick_cpu.value, 0);
	CHECK_STR(p.pick_cpu.why, "remote target");
	decide(0, 1, 32, 1, &p);
	CHECK_EQ(p.pick_cpu.value, 0);
	CHECK_STR(p.pick_cpu.why, "hardware RDMA device");
	decide(0, 0, 32, 1, &p);
	CHECK_EQ(p.pick_cpu.value, 0);
}

/* NVMe/TCP was never measured here: SPDK's defaults, whatever the target's place, and the
 * reasons name the transport (no RDMA device to name). */
static void test_tcp(void)
{
	struct nvmf_policy_facts f;
	struct nvmf_policy p;

	memset(&f, 0, sizeof(f));
	f.tcp = 1;
	f.target_local = 1;
	f.io_depth = 32;
	f.host_jobs = 1;
	nvmf_policy_decide(&f, &p);
	CHECK_EQ(p.inline_keyed.value, 0);
	CHECK_STR(p.inline_keyed.why, "NVMe/TCP: in the capsule when offered, as SPDK");
	CHECK_EQ(p.submit_batch.value, 1);
	CHECK_EQ(p.pick_cpu.value, 0);
	CHECK_STR(p.pick_cpu.why, "NVMe/TCP");
	/* a stale software-device flag does not bring the Soft-RoCE rules back */
	f.rdma_software = 1;
	nvmf_policy_decide(&f, &p);
	CHECK_EQ(p.inline_keyed.value, 0);
	CHECK_EQ(p.pick_cpu.value, 0);
}

/* io_queues=auto: one per CPU the job may run on, at most NVMF_AUTO_IO_QUEUES_MAX (one job
 * thread polls them all); every CPU before, up to 64. */
static void test_auto_io_queues(void)
{
	char why[NVMF_POLICY_WHY_LEN];

	CHECK_EQ(NVMF_AUTO_IO_QUEUES_MAX, 4);
	CHECK_EQ(nvmf_policy_auto_io_queues(0, why, sizeof(why)), 1);
	CHECK_EQ(nvmf_policy_auto_io_queues(1, why, sizeof(why)), 1);
	CHECK_STR(why, "one per CPU the job may run on (1)");
	CHECK_EQ(nvmf_policy_auto_io_queues(4, why, sizeof(why)), 4);
	CHECK_EQ(nvmf_policy_auto_io_queues(64, why, sizeof(why)), 4);
	CHECK_STR(why, "4 of the job's 64 CPUs: one thread polls every queue");
	CHECK_EQ(nvmf_policy_auto_io_queues(5, why, sizeof(why)), 4);
}

/* Keep Alive every KATO/2, never more often than every 100 ms whatever KATO the controller
 * sets (every KATO/2 before: a 2 ms KATO made the thread a busy loop), saying so. */
static void test_keepalive_interval(void)
{
	char why[NVMF_POLICY_WHY_LEN];

	CHECK_EQ(NVMF_KEEPALIVE_MIN_INTERVAL_MS, 100);
	CHECK_EQ(nvmf_policy_keepalive_interval(2000, why, sizeof(why)), 1000);
	CHECK_STR(why, "");
	CHECK_EQ(nvmf_policy_keepalive_interval(200, why, sizeof(why)), 100);
	CHECK_STR(why, "");
	CHECK_EQ(nvmf_policy_keepalive_interval(199, why, sizeof(why)), 100);
	CHECK_STR(why, "every 100 ms at most: KATO 199 ms leaves less");
	CHECK_EQ(nvmf_policy_keepalive_interval(2, why, sizeof(why)), 100);
	CHECK_EQ(nvmf_policy_keepalive_interval(1, why, sizeof(why)), 100);
	CHECK_STR(why, "every 100 ms at most: KATO 1 ms leaves less");
	CHECK_EQ(nvmf_policy_keepalive_interval(3600000, why, sizeof(why)), 1800000);
}

/* A port going down loses a path only where another path can take its I/O. */
static void test_port_down_lost(void)
{
	CHECK_EQ(nvmf_policy_port_down_lost(0), 0);
	CHECK_EQ(nvmf_policy_port_down_lost(1), 0);
	CHECK_EQ(nvmf_policy_port_down_lost(2), 1);
	CHECK_EQ(nvmf_policy_port_down_lost(8), 1);
}

int main(void)
{
	test_classify_device();
	test_target_local();
	test_inline_keyed();
	test_submit_batch();
	test_pick_cpu();
	test_tcp();
	test_auto_io_queues();
	test_keepalive_interval();
	test_port_down_lost();
	return check_done("test_policy");
}
