# cohmod - one non-recursive Makefile.
#
#   make            library (build/libcohmod.a) and binary (build/cohmod)
#   make deps       install the missing Debian packages
#   make test       every Check suite, the CLI end-to-end tests included
#   make check-asan the same suite under AddressSanitizer + UBSan
#   make bench      speed figures
#   make demo       deps, build, then `cohmod study` on the default machine
#
# Sources are found by wildcard: a new module, test suite (tests/check_*.c),
# benchmark (tests/bench_*.c) or subcommand (cli/cmd_*.c) needs no edit here.

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

CFLAGS  ?=
CFLAGS  += -std=c11 -Wall -Wextra -Werror $(OPT) $(SANFLAGS) \
           -D_POSIX_C_SOURCE=200809L -I. -I$(BUILD) -MMD -MP
LDFLAGS += $(SANFLAGS)

LIB_SRC   := $(wildcard data/*.c solvers/*.c models/*.c sim/*.c plots/*.c study/*.c)
CLI_SRC   := $(wildcard cli/*.c)
# cmd_model_<name>.c are models of `cohmod model`, not commands.
CMD_SRC   := $(filter-out cli/cmd_model_%.c,$(wildcard cli/cmd_*.c))
SUITE_SRC := $(wildcard tests/check_*.c)
BENCH_SRC := $(wildcard tests/bench_*.c)
PRESETS   := $(wildcard data/configs/*.csv)

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/presets.o
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ  := $(SUITE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/testutil.o \
             $(BUILD)/tests/run_tests.o
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/run_bench.o

LIB   := $(BUILD)/libcohmod.a
BIN   := $(BUILD)/cohmod
TESTS := $(BUILD)/run_tests
BENCH := $(BUILD)/run_bench

.PHONY: all deps test check-asan bench demo clean
all: $(LIB) $(BIN)

deps:
	sh scripts/deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

# Registries generated from the file lists: embedded presets, subcommands,
# test suites and benchmarks.
$(BUILD)/gen/presets.c: scripts/embed_presets.sh $(PRESETS)
	@mkdir -p $(dir $@)
	sh scripts/embed_presets.sh $(PRESETS) > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/presets.o: $(BUILD)/gen/presets.c
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
# The shipped data (data/datadir.h): the source tree's, by absolute path,
# so the binary finds it from any working directory.
$(BUILD)/data/datadir.o: CFLAGS += -DCM_DATA_DIR='"$(abspath data)"'
$(BUILD)/cli/main.o: $(BUILD)/gen/commands.h
$(BUILD)/tests/run_tests.o: $(BUILD)/gen/suites.h
$(BUILD)/tests/run_bench.o: $(BUILD)/gen/benches.h

$(LIB): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

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

# The CLI tests run the binary named by COHMOD_BIN from the source root.
test: $(BIN) $(TESTS) $(TRACES)
	COHMOD_BIN=$(abspath $(BIN)) COHMOD_TRACES=$(abspath $(BUILD)/traces) \
	$(TESTS)

# LeakSanitizer stays on; suppressions cover only allocations made inside
# PLplot's and cairo's own one-time initialisation.  The test cases'
# timeouts guard against hangs, and sanitized code runs 3-4x slower (the
# study suite: 43 s plain, 165 s sanitized, its determinism case over
# its 120 s), so they are tripled.
check-asan:
	$(MAKE) BUILD=build-asan SAN=1 all build-asan/run_tests \
	  build-asan/traces/.stamp
	COHMOD_BIN=$(abspath build-asan/cohmod) \
	COHMOD_TRACES=$(abspath build-asan/traces) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	CK_TIMEOUT_MULTIPLIER=3 \
	build-asan/run_tests

bench: $(BENCH)
	$(BENCH)

demo:
	$(MAKE) deps
	$(MAKE) all
	$(BIN) study

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
