/* test_host.c - host identity (lib/nvmf_host.c): hostnqn/hostid from options, from the
 * /etc/nvme files (a temp dir here), or derived from a (temp) machine-id; UUID parsing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmf_host.h"

#include "check.h"

#define UUID_NQN_PREFIX "nqn.2014-08.org.nvmexpress:uuid:"

static char tmpdir[256];
static char etc_dir[300];
static char mid_path[300];
static char mid2_path[300];
static char nowhere[300];

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "", name ? name : "");
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void remove_file(const char *dir, const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static int is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* canonical lower-case 8-4-4-4-12 */
static int is_canonical_uuid(const char *s)
{
	if (strlen(s) != 36)
		return 0;
	for (int i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!is_lower_hex(s[i])) {
			return 0;
		}
	}
	return 1;
}

static int call(const char *nqn_opt, const char *id_opt, const char *mid, char *nqn,
		uint8_t id[16], char *err)
{
	memset(nqn, 0x5a, 255);
	nqn[255] = 0;
	memset(id, 0xa5, 16);
	err[0] = 0;
	return nvmf_host_identity(nqn_opt, id_opt, etc_dir, mid, nqn, 256, id, err, 256);
}

static void test_uuid_parse_format(void)
{
	static const uint8_t want[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
					  0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	static const char *bad[] = {
		"",
		"0123456789abcdeffedcba987654321",            /* 31 digits */
		"0123456789abcdeffedcba98765432100",          /* 33 digits */
		"0123456789abcdeffedcba98765432101a",         /* 34 digits */
		"01234567-89ab-cdef-fedc-ba987654321",        /* short */
		"01234567-89ab-cdef-fedc-ba98765432100",      /* long */
		"01234567-89ab-cdef-fedc-ba98765432g0",       /* not hex */
		"0123456-789ab-cdef-fedc-ba9876543210",       /* dash misplaced */
		"01234567-89ab-cdef-fedc-ba9876543210-",      /* trailing dash */
		"-01234567-89ab-cdef-fedc-ba9876543210",      /* leading dash */
		"01234567--89ab-cdef-fedc-ba9876543210",      /* doubled dash */
		"01234567-89abcdef-fedc-ba9876543210",        /* some dashes missing */
		" 01234567-89ab-cdef-fedc-ba9876543210",      /* blanks */
		"01234567-89ab-cdef-fedc-ba9876543210 ",
		"{01234567-89ab-cdef-fedc-ba9876543210}",
		"0x0123456789abcdeffedcba9876543210",
	};
	uint8_t u[16], v[16];
	char buf[64];

	memset(u, 0, sizeof(u));
	CHECK_EQ(nvmf_uuid_parse("01234567-89ab-cdef-fedc-ba9876543210", u), 0);
	CHECK(memcmp(u, want, 16) == 0);
	memset(u, 0, sizeof(u));
	CHECK_EQ(nvmf_uuid_parse("01234567-89AB-CDEF-FEDC-BA9876543210", u), 0);
	CHECK(memcmp(u, want, 16) == 0);
	memset(u, 0, sizeof(u));
	CHECK_EQ(nvmf_uuid_parse("0123456789abcdeffedcba9876543210", u), 0);
	CHECK(memcmp(u, want, 16) == 0);

	memset(buf, 'x', sizeof(buf));
	nvmf_uuid_format(want, buf, sizeof(buf));
	CHECK_STR(buf, "01234567-89ab-cdef-fedc-ba9876543210");
	/* a short buffer is truncated, never overrun */
	memset(buf, 'x', sizeof(buf));
	nvmf_uuid_format(want, buf, 9);
	CHECK_STR(buf, "01234567");
	CHECK_EQ(buf[9], 'x');

	/* round trips */
	for (unsigned k = 0; k < 64; k++) {
		for (unsigned i = 0; i < 16; i++)
			u[i] = (uint8_t)(k * 37 + i * 101 + (k >> 2) * i);
		nvmf_uuid_format(u, buf, sizeof(buf));
		CHECK(is_canonical_uuid(buf));
		memset(v, 0, sizeof(v));
		CHECK_EQ(nvmf_uuid_parse(buf, v), 0);
		CHECK(memcmp(u, v, 16) == 0);
	}

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = nvmf_uuid_parse(bad[i], u);

		if (rc != -EINVAL)
			fprintf(stderr, "uuid '%s' accepted\n", bad[i]);
		CHECK_EQ(rc, -EINVAL);
	}
	CHECK_EQ(nvmf_uuid_parse(NULL, u), -EINVAL);
}

