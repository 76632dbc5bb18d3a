# testapps/seeds.mk: the seed exercises (shared/seeds/: CUDA streams,
# swimming in streams, MPS farming, nested sine, pinned pipelines) as
# bundled apps, their PyTorch versions, the MPS farming runner, their tests
# and `make bench-seeds`.  Included from the top-level Makefile.am after
# testapps/local.mk and bench/local.mk (it uses their variables).
#
#   testapps/seed*.cu         CUDA C apps, with fixed twins where the seed
#                             shows a hazard; expectations in comments
#   testapps/python/seed*.py  the PyTorch versions (exit 77 without torch/GPU)
#   testapps/mps/mps-farm.sh  N instances without and with the MPS daemon
#   bench/seeds.py            hazard vs fix, median of runs -> docs/RESULTS.md

SC_SEED_APPS_SHARED = \
	seed001_copies seed001_copies_fixed seed001_priority seed002_farm \
	seed003_nested_sin seed004_pipeline seed004_pipeline_fixed seed004_pin_peak
SC_SEED_APPS_CUBLAS = seed000_matmul seed000_matmul_fixed seed001_tensor_pow
SC_SEED_APPS = $(SC_SEED_APPS_SHARED) $(SC_SEED_APPS_CUBLAS)
SC_SEED_BINS = $(addprefix testapps/,$(SC_SEED_APPS))
SC_SEED_EXPECTS = $(addprefix testapps/,$(addsuffix .expect,$(SC_SEED_APPS)))
SC_SEED_DEPS = $(SC_APP_DEPS) $(srcdir)/testapps/seed_common.h $(srcdir)/kernels/sc_seed_kernels.cuh
SC_SEED_PYSCRIPTS = \
	testapps/python/seed000_matmul_streams.py testapps/python/seed001_swimming.py \
	testapps/python/seed002_farm.py testapps/python/seed003_nested_sin.py \
	testapps/python/seed004_pipeline.py testapps/python/seed004_pin_peak.py

# Installed beside the other test apps, for `streamcheck --selftest`,
# mps-farm.sh and bench/seeds.py on a GPU host.
testapps_SCRIPTS += $(SC_SEED_BINS)
testapps_DATA += $(SC_SEED_EXPECTS)
dist_testapps_SCRIPTS = testapps/mps/mps-farm.sh
testapps_pythondir = $(testappsdir)/python
dist_testapps_python_DATA = $(SC_SEED_PYSCRIPTS)
all_local_targets += $(SC_SEED_BINS) $(SC_SEED_EXPECTS)
CLEANFILES += $(SC_SEED_BINS) $(SC_SEED_EXPECTS)
EXTRA_DIST += testapps/seeds.mk testapps/seed_common.h kernels/sc_seed_kernels.cuh \
	$(addprefix testapps/,$(addsuffix .cu,$(SC_SEED_APPS))) \
	bench/seeds.py docs/RESULTS.md docs/RESULTS-runs.json

$(addprefix testapps/,$(SC_SEED_APPS_SHARED)): testapps/%: $(srcdir)/testapps/%.cu $(SC_SEED_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -o $@ $<
$(addprefix testapps/,$(SC_SEED_APPS_CUBLAS)): testapps/%: $(srcdir)/testapps/%.cu $(SC_SEED_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -o $@ $< -lcublas

# Every app in every mode on the simulator, the twin names, the MPS runner's
# skip; the PyTorch scripts where torch and a GPU exist (TAP, SKIP otherwise).
dist_check_SCRIPTS += tests/seeds.sh tests/seeds-python.sh
TESTS += tests/seeds.sh tests/seeds-python.sh

# Hazard vs fix on a GPU, written to docs/RESULTS.md (bench/seeds.py --help).
bench-seeds: $(SC_APP_BINS) $(SC_SEED_BINS) $(SC_APP_EXPECTS) $(SC_SEED_EXPECTS) \
		src/streamcheck$(EXEEXT) src/libstreamcheck.la
	@if $(SC_HAVE_GPU); then \
	  . tests/env.sh; $(PYTHON3) $(srcdir)/bench/seeds.py --streamcheck "$$SC_CLI" \
	    --apps "$$SC_APPS" --python-dir $(srcdir)/testapps/python \
	    --mps-farm $(srcdir)/testapps/mps/mps-farm.sh --results $(srcdir)/docs/RESULTS.md; \
	else echo "bench-seeds: needs a GPU (nvidia-smi -L finds none)"; fi
.PHONY: bench-seeds
