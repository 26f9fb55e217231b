# flagcheck: build, check, bench, reproduce, install.
#
#   make                  the engine, against the source of the fio on PATH
#   make FIO_SRC=DIR      ... against your own (configured) fio tree instead
#   make fio              an fio binary from that same tree, in $(BUILD)/fio
#   make reproduce        install what is missing, build, run S1 and S2, report
#   make check            install what is missing, build, run every test
#   make check-quick      ... every test not marked slow
#   make check-fio-versions   build fio 3.36, 3.39, 3.41, 3.42 and the engine
#                         against each, run the version tests under each
#   make check PYTEST_ARGS='-k iodepth'   ... only the tests pytest's -k picks
#   make bench            the engine's overhead against fio's null engine
#   make bench-pattern    model=pattern against the C models it mirrors
#   make calibrate        this machine's cache-line costs, in $(BUILD)/calibration
#   make reproduce-family, reproduce-catalogue   S3-S5; the catalogue's files
#   make install PREFIX=DIR   the engine, the analysis and the job files
#   make backtest         every published figure against its prediction (docs/backtest.md)
#   make physics          every published curve (machines/curves/) against the simulator
#
# The analysis runs with Debian's python3 (it has python3-matplotlib), not
# whatever python3 comes first on PATH.

BUILD	?= build
PYTHON	?= /usr/bin/python3
CC	?= cc
PREFIX	?= /usr/local

# The fio tree the engine is built against: yours, or Debian's source of
# the installed fio, fetched and configured under $(BUILD) on first use.
ifeq ($(FIO_SRC),)
FIO_SRC_STAMP	:= $(BUILD)/fio-src.path
FIO_TREE	= $(shell cat $(FIO_SRC_STAMP) 2>/dev/null)
else
FIO_SRC_STAMP	:=
FIO_TREE	= $(FIO_SRC)
endif
FIO_VERSION_OF	= $(shell cat $(BUILD)/fio-version)

