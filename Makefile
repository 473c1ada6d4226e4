# Build of the driving-simulator platform.
#
#   make            every executable into bin/
#   make test       unit, integration (real processes, loopback) and script tests; with
#                   -jN they run N at a time (default: one per core, at most 4), each
#                   under SIM_TEST_TIMEOUT s (default 300; 600 under make asan)
#   make run        a session with the default scenario (headless when there is no display)
#   make bench      benchmarks, each beside its baseline, printing the ratio
#   make asan       the whole test suite under AddressSanitizer + UBSan (asan-unit: unit tests only)
#   make fuzz       libFuzzer targets, FUZZ_SECONDS each (default 30)
#
# Layout the rules rely on (add files, not rules):
#   common/<component>/*.c   -> build/libsim.a, the shared library (prefix sim_); each
#                               component's component.mk says which components (_USES) and
#                               pkg-config names (_PKGS) it may use: only those are on its
#                               include path, and scripts/check-layers.sh checks every include
#   <dir>/main.c             -> bin/<dir>, built from every .c in <dir>;
#                               <dir>/module.mk may set <dir>_PKGS (extra pkg-config names)
#   tests/unit/test_*.c      -> unit tests;  tests/integration/test_*.c -> integration tests
#   tests/unit/test_<dir>_*.c   also linked with <dir>/*.c but main.c (module logic)
#   tests/support/*.c        -> helpers linked into every test
#   bench/bench_*.c          -> benchmarks (and bench/bench_console.mjs, node);  fuzz/fuzz_*.c -> libFuzzer targets

# Public targets first check the Debian packages (installing them as root) and then
# re-enter make, so that pkg-config is asked only once the packages are there. All the
# goals go to one inner make: one inner make per goal ran side by side under -j and
# built build/libsim.a twice at once ("make -j2 bin/simctl build/tests/x" then failed
# to link now and then: "libsim.a: file format not recognized").
ifndef SIM_DEPS_OK
SIM_GOALS := $(or $(MAKECMDGOALS),all)
.DEFAULT_GOAL := $(firstword $(SIM_GOALS))
Makefile: ;
$(firstword $(SIM_GOALS)): FORCE
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory SIM_DEPS_OK=1 $(SIM_GOALS)
ifneq ($(words $(SIM_GOALS)),1)
$(wordlist 2,$(words $(SIM_GOALS)),$(SIM_GOALS)): $(firstword $(SIM_GOALS)) ; @:
endif
.PHONY: FORCE $(SIM_GOALS)
FORCE: ;
else

BUILD    ?= build
BIN      ?= bin
SANITIZE ?=
FUZZ_SECONDS ?= 30
SCENARIO ?= scenarios/lane-change.json

PKG_CORE := libuv libcjson nanomsg sqlite3 libpng libxml-2.0
PKG_ALL  := $(PKG_CORE) sdl2 epoxy cairo assimp libzstd zlib libprotobuf-c libavformat libavcodec libswscale libavutil
# (an empty list asks nothing: pkg-config would complain for the pure components)
pc_cflags = $(if $(strip $(1)),$(shell pkg-config --cflags $(1)))
pc_libs   = $(if $(strip $(1)),$(shell pkg-config --libs $(1)))

