# kernels: device kernels for the test apps and their CPU twins for the
# simulator.  Included from the top-level Makefile.am.

# The twins, linked into the simulated libcuda.so.1.
noinst_LTLIBRARIES += kernels/libsctwins.la
kernels_libsctwins_la_SOURCES = kernels/twins.c kernels/twins.h kernels/twins.def
kernels_libsctwins_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kernels
kernels_libsctwins_la_LIBADD = -lm

# Included by the test apps' .cu files (NVCCFLAGS has -I$(top_srcdir)/kernels).
EXTRA_DIST += kernels/sc_kernels.cuh kernels/sc_sim_kernels.cuh
