# Fuzz targets (fuzz/README.md), included by the Makefile.  They are built
# with clang's libFuzzer, AddressSanitizer and UBSan from the same sources
# as the tool (compiled again with clang's coverage instrumentation into
# build/fuzz/obj; nothing is copied).
#
#   make fuzz              build/fuzz/fuzz_spec, fuzz_recording, fuzz_model and
#                          their seed corpora (build/fuzz/corpus/{spec,recording,model})
#   make fuzz-long         run each target FUZZ_SECONDS seconds (default 600)
#
# `make test` builds them when clang and libFuzzer are present and
# tests/sh/test_fuzz.sh runs each for a few seconds.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
# libFuzzer is a static runtime of clang (Debian: libclang-rt-dev); clang
# without it cannot link -fsanitize=fuzzer.
FUZZ_RT_DIR := $(shell $(FUZZ_CC) --print-runtime-dir 2>/dev/null)
FUZZ_AVAILABLE := $(if $(wildcard $(FUZZ_RT_DIR)/libclang_rt.fuzzer-*.a),yes,)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := $(CSTD) $(WARN) -O1 -g $(JANSSON_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FB := $(B)/fuzz

# The modules each target reads through, as for the unit tests of the same
# module (Makefile: TEST_LIBS_*).
FUZZ_MODULES_spec := sim backend core
FUZZ_MODULES_recording := recording report sim topology analysis backend core
FUZZ_MODULES_model := model core
FUZZ_OBJ_spec := $(patsubst src/%.c,$(FB)/obj/%.o,$(foreach m,$(FUZZ_MODULES_spec),$(wildcard src/$(m)/*.c))) \
                 $(FB)/obj/gen/presets.o
FUZZ_OBJ_recording := $(patsubst src/%.c,$(FB)/obj/%.o,$(foreach m,$(FUZZ_MODULES_recording),$(wildcard src/$(m)/*.c))) \
                      $(FB)/obj/gen/presets.o

$(FB)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FB)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc -c $< -o $@
# One archive per target, so the linker takes only the objects the target
# reaches (the backend registry, e.g., is not one of them).
FUZZ_OBJ_model := $(patsubst src/%.c,$(FB)/obj/%.o,$(foreach m,$(FUZZ_MODULES_model),$(wildcard src/$(m)/*.c)))
$(FB)/libmt_fuzz_model.a: $(FUZZ_OBJ_model)
$(FB)/libmt_fuzz_spec.a: $(FUZZ_OBJ_spec)
$(FB)/libmt_fuzz_recording.a: $(FUZZ_OBJ_recording)
$(FB)/libmt_fuzz_spec.a $(FB)/libmt_fuzz_recording.a $(FB)/libmt_fuzz_model.a:
	@mkdir -p $(@D); rm -f $@; ar rcs $@ $^
$(FB)/fuzz_spec: fuzz/fuzz_spec.c fuzz/fuzz_one_line.h $(FB)/libmt_fuzz_spec.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Isrc -o $@ $< $(FB)/libmt_fuzz_spec.a $(LDLIBS)
$(FB)/fuzz_model: fuzz/fuzz_model.c fuzz/fuzz_one_line.h $(FB)/libmt_fuzz_model.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Isrc -o $@ $< $(FB)/libmt_fuzz_model.a $(LDLIBS)
$(FB)/fuzz_recording: fuzz/fuzz_recording.c fuzz/fuzz_one_line.h $(FB)/libmt_fuzz_recording.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Isrc -o $@ $< $(FB)/libmt_fuzz_recording.a $(LDLIBS)

# Seeds: every preset and test spec; small recordings made by the tool and
# cut from the recorded H100 run (fuzz/make_seeds.py).
$(FB)/corpus/.stamp: fuzz/make_seeds.py $(B)/memtopo $(PRESET_SPECS) $(wildcard tests/specs/*.spec) \
                     tests/fixtures/h100-sxm5/recording.tar.xz \
                     $(wildcard tests/model/*.kd tests/model/ncu/*.csv)
	@mkdir -p $(@D)
	python3 fuzz/make_seeds.py $(B)/memtopo $(@D)
	@touch $@

FUZZ_BINS := $(FB)/fuzz_spec $(FB)/fuzz_recording $(FB)/fuzz_model
fuzz: $(FUZZ_BINS) $(FB)/corpus/.stamp

# New inputs go to build/fuzz/found/TARGET, the seeds are only read.
fuzz-long: fuzz
	@for t in spec recording model; do \
	  mkdir -p $(FB)/found/$$t; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  $(FB)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
	    -artifact_prefix=$(FB)/found/$$t- $(FB)/found/$$t $(FB)/corpus/$$t || exit 1; \
	done

ifeq ($(FUZZ_AVAILABLE),yes)
test: fuzz
endif

.PHONY: fuzz fuzz-long
