/* nvmf_trid.c - transport ID parsing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "nvmf_err.h"
#include "nvmf_trid.h"

static int nvmf_trid_set(char *dst, size_t len, const char *key, const char *val, char *err,
			 size_t errlen)
{
	if (strlen(val) >= len)
		return nvmf_errf(err, errlen, -EINVAL, "transport ID: %s is too long", key);
	snprintf(dst, len, "%s", val);
	return 0;
}

int nvmf_trid_parse(const char *s, struct nvmf_trid *t, char *err, size_t errlen)
{
	char buf[1024], *save = NULL, *tok;
	const char *seen[8];
	unsigned nseen = 0;
	const char *p;
	size_t o = 0;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->adrfam = AF_UNSPEC;
	if (!s || !strchr(s, '='))
		return 0;
	/* Undo fio's "\:" escaping; split on blanks. */
	for (p = s; *p && o + 1 < sizeof(buf); p++) {
		if (p[0] == '\\' && p[1] == ':')
			continue;
		buf[o++] = *p;
	}
	buf[o] = 0;
	/* Cutting it would silently shorten whatever value is at the cut. */
	if (*p)
		return nvmf_errf(err, errlen, -EINVAL, "transport ID: longer than %zu characters",
				 sizeof(buf) - 1);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *val = strchr(tok, '=');

		if (!val || val == tok)
			return nvmf_errf(err, errlen, -EINVAL, "transport ID: '%s' is not key=value",
					 tok);
		*val++ = 0;
		/* A key given twice would leave the job's target to whichever came last. */
		for (unsigned k = 0; k < nseen; k++) {
			if (!strcasecmp(seen[k], tok))
				return nvmf_errf(err, errlen, -EINVAL, "transport ID: %s is given "
						 "twice", tok);
		}
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = tok;
		if (!strcasecmp(tok, "trtype")) {
			if (!strcasecmp(val, "rdma"))
				t->trtype = 1;    /* the discovery log's TRTYPE numbers */
			else if (!strcasecmp(val, "tcp"))
				t->trtype = 3;
			else
				return nvmf_errf(err, errlen, -EINVAL, "transport ID: trtype=%s is "
						 "not supported (this engine speaks RDMA and TCP)", val);
		} else if (!strcasecmp(tok, "adrfam")) {
			if (!strcasecmp(val, "ipv4"))
				t->adrfam = AF_INET;
			else if (!strcasecmp(val, "ipv6"))
				t->adrfam = AF_INET6;
			else
				return nvmf_errf(err, errlen, -EINVAL, "transport ID: adrfam=%s (want "
						 "IPv4 or IPv6)", val);
		} else if (!strcasecmp(tok, "traddr")) {
			rc = nvmf_trid_set(t->traddr, sizeof(t->traddr), "traddr", val, err, errlen);
		} else if (!strcasecmp(tok, "trsvcid")) {
			rc = nvmf_trid_set(t->trsvcid, sizeof(t->trsvcid), "trsvcid", val, err, errlen);
		} else if (!strcasecmp(tok, "subnqn")) {
			rc = nvmf_trid_set(t->subnqn, sizeof(t->subnqn), "subnqn", val, err, errlen);
		} else if (!strcasecmp(tok, "ns")) {
			char *end;
			unsigned long v = strtoul(val, &end, 10);

			if (*end || !*val || v == 0 || v >= 0xffffffffUL)
				return nvmf_errf(err, errlen, -EINVAL, "transport ID: ns=%s is not a "
						 "namespace ID", val);
			t->nsid = (uint32_t)v;
		} else {
			return nvmf_errf(err, errlen, -EINVAL, "transport ID: unknown key '%s'", tok);
		}
		if (rc)
			return rc;
	}
	return 1;
}

int nvmf_port_valid(const char *s)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 5)
		return 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	return v >= 1 && v <= 65535;
}

/* One entry of the list, [b, e): the address and the port, if any. */
static int nvmf_addr_entry(const char *what, const char *b, const char *e, unsigned idx,
			   struct nvmf_addr *a, char *err, size_t errlen)
{
	const char *addr = b, *addr_end = e, *port = NULL, *c;
	size_t colons = 0;

	for (c = b; c < e; c++)
		colons += *c == ':';
	if (b == e)
		return nvmf_errf(err, errlen, -EINVAL, "%s: path %u is empty", what, idx + 1);
	if (*b == '[') {
		const char *rb = memchr(b, ']', (size_t)(e - b));

		if (!rb || rb == b + 1)
			return nvmf_errf(err, errlen, -EINVAL, "%s: path %u '%.*s': a '[' "
					 "without an address and ']'", what, idx + 1, (int)(e - b), b);
		addr = b + 1;
		addr_end = rb;
		if (rb + 1 < e) {
			if (rb[1] != ':')
				return nvmf_errf(err, errlen, -EINVAL, "%s: path %u '%.*s': "
						 "want [ADDR]:PORT", what, idx + 1, (int)(e - b), b);
			port = rb + 2;
		}
	} else if (colons == 1) {
		addr_end = memchr(b, ':', (size_t)(e - b));
		port = addr_end + 1;
	}
	if (addr_end == addr)
		return nvmf_errf(err, errlen, -EINVAL, "%s: path %u '%.*s' has no address", what,
				 idx + 1, (int)(e - b), b);
	if ((size_t)(addr_end - addr) >= sizeof(a->traddr))
		return nvmf_errf(err, errlen, -EINVAL, "%s: path %u: the address is too long", what,
				 idx + 1);
	memcpy(a->traddr, addr, (size_t)(addr_end - addr));
	a->traddr[addr_end - addr] = 0;
	a->trsvcid[0] = 0;
	if (port) {
		size_t plen = (size_t)(e - port);

		if (plen >= sizeof(a->trsvcid) || (memcpy(a->trsvcid, port, plen),
						   a->trsvcid[plen] = 0, !nvmf_port_valid(a->trsvcid)))
			return nvmf_errf(err, errlen, -EINVAL, "%s: path %u '%.*s': the port is "
					 "not a number 1..65535", what, idx + 1, (int)(e - b), b);
	}
	return 0;
}

int nvmf_addr_list_parse(const char *what, const char *s, struct nvmf_addr *out, unsigned max,
			 unsigned *n, char *err, size_t errlen)
{
	const char *b = s, *e;
	int rc;

	*n = 0;
	if (!s || !*s)
		return nvmf_errf(err, errlen, -EINVAL, "%s: no address", what);
	for (;;) {
		e = strchr(b, ',');
		if (!e)
			e = b + strlen(b);
		if (*n == max)
			return nvmf_errf(err, errlen, -EINVAL, "%s: more than %u paths", what, max);
		if ((rc = nvmf_addr_entry(what, b, e, *n, &out[*n], err, errlen)))
			return rc;
		for (unsigned i = 0; i < *n; i++)
			if (!strcmp(out[i].traddr, out[*n].traddr) &&
			    !strcmp(out[i].trsvcid, out[*n].trsvcid))
				return nvmf_errf(err, errlen, -EINVAL, "%s: path %u repeats path "
						 "%u (%.*s)", what, *n + 1, i + 1, (int)(e - b), b);
		(*n)++;
		if (!*e)
			return 0;
		b = e + 1;
	}
}

const char *nvmf_sockaddr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else if (sa && sa->sa_family == AF_UNIX) {
		snprintf(buf, len, "a local socket");
	} else {
		snprintf(buf, len, "?");
	}
	return buf;
}

unsigned nvmf_sockaddr_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}