# engine/: the fio glue, the options, the arena and the counters;
# kernel/: the kernel's own functions; models/: one file per model=;
# pattern/: model=pattern, the grammar's parser, operations and
# interpreter; backends/: one file per backend=. A new model or backend is one new file
# that registers itself (FC_REGISTER_MODEL, FC_REGISTER_BACKEND).
KERNEL_SRCS	:= $(sort $(wildcard engine/kernel/*.c))
MODEL_SRCS	:= $(sort $(wildcard engine/models/*.c))
PATTERN_SRCS	:= $(sort $(wildcard engine/pattern/*.c))
BACKEND_SRCS	:= $(sort $(wildcard engine/backends/*.c))
ENGINE_SRCS	:= $(sort $(wildcard engine/*.c)) $(KERNEL_SRCS) $(MODEL_SRCS) \
		   $(PATTERN_SRCS) $(BACKEND_SRCS)
# model=pattern's operations: one table, engine/pattern/ops.tbl; the
# headers the engine and the simulator include are written from it into
# $(GEN) (build outputs: never stale, so nothing to check), and
# docs/pattern.md's operation table with them (a document, committed)
GEN		:= $(BUILD)/gen
OPS_TBL		:= engine/pattern/ops.tbl
OPS_GEN		:= scripts/gen-pattern-ops.py
GEN_HDRS	:= $(GEN)/pattern_ops.h $(GEN)/pattern_does.h
ENGINE_HDRS	:= $(wildcard engine/*.h engine/kernel/*.h engine/models/*.h \
			  engine/pattern/*.h) $(GEN_HDRS)
ENGINE		:= $(BUILD)/fio-flagcheck.so

# What differs between fio trees, by feature tests on the tree's own headers
# (engine/fio_compat.h), not by its version: 3.42 renamed ramp_time_over
# to ramp_period_over; ramp_size= came with it.
fio_has		= $(shell grep -qw '$(1)' $(FIO_TREE)/$(2) 2>/dev/null && echo -D$(3))
FIO_FEATURES	= $(call fio_has,ramp_period_over,fio_time.h,FC_FIO_HAS_RAMP_PERIOD) \
		  $(call fio_has,ramp_size,thread_options.h,FC_FIO_HAS_RAMP_SIZE)

WARN		:= -Wall -Wextra -Werror
BASE_CFLAGS	:= -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE \
		   -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64
ENGINE_CFLAGS	= $(BASE_CFLAGS) -fPIC -fvisibility=hidden \
		  -Iengine -Iengine/kernel -Iengine/pattern -I$(GEN) \
		  -include $(FIO_TREE)/config-host.h -isystem $(FIO_TREE) \
		  $(FIO_FEATURES) -DFLAGCHECK_FIO_VERSION='"$(FIO_VERSION_OF)"'
# nodelete: fio dlcloses engines at exit, a known crash source
ENGINE_LDFLAGS	:= -shared -Wl,-z,nodelete -Wl,-z,now
# the libaio and io_uring backends
ENGINE_LIBS	:= -laio -luring

# The kernel functions, the models, the arena and the counters file,
# without fio, for the unit tests.
UNIT_SRCS	:= $(KERNEL_SRCS) $(MODEL_SRCS) $(PATTERN_SRCS) engine/shm.c \
		   engine/stats.c
UNIT_TESTS	:= $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
UNIT_CFLAGS	:= $(BASE_CFLAGS) -Iengine -Iengine/kernel -Iengine/models \
		   -Iengine/pattern -I$(GEN) -pthread

# flagcheck-calibrate: the cache-line costs of this machine, with the
# engine's own bit operations (the directory that holds bitops.h)
BITOPS_DIR	:= engine/kernel
CALIBRATE	:= $(BUILD)/flagcheck-calibrate
CALIBRATE_SRCS	:= $(sort $(wildcard calibrate/*.c))
CALIBRATE_DEPS	:= $(CALIBRATE_SRCS) $(wildcard calibrate/*.h) \
		   $(BITOPS_DIR)/bitops.h engine/counters.h
CALIBRATE_CFLAGS := $(BASE_CFLAGS) -I$(BITOPS_DIR) -Iengine -pthread

# flagcheck-sim: a pattern job on N simulated CPUs of a machine profile
# (docs/predict.md), with the engine's own parser (its sequences, and its
# words where they have a file of their own) and its check of the jobs
# together (layouts, locks): one grammar, one set of refusals
SIM		:= $(BUILD)/flagcheck-sim
SIM_PARSER	:= $(wildcard engine/pattern/pattern_parse.c \
			  engine/pattern/pattern_words.c \
			  engine/pattern/pattern_jobs.c \
			  engine/pattern/pattern_locks.c \
			  engine/pattern/pattern_lock_order.c)
SIM_SRCS	:= $(sort $(wildcard sim/*.c)) $(SIM_PARSER)
SIM_CFLAGS	:= $(BASE_CFLAGS) -Iengine -Iengine/kernel -Iengine/pattern \
		   -I$(GEN)

all: $(ENGINE) $(CALIBRATE) $(SIM) $(GEN)/pattern-doc.ok

# One run of the generator writes the headers and the docs' table; a bad
# row of the table stops the build there, the row named
$(GEN_HDRS) $(GEN)/pattern-doc.ok &: $(OPS_TBL) $(OPS_GEN)
	@mkdir -p $(GEN)
	$(PYTHON) $(OPS_GEN) $(OPS_TBL) --ops $(GEN)/pattern_ops.h \
		--does $(GEN)/pattern_does.h --doc docs/pattern.md
	@touch $(GEN)/pattern_ops.h $(GEN)/pattern_does.h $(GEN)/pattern-doc.ok

$(SIM): $(SIM_SRCS) $(wildcard sim/*.h) sim/physics.def $(ENGINE_HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(SIM_CFLAGS) -o $@ $(SIM_SRCS)

# the simulator under AddressSanitizer+UBSan: tests/analysis/test_sim_asan.py
$(BUILD)/flagcheck-sim-asan: $(SIM_SRCS) $(wildcard sim/*.h) sim/physics.def $(ENGINE_HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(SIM_CFLAGS) -O1 -fsanitize=address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer -o $@ $(SIM_SRCS)

$(BUILD)/clang-sim.ok: $(SIM_SRCS) $(wildcard sim/*.h) sim/physics.def $(ENGINE_HDRS)
	@mkdir -p $(BUILD)
	clang $(SIM_CFLAGS) -o $(BUILD)/flagcheck-sim-clang $(SIM_SRCS)
	@touch $@

.PHONY: all deps fio device-bundle check bench bench-pattern reproduce \
	reproduce-family reproduce-catalogue unit-tests clean distclean install \
	uninstall calibrate

deps:
	scripts/install-deps.sh

ifneq ($(FIO_SRC_STAMP),)
$(FIO_SRC_STAMP): scripts/fio-source.sh
	@mkdir -p $(BUILD)
	scripts/fio-source.sh $(BUILD) > $@.tmp
	mv $@.tmp $@
endif

$(BUILD)/fio-version: $(FIO_SRC_STAMP)
	@test -f $(FIO_TREE)/config-host.h || \
		{ echo "$(FIO_TREE) is not a configured fio tree (run ./configure there)"; exit 1; }
	cd $(FIO_TREE) && ./FIO-VERSION-GEN >/dev/null
	@mkdir -p $(BUILD)
	@sed -n 's/^FIO_VERSION = //p' $(FIO_TREE)/FIO-VERSION-FILE > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

# Link-time optimisation: the kernel functions (kernel/) inline into the
# models' per-I/O paths (models/) as they would in one file; make bench
# counts every instruction of that path against fio's null engine.
ENGINE_LTO	?= -flto=auto

$(ENGINE): $(ENGINE_SRCS) $(ENGINE_HDRS) $(BUILD)/fio-version
	$(CC) $(ENGINE_CFLAGS) $(ENGINE_LTO) $(ENGINE_LDFLAGS) -o $@ \
		$(ENGINE_SRCS) $(ENGINE_LIBS)

# The same engine, claiming other headers: the version check must refuse it.
$(BUILD)/fio-flagcheck-skew.so: $(ENGINE_SRCS) $(ENGINE_HDRS) $(BUILD)/fio-version
	$(CC) $(ENGINE_CFLAGS) -UFLAGCHECK_FIO_VERSION \
		-DFLAGCHECK_FIO_VERSION='"fio-0.0-skew"' $(ENGINE_LDFLAGS) \
		-o $@ $(ENGINE_SRCS) $(ENGINE_LIBS)

# The same engine without the check of a run's jobs together
# (engine/run_check.c): the tests' way to a lock no one frees, to see a
# spin give up (tests/test_pattern_spin_stop.py)
$(BUILD)/fio-flagcheck-unchecked.so: $(ENGINE_SRCS) $(ENGINE_HDRS) $(BUILD)/fio-version
	$(CC) $(ENGINE_CFLAGS) -DFC_RUN_CHECK_OFF $(ENGINE_LDFLAGS) \
		-o $@ $(ENGINE_SRCS) $(ENGINE_LIBS)

# clang must accept it too, warnings as errors (object only, not loaded)
$(BUILD)/clang.ok: $(ENGINE_SRCS) $(ENGINE_HDRS) $(BUILD)/fio-version
	clang $(ENGINE_CFLAGS) $(ENGINE_LDFLAGS) -o $(BUILD)/fio-flagcheck-clang.so $(ENGINE_SRCS) $(ENGINE_LIBS)
	@touch $@

$(CALIBRATE): $(CALIBRATE_DEPS)
	@mkdir -p $(BUILD)
	$(CC) $(CALIBRATE_CFLAGS) -o $@ $(CALIBRATE_SRCS)

# The pattern grammar's operation table as JSON (tests, docs check)
PATTERN_OPS	:= $(BUILD)/flagcheck-pattern-ops
all: $(PATTERN_OPS)
$(PATTERN_OPS): engine/tools/pattern-ops.c $(ENGINE_HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(BASE_CFLAGS) -Iengine -Iengine/pattern -I$(GEN) -o $@ $<

$(BUILD)/clang-calibrate.ok: $(CALIBRATE_DEPS)
	@mkdir -p $(BUILD)
	clang $(CALIBRATE_CFLAGS) -o $(BUILD)/flagcheck-calibrate-clang \
		$(CALIBRATE_SRCS)
	@touch $@

calibrate: $(CALIBRATE)
	$(PYTHON) analysis/flagcheck calibrate --outdir $(BUILD)/calibration

fio: $(BUILD)/fio-version
	$(MAKE) -C $(FIO_TREE) fio
	cp $(FIO_TREE)/fio $(BUILD)/fio

# What a machine without fio needs (a bigger box to test on): this
# tree's fio, the engine and the libraries they load, in $(BUILD)/device;
# scripts/device-sweep.sh runs the S1 sweep from it.
device-bundle: fio $(ENGINE) $(CALIBRATE)
	scripts/device-bundle.sh $(BUILD)

# Unit tests: plain, AddressSanitizer+UBSan, ThreadSanitizer.
$(BUILD)/unit/%: tests/unit/%.c $(UNIT_SRCS) $(ENGINE_HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(BUILD)/unit
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(UNIT_SRCS)
$(BUILD)/unit-asan/%: tests/unit/%.c $(UNIT_SRCS) $(ENGINE_HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(BUILD)/unit-asan
	$(CC) $(UNIT_CFLAGS) -O1 -fsanitize=address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer -o $@ $< $(UNIT_SRCS)
$(BUILD)/unit-tsan/%: tests/unit/%.c $(UNIT_SRCS) $(ENGINE_HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(BUILD)/unit-tsan
	$(CC) $(UNIT_CFLAGS) -O1 -fsanitize=thread -o $@ $< $(UNIT_SRCS)

unit-tests: $(foreach v,unit unit-asan unit-tsan,$(addprefix $(BUILD)/$(v)/,$(UNIT_TESTS)))

# The README's test command. Installs what is missing first, builds
# everything, then runs every test with pytest (tests/, see pytest.ini) in
# two parts (tests/parts.py): the tests marked serial (they pin CPUs, load
# them or measure time) alone, then the others on PYTEST_JOBS workers
# (pytest-xdist's -n; default one per CPU this make may use; the tests of
# one xdist_group on one worker); the second part's closing summary and
# exit status are those of both. PYTEST_ARGS reaches pytest in both: -k
# EXPR, -x, -v, --durations=N, a test file or test id. pytest exits
# non-zero on a failure and when no test was collected in either part.
# check-quick: the same, without the tests marked slow.
PYTEST_ARGS	?=
PYTEST_JOBS	?= $(shell nproc)
PART_RECORD	:= $(BUILD)/tests/serial-part.json
PYTEST_PARTS	= rm -f $(PART_RECORD); \
	$(PYTHON) -m pytest --build=$(BUILD) --part serial \
		--part-record $(PART_RECORD) $(1) $(PYTEST_ARGS) || :; \
	$(PYTHON) -m pytest --build=$(BUILD) --part parallel \
		--part-record $(PART_RECORD) -n $(PYTEST_JOBS) --dist loadgroup \
		$(1) $(PYTEST_ARGS)
CHECK_BUILD	:= all unit-tests $(BUILD)/fio-flagcheck-skew.so \
		$(BUILD)/fio-flagcheck-unchecked.so $(BUILD)/clang.ok \
		$(BUILD)/clang-calibrate.ok $(BUILD)/flagcheck-sim-asan

check: deps
	$(MAKE) $(CHECK_BUILD)
	@mkdir -p $(BUILD)/tests
	$(call PYTEST_PARTS,)

.PHONY: check-quick
check-quick: deps
	$(MAKE) $(CHECK_BUILD)
	@mkdir -p $(BUILD)/tests
	$(call PYTEST_PARTS,-m 'not slow')

# BENCH_ARGS reaches benchmarks/bench.py (--repeats, --runtime, --before
# OLD.so: a second build's rows in the same repeats).
BENCH_ARGS ?=
bench: all
	$(PYTHON) benchmarks/bench.py --engine $(ENGINE) $(BENCH_ARGS)

# The fio version matrix (docs/fio-versions.md): each fio built once from
# its source in $(BUILD)/fio-versions/VERSION, the engine against it, the
# version-sensitive tests under it, a table at the end. FIO_VERSIONS picks
# some; FIO_TARBALLS is a directory of fio's release tarballs (git archive
# of fio's tags, with a SHA256SUMS; default none: those versions skip);
# FIO_OPT is the optimisation fio is built with (empty: fio's own -O3).
FIO_VERSIONS	?=
FIO_TARBALLS	?=
FIO_OPT		?= -O1

.PHONY: check-fio-versions
check-fio-versions: deps
	$(MAKE) all
	TARBALLS=$(FIO_TARBALLS) PYTHON=$(PYTHON) FIO_OPT="$(FIO_OPT)" \
		scripts/fio-versions.sh $(BUILD) $(FIO_VERSIONS)

# model=pattern against each C model it mirrors (jobs/pattern/ vs jobs/),
# side by side, and a one-test pattern against fio's null engine, then one
# pattern per operation and per form against null and its base;
# BENCH_PATTERN_ARGS reaches benchmarks/bench_pattern.py (--repeats, --runtime,
# --scenarios S1,S2, ..., --forms REGEX).
BENCH_PATTERN_ARGS ?=
bench-pattern: all
	$(PYTHON) benchmarks/bench_pattern.py --engine $(ENGINE) $(BENCH_PATTERN_ARGS)

# The headline reproduction on the embedded default (null backend, nothing
# written): both scenarios, both variants, numjobs 1..nproc, interleaved
# repeats, pinned jobs, 1 s warm-up; each cell gets REPRO_MIN_REPEATS
# repeats, then more until its ratio is decided, at most REPRO_REPEATS
# (about 3 minutes on 2 cores at most); tables on the terminal, Markdown,
# CSV and plots in REPRO_OUT, with the big-box answer flagcheck predict
# stores there first.  Give REPRO_OUT=DIR to resume an interrupted
# run or to keep one.  reproduce-family runs REPRO_REPEATS repeats.
REPRO_JOBS	?= jobs/filemap-odirect-read.fio jobs/buffer-new-randwrite.fio
REPRO_REPEATS	?= 5
REPRO_MIN_REPEATS ?= 3
REPRO_RUNTIME	?= 3
ifeq ($(origin REPRO_OUT),undefined)
REPRO_OUT	:= $(BUILD)/reproduce-$(shell date +%Y%m%d-%H%M%S)
endif
REPRO_ARGS	?=

reproduce: deps
	$(MAKE) all
	$(PYTHON) analysis/flagcheck run --outdir $(REPRO_OUT) \
		--until-decided --repeats $(REPRO_MIN_REPEATS) \
		--max-repeats $(REPRO_REPEATS) --runtime $(REPRO_RUNTIME) \
		$(REPRO_ARGS) $(REPRO_JOBS)
	$(PYTHON) analysis/flagcheck predict $(REPRO_OUT) > /dev/null
	FLAGCHECK_REPEATS_NAME=REPRO_REPEATS $(PYTHON) analysis/flagcheck report $(REPRO_OUT)

# The rest of the family, each with its own variants: S3 (always/test_first),
# S4 (before/always/test_first, against before), S5 (LRU on/off, one job,
# ns per lookup against mod).
reproduce-family: deps
	$(MAKE) all
	$(PYTHON) analysis/flagcheck run --outdir $(REPRO_OUT)/s3 \
		--repeats $(REPRO_REPEATS) --runtime $(REPRO_RUNTIME) \
		$(REPRO_ARGS) jobs/aim7-creat-clo.fio
	$(PYTHON) analysis/flagcheck predict $(REPRO_OUT)/s3 > /dev/null
	$(PYTHON) analysis/flagcheck report $(REPRO_OUT)/s3
	$(PYTHON) analysis/flagcheck run --outdir $(REPRO_OUT)/s4 \
		--variants before,always,test_first \
		--repeats $(REPRO_REPEATS) --runtime $(REPRO_RUNTIME) \
		$(REPRO_ARGS) jobs/fxmark-dwtl-uptodate.fio
	$(PYTHON) analysis/flagcheck predict $(REPRO_OUT)/s4 > /dev/null
	$(PYTHON) analysis/flagcheck report --base before $(REPRO_OUT)/s4
	$(PYTHON) analysis/flagcheck run --outdir $(REPRO_OUT)/s5 \
		--variants on,off --numjobs 1 --repeats 3 --ramp 0 --no-calibrate \
		--runtime $(REPRO_RUNTIME) $(REPRO_ARGS) jobs/bh-lru-lookup.fio
	$(PYTHON) analysis/flagcheck lru $(REPRO_OUT)/s5

# The catalogue, more of the family as model=pattern job files
# (jobs/catalogue/*.fio): every one in both variants, REPRO_REPEATS interleaved
# repeats, numjobs 1..nproc; the report, then each job's test_first/always
# beside the gain its source published (the job file's published-figure
# line).
CATALOGUE_JOBS	?= $(sort $(wildcard jobs/catalogue/*.fio))

reproduce-catalogue: deps
	$(MAKE) all
	$(PYTHON) analysis/flagcheck run --outdir $(REPRO_OUT)/catalogue \
		--repeats $(REPRO_REPEATS) --runtime $(REPRO_RUNTIME) \
		$(REPRO_ARGS) $(CATALOGUE_JOBS)
	$(PYTHON) analysis/flagcheck predict $(REPRO_OUT)/catalogue > /dev/null
	$(PYTHON) analysis/flagcheck report $(REPRO_OUT)/catalogue
	$(PYTHON) analysis/flagcheck catalogue $(REPRO_OUT)/catalogue

# The back-test (docs/backtest.md): every job file with a published figure
# predicted on its published machine; no measurement, the same table on
# any machine. BACKTEST_ARGS reaches analysis/flagcheck backtest.
.PHONY: backtest
backtest: $(SIM)
	@FLAGCHECK_SIM=$(SIM) $(PYTHON) analysis/flagcheck backtest $(BACKTEST_ARGS)

# The physics' own test: published curves of a loop on one shared line, each
# on the profile of its CPU (analysis/flagcheck_analysis/predict/curves.py).
.PHONY: physics
physics: $(SIM)
	@FLAGCHECK_SIM=$(SIM) $(PYTHON) analysis/flagcheck physics

# The same layout on every host: a fio server loads the engine named in the
# job from its own disk, so for `flagcheck run --hosts` each host needs it at
# the same path.  The commands find their package through realpath, and the
# runner's default engine is the one installed beside it.
LIBDIR	= $(PREFIX)/lib/flagcheck
JOBDIR	= $(PREFIX)/share/flagcheck/jobs
# the command, linked into $(PREFIX)/bin
TOOLS	:= flagcheck

# the analysis package and each of its sub-packages (results, stats, run,
# calibrate, report): every directory of it with an __init__.py
PYPKGS	= $(patsubst %/__init__.py,%,$(wildcard \
	analysis/flagcheck_analysis/__init__.py \
	analysis/flagcheck_analysis/*/__init__.py))

