/* fio_compat.h - what differs, for this engine, between the fio versions it is built against.
 *
 * Include after "fio.h" and "optgroup.h".  Each difference the engine's code must follow is
 * a macro below, chosen at compile time from FIO_IOOPS_VERSION and commented with the fio
 * version that introduced it; the differences that need no code are listed at the end, so
 * the survey stays visible.  `make compat` builds the engine against every fio source it can
 * find (3.33 from Debian, 3.36, 3.39, 3.42 from upstream) with -Werror and
 * -Werror=incompatible-pointer-types, and runs the 3.42 build under a fio 3.42 binary.
 *
 * FIO_IOOPS_VERSION per fio release (ioengines.h of each tag):
 *   3.33 = 31, 3.35 = 32, 3.36/3.37 = 33, 3.38/3.39 = 36, 3.40 = 37, 3.41/3.42 = 39.
 * Releases that share a number (3.36/3.37, 3.38/3.39, 3.41/3.42) still differ in struct
 * thread_data, thread_options and io_u layouts, and fio only compares ops->version, so the
 * engine refuses any fio but the exact version it was built for (get_ioengine) on top. */
#ifndef FIO_NVMEOF_COMPAT_H
#define FIO_NVMEOF_COMPAT_H

#ifndef FIO_IOOPS_VERSION
#error "fio_compat.h: include fio.h (which defines FIO_IOOPS_VERSION) first"
#endif

/* Surveyed: fio 3.33 (IOOPS 31) .. 3.42 (IOOPS 39). */
#define NVMEOF_FIO_IOOPS_OLDEST 31
#define NVMEOF_FIO_IOOPS_NEWEST 39

#if FIO_IOOPS_VERSION < NVMEOF_FIO_IOOPS_OLDEST
/* Before 3.33: FIO_ASYNCIO_SETS_ISSUE_TIME does not exist and nothing older was surveyed. */
#error "fio-nvmeof needs fio 3.33 or newer (FIO_IOOPS_VERSION >= 31)"
#endif
#if FIO_IOOPS_VERSION > NVMEOF_FIO_IOOPS_NEWEST
#pragma message("fio-nvmeof: this fio (FIO_IOOPS_VERSION newer than 39, fio 3.42) was not " \
		"surveyed: check engine/fio_compat.h against its ioengines.h, io_u.h, fio.h")
#endif

/* ---- ioengine_ops.errdetails gained the thread as first argument in fio 3.38 (IOOPS 36):
 *   <= 3.37: char *(*errdetails)(struct io_u *);
 *   >= 3.38: char *(*errdetails)(struct thread_data *, struct io_u *);
 * The engine writes `fio_nvmeof_errdetails(NVMEOF_ERRDETAILS_ARGS(td, io_u))`; the body may
 * use io_u only (td does not exist before 3.38). */
#if FIO_IOOPS_VERSION >= 36
#define NVMEOF_FIO_ERRDETAILS_HAS_TD 1
#define NVMEOF_ERRDETAILS_ARGS(td, io_u) \
	struct thread_data *td __attribute__((unused)), struct io_u *io_u
typedef char *(*nvmeof_errdetails_fn)(struct thread_data *, struct io_u *);
#else
#define NVMEOF_FIO_ERRDETAILS_HAS_TD 0
#define NVMEOF_ERRDETAILS_ARGS(td, io_u) struct io_u *io_u
typedef char *(*nvmeof_errdetails_fn)(struct io_u *);
#endif
/* A fio between releases (a git snapshot with IOOPS 34/35) could have either signature:
 * this names the mismatch instead of letting a wrong pointer type through. */
_Static_assert(__builtin_types_compatible_p(__typeof__(((struct ioengine_ops *)0)->errdetails),
					    nvmeof_errdetails_fn),
	       "fio_compat.h: ioengine_ops.errdetails does not have the signature expected for "
	       "this FIO_IOOPS_VERSION");

/* ---- in_ramp_time() became in_ramp_period() in fio 3.40..3.42 (first seen in 3.42, absent in
 * 3.39), with the ramp_size option (the ramp may be size-based now) and td->ramp_time_over ->
 * td->ramp_period_state.  fio_time.h (included by fio.h) gained RAMP_PERIOD_CHECK_MSEC in the
 * same change: that is the feature macro.  Calling the old name against 3.42 headers is an
 * implicit declaration (an error under -Werror) and an unresolved symbol at run time. */
#ifdef RAMP_PERIOD_CHECK_MSEC
#define NVMEOF_IN_RAMP(td) in_ramp_period(td)
#else
#define NVMEOF_IN_RAMP(td) in_ramp_time(td)
#endif

/* ---- What the engine reads from fio by name or relies on by type (unchanged 3.33..3.42,
 * asserted so a change shows up as a build error, not as wrong behaviour). */
