/* test_trid.c - SPDK-style transport IDs as fio filenames (lib/nvmf_trid.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "nvmf_trid.h"

#include "check.h"

static char err[256];

static int parse(const char *s, struct nvmf_trid *t)
{
	memset(t, 0x5a, sizeof(*t));
	memset(err, 0, sizeof(err));
	return nvmf_trid_parse(s, t, err, sizeof(err));
}

/* negative, with a message naming `field` */
static void expect_bad(const char *s, const char *field)
{
	struct nvmf_trid t;
	int rc = parse(s, &t);

	CHECK(rc < 0);
	CHECK(strstr(err, field) != NULL);
	if (rc >= 0 || !strstr(err, field))
		fprintf(stderr, "  input '%.80s': rc %d, err '%s' (want it to name '%s')\n", s, rc,
			err, field);
}

static void test_plain_names(void)
{
	static const char *plain[] = {
		"", "/dev/nvme0n1", "nvme0n1", "10.0.0.1", "some\\:file", "a b c",
	};
	struct nvmf_trid t;

	for (unsigned i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		CHECK_EQ(parse(plain[i], &t), 0);
		/* the output is reset even so */
		CHECK_EQ(t.traddr[0], 0);
		CHECK_EQ(t.subnqn[0], 0);
		CHECK_EQ(t.nsid, 0);
		CHECK_EQ(t.adrfam, AF_UNSPEC);
	}
	CHECK_EQ(parse(NULL, &t), 0);
}

static void test_full(void)
{
	struct nvmf_trid t;

	CHECK_EQ(parse("trtype=RDMA adrfam=IPv4 traddr=192.168.100.8 trsvcid=4420 "
		       "subnqn=nqn.2016-06.io.spdk:cnode1 ns=2", &t), 1);
	CHECK_STR(t.traddr, "192.168.100.8");
	CHECK_STR(t.trsvcid, "4420");
	CHECK_STR(t.subnqn, "nqn.2016-06.io.spdk:cnode1");
	CHECK_EQ(t.adrfam, AF_INET);
	CHECK_EQ(t.nsid, 2);
	CHECK_EQ(t.trtype, 1);
	/* SPDK's TCP transport IDs run as they are; no trtype leaves it to transport= */
	CHECK_EQ(parse("trtype=TCP adrfam=IPv4 traddr=10.0.0.1 trsvcid=4420 subnqn=n ns=1", &t), 1);
	CHECK_EQ(t.trtype, 3);
	CHECK_EQ(parse("trtype=tcp traddr=10.0.0.1", &t), 1);
	CHECK_EQ(t.trtype, 3);
	CHECK_EQ(parse("traddr=10.0.0.1", &t), 1);
	CHECK_EQ(t.trtype, 0);

	/* as fio hands it over: ':' escaped; IPv6; tabs and extra blanks; keys in any order */
	CHECK_EQ(parse("  subnqn=nqn.2014-08.org.nvmexpress\\:uuid\\:1b4e28ba-2fa1-11d2-883f-0016d3cca427"
		       "\ttraddr=fe80\\:\\:1   adrfam=IPv6 trsvcid=4421 trtype=rdma ns=4294967294 ",
		       &t), 1);
	CHECK_STR(t.subnqn, "nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427");
	CHECK_STR(t.traddr, "fe80::1");
	CHECK_STR(t.trsvcid, "4421");
	CHECK_EQ(t.adrfam, AF_INET6);
	CHECK_EQ(t.nsid, 4294967294u);

	/* a partial ID: what is missing stays empty/unset */
	CHECK_EQ(parse("traddr=10.0.0.1", &t), 1);
	CHECK_STR(t.traddr, "10.0.0.1");
	CHECK_EQ(t.trsvcid[0], 0);
	CHECK_EQ(t.subnqn[0], 0);
	CHECK_EQ(t.nsid, 0);
	CHECK_EQ(t.adrfam, AF_UNSPEC);

	/* a backslash not before ':' is kept */
	CHECK_EQ(parse("subnqn=a\\b traddr=x", &t), 1);
	CHECK_STR(t.subnqn, "a\\b");
}

static void test_case_insensitive(void)
{
	struct nvmf_trid t;

	CHECK_EQ(parse("TRTYPE=rdma ADRFAM=ipv4 TrAddr=1.2.3.4 TRSVCID=1 SubNQN=n NS=7", &t), 1);
	CHECK_EQ(t.adrfam, AF_INET);
	CHECK_STR(t.traddr, "1.2.3.4");
	CHECK_STR(t.trsvcid, "1");
	CHECK_STR(t.subnqn, "n");
	CHECK_EQ(t.nsid, 7);
	CHECK_EQ(parse("trtype=Rdma adrfam=iPv6 traddr=::1", &t), 1);
	CHECK_EQ(t.adrfam, AF_INET6);
	/* values other than trtype/adrfam keep their case */
	CHECK_EQ(parse("traddr=Host.Example subnqn=NQN.Mixed", &t), 1);
	CHECK_STR(t.traddr, "Host.Example");
	CHECK_STR(t.subnqn, "NQN.Mixed");
}