static void test_explicit_options_win(void)
{
	char nqn[256], err[256];
	uint8_t id[16], want[16];

	write_file(etc_dir, "hostnqn", "nqn.2014-08.org.example:from-file\n");
	write_file(etc_dir, "hostid", "99999999-9999-9999-9999-999999999999\n");
	CHECK_EQ(nvmf_uuid_parse("0a0b0c0d-0e0f-1011-1213-141516171819", want), 0);
	CHECK_EQ(call("nqn.2014-08.org.example:explicit", "0a0b0c0d-0e0f-1011-1213-141516171819",
		      mid_path, nqn, id, err), 0);
	CHECK_STR(nqn, "nqn.2014-08.org.example:explicit");
	CHECK(memcmp(id, want, 16) == 0);
	CHECK_EQ(id[0], 0x0a);
	CHECK_EQ(id[15], 0x19);

	/* explicit hostnqn, hostid from the file */
	CHECK_EQ(call("nqn.2014-08.org.example:explicit", NULL, mid_path, nqn, id, err), 0);
	CHECK_STR(nqn, "nqn.2014-08.org.example:explicit");
	for (unsigned i = 0; i < 16; i++)
		CHECK_EQ(id[i], 0x99);
	/* explicit hostid, hostnqn from the file; "" counts as not given */
	CHECK_EQ(call("", "0a0b0c0d0e0f10111213141516171819", mid_path, nqn, id, err), 0);
	CHECK_STR(nqn, "nqn.2014-08.org.example:from-file");
	CHECK(memcmp(id, want, 16) == 0);
	remove_file(etc_dir, "hostnqn");
	remove_file(etc_dir, "hostid");
}

