# memtopo build.  Plain GNU make: the project is small, has no optional
# features beyond "nvcc present or not", and make keeps the sanitizer build
# and the CUDA build side by side without a generator step.
#
#   make            build/memtopo (with the CUDA backend when nvcc is found)
#   make test       unit, end-to-end, CLI and schema tests under ASan+UBSan
#   make bench      time the full default report on a GPU (bench/run.sh)
#   make fuzz       the libFuzzer targets (fuzz/fuzz.mk, fuzz/README.md)
#   make install    (and uninstall, man, deb: mk/install.mk)
#   make clean

# Build on every core unless the command line says otherwise (make -jN
# wins over this): the CUDA backend compiles each kernel file for five
# architectures plus PTX, minutes of nvcc time when run one file at a time.
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)

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
LDLIBS  += $(JANSSON_LIBS) -lm -lpthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# ---- CUDA: compiled only when nvcc exists --------------------------------
NVCC    ?= $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# Real SASS for every architecture the installed nvcc still supports among
# sm_70, sm_75, sm_80 and sm_90 (CUDA 13 dropped sm_70), plus compute_90 PTX
# so newer GPUs JIT-compile the kernels.  sm_86 and sm_89 GPUs run the sm_80
# SASS as it is (a cubin runs on later minor versions of its major), so
# compiling them apart only cost a third more nvcc time (the stream kernels'
# template variants dominate a clean build); CUDA_ARCHS_WANTED="... 86 89"
# adds them.
CUDA_ARCHS_WANTED := 70 75 80 90
ifneq ($(NVCC),)
CUDA_ARCHS_SUPPORTED := $(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/compute_//p')
CUDA_ARCHS := $(filter $(CUDA_ARCHS_SUPPORTED),$(CUDA_ARCHS_WANTED))
GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
           -gencode=arch=compute_90,code=compute_90
NVFLAGS := -O2 -std=c++17 --threads 0 $(GENCODE) -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
endif

# ---- MPI: the fleet transport, compiled only when mpicc exists -------------
# (Open MPI from Debian: libopenmpi-dev, openmpi-bin).  Without it
# src/fleet/fleet_comm_none.c answers --fleet with "built without MPI".
MPICC ?= $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell $(MPICC) --showme:link 2>/dev/null)
endif

B := build
# Modules, each a folder of src/ and a static library (dependencies point
# right to left in LIB_ORDER below).
MODULES := core backend topology analysis sim report recording probes fleet model cli

# The default goal: the tool itself (this rule must stay the first one).
all: $(B)/memtopo

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
sim_OBJ += $(B)/obj/gen/presets.o
sim_SOBJ += $(B)/san/gen/presets.o
$(B)/libmt_sim.a: $(B)/obj/gen/presets.o
$(B)/san/libmt_sim.a: $(B)/san/gen/presets.o

