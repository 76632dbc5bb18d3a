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

# These two define dlsym (interpose.c), like streamcheck, to watch how the
# simulated runtime and cuBLAS reach the driver.
SCSIM_INTERPOSE = tests/sim/interpose.c tests/sim/interpose.h
# An executable's definition interposes only if it is in .dynsym.
SCSIM_INTERPOSE_LDOPTS = $(AM_LDFLAGS) -Wl,--export-dynamic-symbol=dlsym

check_PROGRAMS += tests/sim/check_runtime
tests_sim_check_runtime_SOURCES = tests/sim/check_runtime.c $(SCSIM_INTERPOSE) \
	$(SCSIM_TEST_HELPERS)
tests_sim_check_runtime_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_runtime_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_runtime_LDFLAGS = $(SCSIM_INTERPOSE_LDOPTS)
tests_sim_check_runtime_LDADD = src/sim/libcudart.la $(SCSIM_TEST_LDADD)
TESTS += tests/sim/check_runtime

check_PROGRAMS += tests/sim/check_cublas
tests_sim_check_cublas_SOURCES = tests/sim/check_cublas.c $(SCSIM_INTERPOSE) \
	$(SCSIM_TEST_HELPERS)
tests_sim_check_cublas_CPPFLAGS = $(SCSIM_TEST_CPPFLAGS)
tests_sim_check_cublas_CFLAGS = $(SCSIM_TEST_CFLAGS)
tests_sim_check_cublas_LDFLAGS = $(SCSIM_INTERPOSE_LDOPTS)
tests_sim_check_cublas_LDADD = src/sim/libcublas.la $(SCSIM_TEST_LDADD) -lm
TESTS += tests/sim/check_cublas
