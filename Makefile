# fio-nvmeof - plain make.  `make` builds build/libfio_nvmeof.so; `make check` installs what is
# missing, builds, and runs the unit tests, the sanitizer run and the testbed suites;
# `make demo` runs jobs/quickstart.fio through the engine against the kernel target.

CC        ?= gcc
AR        ?= ar
BUILD     := build
CACHE     ?= $(CURDIR)/.cache
# FIO_SRC: the fio source tree the engine is built against (headers, config-host.h); by default
# $(CACHE)/fio-src, which `make deps` points at a tree it prepared: from the Debian source
# package of the installed fio, or from what you give it when apt cannot:
#   FIO_SRC=dir        configured already (has config-host.h): used as it is, deps leaves it alone.
#                      Not configured (an upstream checkout): `make deps` copies it into
#                      $(CACHE)/fio-<version>-upstream and configures the copy (your tree is
#                      never changed); the build then uses $(CACHE)/fio-src, i.e. that copy.
#   FIO_TARBALL=file   a fio release tarball, unpacked and prepared the same way.
# So `make check FIO_SRC=dir` and `make check FIO_TARBALL=file` work in one step.
FIO_SRC_GIVEN := $(if $(filter-out undefined default file,$(origin FIO_SRC)),$(FIO_SRC))
override FIO_SRC := $(if $(and $(FIO_SRC_GIVEN),$(wildcard $(FIO_SRC_GIVEN)/config-host.h)),$(FIO_SRC_GIVEN),$(CACHE)/fio-src)
FIO_TARBALL ?=
PKG_CONFIG ?= pkg-config

WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
ifeq ($(CI),true)
WARN      += -Werror
endif
CFLAGS    ?= -O2 -g
BASEFLAGS := -std=gnu11 -fPIC $(WARN) -D_GNU_SOURCE -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64
RDMA_CFLAGS := $(shell $(PKG_CONFIG) --cflags libibverbs librdmacm 2>/dev/null)
RDMA_LIBS   := $(shell $(PKG_CONFIG) --libs libibverbs librdmacm 2>/dev/null)
# OpenSSL's libcrypto: HMAC, hashes and DH for in-band authentication (lib/nvmf_auth.c).
CRYPTO_CFLAGS := $(shell $(PKG_CONFIG) --cflags libcrypto 2>/dev/null)
CRYPTO_LIBS   := $(or $(shell $(PKG_CONFIG) --libs libcrypto 2>/dev/null),-lcrypto)
RDMA_CFLAGS += $(CRYPTO_CFLAGS)
RDMA_LIBS   += $(CRYPTO_LIBS)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# ThreadSanitizer: lib/ and the unit tests (the keep-alive, reconnect and test threads on one
# lane); third-party code is not instrumented, its suppressions carry a reason each.
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer -O1