/* get_ioengine() finds the running fio's version with dlsym("fio_version_string") and
 * compares the bytes there: it must stay a char array, not a pointer. */
_Static_assert(__builtin_types_compatible_p(__typeof__(fio_version_string), const char[]),
	       "fio_compat.h: fio_version_string is no longer a char array");
/* output_format: a bit mask of FIO_OUTPUT_TERSE 1, JSON 2, NORMAL 4, JSON_PLUS 8. */
_Static_assert(__builtin_types_compatible_p(__typeof__(output_format), int),
	       "fio_compat.h: output_format is no longer an int");
_Static_assert(FIO_OUTPUT_TERSE == 1 && FIO_OUTPUT_JSON == 2 && FIO_OUTPUT_NORMAL == 4 &&
	       FIO_OUTPUT_JSON_PLUS == 8, "fio_compat.h: FIO_OUTPUT_* values changed");
_Static_assert(__builtin_types_compatible_p(__typeof__(is_backend), bool),
	       "fio_compat.h: is_backend is no longer a bool");
_Static_assert(__builtin_types_compatible_p(__typeof__(log_syslog), bool),
	       "fio_compat.h: log_syslog is no longer a bool");
_Static_assert(__builtin_types_compatible_p(__typeof__(read_only), bool),
	       "fio_compat.h: read_only is no longer a bool");
/* The completion path stores a pointer in io_u->engine_data and stamps issue_time itself. */
_Static_assert(__builtin_types_compatible_p(__typeof__(((struct io_u *)0)->engine_data), void *),
	       "fio_compat.h: io_u.engine_data is no longer a void *");
_Static_assert(__builtin_types_compatible_p(__typeof__(((struct io_u *)0)->issue_time),
					    struct timespec),
	       "fio_compat.h: io_u.issue_time is no longer a struct timespec");

