/* nvmeof_discover.c - tools/nvmeof-discover: list what an NVMe-oF discovery service offers
 * over RDMA or TCP, as `nvme discover` prints it, through this project's initiator
 * (lib/nvmf_discovery.c), so no kernel initiator (nvme-rdma, nvme-tcp, nvme-cli) is needed.
 *
 *   nvmeof-discover ADDR[:PORT] [--transport=rdma|tcp] [--output-format=normal|json]
 *                   [--hostnqn=NQN] [--host-traddr=ADDR]
 *
 * ADDR is an IPv4 address or host name, an IPv6 address, or [IPv6]:PORT; PORT defaults to 8009.
 * The transport (default rdma) is the discovery connection's; referrals over it are followed
 * once, referrals over the other are listed only.
 * Exit 0: listed; 1: the connection or the target failed (one line on stderr); 2: bad
 * arguments (one line naming the argument). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf_discovery.h"
#include "nvmf_host.h"

#define PROG "nvmeof-discover"

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " ADDR[:PORT] [--transport=rdma|tcp] "
		"[--output-format=normal|json] [--hostnqn=NQN] [--host-traddr=ADDR]\n");
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, PROG ": %s (" PROG " --help)\n", line);
	return 2;
}

/* ADDR, ADDR:PORT, [V6], [V6]:PORT, or a bare IPv6 address (two or more colons). */
static int split_addr(const char *arg, char *addr, size_t alen, char *port, size_t plen)
{
	const char *colon, *end;
	char *stop;
	long v;

	port[0] = 0;
	if (arg[0] == '[') {
		end = strchr(arg, ']');
		if (!end || end == arg + 1 || (end[1] && end[1] != ':'))
			return -1;
		snprintf(addr, alen, "%.*s", (int)(end - arg - 1), arg + 1);
		colon = end[1] ? end + 1 : NULL;
	} else {
		colon = strchr(arg, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;             /* IPv6 without brackets: no port */
		snprintf(addr, alen, "%.*s", colon ? (int)(colon - arg) : (int)strlen(arg), arg);
	}
	if (!addr[0] || strlen(arg) >= alen)
		return -1;
	if (colon) {
		errno = 0;
		v = strtol(colon + 1, &stop, 10);
		if (!colon[1] || *stop || errno || v < 1 || v > 65535)
			return -2;
		snprintf(port, plen, "%ld", v);
	}
	return 0;
}

static const char *eflags_str(uint16_t f, char *buf, size_t len)
{
	static const char *const names[] = { "duplicate discovery information",
					     "explicit discovery connections",
					     "no cdc connectivity" };
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < 16; i++) {
		if (!(f & (1u << i)))
			continue;
		if (i < 3)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", names[i]);
		else
			n += (size_t)snprintf(buf + n, len - n, "%sbit %u", n ? ", " : "", i);
		if (n >= len)
			break;
	}
	return buf[0] ? buf : "none";
}

static const char *treq_str(uint8_t treq, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", nvmf_treq_secure_name(treq),
		 treq & NVMF_TREQ_DISABLE_SQFLOW ? ", sq flow control disable supported" : "");
	return buf;
}

static void print_normal(const struct nvmf_disc_entry *e, unsigned n, uint64_t genctr)
{
	char b1[160], b2[160];

	printf("\nDiscovery Log Number of Records %u, Generation counter %llu\n", n,
	       (unsigned long long)genctr);
	for (unsigned i = 0; i < n; i++, e++) {
		printf("=====Discovery Log Entry %u======\n", i);
		printf("trtype:  %s\n", nvmf_trtype_name(e->trtype));
		printf("adrfam:  %s\n", nvmf_adrfam_name(e->adrfam));
		printf("subtype: %s\n", nvmf_subtype_name(e->subtype));
		printf("treq:    %s\n", treq_str(e->treq, b1, sizeof(b1)));
		printf("portid:  %u\n", e->portid);
		printf("trsvcid: %s\n", e->trsvcid);
		printf("subnqn:  %s\n", e->subnqn);
		printf("traddr:  %s\n", e->traddr);
		printf("eflags:  %s\n", eflags_str(e->eflags, b2, sizeof(b2)));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			printf("rdma_prtype: %s\n", nvmf_rdma_prtype_name(e->rdma_prtype));
			printf("rdma_qptype: %s\n", nvmf_rdma_qptype_name(e->rdma_qptype));
			printf("rdma_cms:    %s\n", nvmf_rdma_cms_name(e->rdma_cms));
			printf("rdma_pkey: 0x%04x\n", e->rdma_pkey);
		} else if (e->trtype == NVMF_TRTYPE_TCP) {
			printf("sectype: %s\n", nvmf_tcp_sectype_name(e->tcp_sectype));
		}
		if (e->from_referral)
			printf("referral: from the service of entry %u\n", e->from_referral - 1);
	}
}

