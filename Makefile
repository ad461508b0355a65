# memtopo build.  Plain GNU make: the project is small, has no optional
# features beyond "nvcc present or not", and make keeps the sanitizer build
# and the CUDA build side by side without a generator step.
#
#   make            build/memtopo (with the CUDA backend when nvcc is found)
#   make test       unit, end-to-end, CLI and schema tests under ASan+UBSan
#   make bench      time the full default report on a GPU (bench/run.sh)
#   make clean

CC      ?= gcc
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
OPT     ?= -O2 -g
# jansson from pkg-config, or from an unpacked Debian package tree (used on
# machines without a package manager: make JANSSON_PREFIX=DIR/usr).
ifdef JANSSON_PREFIX
JANSSON_CFLAGS := -I$(JANSSON_PREFIX)/include
JANSSON_LIBS   := $(firstword $(wildcard $(JANSSON_PREFIX)/lib/*/libjansson.a $(JANSSON_PREFIX)/lib/libjansson.a))
else
JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JANSSON_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
endif
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(JANSSON_CFLAGS)
LDLIBS  += $(JANSSON_LIBS) -lm
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# ---- CUDA: compiled only when nvcc exists --------------------------------
NVCC    ?= $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# Real SASS for every architecture the installed nvcc still supports among
# sm_70..sm_90 (CUDA 13 dropped sm_70), plus compute_90 PTX so newer GPUs
# JIT-compile the kernels.
CUDA_ARCHS_WANTED := 70 75 80 86 89 90
ifneq ($(NVCC),)
CUDA_ARCHS_SUPPORTED := $(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/compute_//p')
CUDA_ARCHS := $(filter $(CUDA_ARCHS_SUPPORTED),$(CUDA_ARCHS_WANTED))
GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
           -gencode=arch=compute_90,code=compute_90
NVFLAGS := -O2 -std=c++17 $(GENCODE) -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
endif

B := build
MODULES := core analysis sim report replay probes cli

# One static library per module so each test links only what it needs.
define module_rules
$(1)_SRC := $$(wildcard src/$(1)/*.c)
$(1)_OBJ := $$(patsubst src/%.c,$(B)/obj/%.o,$$($(1)_SRC))
$(1)_SOBJ := $$(patsubst src/%.c,$(B)/san/%.o,$$($(1)_SRC))
$(B)/libmt_$(1).a: $$($(1)_OBJ)
	@mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$^
$(B)/san/libmt_$(1).a: $$($(1)_SOBJ)
	@mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$^
endef
$(foreach m,$(MODULES),$(eval $(call module_rules,$(m))))

# Presets: presets/*.spec embedded into the sim library.
PRESET_SPECS := $(sort $(wildcard presets/*.spec))
$(B)/gen/presets.c: $(PRESET_SPECS) tools/embed_presets.sh
	@mkdir -p $(@D)
	sh tools/embed_presets.sh $@ $(PRESET_SPECS)
$(B)/obj/gen/presets.o: $(B)/gen/presets.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -c $< -o $@
$(B)/san/gen/presets.o: $(B)/gen/presets.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Isrc -c $< -o $@
sim_OBJ += $(B)/obj/gen/presets.o
sim_SOBJ += $(B)/san/gen/presets.o
$(B)/libmt_sim.a: $(B)/obj/gen/presets.o
$(B)/san/libmt_sim.a: $(B)/san/gen/presets.o

# Link order: dependents first.
LIB_ORDER := cli probes replay report sim analysis core
ALL_LIBS  := $(foreach m,$(LIB_ORDER),$(B)/libmt_$(m).a)
SAN_LIBS  := $(foreach m,$(LIB_ORDER),$(B)/san/libmt_$(m).a)

ifneq ($(NVCC),)
CUDA_OBJ := $(B)/obj/cuda/backend_cuda.o $(B)/obj/cuda/kernels.o
else
CUDA_OBJ := $(B)/obj/cuda_stub/backend_cuda_stub.o
endif

all: $(B)/memtopo

$(B)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
$(B)/san/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -MMD -MP -c $< -o $@
$(B)/obj/cuda/%.o: src/cuda/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@
$(B)/obj/cuda/%.o: src/cuda/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(CUDA_HOME)/include -MMD -MP -c $< -o $@

$(B)/memtopo: $(B)/obj/main.o $(ALL_LIBS) $(CUDA_OBJ)
	$(CC) $(CFLAGS) -o $@ $(B)/obj/main.o $(CUDA_OBJ) $(ALL_LIBS) $(LDLIBS) $(CUDA_LIBS)

# Sanitized binary: sim/replay only (ASan and the CUDA runtime do not mix well).
$(B)/san/memtopo: $(B)/san/main.o $(SAN_LIBS) $(B)/san/cuda_stub/backend_cuda_stub.o
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

# ---- tests ----------------------------------------------------------------
# tests/test_<module>_*.c links the libraries listed for <module>.
TEST_LIBS_analysis := analysis core
TEST_LIBS_core     := core
TEST_LIBS_sim      := sim core
TEST_LIBS_report   := report analysis core
TEST_LIBS_replay   := replay report sim analysis core
TEST_LIBS_probes   := probes replay report sim analysis core
TEST_LIBS_e2e      := cli probes replay report sim analysis core
TEST_SRC  := $(wildcard tests/test_*.c)
TEST_BINS := $(patsubst tests/%.c,$(B)/tests/%,$(TEST_SRC))
test_module = $(word 2,$(subst _, ,$(notdir $(1))))

.SECONDEXPANSION:
$(B)/tests/%: tests/%.c $$(foreach m,$$(TEST_LIBS_$$(call test_module,$$*)),$(B)/san/libmt_$$(m).a) $(B)/san/cuda_stub/backend_cuda_stub.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Isrc -o $@ $< $(B)/san/cuda_stub/backend_cuda_stub.o $(foreach m,$(TEST_LIBS_$(call test_module,$*)),$(B)/san/libmt_$(m).a) $(LDLIBS) -lcmocka

test: $(TEST_BINS) $(B)/san/memtopo $(B)/memtopo
	@bash tests/run_all.sh $(TEST_BINS)

# Debian packages the build and the tests need (sudo when not root).
DEB_PKGS := build-essential pkg-config libjansson-dev libcmocka-dev python3 python3-jsonschema xz-utils
deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  echo "installing: $$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

bench: $(B)/memtopo
	bash bench/run.sh $(BENCH_ARGS)

clean:
	rm -rf $(B)

# Developer tool (tools/capscan.c): capacities at many strides.
$(B)/capscan: tools/capscan.c $(ALL_LIBS) $(CUDA_OBJ)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(CUDA_OBJ) $(ALL_LIBS) $(LDLIBS) $(CUDA_LIBS)

.PHONY: all test bench clean deps
-include $(shell find $(B) -name '*.d' 2>/dev/null)

# ---- CUDA backend self-test (needs nvcc; links core + the cuda objects
# only, so it builds on a machine without jansson/cmocka) --------------------
ifneq ($(NVCC),)
# nvcc gets no -MMD: name the header the kernels and host code share.
$(B)/obj/cuda/kernels.o: src/cuda/kernels.h
$(B)/cuda_selftest: tools/cuda_selftest.c $(B)/libmt_core.a $(CUDA_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(CUDA_OBJ) $(B)/libmt_core.a -lm $(CUDA_LIBS)
cuda-selftest: $(B)/cuda_selftest
.PHONY: cuda-selftest
endif
