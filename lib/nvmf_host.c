/* nvmf_host.c - host NQN and host ID. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmf_err.h"
#include "nvmf_host.h"
#include "nvmf_spec.h"

#define NVMF_UUID_NQN_PREFIX "nqn.2014-08.org.nvmexpress:uuid:"

static int nvmf_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int nvmf_uuid_parse(const char *s, uint8_t out[16])
{
	unsigned n = 0, dashes = 0, last_dash = 0;

	if (!s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		int hi, lo;

		/* At most one dash at each of the four canonical places (checked below: all
		 * four or none). */
		if (*p == '-' && (n == 4 || n == 6 || n == 8 || n == 10) && n != last_dash) {
			last_dash = n;
			dashes++;
			continue;
		}
		if (n == 16)
			return -EINVAL;
		hi = nvmf_hexval((unsigned char)p[0]);
		lo = p[1] ? nvmf_hexval((unsigned char)p[1]) : -1;
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[n++] = (uint8_t)(hi << 4 | lo);
		p++;
	}
	return n == 16 && (dashes == 0 || dashes == 4) ? 0 : -EINVAL;
}

void nvmf_uuid_format(const uint8_t u[16], char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

/* First line of a small file, trimmed; 0 if it had one. */
static int nvmf_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *p;
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -ENODATA;
	}
	fclose(f);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	/* Leading blanks too: they are no part of an NQN or a UUID. */
	for (p = buf; isspace((unsigned char)*p); p++)
		;
	if (p != buf)
		memmove(buf, p, strlen(p) + 1);
	return buf[0] ? 0 : -ENODATA;
}

/* 128-bit FNV-1a style mix, formatted as an RFC 4122 name-based UUID: stable per machine. */
static void nvmf_uuid_from_text(const char *text, uint8_t u[16])
{
	uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;

	for (const char *p = "fio-nvmeof:"; *p; p++)
		h1 = (h1 ^ (uint8_t)*p) * 0x100000001b3ULL;
	for (const char *p = text; *p; p++) {
		h1 = (h1 ^ (uint8_t)*p) * 0x100000001b3ULL;
		h2 = (h2 ^ (uint8_t)*p) * 0x100000001b3ULL + h1;
	}
	nvmf_put_le64(u, h1);
	nvmf_put_le64(u + 8, h2);
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x50);  /* version 5 (name based) */
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);  /* RFC 4122 variant */
}

/* Checked before it is copied: a caller's NQN-sized buffer would cut a long one silently.
 * file: where it came from, NULL for the option. */
static int nvmf_hostnqn_check(const char *nqn, const char *file, char *err, size_t errlen)
{
	size_t n = strlen(nqn);

	if (n > NVMF_NQN_MAX)
		return nvmf_errf(err, errlen, -EINVAL, "hostnqn%s%s is %zu characters long: an NQN "
				 "has at most %d", file ? " in " : "", file ? file : "", n,
				 NVMF_NQN_MAX);
	if (strncmp(nqn, "nqn.", 4))
		return nvmf_errf(err, errlen, -EINVAL, "hostnqn '%s'%s%s is not an NQN: it must "
				 "start with \"nqn.\" (nqn.yyyy-mm.domain:name)", nqn,
				 file ? " in " : "", file ? file : "");
	return 0;
}

int nvmf_host_identity(const char *hostnqn_opt, const char *hostid_opt, const char *etc_dir,
		       const char *machine_id_path, char *hostnqn, size_t nqnlen,
		       uint8_t hostid[16], char *err, size_t errlen)
{
	char path[512], line[512], uuid[40];
	uint8_t derived[16];
	int have_id = 0, rc;

	if (hostid_opt && *hostid_opt) {
		if (nvmf_uuid_parse(hostid_opt, hostid))
			return nvmf_errf(err, errlen, -EINVAL, "hostid '%s' is not a UUID",
					 hostid_opt);
		have_id = 1;
	} else {
		snprintf(path, sizeof(path), "%s/hostid", etc_dir);
		if (nvmf_read_line(path, line, sizeof(line)) == 0 && nvmf_uuid_parse(line, hostid) == 0)
			have_id = 1;
	}

	if (hostnqn_opt && *hostnqn_opt) {
		if ((rc = nvmf_hostnqn_check(hostnqn_opt, NULL, err, errlen)))
			return rc;
		snprintf(hostnqn, nqnlen, "%s", hostnqn_opt);
	} else {
		snprintf(path, sizeof(path), "%s/hostnqn", etc_dir);
		if (nvmf_read_line(path, line, sizeof(line)) == 0) {
			if ((rc = nvmf_hostnqn_check(line, path, err, errlen)))
				return rc;
			snprintf(hostnqn, nqnlen, "%s", line);
		} else {
			if (nvmf_read_line(machine_id_path, line, sizeof(line)))
				return nvmf_errf(err, errlen, -ENOENT, "no hostnqn: set "
						 "hostnqn=, or provide %s/hostnqn or %s", etc_dir,
						 machine_id_path);
			nvmf_uuid_from_text(line, derived);
			nvmf_uuid_format(derived, uuid, sizeof(uuid));
			snprintf(hostnqn, nqnlen, NVMF_UUID_NQN_PREFIX "%s", uuid);
		}
	}
	if (strlen(hostnqn) > NVMF_NQN_MAX)
		return nvmf_errf(err, errlen, -EINVAL, "hostnqn is longer than %d characters",
				 NVMF_NQN_MAX);
	if (!have_id) {
		/* As nvme-cli: a uuid-form hostnqn carries the host ID. */
		if (!strncmp(hostnqn, NVMF_UUID_NQN_PREFIX, strlen(NVMF_UUID_NQN_PREFIX)) &&
		    nvmf_uuid_parse(hostnqn + strlen(NVMF_UUID_NQN_PREFIX), hostid) == 0)
			return 0;
		nvmf_uuid_from_text(hostnqn, hostid);
	}
	return 0;
}