COMPONENTS := $(patsubst common/%/component.mk,%,$(wildcard common/*/component.mk))
include $(wildcard common/*/component.mk)
COMMON_INC := $(addprefix -Icommon/,$(COMPONENTS))

WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wstrict-prototypes -Wvla
CFLAGS   ?= -O2 -g
# LIB_CFLAGS and INC are set per directory below: a component compiles with its own
# include path only, modules with the core packages and their module.mk's, the rest
# (tests, benchmarks) with everything.
INC        := $(COMMON_INC) -Itests/support
LIB_CFLAGS := $(call pc_cflags,$(PKG_ALL))
ALL_CFLAGS = -std=c17 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(INC) -MMD -MP $(LIB_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS)
ifneq ($(SANITIZE),)
ALL_CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_LDFLAGS += -fsanitize=address,undefined
endif
ifneq ($(WERROR),)
ALL_CFLAGS += -Werror
endif

COMMON_SRC := $(wildcard $(addsuffix /*.c,$(addprefix common/,$(COMPONENTS))))
# OSI (common/osi, docs/osi.md): protoc-c makes C from the project's .proto files into
# $(BUILD)/gen/osi (never checked in), compiled into libsim with common/osi.
OSI_PROTO   := $(wildcard common/osi/proto/*.proto)
OSI_GEN     := $(BUILD)/gen/osi
OSI_GEN_SRC := $(patsubst common/osi/proto/%.proto,$(OSI_GEN)/%.pb-c.c,$(OSI_PROTO))
OSI_GEN_OBJ := $(OSI_GEN_SRC:.c=.o)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o) $(OSI_GEN_OBJ)
LIB        := $(BUILD)/libsim.a

EXES := $(patsubst %/main.c,%,$(wildcard */main.c))
-include $(wildcard */module.mk)

define component_flags
$(BUILD)/common/$(1)/%.o: INC := $(addprefix -Icommon/,$(1) $($(1)_USES))
$(BUILD)/common/$(1)/%.o: LIB_CFLAGS := $(call pc_cflags,$($(1)_PKGS))
endef
$(foreach c,$(COMPONENTS),$(eval $(call component_flags,$(c))))
$(BUILD)/common/osi/%.o: INC += -I$(OSI_GEN)
define module_flags
$(BUILD)/$(1)/%.o: INC := $(COMMON_INC)
$(BUILD)/$(1)/%.o: LIB_CFLAGS := $(call pc_cflags,$(PKG_CORE) $($(1)_PKGS))
endef
$(foreach e,$(EXES),$(eval $(call module_flags,$(e))))

SUPPORT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/support/*.c))
UNIT_TESTS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
INTEG_TESTS := $(patsubst tests/integration/%.c,$(BUILD)/tests/%,$(wildcard tests/integration/test_*.c))
BENCHES     := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/bench_*.c))
TEST_LIBS   := $(call pc_libs,$(PKG_ALL) cmocka) -lm -lpthread

.PHONY: all test unit integration run bench asan asan-unit fuzz clean
.SECONDARY:
all: $(addprefix $(BIN)/,$(EXES))

# V=1 shows the full command lines.
Q := $(if $(V),,@)
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# The topic names (SIM_TOPIC_* macros) are made from the topic table (docs/protocol.md,
# "How to add a topic"); checked in, remade when the table changes.
common/protocol/sim_topic_names.h: common/protocol/sim_topics.def scripts/gen-topic-names.sh
	sh scripts/gen-topic-names.sh $< $@

# One protoc-c run writes every .pb-c.c/.h (a stamp stands for them all); common/osi's
# objects wait for the headers.
$(OSI_GEN)/.stamp: $(OSI_PROTO) scripts/gen-osi.sh
	@mkdir -p $(OSI_GEN)
	@$(if $(V),,echo "  PROTOC-C common/osi/proto")
	$(Q)sh scripts/gen-osi.sh $(OSI_GEN) $(OSI_PROTO)
	@touch $@
$(OSI_GEN_SRC): $(OSI_GEN)/.stamp ;
$(patsubst %.c,$(BUILD)/%.o,$(wildcard common/osi/*.c)): $(OSI_GEN)/.stamp
# (protoc-c's C, not the project's: built without the project's warnings)
comma := ,
OSI_SAN := $(if $(SANITIZE),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer)
$(OSI_GEN)/%.pb-c.o: $(OSI_GEN)/%.pb-c.c
	@$(if $(V),,echo "  CC $<")
	$(Q)$(CC) -std=c17 $(CFLAGS) $(OSI_SAN) -I$(OSI_GEN) $(call pc_cflags,libprotobuf-c) -MMD -MP -c $< -o $@

$(LIB): $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

define exe_rule
$(BIN)/$(1): $(patsubst %.c,$(BUILD)/%.o,$(wildcard $(1)/*.c)) $(LIB)
	@mkdir -p $(BIN)
	@$(if $(V),,echo "  LD $$@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $$@ $$^ $(call pc_libs,$(PKG_CORE) $($(1)_PKGS)) -lm -lpthread
endef
$(foreach e,$(EXES),$(eval $(call exe_rule,$(e))))

# A module's own logic is unit-tested without starting its process: a unit test named
# tests/unit/test_<dir>_*.c (a '-' in <dir> written '_') is compiled with <dir> on its
# include path and linked with <dir>'s objects but main.o.
define module_unit_tests
$(BUILD)/tests/unit/test_$(subst -,_,$(1))_%.o: INC := $(COMMON_INC) -Itests/support -I$(1)
$(BUILD)/tests/unit/test_$(subst -,_,$(1))_%.o: LIB_CFLAGS := $(call pc_cflags,$(PKG_ALL) $($(1)_PKGS))
$(foreach t,$(wildcard tests/unit/test_$(subst -,_,$(1))_*.c),
$(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(t)): $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(1)/main.c,$(wildcard $(1)/*.c)))
$(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(t)): TEST_LIBS := $(TEST_LIBS) $(call pc_libs,$($(1)_PKGS)))
endef
$(foreach e,$(EXES),$(eval $(call module_unit_tests,$(e))))

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(SUPPORT_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(filter-out $(LIB),$^) $(LIB) $(TEST_LIBS)
$(BUILD)/tests/%: $(BUILD)/tests/integration/%.o $(SUPPORT_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS)
$(BUILD)/bench/%: $(BUILD)/bench/%.o $(SUPPORT_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS)

unit: $(UNIT_TESTS)
	@sh scripts/run-tests.sh unit $(UNIT_TESTS)
integration: all $(INTEG_TESTS)
	@SIM_BIN=$(abspath $(BIN)) SIM_ROOT=$(CURDIR) sh scripts/run-tests.sh integration $(INTEG_TESTS)
SCRIPT_TESTS := $(wildcard tests/scripts/test_*.sh)
# Tests that time real-time behaviour (force-feedback fades within tens of ms) run alone,
# after the others, even under make -jN test.
SIM_TEST_SERIAL ?= test_input_node test_latency
# The longest (about 60-90 s each on the idle 2-core machine) start first.
SIM_TEST_FIRST ?= test_session_faults test_console.sh test_xosc_shared_2.sh test_render_screenshots.sh \
                  test_xosc_shared.sh
# The browser suite gets twice the time limit (scripts/run-tests.sh).
SIM_TEST_LONG ?= test_console.sh
export SIM_TEST_SERIAL SIM_TEST_FIRST SIM_TEST_LONG
test: all $(UNIT_TESTS) $(INTEG_TESTS)
	@SIM_BIN=$(abspath $(BIN)) SIM_ROOT=$(CURDIR) sh scripts/run-tests.sh all $(INTEG_TESTS) $(SCRIPT_TESTS) $(UNIT_TESTS)

run: all
	$(BIN)/simctl run $(SCENARIO)

bench: all $(BENCHES)
	@SIM_BIN=$(abspath $(BIN)) SIM_ROOT=$(CURDIR) sh scripts/run-bench.sh $(BENCHES)
	@echo "== bench_console (node; pages in chromium through bin/console)"
	@SIM_BIN=$(abspath $(BIN)) SIM_ROOT=$(CURDIR) node bench/bench_console.mjs

# The unit tests alone under ASan+UBSan (what CI runs: the whole make asan takes 35-40 min
# on 2 cores, and CI is to stay well under an hour).
asan-unit:
	@SIM_TEST_TIMEOUT=$${SIM_TEST_TIMEOUT:-600} $(MAKE) --no-print-directory BUILD=build/asan BIN=build/asan/bin SANITIZE=1 CFLAGS="-O1 -g" unit

# Sanitized binaries run 2-3 times slower: each test gets twice the time limit, and the
# browser suite's own deadlines are stretched (SIM_TEST_SLOWDOWN).
asan:
	@SIM_TEST_TIMEOUT=$${SIM_TEST_TIMEOUT:-600} SIM_TEST_SLOWDOWN=3 $(MAKE) --no-print-directory BUILD=build/asan BIN=build/asan/bin SANITIZE=1 CFLAGS="-O1 -g" test

# Fuzz targets: libsim rebuilt by clang with coverage instrumentation.
FUZZ_CC     := clang
FUZZ_FLAGS  := -std=c17 -D_GNU_SOURCE -g -O1 $(COMMON_INC) -I$(OSI_GEN) -fsanitize=fuzzer-no-link,address,undefined \
               $(call pc_cflags,$(PKG_ALL))
FUZZ_OBJ    := $(COMMON_SRC:%.c=$(BUILD)/fuzzlib/%.o) $(OSI_GEN_OBJ)
# (named one by one: a pattern rule without a recipe adds no prerequisite, and a fresh
# clone's make fuzz compiled sim_osi.c before its generated headers existed)
$(patsubst %.c,$(BUILD)/fuzzlib/%.o,$(wildcard common/osi/*.c)): $(OSI_GEN)/.stamp
FUZZERS     := $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard fuzz/fuzz_*.c))
$(BUILD)/fuzzlib/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -MMD -MP -c $< -o $@
$(BUILD)/fuzz/%: fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(call pc_libs,$(PKG_ALL)) -lm -lpthread
# The dispatcher's hello and ownership rules (dispatcher/route.c, pure) fuzzed as well.
$(BUILD)/fuzz/fuzz_dispatcher_hello: fuzz/fuzz_dispatcher_hello.c $(BUILD)/fuzzlib/dispatcher/route.o $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Idispatcher -fsanitize=fuzzer -o $@ $^ $(call pc_libs,$(PKG_ALL)) -lm -lpthread
fuzz: $(FUZZERS)
	@sh scripts/run-fuzz.sh $(FUZZ_SECONDS) $(FUZZERS)

clean:
	rm -rf build bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
endif