static void test_bad(void)
{
	char big[2048];

	expect_bad("trtype=PCIe traddr=0000:01:00.0", "trtype");
	expect_bad("trtype= traddr=1.2.3.4", "trtype");
	expect_bad("adrfam=IB traddr=1.2.3.4", "adrfam");
	expect_bad("traddr=1.2.3.4 hostnqn=x", "hostnqn");
	expect_bad("traddr=1.2.3.4 bogus=1", "bogus");
	expect_bad("traddr=1.2.3.4 ns=0", "ns");
	expect_bad("traddr=1.2.3.4 ns=abc", "ns");
	expect_bad("traddr=1.2.3.4 ns=", "ns");
	expect_bad("traddr=1.2.3.4 ns=2x", "ns");
	expect_bad("traddr=1.2.3.4 ns=-1", "ns");
	expect_bad("traddr=1.2.3.4 ns=4294967295", "ns");   /* the broadcast NSID */
	expect_bad("traddr=1.2.3.4 ns=99999999999", "ns");
	expect_bad("traddr=1.2.3.4 garbage", "garbage");
	expect_bad("traddr=1.2.3.4 =5", "=5");

	/* over-long values */
	snprintf(big, sizeof(big), "traddr=");
	memset(big + 7, 'a', 256);
	big[7 + 256] = 0;
	expect_bad(big, "traddr");
	big[7 + 255] = 0;                          /* 255 fits */
	{
		struct nvmf_trid t;

		CHECK_EQ(parse(big, &t), 1);
		CHECK_EQ(strlen(t.traddr), 255);
	}
	snprintf(big, sizeof(big), "traddr=1 trsvcid=");
	memset(big + strlen(big), '9', 40);
	big[17 + 40] = 0;
	expect_bad(big, "trsvcid");
	snprintf(big, sizeof(big), "traddr=1 subnqn=");
	memset(big + strlen(big), 'q', 300);
	big[16 + 300] = 0;
	expect_bad(big, "subnqn");

	/* an ID longer than the parser takes must not be cut silently: here the cut would
	 * leave a shorter but valid-looking subnqn */
	memset(big, ' ', sizeof(big));
	memcpy(big, "traddr=1.2.3.4", 14);
	snprintf(big + 1000, sizeof(big) - 1000, "subnqn=nqn.2016-06.io.spdk:cnode1");
	{
		struct nvmf_trid t;
		int rc = parse(big, &t);

		CHECK(rc < 0 || strcmp(t.subnqn, "nqn.2016-06.io.spdk:cnode1") == 0);
		if (rc >= 0 && strcmp(t.subnqn, "nqn.2016-06.io.spdk:cnode1"))
			fprintf(stderr, "  long ID: subnqn came out as '%s'\n", t.subnqn);
	}
}

/* traddr's comma list of paths (nvmf_addr_list_parse) */
static void test_addr_list(void)
{
	struct nvmf_addr a[4];
	unsigned n = 99;

	CHECK(nvmf_addr_list_parse("traddr", "10.0.0.1", a, 4, &n, err, sizeof(err)) == 0);
	CHECK(n == 1 && !strcmp(a[0].traddr, "10.0.0.1") && !a[0].trsvcid[0]);
	CHECK(nvmf_addr_list_parse("traddr", "10.0.0.1,10.0.0.2:4421,[fe80::1]:4422,[::1]", a, 4, &n, err,
				   sizeof(err)) == 0);
	CHECK(n == 4);
	CHECK(!strcmp(a[1].traddr, "10.0.0.2") && !strcmp(a[1].trsvcid, "4421"));
	CHECK(!strcmp(a[2].traddr, "fe80::1") && !strcmp(a[2].trsvcid, "4422"));
	CHECK(!strcmp(a[3].traddr, "::1") && !a[3].trsvcid[0]);
	/* a bare IPv6 address is one address, as traddr always took it */
	CHECK(nvmf_addr_list_parse("traddr", "fe80::2", a, 4, &n, err, sizeof(err)) == 0);
	CHECK(n == 1 && !strcmp(a[0].traddr, "fe80::2") && !a[0].trsvcid[0]);
	CHECK(nvmf_addr_list_parse("traddr", "host-a:4420,host-b", a, 4, &n, err, sizeof(err)) == 0);
	CHECK(n == 2 && !strcmp(a[0].trsvcid, "4420") && !strcmp(a[1].traddr, "host-b"));

	{
		static const struct { const char *in, *names; } bad[] = {
			{ "", "no address" },
			{ "10.0.0.1,", "path 2 is empty" },
			{ ",10.0.0.1", "path 1 is empty" },
			{ "10.0.0.1:0", "path 1 '10.0.0.1:0': the port" },
			{ "10.0.0.1:65536", "the port" },
			{ "10.0.0.1:44x", "the port" },
			{ "10.0.0.1:", "the port" },
			{ ":4420", "has no address" },
			{ "[fe80::1", "'['" },
			{ "[]:4420", "'['" },
			{ "[::1]4420", "want [ADDR]:PORT" },
			{ "10.0.0.1,10.0.0.1", "path 2 repeats path 1" },
			{ "a,b,c,d,e", "more than 4 paths" },
		};
		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			err[0] = 0;
			int rc = nvmf_addr_list_parse("traddr", bad[i].in, a, 4, &n, err, sizeof(err));

			CHECK(rc == -EINVAL && strstr(err, bad[i].names));
			if (rc != -EINVAL || !strstr(err, bad[i].names))
				fprintf(stderr, "  '%s': rc %d, err '%s' (want '%s')\n", bad[i].in, rc,
					err, bad[i].names);
		}
	}
}

int main(void)
{
	test_addr_list();
	test_plain_names();
	test_full();
	test_case_insensitive();
	test_bad();
	return check_done("test_trid");
}