# A PREFIX or DESTDIR that fio or the recipes' shell would read otherwise
# than as written is refused, in one line, before anything is installed: fio
# ends a job file's value (ioengine=external:PREFIX/...) at ';' or '#' and
# splits it at ',', and the shell runs '`' and '$' even inside double
# quotes.  A PREFIX is an absolute path of letters, digits, spaces and
# / . _ - + : @ ~ = only; neither it nor DESTDIR has a '..' component,
# which would install outside DESTDIR, the staging directory.
empty	:=
space	:= $(empty) $(empty)
FC_PATH_CHARS := a b c d e f g h i j k l m n o p q r s t u v w x y z \
	A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \
	0 1 2 3 4 5 6 7 8 9 / . _ - + : @ ~ =
# $(1) without the characters listed in $(2) (never expanded again)
fc_strip = $(if $(2),$(call fc_strip,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
fc_path_bad = $(subst $(space),,$(call fc_strip,$(1),$(FC_PATH_CHARS)))
ifneq ($(filter install uninstall,$(MAKECMDGOALS)),)
ifneq ($(call fc_path_bad,$(value PREFIX))$(filter-out /%,$(firstword $(value PREFIX) none)),)
$(error PREFIX=$(value PREFIX): refused, nothing installed: want an absolute path of letters, digits, spaces and / . _ - + : @ ~ = (fio cuts a value at ';' or '#' and splits it at ',', a shell runs '`' and '$$'))
endif
ifneq ($(filter ..,$(subst /, ,$(value PREFIX) $(value DESTDIR))),)
$(error DESTDIR=$(value DESTDIR) PREFIX=$(value PREFIX): refused, nothing installed: a '..' component would install outside DESTDIR, the staging directory)
endif
ifneq ($(findstring `,$(value DESTDIR))$(findstring $$,$(value DESTDIR))$(findstring ",$(value DESTDIR))$(findstring \,$(value DESTDIR)),)
$(error DESTDIR=$(value DESTDIR): refused, nothing installed: a shell would run or unquote its ` $$ " \)
endif
endif

# Every path quoted: a PREFIX or DESTDIR may hold spaces.  jobs/run-job
# goes with the job files and finds the installed engine and analysis.
install: all
	install -d "$(DESTDIR)$(LIBDIR)/analysis" "$(DESTDIR)$(JOBDIR)" \
		"$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$(ENGINE)" "$(CALIBRATE)" "$(SIM)" "$(PATTERN_OPS)" \
		"$(DESTDIR)$(LIBDIR)/"
	for d in $(PYPKGS); do \
		install -d "$(DESTDIR)$(LIBDIR)/$$d" && \
		install -m 0644 "$$d"/*.py "$(DESTDIR)$(LIBDIR)/$$d/" || exit 1; \
	done
	install -m 0755 $(addprefix analysis/,$(TOOLS)) \
		"$(DESTDIR)$(LIBDIR)/analysis/"
	$(if $(wildcard jobs/*.fio),install -m 0644 $(wildcard jobs/*.fio) "$(DESTDIR)$(JOBDIR)/")
	$(if $(CATALOGUE_JOBS),install -d "$(DESTDIR)$(JOBDIR)/catalogue")
	$(if $(CATALOGUE_JOBS),install -m 0644 $(CATALOGUE_JOBS) "$(DESTDIR)$(JOBDIR)/catalogue/")
	install -d "$(DESTDIR)$(JOBDIR)/pattern" "$(DESTDIR)$(JOBDIR)/examples"
	install -m 0644 jobs/pattern/*.fio "$(DESTDIR)$(JOBDIR)/pattern/"
	install -m 0644 jobs/examples/*.fio "$(DESTDIR)$(JOBDIR)/examples/"
	install -d "$(DESTDIR)$(LIBDIR)/machines"
	install -m 0644 machines/*.toml "$(DESTDIR)$(LIBDIR)/machines/"
	install -d "$(DESTDIR)$(LIBDIR)/sim"
	install -m 0644 sim/physics.def "$(DESTDIR)$(LIBDIR)/sim/"
	install -m 0755 jobs/run-job "$(DESTDIR)$(JOBDIR)/"
	for t in $(TOOLS); do \
		ln -sf "../lib/flagcheck/analysis/$$t" \
			"$(DESTDIR)$(PREFIX)/bin/$$t" || exit 1; \
	done

uninstall:
	for t in $(TOOLS); do rm -f "$(DESTDIR)$(PREFIX)/bin/$$t"; done
	rm -rf "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(PREFIX)/share/flagcheck"

clean:
	rm -rf $(BUILD)/unit $(BUILD)/unit-asan $(BUILD)/unit-tsan \
		$(BUILD)/*.so $(BUILD)/*.ok $(BUILD)/fio-version $(BUILD)/tests \
		$(CALIBRATE) $(BUILD)/flagcheck-calibrate-clang \
		$(SIM) $(BUILD)/flagcheck-sim-clang $(BUILD)/flagcheck-sim-asan \
		$(GEN)

distclean:
	rm -rf $(BUILD)

# fio's own psync, libaio, io_uring against flagcheck on the same backend
# (4k random reads from page cache): the median ratio per backend
.PHONY: bench-backends
bench-backends: all
	$(PYTHON) benchmarks/bench_backends.py --engine $(ENGINE) --dir $(BUILD)