LIB_SRCS  := $(sort $(wildcard lib/*.c))
LIB_HDRS  := $(wildcard lib/*.h)
ENG_SRCS  := $(sort $(wildcard engine/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
ASAN_BINS := $(patsubst tests/unit/%.c,$(BUILD)/asan/%,$(UNIT_SRCS))
LIB_OBJS  := $(patsubst lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRCS))
ASAN_OBJS := $(patsubst lib/%.c,$(BUILD)/asan/lib/%.o,$(LIB_SRCS))
TSAN_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tsan/%,$(UNIT_SRCS))
TSAN_OBJS := $(patsubst lib/%.c,$(BUILD)/tsan/lib/%.o,$(LIB_SRCS))
ENGINE    := $(BUILD)/libfio_nvmeof.so
# The stand-in CUDA driver (rules in the CUDA section below), named up here: make expands a
# rule's prerequisites when it reads the rule, and `integration:` lists it.
STANDIN_DIR  := $(BUILD)/cuda-standin
STANDIN      := $(STANDIN_DIR)/libcuda.so.1
STANDIN_VARS := $(STANDIN_DIR)/cuda10/libcuda.so.1 $(STANDIN_DIR)/cuda11.2/libcuda.so.1

# The fio version the engine is built for comes from the fio source tree used for its headers.
FIO_VERSION_FILE := $(FIO_SRC)/FIO-VERSION-FILE
FIO_BUILT_FOR = $(shell sed -n 's/^FIO_VERSION = //p' $(FIO_VERSION_FILE) 2>/dev/null)
ENG_CFLAGS = -isystem $(FIO_SRC) -include $(FIO_SRC)/config-host.h \
             -DFIO_NVMEOF_BUILT_FOR='"$(FIO_BUILT_FOR)"' -fvisibility=hidden -Ilib

.PHONY: all deps spdk spdk-if-source check unit asan tsan integration demo bench clean lib engine tests tools
all: $(ENGINE) tests $(BUILD)/nvmeof-discover

lib: $(BUILD)/libnvmf.a
engine: $(ENGINE)
tests: $(UNIT_BINS)
tools: $(BUILD)/nvmeof-discover

deps:
	@FIO_NVMEOF_CACHE='$(CACHE)' FIO_SRC='$(FIO_SRC_GIVEN)' FIO_TARBALL='$(FIO_TARBALL)' scripts/deps.sh

# SPDK's nvmf_tgt and fio plugin (scripts/spdk.sh): from SPDK_DIR=tree or SPDK_TARBALL=file, else
# the newest tarball in ../shared/spdk-sources; built against this fio tree, cached in $(CACHE)/spdk.
spdk: deps
	@FIO_NVMEOF_CACHE='$(CACHE)' FIO_SRC='$(FIO_SRC)' scripts/spdk.sh
# make check: built where a source is given or found, else the SPDK suites skip (saying why)
spdk-if-source:
	@FIO_NVMEOF_CACHE='$(CACHE)' FIO_SRC='$(FIO_SRC)' scripts/spdk.sh --if-source

$(BUILD)/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(RDMA_CFLAGS) -c -o $@ $<

# lib/nvmf_auth.c needs OpenSSL's headers: say so in one line where they are missing.
$(BUILD)/lib/nvmf_auth.o $(BUILD)/asan/lib/nvmf_auth.o: | crypto-check
.PHONY: crypto-check
crypto-check:
	@$(PKG_CONFIG) --exists libcrypto 2>/dev/null || [ -e /usr/include/openssl/evp.h ] || \
	  { echo "OpenSSL's libcrypto development files (libssl-dev) are missing: run 'make deps'" >&2; exit 1; }

$(BUILD)/libnvmf.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# tools/nvmeof-discover (a shell wrapper) runs this: the discovery log through lib/ alone.
$(BUILD)/nvmeof-discover: tools/nvmeof_discover.c $(BUILD)/libnvmf.a $(LIB_HDRS)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(RDMA_CFLAGS) -Ilib -o $@ $< $(BUILD)/libnvmf.a $(RDMA_LIBS) -ldl -lpthread

$(FIO_SRC)/config-host.h:
	@echo "fio source tree not found at $(FIO_SRC) (need its headers and config-host.h): run 'make deps' (or make deps FIO_SRC=/path/to/fio-source, or make deps FIO_TARBALL=/path/to/fio-X.tar.gz)" >&2
	@exit 1

$(FIO_VERSION_FILE): | $(FIO_SRC)/config-host.h
	cd $(FIO_SRC) && ./FIO-VERSION-GEN

$(BUILD)/engine/%.o: engine/%.c $(LIB_HDRS) $(FIO_SRC)/config-host.h $(FIO_VERSION_FILE)
	@mkdir -p $(@D)
	@command -v $(PKG_CONFIG) >/dev/null && $(PKG_CONFIG) --exists libibverbs librdmacm || \
	  { echo "rdma-core development files (libibverbs-dev, librdmacm-dev, pkg-config) are missing: run 'make deps'" >&2; exit 1; }
	$(CC) $(BASEFLAGS) $(CFLAGS) $(RDMA_CFLAGS) $(ENG_CFLAGS) -c -o $@ $<

$(patsubst engine/%.c,$(BUILD)/engine/%.o,$(ENG_SRCS)): $(wildcard engine/*.h)

$(ENGINE): $(patsubst engine/%.c,$(BUILD)/engine/%.o,$(ENG_SRCS)) $(BUILD)/libnvmf.a
	$(CC) -shared -Wl,--exclude-libs,ALL -o $@ $^ $(RDMA_LIBS) -ldl -lpthread

# A copy of the engine that claims another fio version: proves the load-time refusal.
$(BUILD)/tests/libfio_nvmeof_wrongver.so: $(ENG_SRCS) $(BUILD)/libnvmf.a $(LIB_HDRS) $(FIO_SRC)/config-host.h
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(RDMA_CFLAGS) $(filter-out -DFIO_NVMEOF_BUILT_FOR=%,$(ENG_CFLAGS)) \
	  -DFIO_NVMEOF_BUILT_FOR='"fio-0.0-not-this-fio"' -shared -o $@ $(ENG_SRCS) $(BUILD)/libnvmf.a $(RDMA_LIBS) -ldl -lpthread

# The engine with its test knobs (FIO_NVMEOF_TEST_* in the environment, nvmeof_test_knob): the
# suites that need one load this copy; the engine users load reads no environment.
$(BUILD)/tests/libfio_nvmeof_knobs.so: $(ENG_SRCS) $(wildcard engine/*.h) $(BUILD)/libnvmf.a $(LIB_HDRS) $(FIO_SRC)/config-host.h
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(RDMA_CFLAGS) $(ENG_CFLAGS) -DFIO_NVMEOF_TEST_KNOBS -shared \
	  -Wl,--exclude-libs,ALL -o $@ $(ENG_SRCS) $(BUILD)/libnvmf.a $(RDMA_LIBS) -ldl -lpthread

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libnvmf.a tests/unit/check.h $(LIB_HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(RDMA_CFLAGS) -Ilib -Itests/unit -o $@ $< $(BUILD)/libnvmf.a $(RDMA_LIBS) -ldl -lpthread

$(BUILD)/asan/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(SAN_FLAGS) $(RDMA_CFLAGS) -c -o $@ $<

$(BUILD)/asan/%: tests/unit/%.c $(ASAN_OBJS) tests/unit/check.h $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(SAN_FLAGS) $(RDMA_CFLAGS) -Ilib -Itests/unit -o $@ $< $(ASAN_OBJS) $(RDMA_LIBS) -ldl -lpthread

$(BUILD)/tsan/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(TSAN_FLAGS) $(RDMA_CFLAGS) -c -o $@ $<

$(BUILD)/tsan/%: tests/unit/%.c $(TSAN_OBJS) tests/unit/check.h $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(TSAN_FLAGS) $(RDMA_CFLAGS) -Ilib -Itests/unit -o $@ $< $(TSAN_OBJS) $(RDMA_LIBS) -ldl -lpthread

unit: $(UNIT_BINS)
	@tests/run-tests.sh unit $(UNIT_BINS)

# Any report fails the test (exitcode 66); tests/unit/tsan.supp names third-party code only.
tsan: $(TSAN_BINS)
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/unit/tsan.supp" \
	  tests/run-tests.sh tsan $(TSAN_BINS)

asan: $(ASAN_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  tests/run-tests.sh asan $(ASAN_BINS)

integration: $(ENGINE) $(BUILD)/tests/libfio_nvmeof_wrongver.so $(BUILD)/tests/libfio_nvmeof_knobs.so $(STANDIN)
	@tests/run-tests.sh integration $(sort $(wildcard tests/integration/*.sh))

# Everything the steps run is built first, on every CPU (the steps then only run it).
CHECK_JOBS := $(shell nproc 2>/dev/null || echo 2)
# The summary names the guest kernel(s) the testbed booted (each boot appends its version to
# TESTBED_KERNEL_LOG), also when a step failed; the steps stop at the first that fails.
check: deps
	@mkdir -p $(BUILD) && rm -f $(BUILD)/check-summary $(BUILD)/check-kernels
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) all $(UNIT_BINS) $(ASAN_BINS) $(TSAN_BINS) \
	  $(FUZZ_REPLAY) $(BUILD)/tests/libfio_nvmeof_wrongver.so $(BUILD)/tests/libfio_nvmeof_knobs.so
	@export CHECK_SUMMARY=$(CURDIR)/$(BUILD)/check-summary TESTBED_KERNEL_LOG=$(CURDIR)/$(BUILD)/check-kernels; \
	  rc=0; for step in unit asan tsan fuzz-replay spdk-if-source integration compat; do \
	    $(MAKE) --no-print-directory $$step || { rc=1; break; }; done; \
	  if [ -s $(BUILD)/check-kernels ]; then \
	    sort $(BUILD)/check-kernels | uniq -c | awk '{printf "%s%s (%d boot%s)", n++ ? ", " : "check: testbed guest kernel ", $$2, $$1, $$1 == 1 ? "" : "s"} END {print ""}'; \
	  else echo "check: no testbed guest booted"; fi; \
	  awk '{p+=$$2; f+=$$3; s+=$$4} END {printf "check: %d passed, %d failed, %d skipped\n", p, f, s}' $(BUILD)/check-summary; \
	  exit $$rc

demo: deps
	@$(MAKE) --no-print-directory $(ENGINE)
	@tests/demo.sh

# `make bench` (issue #9): tools/nvmeof-compare --bench in the testbed: 4 KiB random read and
# write at QD 1/8/32/128, 128 KiB and 1 MiB sequential read at QD 8, numjobs 1 and 4, through
# the kernel initiator (libaio, io_uring), the engine (completion poll/event/hybrid, and
# io_queues=auto when the engine has it) and SPDK's fio plugin where `make spdk` built it,
# against the kernel target, then the engine and the plugin against SPDK's nvmf_tgt (#24);
# medians of BENCH_REPEAT alternating repeats, the
# table printed at the end, report.md/report.json/plots and fio's JSON in build/bench/.
# env: BENCH_RUNTIME (s per run, 5), BENCH_REPEAT (3), BENCH_SIZE (64m), BENCH_INITIATORS (all).
bench: deps
	@$(MAKE) --no-print-directory $(ENGINE)
	@tools/nvmeof-compare --bench --out build/bench --runtime "$${BENCH_RUNTIME:-5}" \
	  --repeat "$${BENCH_REPEAT:-3}" --size "$${BENCH_SIZE:-64m}" \
	  $${BENCH_INITIATORS:+--initiators "$$BENCH_INITIATORS"}

# `make compat`: the engine built with -Werror against Debian's fio 3.33 source ($(CACHE)/fio-src)
# and upstream fio releases (tarballs in FIO_SOURCES_DIR, unpacked and configured once under
# $(CACHE)/compat), engines in build/compat/fio-X; the newest fio built from source runs its
# engine on the host and in the testbed (tests/compat/compat.sh; exit 0/1/77).
FIO_SOURCES_DIR ?= $(CURDIR)/../shared/fio-sources
COMPAT_VERSIONS ?= 3.36 3.39 3.42
.PHONY: compat
compat:
	@FIO_SOURCES_DIR="$(FIO_SOURCES_DIR)" COMPAT_VERSIONS="$(COMPAT_VERSIONS)" \
	  FIO_NVMEOF_CACHE="$(CACHE)" FIO_SRC="$(FIO_SRC)" tests/compat/compat.sh

clean:
	rm -rf $(BUILD)
.SECONDARY:

# ---- CUDA memory (issue #7): lib/nvmf_cuda*, lib/nvmf_mem* and their tests ----------------
# test_cuda_decls checks lib/nvmf_cuda_api.h against a real cuda.h where $(CUDA_INC) has one
# (`make CUDA_INC=` builds as on a machine without); test_cuda runs the loader and the memory
# backends against the stand-in driver below (tests/cuda-standin/, over host memory).
CUDA_INC ?= /usr/local/cuda/include
CUDA_DECLS_FLAGS := $(if $(CUDA_INC),$(if $(wildcard $(CUDA_INC)/cuda.h),-DHAVE_REAL_CUDA_H -isystem $(CUDA_INC)))
STANDIN_DEPS := tests/cuda-standin/standin.c tests/cuda-standin/standin.h lib/nvmf_cuda_api.h
STANDIN_CC    = $(CC) $(BASEFLAGS) $(CFLAGS) -Ilib -Itests/cuda-standin -shared \
                -Wl,-soname,libcuda.so.1 -o $@ $< -lpthread

.PHONY: cuda-standin
cuda-standin: $(STANDIN) $(STANDIN_VARS)

$(STANDIN): $(STANDIN_DEPS)
	@mkdir -p $(@D)
	$(STANDIN_CC)

# Drivers older than the loader accepts (no cuDevicePrimaryCtxRelease_v2), and without the
# entry points newer than CUDA 11.2 (no dma-buf export, no GPUDirect flush).
$(STANDIN_DIR)/cuda10/libcuda.so.1: $(STANDIN_DEPS)
	@mkdir -p $(@D)
	$(STANDIN_CC) -DNVMF_STANDIN_CUDA10

$(STANDIN_DIR)/cuda11.2/libcuda.so.1: $(STANDIN_DEPS)
	@mkdir -p $(@D)
	$(STANDIN_CC) -DNVMF_STANDIN_CUDA11_2

$(BUILD)/tests/test_cuda_decls $(BUILD)/asan/test_cuda_decls $(BUILD)/tsan/test_cuda_decls: private BASEFLAGS += $(CUDA_DECLS_FLAGS)
$(BUILD)/tests/test_cuda $(BUILD)/asan/test_cuda $(BUILD)/tsan/test_cuda: $(STANDIN) $(STANDIN_VARS) tests/cuda-standin/standin.h
$(BUILD)/tests/test_cuda $(BUILD)/asan/test_cuda $(BUILD)/tsan/test_cuda: private BASEFLAGS += -Itests/cuda-standin \
	-DNVMF_STANDIN_DIR='"$(abspath $(STANDIN_DIR))"'

# ---- Hostile responses (issue #8): fuzz targets, tests/fuzz/ --------------------------------
# `make fuzz-replay`: each target's saved corpus (tests/fuzz/corpus/<target>/) replayed with gcc
# under ASan/UBSan by tests/fuzz/replay.c (no libFuzzer needed); a suite line like the others.
# `make fuzz`: the libFuzzer builds (clang -fsanitize=fuzzer,address,undefined), each run for
# FUZZ_SECONDS with its saved corpus; new inputs go to build/fuzz/<target>.work/, crashers to
# build/fuzz/<target>-crash-*.  Without clang (or its libFuzzer) it says so and does nothing.
FUZZ_TARGETS  := fuzz_cqe fuzz_identify fuzz_cm_private fuzz_ana_log fuzz_disc_log fuzz_tcp_pdu fuzz_auth
FUZZ_SECONDS  ?= 120
FUZZ_CC       ?= clang
FUZZ_ARGS     ?=
FUZZ_CORPUS   := $(CURDIR)/tests/fuzz/corpus
FUZZ_MAXLEN_fuzz_identify := 8200
FUZZ_MAXLEN_fuzz_disc_log := 6144
FUZZ_MAXLEN_fuzz_auth := 8200
FUZZ_REPLAY   := $(patsubst %,$(BUILD)/fuzz-replay/%,$(FUZZ_TARGETS))
FUZZ_BINS     := $(patsubst %,$(BUILD)/fuzz/%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-replay fuzz-run
$(BUILD)/fuzz-replay/%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz_assert.h $(ASAN_OBJS) tests/unit/scripted_peer.h $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(SAN_FLAGS) $(RDMA_CFLAGS) -Ilib -Itests/unit \
	  -DFUZZ_CORPUS_DIR='"$(FUZZ_CORPUS)/$*"' -o $@ $< tests/fuzz/replay.c $(ASAN_OBJS) $(RDMA_LIBS) -ldl -lpthread

fuzz-replay: $(FUZZ_REPLAY)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  tests/run-tests.sh fuzz-replay $(FUZZ_REPLAY)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_assert.h $(LIB_SRCS) $(LIB_HDRS) tests/unit/scripted_peer.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(BASEFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -fno-omit-frame-pointer $(RDMA_CFLAGS) -Ilib -Itests/unit -o $@ $< $(LIB_SRCS) $(RDMA_LIBS) -ldl -lpthread

fuzz:
	@if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' | \
	    $(FUZZ_CC) -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then \
	  echo "fuzz: SKIP: $(FUZZ_CC) cannot build a libFuzzer target (install clang, or set FUZZ_CC)"; \
	else $(MAKE) --no-print-directory fuzz-run; fi

fuzz-run: $(FUZZ_BINS)
	@$(foreach t,$(FUZZ_TARGETS),mkdir -p $(BUILD)/fuzz/$(t).work && \
	  echo "fuzz: $(t) for $(FUZZ_SECONDS) s" && \
	  $(BUILD)/fuzz/$(t) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=$(or $(FUZZ_MAXLEN_$(t)),2048) \
	    -artifact_prefix=$(BUILD)/fuzz/$(t)- -print_final_stats=1 $(FUZZ_ARGS) \
	    $(BUILD)/fuzz/$(t).work $(FUZZ_CORPUS)/$(t) >$(BUILD)/fuzz/$(t).log 2>&1; \
	  rc=$$?; tail -n 15 $(BUILD)/fuzz/$(t).log; test $$rc = 0 &&) true

# ---- Microbenchmark (issue #9): lib/'s own cost per I/O, apart from the fabric -------------
# `make microbench`: tests/bench/microbench.c drives lib/ as the engine's I/O path does against
# an in-process peer that answers every capsule at once; prints ns per I/O (wall clock, noisy)
# and, under valgrind's callgrind, instructions per I/O spent in lib/ (stable: compare changes
# by this).  Not part of `make check`: a benchmark is never a timed test.
MICROBENCH := $(BUILD)/bench/microbench
$(MICROBENCH): tests/bench/microbench.c $(BUILD)/libnvmf.a $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) -O2 -g -Ilib -o $@ $< $(BUILD)/libnvmf.a

.PHONY: microbench
microbench: $(MICROBENCH)
	@MICROBENCH=$(MICROBENCH) tests/bench/microbench.sh

# `make cost`: what an I/O costs where the emulator cannot move it (instructions under callgrind,
# CQ polls, job-thread system calls and doorbells under strace), this engine beside SPDK's fio
# plugin, against the kernel target and SPDK's, in one testbed boot (tests/bench/cost.sh; the
# SPDK columns only where `make spdk` already built it).  ~25 minutes; not part of `make check`.
# The NVMe/TCP initiators by name only: COST_INITIATORS=engine-tcp,spdk-tcp,kernel-tcp.
COST_PROBE := $(BUILD)/bench/cost_provider
$(COST_PROBE): tests/bench/cost_provider.c
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(RDMA_CFLAGS) -o $@ $< $(RDMA_LIBS) -ldl

.PHONY: cost
cost: deps
	@$(MAKE) --no-print-directory $(ENGINE) $(COST_PROBE)
	@tests/bench/cost.sh
