# tests/sim: tests of the CPU CUDA simulator (src/sim, kernels).
# Included from src/sim/local.mk.

# Check programs against the simulated driver (linked directly).
SCSIM_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/sim -I$(top_srcdir)/kernels
SCSIM_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
SCSIM_TEST_HELPERS = tests/sim/simtest.c tests/sim/simtest.h
SCSIM_TEST_LDADD = src/sim/libcuda.la $(CHECK_LIBS) -lpthread -ldl

check_PROGRAMS += tests/sim/check_getproc
tests_sim_check_getproc_SOURCES = tests/sim/check_getproc.c $(SCSIM_TEST_HELPERS)
tests_sim_check_getproc_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_getproc_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_getproc_LDADD = $(SCSIM_TEST_LDADD)

TESTS += tests/sim/check_getproc

check_PROGRAMS += tests/sim/check_streams
tests_sim_check_streams_SOURCES = tests/sim/check_streams.c $(SCSIM_TEST_HELPERS)
tests_sim_check_streams_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_streams_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_streams_LDADD = $(SCSIM_TEST_LDADD)
TESTS += tests/sim/check_streams

check_PROGRAMS += tests/sim/check_memory
tests_sim_check_memory_SOURCES = tests/sim/check_memory.c $(SCSIM_TEST_HELPERS)
tests_sim_check_memory_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_memory_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_memory_LDADD = $(SCSIM_TEST_LDADD)
TESTS += tests/sim/check_memory

check_PROGRAMS += tests/sim/check_capture
tests_sim_check_capture_SOURCES = tests/sim/check_capture.c $(SCSIM_TEST_HELPERS)
tests_sim_check_capture_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_capture_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_capture_LDADD = $(SCSIM_TEST_LDADD)
TESTS += tests/sim/check_capture

# Also looks at the twin table itself (hidden inside libcuda.so.1).
check_PROGRAMS += tests/sim/check_kernels
tests_sim_check_kernels_SOURCES = tests/sim/check_kernels.c $(SCSIM_TEST_HELPERS)
tests_sim_check_kernels_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_kernels_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_kernels_LDADD = kernels/libsctwins.la $(SCSIM_TEST_LDADD)
TESTS += tests/sim/check_kernels

# These two redirect the libraries' dlsym (interpose.c) to watch how the
# simulated runtime and cuBLAS reach the driver.
SCSIM_INTERPOSE = tests/sim/interpose.c tests/sim/interpose.h

check_PROGRAMS += tests/sim/check_runtime
tests_sim_check_runtime_SOURCES = tests/sim/check_runtime.c $(SCSIM_INTERPOSE) \
	$(SCSIM_TEST_HELPERS)
tests_sim_check_runtime_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_runtime_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_runtime_LDADD = src/sim/libcudart.la $(SCSIM_TEST_LDADD)
TESTS += tests/sim/check_runtime

check_PROGRAMS += tests/sim/check_cublas
tests_sim_check_cublas_SOURCES = tests/sim/check_cublas.c $(SCSIM_INTERPOSE) \
	$(SCSIM_TEST_HELPERS)
tests_sim_check_cublas_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_cublas_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_cublas_LDADD = src/sim/libcublas.la $(SCSIM_TEST_LDADD) -lm
TESTS += tests/sim/check_cublas

# The simulated libcupti.so.13 over the driver's timeline (and the
# runtime's API records).
check_PROGRAMS += tests/sim/check_cupti
tests_sim_check_cupti_SOURCES = tests/sim/check_cupti.c $(SCSIM_TEST_HELPERS)
tests_sim_check_cupti_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS) $(SCSIM_CUPTI_CPPFLAGS)
tests_sim_check_cupti_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_cupti_LDADD = src/sim/libcupti.la src/sim/libcudart.la $(SCSIM_TEST_LDADD)
TESTS += tests/sim/check_cupti

# Several devices (STREAMCHECK_SIM_DEVICES=2), through the driver, the
# runtime and libcupti.so.13.
check_PROGRAMS += tests/sim/check_multigpu
tests_sim_check_multigpu_SOURCES = tests/sim/check_multigpu.c $(SCSIM_TEST_HELPERS)
tests_sim_check_multigpu_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS) $(SCSIM_CUPTI_CPPFLAGS)
tests_sim_check_multigpu_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_multigpu_LDADD = src/sim/libcupti.la src/sim/libcudart.la $(SCSIM_TEST_LDADD)
TESTS += tests/sim/check_multigpu

# twin-names.sh compares this list with the kernels nvcc emits.
check_PROGRAMS += tests/sim/twin-list
tests_sim_twin_list_SOURCES = tests/sim/twin-list.c
tests_sim_twin_list_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_twin_list_LDADD = kernels/libsctwins.la

# nvcc-built programs for e2e.sh: compiled by the .cu.o suffix rule
# (-cudart shared) and linked by nvcc, like any CUDA application.
SCSIM_NVCC_LINK = $(NVCCLD_V)$(NVCC) $(NVCC_ARCHFLAGS) -cudart shared -o $@
check_PROGRAMS += tests/sim/sim_app tests/sim/sim_app_pt tests/sim/sim_cublas
tests_sim_sim_app_SOURCES = tests/sim/sim_app.cu
tests_sim_sim_app_LINK = $(SCSIM_NVCC_LINK)
tests_sim_sim_cublas_SOURCES = tests/sim/sim_cublas.cu
tests_sim_sim_cublas_LINK = $(SCSIM_NVCC_LINK)
tests_sim_sim_cublas_LDADD = -lcublas
# The same program with --default-stream per-thread.
tests_sim_sim_app_pt_SOURCES =
tests_sim_sim_app_pt_LDADD = tests/sim/sim_app_pt.$(OBJEXT)
tests_sim_sim_app_pt_LINK = $(SCSIM_NVCC_LINK)
tests/sim/sim_app_pt.$(OBJEXT): tests/sim/sim_app.cu $(top_srcdir)/kernels/sc_kernels.cuh
	$(NVCC_V)$(MKDIR_P) tests/sim && $(NVCC) $(NVCCFLAGS) $(AM_NVCCFLAGS) \
		--default-stream per-thread -cudart shared -c -o $@ $(srcdir)/tests/sim/sim_app.cu
tests/sim/sim_app.$(OBJEXT): $(top_srcdir)/kernels/sc_kernels.cuh

dist_check_SCRIPTS += tests/sim/e2e.sh tests/sim/twin-names.sh tests/sim/exports.sh tests/sim/lookups.sh
TESTS += tests/sim/exports.sh tests/sim/twin-names.sh tests/sim/e2e.sh tests/sim/lookups.sh

# Not built: run by hand on a GPU host to compare the driver with the
# simulator (see the comment at its top); its H100 output is kept.
EXTRA_DIST += tests/sim/gpu_probe.cu tests/sim/gpu_probe-h100.txt