static void test_files_trimmed(void)
{
	char nqn[256], err[256];
	uint8_t id[16], want[16];

	CHECK_EQ(nvmf_uuid_parse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6", want), 0);
	write_file(etc_dir, "hostnqn", "nqn.2014-08.org.example:trimmed \t\r\n");
	write_file(etc_dir, "hostid", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6\r\n");
	CHECK_EQ(call(NULL, NULL, mid_path, nqn, id, err), 0);
	CHECK_STR(nqn, "nqn.2014-08.org.example:trimmed");
	CHECK(memcmp(id, want, 16) == 0);

	/* leading blanks too, and only the first line counts */
	write_file(etc_dir, "hostnqn", "  nqn.2014-08.org.example:lead\nsecond line\n");
	write_file(etc_dir, "hostid", "\t f81d4fae-7dec-11d0-a765-00a0c91e6bf6  \n");
	CHECK_EQ(call(NULL, NULL, mid_path, nqn, id, err), 0);
	CHECK_STR(nqn, "nqn.2014-08.org.example:lead");
	CHECK(memcmp(id, want, 16) == 0);

	/* no trailing newline at all */
	write_file(etc_dir, "hostnqn", "nqn.2014-08.org.example:nonl");
	CHECK_EQ(call(NULL, NULL, mid_path, nqn, id, err), 0);
	CHECK_STR(nqn, "nqn.2014-08.org.example:nonl");

	/* a blank hostnqn file is as good as none: derived from machine-id */
	write_file(etc_dir, "hostnqn", " \n");
	CHECK_EQ(call(NULL, NULL, mid_path, nqn, id, err), 0);
	CHECK(strncmp(nqn, UUID_NQN_PREFIX, strlen(UUID_NQN_PREFIX)) == 0);
	/* the hostid file still wins over the uuid in the derived NQN */
	CHECK(memcmp(id, want, 16) == 0);

	/* a hostid file that is not a UUID is ignored (hostid then comes from the NQN) */
	write_file(etc_dir, "hostnqn", UUID_NQN_PREFIX "11111111-2222-3333-4444-555555555555\n");
	write_file(etc_dir, "hostid", "not-a-uuid\n");
	CHECK_EQ(call(NULL, NULL, mid_path, nqn, id, err), 0);
	CHECK_EQ(id[0], 0x11);
	CHECK_EQ(id[4], 0x22);
	CHECK_EQ(id[15], 0x55);
	remove_file(etc_dir, "hostnqn");
	remove_file(etc_dir, "hostid");
}

static void test_derived(void)
{
	char nqn[256], nqn2[256], nqn3[256], err[256];
	uint8_t id[16], id2[16], id3[16], fromnqn[16];
	const char *uuid = nqn + strlen(UUID_NQN_PREFIX);

	remove_file(etc_dir, "hostnqn");
	remove_file(etc_dir, "hostid");
	CHECK_EQ(call(NULL, NULL, mid_path, nqn, id, err), 0);
	CHECK(strncmp(nqn, UUID_NQN_PREFIX, strlen(UUID_NQN_PREFIX)) == 0);
	CHECK(is_canonical_uuid(uuid));
	if (strlen(nqn) > strlen(UUID_NQN_PREFIX) + 14) {
		CHECK_EQ(uuid[14], '5');                          /* version 5 */
		CHECK(strchr("89ab", uuid[19]) != NULL);          /* RFC 4122 variant */
	}
	/* hostid = the NQN's uuid */
	CHECK_EQ(nvmf_uuid_parse(uuid, fromnqn), 0);
	CHECK(memcmp(id, fromnqn, 16) == 0);

	/* stable */
	CHECK_EQ(call(NULL, NULL, mid_path, nqn2, id2, err), 0);
	CHECK_STR(nqn, nqn2);
	CHECK(memcmp(id, id2, 16) == 0);

	/* another machine, another identity */
	CHECK_EQ(call(NULL, NULL, mid2_path, nqn3, id3, err), 0);
	CHECK(strcmp(nqn, nqn3) != 0);
	CHECK(memcmp(id, id3, 16) != 0);
	CHECK(strncmp(nqn3, UUID_NQN_PREFIX, strlen(UUID_NQN_PREFIX)) == 0);

	/* the same machine-id, trailing newline or not, is the same machine */
	write_file(mid2_path, NULL, "0123456789abcdef0123456789abcdef\n");
	CHECK_EQ(call(NULL, NULL, mid2_path, nqn3, id3, err), 0);
	CHECK_STR(nqn, nqn3);

	/* neither files nor machine-id: an error that says what to do */
	CHECK_EQ(call(NULL, NULL, nowhere, nqn3, id3, err), -ENOENT);
	CHECK(strstr(err, "hostnqn") != NULL);
	/* ... but an explicit hostnqn needs neither */
	CHECK_EQ(call("nqn.2014-08.org.example:x", NULL, nowhere, nqn3, id3, err), 0);
	CHECK_STR(nqn3, "nqn.2014-08.org.example:x");
	write_file(mid2_path, NULL, "fedcba9876543210fedcba9876543210\n");
}

static void test_hostid_from_nqn(void)
{
	char nqn[256], err[256];
	uint8_t id[16], id2[16], want[16];

	CHECK_EQ(nvmf_uuid_parse("11111111-2222-3333-4444-555555555555", want), 0);
	CHECK_EQ(call(UUID_NQN_PREFIX "11111111-2222-3333-4444-555555555555", NULL, mid_path, nqn,
		      id, err), 0);
	CHECK(memcmp(id, want, 16) == 0);
	/* upper case in the NQN's uuid */
	CHECK_EQ(call(UUID_NQN_PREFIX "11111111-2222-3333-4444-5555555555AA", NULL, mid_path, nqn,
		      id, err), 0);
	CHECK_EQ(id[15], 0xaa);

	/* a non-uuid NQN: a hostid derived from it, stable, different per NQN */
	CHECK_EQ(call("nqn.2014-08.org.example:a", NULL, mid_path, nqn, id, err), 0);
	CHECK_EQ(call("nqn.2014-08.org.example:a", NULL, mid_path, nqn, id2, err), 0);
	CHECK(memcmp(id, id2, 16) == 0);
	{
		static const uint8_t poison[16] = { 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5,
						    0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5 };

		CHECK(memcmp(id, poison, 16) != 0); /* actually written */
	}
	CHECK_EQ(call("nqn.2014-08.org.example:b", NULL, mid_path, nqn, id2, err), 0);
	CHECK(memcmp(id, id2, 16) != 0);
	/* a uuid-prefixed NQN whose tail is not a uuid: derived, not garbage */
	CHECK_EQ(call(UUID_NQN_PREFIX "not-a-uuid", NULL, mid_path, nqn, id, err), 0);
	CHECK_STR(nqn, UUID_NQN_PREFIX "not-a-uuid");
	CHECK_EQ(call(UUID_NQN_PREFIX "not-a-uuid", NULL, mid_path, nqn, id2, err), 0);
	CHECK(memcmp(id, id2, 16) == 0);
}

static void test_errors(void)
{
	char nqn[256], err[256], longnqn[1100];
	uint8_t id[16];

	CHECK_EQ(call("nqn.2014-08.org.example:x", "not-a-uuid", mid_path, nqn, id, err), -EINVAL);
	CHECK(strstr(err, "hostid") != NULL);
	CHECK_EQ(call(NULL, "01234567-89ab-cdef-fedc-ba98765432", mid_path, nqn, id, err), -EINVAL);
	CHECK(strstr(err, "hostid") != NULL);

	/* 223 characters is the limit */
	memset(longnqn, 0, sizeof(longnqn));
	snprintf(longnqn, sizeof(longnqn), "nqn.2014-08.org.example:");
	memset(longnqn + strlen(longnqn), 'h', 223 - strlen(longnqn));
	CHECK_EQ(strlen(longnqn), 223);
	CHECK_EQ(call(longnqn, NULL, mid_path, nqn, id, err), 0);
	CHECK_STR(nqn, longnqn);
	longnqn[223] = 'h';
	CHECK_EQ(call(longnqn, NULL, mid_path, nqn, id, err), -EINVAL);
	CHECK(strstr(err, "hostnqn") != NULL);
	CHECK(strstr(err, "223") != NULL);
	/* far too long (longer than the caller's buffer) */
	memset(longnqn + 224, 'h', 1000 - 224);
	CHECK_EQ(call(longnqn, NULL, mid_path, nqn, id, err), -EINVAL);
	/* too long from the file as well */
	longnqn[300] = 0;
	write_file(etc_dir, "hostnqn", longnqn);
	CHECK_EQ(call(NULL, NULL, mid_path, nqn, id, err), -EINVAL);
	remove_file(etc_dir, "hostnqn");
}

int main(void)
{
	char tmpl[] = "/tmp/fio-nvmeof-test_host.XXXXXX";
	char *d = mkdtemp(tmpl);
	char cmd[600];
	int rc;

	if (!d)
		return check_skip("test_host", "cannot create a temp dir");
	snprintf(tmpdir, sizeof(tmpdir), "%s", d);
	snprintf(etc_dir, sizeof(etc_dir), "%s/nvme", tmpdir);
	snprintf(mid_path, sizeof(mid_path), "%s/machine-id", tmpdir);
	snprintf(mid2_path, sizeof(mid2_path), "%s/machine-id-2", tmpdir);
	snprintf(nowhere, sizeof(nowhere), "%s/no-such-file", tmpdir);
	snprintf(cmd, sizeof(cmd), "%s", etc_dir);
	CHECK_EQ(mkdir(cmd, 0700), 0);
	write_file(mid_path, NULL, "0123456789abcdef0123456789abcdef\n");
	write_file(mid2_path, NULL, "fedcba9876543210fedcba9876543210\n");

	test_uuid_parse_format();
	test_explicit_options_win();
	test_files_trimmed();
	test_derived();
	test_hostid_from_nqn();
	test_errors();

	remove_file(etc_dir, "hostnqn");
	remove_file(etc_dir, "hostid");
	rmdir(etc_dir);
	unlink(mid_path);
	unlink(mid2_path);
	rc = rmdir(tmpdir);
	CHECK_EQ(rc, 0);
	return check_done("test_host");
}
