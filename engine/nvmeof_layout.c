/* nvmeof_layout.c - is this fio's struct thread_options laid out as the headers the engine
 * was built with say?
 *
 * The engine reads fio's structures directly, so it must be built against the running fio's
 * own source.  The version check (get_ioengine) catches another release, but not a
 * distribution's patched build of the same release: Debian 13's fio 3.39-1 carries an option
 * (verify_header_seed) that upstream 3.39 lacks, which moves every later thread_options field
 * by 4 bytes (an engine built from the upstream tarball then reads `thread` from the wrong
 * field).  fio's own option table holds the offset of each option's field as the running fio
 * was compiled: compare the fields the engine uses (directly or through fio's inline helpers)
 * with the offsets this build expects. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fio.h"
#include "parse.h"

#include "nvmeof_engine.h"

struct nvmeof_layout_field {
	const char *option;
	size_t      off1;
	size_t      off2;   /* 0: not checked */
};

#define TO(f) offsetof(struct thread_options, f)

static const struct nvmeof_layout_field nvmeof_layout_fields[] = {
	{ "name",                   TO(name),                0 },
	{ "iodepth",                TO(iodepth),             0 },
	{ "rw",                     TO(td_ddir),             0 },
	{ "thread",                 TO(use_thread),          0 },
	{ "runtime",                TO(timeout),             0 },
	{ "ramp_time",              TO(ramp_time),           0 },
	{ "offset",                 TO(start_offset),        0 },
	{ "bs",                     TO(bs[DDIR_READ]),       TO(bs[DDIR_WRITE]) },
	{ "bsrange",                TO(min_bs[DDIR_READ]),   TO(max_bs[DDIR_READ]) },
	{ "ba",                     TO(ba[DDIR_READ]),       TO(ba[DDIR_WRITE]) },
	{ "bssplit",                TO(bssplit),             0 },
	{ "nrfiles",                TO(nr_files),            0 },
	{ "invalidate",             TO(invalidate_cache),    0 },
	{ "read_iolog",             TO(read_iolog_file),     0 },
	{ "disable_lat",            TO(disable_lat),         0 },
	{ "disable_clat",           TO(disable_clat),        0 },
	{ "disable_slat",           TO(disable_slat),        0 },
	{ "disable_bw_measurement", TO(disable_bw),          0 },
	{ "stats",                  TO(stats),               0 },
	/* what decides whether GPU buffers are copied per I/O (nvmeof_buffers.c) */
	{ "buffer_pattern",         TO(buffer_pattern),      0 },
	{ "scramble_buffers",       TO(scramble_buffers),    0 },
};

int nvmeof_layout_check(char *why, size_t len)
{
	const struct fio_option *table = dlsym(RTLD_DEFAULT, "fio_options");
	unsigned checked = 0;

	if (!table) {
		snprintf(why, len, "this fio exports no option table (fio_options) to check against");
		return -1;
	}
	for (size_t i = 0; i < sizeof(nvmeof_layout_fields) / sizeof(nvmeof_layout_fields[0]); i++) {
		const struct nvmeof_layout_field *want = &nvmeof_layout_fields[i];
		const struct fio_option *o;

		for (o = table; o->name && strcmp(o->name, want->option); o++)
			;
		if (!o->name)
			continue;          /* not in this fio: nothing of it is read */
		checked++;
		if (o->off1 != want->off1 || (want->off2 && o->off2 != want->off2)) {
			snprintf(why, len, "option '%s' is at offset %zu of this fio's thread_options, "
				 "the engine's headers say %zu", want->option, (size_t)o->off1, want->off1);
			return -1;
		}
	}
	if (!checked) {
		snprintf(why, len, "none of the options the engine reads is in this fio's table");
		return -1;
	}
	return 0;
}
