/* nvmf_trid.h - SPDK-style transport IDs in fio's filename, so SPDK plugin jobs run as is:
 *   "trtype=RDMA adrfam=IPv4 traddr=10.0.0.1 trsvcid=4420 subnqn=nqn... ns=1" */
#ifndef FIO_NVMEOF_TRID_H
#define FIO_NVMEOF_TRID_H

#include <stddef.h>
#include <stdint.h>

struct nvmf_trid {
	char     traddr[256];
	char     trsvcid[32];
	char     subnqn[256];
	int      adrfam;     /* AF_UNSPEC when not given */
	uint32_t nsid;       /* 0 when not given */
	int      trtype;     /* 1 RDMA, 3 TCP (NVMF_TRTYPE_*, nvmf_spec.h); 0 when not given */
};

/* 1: s is a transport ID (parsed into t); 0: a plain name; negative errno: a malformed ID
 * (reason in err).  fio's "\:" escapes are accepted. */
int nvmf_trid_parse(const char *s, struct nvmf_trid *t, char *err, size_t errlen);

/* An RDMA CM port as trsvcid takes it: decimal 1..65535 (getaddrinfo would take a service
 * name and wrap 70000 to 4464).  1: valid. */
int nvmf_port_valid(const char *s);

/* A socket address in words for messages: "ADDR:PORT", "[V6ADDR]:PORT", "a local socket"
 * (AF_UNIX, the tests' socketpairs) or "?"; returns buf.  Both transports name their peer so. */
struct sockaddr;
const char *nvmf_sockaddr_str(const struct sockaddr *sa, char *buf, size_t len);
/* The length of an AF_INET or AF_INET6 address (bind, connect, copies). */
unsigned nvmf_sockaddr_len(const struct sockaddr *sa);

/* One path's address: where a controller of the subsystem listens. */
struct nvmf_addr {
	char traddr[256];
	char trsvcid[32];       /* "" when the list did not give one */
};

/* A comma list of paths, as traddr= takes it: "ADDR", "ADDR:PORT", "[V6ADDR]" or
 * "[V6ADDR]:PORT" per entry; an entry with more than one ':' and no brackets is an IPv6
 * address without a port (so one plain IPv6 traddr means what it always did).  Ports are
 * decimal 1..65535.  The number of entries in *n (at most max); 0, or -EINVAL with one line
 * in err naming what (the option) and the entry. */
int nvmf_addr_list_parse(const char *what, const char *s, struct nvmf_addr *out, unsigned max,
			 unsigned *n, char *err, size_t errlen);

#endif