/* The decoder lets only printable ASCII through: escaping " and \ is all JSON needs. */
static void json_str(const char *key, const char *s, int comma)
{
	printf("      \"%s\": \"", key);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	printf("\"%s\n", comma ? "," : "");
}

static void print_json(const struct nvmf_disc_entry *e, unsigned n, uint64_t genctr)
{
	char b1[160], b2[160];

	printf("{\n  \"genctr\": %llu,\n  \"numrec\": %u,\n  \"records\": [\n",
	       (unsigned long long)genctr, n);
	for (unsigned i = 0; i < n; i++, e++) {
		printf("    {\n");
		json_str("trtype", nvmf_trtype_name(e->trtype), 1);
		json_str("adrfam", nvmf_adrfam_name(e->adrfam), 1);
		json_str("subtype", nvmf_subtype_name(e->subtype), 1);
		json_str("treq", treq_str(e->treq, b1, sizeof(b1)), 1);
		printf("      \"portid\": %u,\n", e->portid);
		json_str("trsvcid", e->trsvcid, 1);
		json_str("subnqn", e->subnqn, 1);
		json_str("traddr", e->traddr, 1);
		json_str("eflags", eflags_str(e->eflags, b2, sizeof(b2)), 1);
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			json_str("rdma_prtype", nvmf_rdma_prtype_name(e->rdma_prtype), 1);
			json_str("rdma_qptype", nvmf_rdma_qptype_name(e->rdma_qptype), 1);
			json_str("rdma_cms", nvmf_rdma_cms_name(e->rdma_cms), 1);
			printf("      \"rdma_pkey\": \"0x%04x\",\n", e->rdma_pkey);
		} else if (e->trtype == NVMF_TRTYPE_TCP) {
			json_str("sectype", nvmf_tcp_sectype_name(e->tcp_sectype), 1);
		}
		printf("      \"from_referral\": %d\n", (int)e->from_referral - 1);
		printf("    }%s\n", i + 1 < n ? "," : "");
	}
	printf("  ]\n}\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "transport", required_argument, NULL, 't' },
		{ "output-format", required_argument, NULL, 'o' },
		{ "hostnqn", required_argument, NULL, 'q' },
		{ "host-traddr", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *hostnqn_opt = NULL, *host_traddr = NULL;
	char addr[NVMF_TRADDR_SIZE + 1], port[16], hostnqn[NVMF_NQN_MAX + 1], err[NVMF_ERR_LEN + 64];
	struct nvmf_lane_opts o;
	struct nvmf_disc_entry *e;
	uint64_t genctr;
	unsigned n;
	int json = 0, trtype = NVMF_TRTYPE_RDMA, c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "t:o:q:w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "rdma"))
				trtype = NVMF_TRTYPE_RDMA;
			else if (!strcmp(optarg, "tcp"))
				trtype = NVMF_TRTYPE_TCP;
			else
				return usage_error("--transport=%s: not rdma or tcp", optarg);
			break;
		case 'o':
			if (!strcmp(optarg, "json"))
				json = 1;
			else if (!strcmp(optarg, "normal"))
				json = 0;
			else
				return usage_error("--output-format=%s: not normal or json", optarg);
			break;
		case 'q':
			if (!*optarg || strlen(optarg) > NVMF_NQN_MAX)
				return usage_error("--hostnqn='%s': not 1..223 characters", optarg);
			hostnqn_opt = optarg;
			break;
		case 'w':
			if (!*optarg)
				return usage_error("--host-traddr: empty");
			host_traddr = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt && strchr("toqw", optopt) && optind > 0)
				return usage_error("%s needs a value", argv[optind - 1]);
			return usage_error("%s: unknown option", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("ADDR[:PORT] is required");
	if (optind + 1 < argc)
		return usage_error("%s: one ADDR[:PORT] only", argv[optind + 1]);
	rc = split_addr(argv[optind], addr, sizeof(addr), port, sizeof(port));
	if (rc == -1)
		return usage_error("'%s': not ADDR, ADDR:PORT or [IPv6]:PORT", argv[optind]);
	if (rc == -2)
		return usage_error("'%s': PORT is not 1..65535", argv[optind]);

	memset(&o, 0, sizeof(o));
	if (nvmf_host_identity(hostnqn_opt, NULL, "/etc/nvme", "/etc/machine-id", hostnqn,
			       sizeof(hostnqn), o.hostid, err, sizeof(err))) {
		fprintf(stderr, PROG ": host identity: %s\n", err);
		return 1;
	}
	o.trtype = trtype;
	o.traddr = addr;
	o.trsvcid = port[0] ? port : NULL;
	o.host_traddr = host_traddr;
	o.hostnqn = hostnqn;
	o.connect_timeout_ms = 3000;
	rc = nvmf_discover(&o, &e, &n, &genctr, err, sizeof(err));
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (json)
		print_json(e, n, genctr);
	else
		print_normal(e, n, genctr);
	free(e);
	return fflush(stdout) ? 1 : 0;
}
