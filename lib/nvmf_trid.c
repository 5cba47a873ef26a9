/* nvmf_trid.c - transport ID parsing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
			if (strcasecmp(val, "rdma"))
				return nvmf_errf(err, errlen, -EINVAL, "transport ID: trtype=%s is "
						 "not supported (this engine speaks RDMA)", val);
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
