# cohmod - one non-recursive Makefile.
#
#   make            library (build/libcohmod.a) and binary (build/cohmod)
#   make deps       install the missing Debian packages
#   make test       every Check suite, the CLI end-to-end tests included
#   make check-asan the same suite under AddressSanitizer + UBSan
#   make bench      speed figures
#   make demo       deps, build, then `cohmod study` on the default machine
#   make install    binary, libraries, headers, cohmod.pc, man page, bash
#                   completion and data under PREFIX (default /usr/local;
#                   DESTDIR for staging); make uninstall removes them
#   make fuzz       every libFuzzer target FUZZ_S seconds (clang; tests/fuzz)
#   make check-valgrind  a smoke set of commands under valgrind memcheck
#   make coverage   line coverage of the library by `make test`, per folder
#
# Sources are found by wildcard: a new module, test suite (tests/check_*.c),
# benchmark (tests/bench_*.c) or subcommand (cli/cmd_*.c) needs no edit here.

VERSION := 0.1.0
BUILD   ?= build
SAN     ?= 0
OPT     ?= -O2
PKGS    := gsl plplot

# Lazy (=) so that `make deps` works before pkg-config knows the packages.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lcsv -lm
CHECK_LIBS = $(shell pkg-config --libs check)

ifeq ($(SAN),1)
OPT      := -O1 -g -fno-omit-frame-pointer
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
endif
# The fuzz build: everything instrumented for libFuzzer's coverage and the
# sanitizers; only the fuzz binaries link libFuzzer itself.
ifeq ($(FUZZ),1)
CC       := clang
OPT      := -O1 -g -fno-omit-frame-pointer
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined \
            -fno-sanitize-recover=all
endif
# Coverage: gcov counters in every object; `make coverage` reads them.
ifeq ($(COV),1)
OPT      := -O0 -g --coverage
LDFLAGS  += --coverage
endif

CFLAGS  ?=
# -fPIC: the same objects make libcohmod.a and libcohmod.so; without
# semantic interposition the compiler still inlines and calls directly
# within the library, as it would without -fPIC.
CFLAGS  += -std=c11 -Wall -Wextra -Werror $(OPT) $(SANFLAGS) \
           -fPIC -fno-semantic-interposition \
           -D_POSIX_C_SOURCE=200809L -I. -I$(BUILD) -MMD -MP
LDFLAGS += $(SANFLAGS)
# clang (only) sees study/validate_lifetime.c read rate and cycles on a
# path that then returns an error: a warning, not an error, there.
ifeq ($(FUZZ),1)
CFLAGS  += -Wno-sometimes-uninitialized
endif