/* ---- Differences that need no code (3.33 -> 3.42), and why.
 *
 * struct ioengine_ops
 *  - 3.36: get_max_active_zones, finish_zone, fdp_fetch_ruhs added; 3.40..3.42 (first seen in
 *    3.42): move_zone_wp added.  The engine implements none; designated initializers leave
 *    them NULL.
 *  - 3.40..3.42: cancel removed.  The engine never set it (and must not name it).
 *  - version/flags/dlhandle/setup..io_u_free/option_struct_size/options: unchanged.
 *
 * Engine flags (enum fio_ioengine_flags)
 *  - FIO_RAWIO, FIO_NOEXTEND, FIO_NODISKUTIL, FIO_MEMALIGN and FIO_ASYNCIO_SETS_ISSUE_TIME
 *    (the ones the engine sets) exist with the same meaning in every version 3.33..3.42.
 *  - Values: 3.39 rewrote the enum as 1 << __FIO_* (same values); 3.40..3.42 inserted
 *    __FIO_ASYNCIO_SYNC_SYNCFS before __FIO_NO_OFFLOAD, so FIO_NO_OFFLOAD moved 1<<15 -> 1<<16
 *    and FIO_ASYNCIO_SETS_ISSUE_TIME 1<<16 -> 1<<17 (in 3.42 TD_ENG_FLAG_SHIFT became
 *    __TD_F_LAST).  Compiled in from the headers: a 3.33 build under 3.42 would claim
 *    FIO_NO_OFFLOAD instead; the exact-version refusal at load prevents that.
 *  - New, deliberately not set: FIO_SKIPPABLE_IOMEM_ALLOC (3.36: fio would skip allocating the
 *    buffers the engine registers in post_init), FIO_RO_NEEDS_RW_OPEN (3.36: only for
 *    generic_open_file), FIO_MULTI_RANGE_TRIM (3.39: fio then refuses num_range > 1, so each
 *    trim io_u is one range, which is what the DSM path does), FIO_ATOMICWRITES (3.39: fio
 *    refuses atomic=1), FIO_ASYNCIO_SYNC_SYNCFS / FIO_SYNCFS (3.40..3.42: fio refuses
 *    end_syncfs=1 at setup, so DDIR_SYNCFS never reaches queue; queue answers EINVAL for
 *    any direction it does not know anyway).
 *
 * struct io_u
 *  - 3.33: engine_data shares an anonymous union with index/seen; by 3.36 it is a member of
 *    its own.  fio sets io_u->index before calling io_u_init and core fio never reads it
 *    again (only some built-in engines do), so the engine's pointer is safe on 3.33 too.
 *  - Layout only: dtype/dspec (3.36), number_trim (3.39), numberio unsigned short -> uint64_t,
 *    inflight_idx, pi_attr (3.40..3.42), zbd_queue_io's signature (3.40..3.42).
 *  - 3.39: IO_U_F_DEVICE_ERROR lets an engine put a device status in io_u->error (fio then
 *    prints "Device-specific error").  Not used: io_u->error stays an errno (EIO) so fio's
 *    continue_on_error classes keep working; errdetails carries the decoded NVMe status.
 *  - Fields the engine uses (engine_data, error, file, ddir, offset, xfer_buf, xfer_buflen,
 *    issue_time): same names and types.
 *
 * enum fio_ddir
 *  - 3.36: DDIR_TIMEOUT = -2; 3.40..3.42: DDIR_SYNCFS inserted before DDIR_WAIT (renumbers
 *    DDIR_WAIT/DDIR_LAST).  DDIR_READ..DDIR_SYNC_FILE_RANGE and DDIR_RWDIR_CNT (3) unchanged.
 *
 * struct thread_data / struct thread_options / struct fio_file
 *  - Fields the engine uses keep their names and types: td->o, eo, files, files_index
 *    (for_each_file), io_ops_data, orig_buffer, orig_buffer_size, terminate (volatile bool),
 *    terminate_time, epoch (struct timespec); o.name, iodepth, nr_files, min_bs/max_bs/ba
 *    (unsigned long long[3]), bssplit (struct bssplit {uint64_t bs; uint32_t perc;} *[3]),
 *    bssplit_nr, start_offset, timeout (unsigned long long), invalidate_cache, use_thread
 *    (unsigned int), read_iolog_file/disable_clat/slat/bw (for fio_fill_issue_time);
 *    f->file_name, filetype, real_file_size, engine_data.
 *  - Their offsets move: 3.36 (thread_data: verify_state_last_do_io, fdp_state, job_start;
 *    thread_options: verify_pattern/buffer_pattern arrays -> pointers, fdp fields; fio_file:
 *    ruhs_info), 3.37..3.39 (thread_data: last_was_sync/last_ddir -> last_ddir_completed/
 *    issued; thread_options: num_range, dp_* fields; fio_file: ruhs_scheme), 3.40..3.42
 *    (thread_data: fs_list before files, inflight_numberio, random_state -> offset_state,
 *    ramp_time_over -> ramp_period_state; thread_options: filetype before invalidate_cache,
 *    end_syncfs, sprandom, ...; fio_file: last_write_comp removed, spr_info).  Rebuilding
 *    against the matching headers is the whole fix; the version refusal covers mixing.
 *  - 3.40..3.42: FIO_TYPE_DIR added after FIO_TYPE_PIPE (FIO_TYPE_BLOCK unchanged).
 *
 * Options (parse.h, optgroup.h)
 *  - struct fio_option and struct value_pair (posval) unchanged; FIO_OPT_STR_STORE,
 *    FIO_OPT_INT, FIO_OPT_STR, FIO_OPT_C_ENGINE unchanged.  Option groups renumbered
 *    (FIO_OPT_G_LIBBLKIO 3.36, FIO_OPT_G_LIBRPMA removed 3.39): the engine uses
 *    FIO_OPT_G_INVALID (1 << __FIO_OPT_G_NR), compiled in.
 *
 * Helpers and globals
 *  - Unchanged signatures: log_err/log_info (ssize_t, printf format), io_u_queued,
 *    io_u_mark_submit, fio_gettime, utime_since_now(const struct timespec *) (with td->epoch,
 *    o.timeout), fio_fill_issue_time (same body), td_trim, for_each_file,
 *    FILE_ENG_DATA/FILE_SET_ENG_DATA, io_ddir_name, fio_file_set_size_known,
 *    fio_mark_td_terminate (same body), td_verror, `extern bool read_only`,
 *    `extern bool is_backend`, `extern bool log_syslog`, `extern int output_format` with
 *    FIO_OUTPUT_*, `extern const char fio_version_string[]`.
 *  - 3.40..3.42: __td_verror (under td_verror/td_vmsg) rewrites td->verror for the first
 *    error even when first_error is set (3.39 and older kept the first text): wording only.
 *  - 3.36: for_each_td(td, i) became for_each_td(td) { ... } end_for_each(): not used.
 *  - 3.40..3.42: fio_ro_check() allows trims of trim_verify jobs: the engine does not call it.
 *  - External engines: the lookup order is unchanged (dlsym of the engine name, then
 *    "ioengine", then get_ioengine(struct ioengine_ops **)); check_engine_ops still refuses
 *    ops->version != FIO_IOOPS_VERSION.  `--enghelp=external:PATH` still passes the prefix to
 *    dlopen verbatim in 3.42 ("not loadable"): give --enghelp the path alone.
 *  - The fio binary exports these symbols to engines (-rdynamic) in every version.
 */

#endif
