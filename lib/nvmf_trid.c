/* nvmf_trid.c - transport ID parsing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "nvmf_trid.h"

static int nvmf_trid_set(char *dst, size_t len, const char *key, const char *val, char *err,
			 size_t errlen)
{
	if (strlen(val) >= len) {
		snprintf(err, errlen, "transport ID: %s is too long", key);
		return -EINVAL;
	}
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
	if (*p) {
		/* Cutting it would silently shorten whatever value is at the cut. */
		snprintf(err, errlen, "transport ID: longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *val = strchr(tok, '=');

		if (!val || val == tok) {
			snprintf(err, errlen, "transport ID: '%s' is not key=value", tok);
			return -EINVAL;
		}
		*val++ = 0;
		/* A key given twice would leave the job's target to whichever came last. */
		for (unsigned k = 0; k < nseen; k++) {
			if (!strcasecmp(seen[k], tok)) {
				snprintf(err, errlen, "transport ID: %s is given twice", tok);
				return -EINVAL;
			}
		}
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = tok;
		if (!strcasecmp(tok, "trtype")) {
			if (strcasecmp(val, "rdma")) {
				snprintf(err, errlen, "transport ID: trtype=%s is not supported "
					 "(this engine speaks RDMA)", val);
				return -EINVAL;
			}
		} else if (!strcasecmp(tok, "adrfam")) {
			if (!strcasecmp(val, "ipv4"))
				t->adrfam = AF_INET;
			else if (!strcasecmp(val, "ipv6"))
				t->adrfam = AF_INET6;
			else {
				snprintf(err, errlen, "transport ID: adrfam=%s (want IPv4 or IPv6)", val);
				return -EINVAL;
			}
		} else if (!strcasecmp(tok, "traddr")) {
			rc = nvmf_trid_set(t->traddr, sizeof(t->traddr), "traddr", val, err, errlen);
		} else if (!strcasecmp(tok, "trsvcid")) {
			rc = nvmf_trid_set(t->trsvcid, sizeof(t->trsvcid), "trsvcid", val, err, errlen);
		} else if (!strcasecmp(tok, "subnqn")) {
			rc = nvmf_trid_set(t->subnqn, sizeof(t->subnqn), "subnqn", val, err, errlen);
		} else if (!strcasecmp(tok, "ns")) {
			char *end;
			unsigned long v = strtoul(val, &end, 10);

			if (*end || !*val || v == 0 || v >= 0xffffffffUL) {
				snprintf(err, errlen, "transport ID: ns=%s is not a namespace ID", val);
				return -EINVAL;
			}
			t->nsid = (uint32_t)v;
		} else {
			snprintf(err, errlen, "transport ID: unknown key '%s'", tok);
			return -EINVAL;
		}
		if (rc)
			return rc;
	}
	return 1;
}