LIB_SRC   := $(wildcard data/*.c solvers/*.c models/*.c sim/*.c plots/*.c study/*.c)
CLI_SRC   := $(wildcard cli/*.c)
# cmd_model_<name>.c are models of `cohmod model`, not commands.
CMD_SRC   := $(filter-out cli/cmd_model_%.c,$(wildcard cli/cmd_*.c))
SUITE_SRC := $(wildcard tests/check_*.c)
BENCH_SRC := $(wildcard tests/bench_*.c)
PRESETS   := $(wildcard data/configs/*.csv)

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/presets.o
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)
# The fuzz targets (tests/fuzz/) run in run_tests too, over their corpora;
# the CLI target needs the CLI without its main, which it calls as
# cohmod_main.
FUZZ_SRC  := $(filter-out tests/fuzz/libfuzzer.c,$(wildcard tests/fuzz/*.c))
FUZZ_TARGETS := $(shell sed -n 's/^ *X(\([a-z_]*\)).*/\1/p' tests/fuzz/fuzz.h)
FUZZ_OBJ  := $(FUZZ_SRC:%.c=$(BUILD)/%.o) \
             $(filter-out $(BUILD)/cli/main.o,$(CLI_SRC:%.c=$(BUILD)/%.o)) \
             $(BUILD)/cli/main_entry.o
TEST_OBJ  := $(SUITE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/testutil.o \
             $(BUILD)/tests/figcheck.o $(BUILD)/tests/run_tests.o $(FUZZ_OBJ)
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/run_bench.o

LIB   := $(BUILD)/libcohmod.a
SOLIB := $(BUILD)/libcohmod.so
SONAME := libcohmod.so.$(firstword $(subst ., ,$(VERSION)))
BIN   := $(BUILD)/cohmod
TESTS := $(BUILD)/run_tests
BENCH := $(BUILD)/run_bench
MAN   := $(BUILD)/cohmod.1

.PHONY: all deps test check-asan bench demo clean man install uninstall \
        FORCE fuzz fuzz-binaries check-valgrind coverage
all: $(LIB) $(BIN)

deps:
	sh scripts/deps.sh

# The compiler and its flags, rewritten only when they change: objects
# depend on it, so a changed flag (-fPIC, a sanitizer) rebuilds them.
FLAGS_STAMP := $(BUILD)/gen/flags
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CFLAGS) $(PKG_CFLAGS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

# Registries generated from the file lists: embedded presets, subcommands,
# test suites and benchmarks.
$(BUILD)/gen/presets.c: scripts/embed_presets.sh $(PRESETS)
	@mkdir -p $(dir $@)
	sh scripts/embed_presets.sh $(PRESETS) > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/presets.o: $(BUILD)/gen/presets.c $(FLAGS_STAMP)
	$(CC) $(CFLAGS) -c $< -o $@
$(BUILD)/gen/commands.h: $(CMD_SRC) Makefile
	@mkdir -p $(dir $@)
	for f in $(CMD_SRC); do n=$$(basename $$f .c); n=$${n#cmd_}; \
	  echo "CLI_COMMAND($$n)"; done > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/suites.h: $(SUITE_SRC) Makefile
	@mkdir -p $(dir $@)
	for f in $(SUITE_SRC); do n=$$(basename $$f .c); n=$${n#check_}; \
	  echo "TEST_SUITE($$n)"; done > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/benches.h: $(BENCH_SRC) Makefile
	@mkdir -p $(dir $@)
	for f in $(BENCH_SRC); do n=$$(basename $$f .c); n=$${n#bench_}; \
	  echo "BENCH($$n)"; done > $@.tmp && mv $@.tmp $@
# Rewritten only when it changes, so a new VERSION rebuilds main.o alone.
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define COHMOD_VERSION "$(VERSION)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
# The shipped data (data/datadir.h): the source tree's, by absolute path,
# so the binary finds it from any working directory.
$(BUILD)/data/datadir.o: CFLAGS += -DCM_DATA_DIR='"$(abspath data)"'
$(BUILD)/cli/main.o: $(BUILD)/gen/commands.h $(BUILD)/gen/version.h
$(BUILD)/cli/main_entry.o: cli/main.c $(BUILD)/gen/commands.h \
                          $(BUILD)/gen/version.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Dmain=cohmod_main -c $< -o $@
$(BUILD)/tests/run_tests.o: $(BUILD)/gen/suites.h
$(BUILD)/tests/run_bench.o: $(BUILD)/gen/benches.h

$(LIB): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

# The shared library carries its dependencies (GSL, PLplot, libcsv), so a
# program links it with -lcohmod alone.
$(SOLIB): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) $^ $(PKG_LIBS) -o $@

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) $(CLI_OBJ) $(LIB) $(PKG_LIBS) -o $@

$(TESTS): $(TEST_OBJ) $(LIB)
	$(CC) $(LDFLAGS) $(TEST_OBJ) $(LIB) $(PKG_LIBS) $(CHECK_LIBS) -o $@

$(BENCH): $(BENCH_OBJ) $(LIB)
	$(CC) $(LDFLAGS) $(BENCH_OBJ) $(LIB) $(PKG_LIBS) -o $@

# Real valgrind traces for the accuracy tests, made once per build tree.
TRACES := $(BUILD)/traces/.stamp
$(TRACES): scripts/make_traces.sh
	sh scripts/make_traces.sh $(dir $@)
	touch $@

# The CLI tests run the binary named by COHMOD_BIN from the source root;
# first, the layers include only what lies below them.  check_install runs
# `make install` with COHMOD_MAKE_ARGS: everything it installs is built
# first, so the install test compiles nothing.
test: $(BIN) $(TESTS) $(TRACES) $(MAN) $(SOLIB)
	sh scripts/check_layers.sh
	COHMOD_BIN=$(abspath $(BIN)) COHMOD_TRACES=$(abspath $(BUILD)/traces) \
	COHMOD_MAKE_ARGS="BUILD=$(BUILD) SAN=$(SAN)" $(TESTS)

# LeakSanitizer stays on; suppressions cover only allocations made inside
# PLplot's and cairo's own one-time initialisation.  The test cases'
# timeouts guard against hangs, and sanitized code runs 3-4x slower (the
# study suite: 43 s plain, 165 s sanitized, its determinism case over
# its 120 s), so they are tripled.
check-asan:
	$(MAKE) BUILD=build-asan SAN=1 all build-asan/run_tests \
	  build-asan/traces/.stamp build-asan/cohmod.1 build-asan/libcohmod.so
	COHMOD_BIN=$(abspath build-asan/cohmod) \
	COHMOD_MAKE_ARGS="BUILD=build-asan SAN=1" \
	COHMOD_TRACES=$(abspath build-asan/traces) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	CK_TIMEOUT_MULTIPLIER=3 \
	build-asan/run_tests

# The manual page, from the binary's help texts (scripts/make_man.sh).
man: $(MAN)
$(MAN): $(BIN) scripts/make_man.sh
	sh scripts/make_man.sh $(BIN) $@

# ---- install ----------------------------------------------------------
# PREFIX/bin/cohmod, lib/libcohmod.{a,so}, include/cohmod/ (the public
# headers, scripts/install_headers.sh), lib/pkgconfig/cohmod.pc,
# share/man/man1/cohmod.1, share/bash-completion/completions/cohmod and
# share/cohmod/ (the presets and the study's trace).  The library's own
# dependencies are private to it: a program needs only
# `pkg-config --cflags --libs cohmod` (a sanitized build adds its flags).
PREFIX  ?= /usr/local
DESTDIR ?=
ROOT    := $(DESTDIR)$(PREFIX)
LIBDIR  := $(ROOT)/lib
DATADIR := $(ROOT)/share/cohmod
COMPDIR := $(ROOT)/share/bash-completion/completions

install: $(BIN) $(LIB) $(SOLIB) $(MAN)
	install -d $(ROOT)/bin $(LIBDIR)/pkgconfig $(ROOT)/include/cohmod \
	  $(ROOT)/share/man/man1 $(COMPDIR) $(DATADIR)/configs $(DATADIR)/traces
	install -m 755 $(BIN) $(ROOT)/bin/cohmod
	install -m 644 $(LIB) $(LIBDIR)/libcohmod.a
	install -m 755 $(SOLIB) $(LIBDIR)/libcohmod.so.$(VERSION)
	ln -sf libcohmod.so.$(VERSION) $(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(LIBDIR)/libcohmod.so
	sh scripts/install_headers.sh $(ROOT)/include/cohmod
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	  -e 's|@SANFLAGS@|$(SANFLAGS)|' -e 's/ *$$//' scripts/cohmod.pc.in \
	  > $(LIBDIR)/pkgconfig/cohmod.pc
	install -m 644 $(MAN) $(ROOT)/share/man/man1/cohmod.1
	install -m 644 scripts/cohmod.bash $(COMPDIR)/cohmod
	install -m 644 $(PRESETS) $(DATADIR)/configs
	install -m 644 data/traces/sort.lackey $(DATADIR)/traces
	install -m 644 data/validity.csv $(DATADIR)

uninstall:
	rm -f $(ROOT)/bin/cohmod $(LIBDIR)/libcohmod.a $(LIBDIR)/libcohmod.so \
	  $(LIBDIR)/$(SONAME) $(LIBDIR)/libcohmod.so.$(VERSION) \
	  $(LIBDIR)/pkgconfig/cohmod.pc $(ROOT)/share/man/man1/cohmod.1 \
	  $(COMPDIR)/cohmod
	rm -rf $(ROOT)/include/cohmod $(DATADIR)

bench: $(BENCH)
	$(BENCH)

# Line coverage of the library by the whole suite, per folder
# (scripts/coverage.sh, gcov), on an -O0 --coverage build; the report is
# printed whether or not every test passed, and make fails if one did not.
coverage:
	$(MAKE) BUILD=build-cov COV=1 all build-cov/run_tests \
	  build-cov/traces/.stamp build-cov/cohmod.1 build-cov/libcohmod.so
	find build-cov -name '*.gcda' -delete
	status=0; \
	COHMOD_BIN=$(abspath build-cov/cohmod) \
	COHMOD_TRACES=$(abspath build-cov/traces) \
	COHMOD_MAKE_ARGS="BUILD=build-cov COV=1" \
	CK_TIMEOUT_MULTIPLIER=3 build-cov/run_tests || status=$$?; \
	sh scripts/coverage.sh build-cov; exit $$status

# A smoke set of commands under valgrind memcheck (scripts/check_valgrind.sh),
# on a build with debug information: no error, no definite leak.
check-valgrind:
	$(MAKE) BUILD=build-vg OPT="-O1 -g" all
	sh scripts/check_valgrind.sh build-vg/cohmod

# libFuzzer, one binary per target of tests/fuzz/fuzz.h, each running
# FUZZ_S seconds from the committed seeds; new inputs go to
# build-fuzz/corpus/, findings to build-fuzz/findings/ and fail the run.
FUZZ_S ?= 60
fuzz:
	$(MAKE) FUZZ=1 BUILD=build-fuzz fuzz-binaries
	sh scripts/fuzz.sh build-fuzz $(FUZZ_S) $(FUZZ_TARGETS)

fuzz-binaries: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)

# Static patterns, for the targets alone: a pattern rule for any file
# under $(BUILD)/fuzz/ would also claim the entries' .d files, which make
# then tries to rebuild as fuzz binaries (entry_entry_cli.d.o, ...).
FUZZ_ENTRIES := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/entry_%.o)
.SECONDARY: $(FUZZ_ENTRIES)
$(FUZZ_ENTRIES): $(BUILD)/fuzz/entry_%.o: tests/fuzz/libfuzzer.c \
                 $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DFUZZ_ENTRY=fuzz_$* -c $< -o $@

$(FUZZ_TARGETS:%=$(BUILD)/fuzz/%): $(BUILD)/fuzz/%: \
                 $(BUILD)/fuzz/entry_%.o $(FUZZ_OBJ) $(LIB)
	$(CC) -fsanitize=fuzzer,address,undefined $^ $(PKG_LIBS) -o $@

demo:
	$(MAKE) deps
	$(MAKE) all
	$(BIN) study

clean:
	rm -rf build build-asan build-fuzz build-vg build-cov

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