# Registries (tools/gen_registry.sh): every `const mt_probe_desc X = ...`
# in src/probes and every `const mt_backend_entry X = ...` in a backend
# source that is built.  Adding a probe or a backend is adding a file.
BACKEND_SRC_NOCUDA := $(sort $(wildcard src/sim/*.c src/recording/*.c))
ifneq ($(NVCC),)
BACKEND_SRC := $(BACKEND_SRC_NOCUDA) $(sort $(wildcard src/cuda/*.c))
else
BACKEND_SRC := $(BACKEND_SRC_NOCUDA)
endif
$(B)/gen/probe_registry.c: $(probes_SRC) tools/gen_registry.sh
	@mkdir -p $(@D)
	sh tools/gen_registry.sh $@ mt_probe_desc mt_probe_registry probes/probe.h $(sort $(probes_SRC))
$(B)/gen/derivation_registry.c: $(probes_SRC) tools/gen_registry.sh
	@mkdir -p $(@D)
	sh tools/gen_registry.sh $@ mt_derivation_desc mt_derivation_registry probes/probe.h $(sort $(probes_SRC))
$(B)/gen/backend_registry.c: $(BACKEND_SRC) tools/gen_registry.sh
	@mkdir -p $(@D)
	sh tools/gen_registry.sh $@ mt_backend_entry mt_backend_registry backend/backend.h $(BACKEND_SRC)
$(B)/gen/backend_registry_nocuda.c: $(BACKEND_SRC_NOCUDA) tools/gen_registry.sh
	@mkdir -p $(@D)
	sh tools/gen_registry.sh $@ mt_backend_entry mt_backend_registry backend/backend.h $(BACKEND_SRC_NOCUDA)
$(B)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -c $< -o $@
$(B)/san/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Isrc -c $< -o $@
probes_OBJ += $(B)/obj/gen/probe_registry.o $(B)/obj/gen/derivation_registry.o
probes_SOBJ += $(B)/san/gen/probe_registry.o $(B)/san/gen/derivation_registry.o
$(B)/libmt_probes.a: $(B)/obj/gen/probe_registry.o $(B)/obj/gen/derivation_registry.o
$(B)/san/libmt_probes.a: $(B)/san/gen/probe_registry.o $(B)/san/gen/derivation_registry.o
# The backend registry is linked as an object into the programs (it refers
# to every backend, so it cannot sit in one module's library): the optimised
# build lists cuda when nvcc built it, the sanitized build (no CUDA) does not.
REG_OBJ  := $(B)/obj/gen/backend_registry.o
SREG_OBJ := $(B)/san/gen/backend_registry_nocuda.o

# Link order: dependents first.
LIB_ORDER := cli model fleet probes recording report sim analysis topology backend core
ALL_LIBS  := $(foreach m,$(LIB_ORDER),$(B)/libmt_$(m).a)
SAN_LIBS  := $(foreach m,$(LIB_ORDER),$(B)/san/libmt_$(m).a)

# The CUDA backend: every .c and .cu of src/cuda, only when nvcc exists.
ifneq ($(NVCC),)
CUDA_OBJ := $(patsubst src/%.c,$(B)/obj/%.o,$(wildcard src/cuda/*.c)) \
            $(patsubst src/%.cu,$(B)/obj/%.o,$(wildcard src/cuda/*.cu))
else
CUDA_OBJ :=
endif

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

$(B)/memtopo: $(B)/obj/main.o $(REG_OBJ) $(ALL_LIBS) $(CUDA_OBJ)
	$(CC) $(CFLAGS) -o $@ $(B)/obj/main.o $(REG_OBJ) $(CUDA_OBJ) $(ALL_LIBS) $(LDLIBS) $(CUDA_LIBS)

# The MPI build of the same program, for fleets (memtopo-mpi --fleet under
# mpirun or srun).  A binary of its own: loading libmpi costs about 4 ms at
# every start, which the single-GPU tool does not pay.
ifneq ($(MPICC),)
MPI_OBJ := $(B)/obj/mpi/fleet_comm_mpi.o
$(B)/obj/mpi/%.o: src/mpi/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(MPI_CFLAGS) -Isrc -MMD -MP -c $< -o $@
$(B)/memtopo-mpi: $(B)/obj/main.o $(REG_OBJ) $(ALL_LIBS) $(CUDA_OBJ) $(MPI_OBJ)
	$(CC) $(CFLAGS) -o $@ $(B)/obj/main.o $(REG_OBJ) $(CUDA_OBJ) $(MPI_OBJ) $(ALL_LIBS) $(LDLIBS) $(CUDA_LIBS) $(MPI_LIBS)
all: $(B)/memtopo-mpi
test: $(B)/memtopo-mpi
endif

# Sanitized binary: sim/replay only (ASan and the CUDA runtime do not mix well).
$(B)/san/memtopo: $(B)/san/main.o $(SREG_OBJ) $(SAN_LIBS)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

# ---- tests ----------------------------------------------------------------
# tests/test_<module>_*.c links the libraries listed for <module>.
TEST_LIBS_analysis  := analysis core
TEST_LIBS_core      := core
TEST_LIBS_model     := model topology backend core
TEST_LIBS_backend   := backend core
TEST_LIBS_topology  := topology backend core
TEST_LIBS_sim       := sim analysis backend core
TEST_LIBS_report    := report topology analysis backend core
TEST_LIBS_recording := recording report sim topology analysis backend core
TEST_LIBS_cuda      := backend core
# The cuda backend's pure host logic (no CUDA header), tested without a GPU.
TEST_EXTRA_test_cuda_layout := $(B)/san/cuda/limits.o $(B)/san/cuda/layout.o $(B)/san/cuda/schedule.o
TEST_EXTRA_test_cuda_icache_ptx := $(B)/san/cuda/icache_ptx.o
TEST_EXTRA_test_cuda_nvml_links := $(B)/san/cuda/nvml_links.o
TEST_LIBS_probes    := probes recording report sim topology analysis backend core
TEST_LIBS_fleet     := fleet report topology analysis backend core
TEST_LIBS_e2e       := cli model fleet probes recording report sim topology analysis backend core
TEST_LIBS_cli       := cli model fleet probes recording report sim topology analysis backend core
# Tests that open backends by name link the (sanitized, CUDA-free) registry.
TEST_EXTRA_test_e2e_presets := $(SREG_OBJ)
TEST_EXTRA_test_e2e_interference := $(SREG_OBJ)
TEST_EXTRA_test_e2e_carveout := $(SREG_OBJ)
TEST_EXTRA_test_e2e_geometry := $(SREG_OBJ)
TEST_EXTRA_test_e2e_policy := $(SREG_OBJ)
TEST_EXTRA_test_e2e_profile := $(SREG_OBJ)
TEST_EXTRA_test_e2e_bandwidth := $(SREG_OBJ)
TEST_EXTRA_test_e2e_tlb := $(SREG_OBJ)
TEST_EXTRA_test_e2e_matrix := $(SREG_OBJ)
TEST_EXTRA_test_e2e_icache := $(SREG_OBJ)
TEST_EXTRA_test_e2e_access := $(SREG_OBJ)
TEST_EXTRA_test_e2e_l2geom := $(SREG_OBJ)
TEST_SRC  := $(wildcard tests/test_*.c)
TEST_BINS := $(patsubst tests/%.c,$(B)/tests/%,$(TEST_SRC))
test_module = $(word 2,$(subst _, ,$(notdir $(1))))

.SECONDEXPANSION:
# -MMD: a test that includes another .c (the e2e truth) is rebuilt when
# that file changes.
$(B)/tests/%: tests/%.c $$(foreach m,$$(TEST_LIBS_$$(call test_module,$$*)),$(B)/san/libmt_$$(m).a) $$(TEST_EXTRA_$$*)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -MMD -MP -Isrc -o $@ $< $(TEST_EXTRA_$*) $(foreach m,$(TEST_LIBS_$(call test_module,$*)),$(B)/san/libmt_$(m).a) $(LDLIBS) -lcmocka

# (the manual page by name: mk/install.mk, which defines MAN_PAGE, is included below)
test: $(TEST_BINS) $(B)/san/memtopo $(B)/memtopo $(B)/e2e_check $(B)/memtopo.1
	@bash tests/run_all.sh $(TEST_BINS)

# Debian packages the build and the tests need (sudo when not root).
DEB_PKGS := build-essential pkg-config libjansson-dev libcmocka-dev python3 python3-jsonschema xz-utils \
            clang libclang-rt-dev help2man man-db gnuplot-nox fonts-dejavu-core \
            chromium-headless-shell libopenmpi-dev openmpi-bin
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
$(B)/capscan: tools/capscan.c tools/tool_session.h $(REG_OBJ) $(ALL_LIBS) $(CUDA_OBJ)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(REG_OBJ) $(CUDA_OBJ) $(ALL_LIBS) $(LDLIBS) $(CUDA_LIBS)

# Developer tool (tools/l1profile.c): the L1's miss profile across its capacity.
$(B)/l1profile: tools/l1profile.c tools/tool_session.h $(REG_OBJ) $(ALL_LIBS) $(CUDA_OBJ)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(REG_OBJ) $(CUDA_OBJ) $(ALL_LIBS) $(LDLIBS) $(CUDA_LIBS)

# Developer tool (tools/l2evict_cost.c): loads one L2 eviction set costs by
# group testing, on the simulator's cache model (tests/sh/test_l2evict_cost.sh).
$(B)/l2evict_cost: tools/l2evict_cost.c $(B)/libmt_probes.a $(B)/libmt_sim.a $(B)/libmt_analysis.a $(B)/libmt_backend.a $(B)/libmt_core.a
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(B)/libmt_probes.a $(B)/libmt_sim.a $(B)/libmt_analysis.a $(B)/libmt_backend.a $(B)/libmt_core.a $(LDLIBS)
$(B)/san/l2evict_cost: tools/l2evict_cost.c $(B)/san/libmt_probes.a $(B)/san/libmt_sim.a $(B)/san/libmt_analysis.a $(B)/san/libmt_backend.a $(B)/san/libmt_core.a
	$(CC) $(CFLAGS) $(SAN) -Isrc -o $@ $< $(B)/san/libmt_probes.a $(B)/san/libmt_sim.a $(B)/san/libmt_analysis.a $(B)/san/libmt_backend.a $(B)/san/libmt_core.a $(LDLIBS)
test: $(B)/san/l2evict_cost

.PHONY: all test bench clean deps
include fuzz/fuzz.mk
include mk/install.mk
-include $(shell find $(B) -name '*.d' 2>/dev/null)

# ---- CUDA backend self-test (needs nvcc; links core + the cuda objects
# only, so it builds on a machine without jansson/cmocka) --------------------
ifneq ($(NVCC),)
# nvcc gets no -MMD: every kernel file depends on every header of src/cuda.
$(patsubst src/%.cu,$(B)/obj/%.o,$(wildcard src/cuda/*.cu)): $(wildcard src/cuda/*.h)
$(B)/cuda_selftest: tools/cuda_selftest.c $(B)/libmt_backend.a $(B)/libmt_core.a $(CUDA_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(CUDA_OBJ) $(B)/libmt_backend.a $(B)/libmt_core.a -lm $(CUDA_LIBS)
cuda-selftest: $(B)/cuda_selftest
.PHONY: cuda-selftest
# A memory-bound neighbour for the interference checks on a real GPU:
#   build/gpu_load 4096 30 & build/memtopo
$(B)/gpu_load: tools/gpu_load.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -o $@ $<
endif

# ---- The performance model's validation suite (validation/README.md) ------
# build/validation/mtval: kernels timed and profiled on a GPU to make the
# model's fixtures.  Never part of the tool; built only by `make validation`
# and only where nvcc exists.  Every source of validation/ and
# validation/kernels/ is linked as an object (not an archive), so each
# kernel file's static registration is kept.
ifneq ($(NVCC),)
VAL_SRC := $(sort $(wildcard validation/*.cu validation/*.cpp validation/kernels/*.cu))
VAL_OBJ := $(patsubst validation/%,$(B)/validation/obj/%.o,$(VAL_SRC))
$(VAL_OBJ): $(wildcard validation/*.h)
$(B)/validation/obj/%.o: validation/%
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@
$(B)/validation/mtval: $(VAL_OBJ)
	$(NVCC) $(NVFLAGS) -o $@ $^ -ldl
validation: $(B)/validation/mtval
else
validation:
	@echo "make validation: no nvcc, nothing built"
endif
.PHONY: validation

# Optimised end-to-end checker for the randomized spec test
# (tests/sh/test_random_specs.sh): the truth contract of tests/e2e_truth.h,
# one verdict per spec file.  Optimised so a few hundred specs fit CI's time box.
$(B)/e2e_check: tests/e2e_check.c tests/e2e_truth.c tests/e2e_truth_l2map.c tests/e2e_truth_bandwidth.c tests/e2e_truth_banks.c tests/e2e_truth_tlb.c tests/e2e_truth_setmap.c tests/e2e_truth_matrix.c tests/e2e_truth_cluster.c tests/e2e_truth_icache.c tests/e2e_truth_access.c tests/e2e_truth_link.c tests/e2e_truth.h $(B)/obj/gen/backend_registry_nocuda.o $(ALL_LIBS)
	$(CC) $(CFLAGS) -Isrc -Itests -o $@ $< $(B)/obj/gen/backend_registry_nocuda.o $(ALL_LIBS) $(LDLIBS)
