# src/sim: the CPU CUDA simulator (docs/ARCHITECTURE.md, "The simulator"): libcuda.so.1,
# libcudart.so.13 and libcublas.so.13 with the real sonames, installed
# into $(pkglibexecdir)/sim for `streamcheck --simulate`.  Included from
# the top-level Makefile.am.  See src/sim/README.md.

simlibdir = $(pkglibexecdir)/sim

# CUPTI's headers: beside cuda.h in some installs, under extras/CUPTI in
# NVIDIA's toolkit layout.
SCSIM_CUPTI_CPPFLAGS = -I$(CUDA_HOME)/extras/CUPTI/include
simlib_LTLIBRARIES = src/sim/libcuda.la src/sim/libcudart.la src/sim/libcublas.la \
	src/sim/libcupti.la

# Unsupported-call stubs and the driver's (name, version) table are
# generated from the export lists of NVIDIA's libraries (taken once, kept
# in the tree) by a small awk script.
SCSIM_GEN_STUBS = LC_ALL=C $(AWK) -f $(top_srcdir)/src/sim/gen-stubs.awk

src/sim/cuda-stubs.c: $(top_srcdir)/src/sim/gen-stubs.awk \
		$(top_srcdir)/src/sim/libcuda.exports $(top_srcdir)/src/sim/libcuda-procs.txt
	$(AM_V_GEN)$(MKDIR_P) src/sim && \
	$(SCSIM_GEN_STUBS) $(top_srcdir)/src/sim/libcuda.exports \
		$(top_srcdir)/src/sim/libcuda-procs.txt > $@-t && mv -f $@-t $@

src/sim/cudart-stubs.c: $(top_srcdir)/src/sim/gen-stubs.awk \
		$(top_srcdir)/src/sim/libcudart.exports
	$(AM_V_GEN)$(MKDIR_P) src/sim && \
	$(SCSIM_GEN_STUBS) $(top_srcdir)/src/sim/libcudart.exports > $@-t && mv -f $@-t $@

src/sim/cublas-stubs.c: $(top_srcdir)/src/sim/gen-stubs.awk \
		$(top_srcdir)/src/sim/libcublas.exports
	$(AM_V_GEN)$(MKDIR_P) src/sim && \
	$(SCSIM_GEN_STUBS) $(top_srcdir)/src/sim/libcublas.exports > $@-t && mv -f $@-t $@

src/sim/cupti-stubs.c: $(top_srcdir)/src/sim/gen-stubs.awk \
		$(top_srcdir)/src/sim/libcupti.exports
	$(AM_V_GEN)$(MKDIR_P) src/sim && \
	$(SCSIM_GEN_STUBS) $(top_srcdir)/src/sim/libcupti.exports > $@-t && mv -f $@-t $@

SCSIM_GENERATED_STUBS = src/sim/cuda-stubs.c src/sim/cudart-stubs.c src/sim/cublas-stubs.c \
	src/sim/cupti-stubs.c
BUILT_SOURCES += $(SCSIM_GENERATED_STUBS)
CLEANFILES += $(SCSIM_GENERATED_STUBS)

EXTRA_DIST += \
	src/sim/README.md \
	src/sim/cudart13-driver-lookups.txt \
	src/sim/gen-stubs.awk \
	src/sim/libcuda.exports \
	src/sim/libcuda-procs.txt \
	src/sim/libcudart.exports \
	src/sim/libcublas.exports \
	src/sim/libcupti.exports \
	src/sim/libcuda.map \
	src/sim/libcudart.map \
	src/sim/libcublas.map \
	src/sim/libcupti.map

# ---------------------------------------------------------- libcuda.so.1 ---
src_sim_libcuda_la_SOURCES = \
	src/sim/cuerr.def \
	src/sim/drv_api.def \
	src/sim/drv_api.h \
	src/sim/drv_copy.c \
	src/sim/drv_getproc.c \
	src/sim/drv_graph.c \
	src/sim/drv_init.c \
	src/sim/drv_launch.c \
	src/sim/drv_mem.c \
	src/sim/drv_sched.c \
	src/sim/drv_stream.c \
	src/sim/drv_timeline.c \
	src/sim/imap.c \
	src/sim/imap.h \
	src/sim/sim.h \
	src/sim/stubs.h \
	src/sim/timeline.h \
	src/sim/util.c \
	src/sim/util.h
nodist_src_sim_libcuda_la_SOURCES = src/sim/cuda-stubs.c
src_sim_libcuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(SCSIM_CUPTI_CPPFLAGS) -I$(top_srcdir)/kernels
src_sim_libcuda_la_LIBADD = kernels/libsctwins.la
# The real libcuda.so.1 exports unversioned symbols; the map only hides
# whatever is not a CUDA name.  Like NVIDIA's libraries, the simulated ones
# bind their own functions at link time (-Bsymbolic-functions): the
# pointers cuGetProcAddress hands out, and calls from one entry point to
# another, never land in an interposer such as libstreamcheck.so.
src_sim_libcuda_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0 -no-undefined -Wl,-Bsymbolic-functions \
	-Wl,--version-script=$(top_srcdir)/src/sim/libcuda.map
EXTRA_src_sim_libcuda_la_DEPENDENCIES = $(top_srcdir)/src/sim/libcuda.map

# ------------------------------------------------------- libcudart.so.13 ---
# Reaches the driver only through dlopen + cuGetProcAddress (drvbind.c),
# like NVIDIA's runtime: it does not link libcuda.
src_sim_libcudart_la_SOURCES = \
	src/sim/cudaerr.def \
	src/sim/drvbind.c \
	src/sim/drvbind.h \
	src/sim/rt.h \
	src/sim/rt_core.c \
	src/sim/rt_drv.def \
	src/sim/rt_mem.c \
	src/sim/rt_register.c \
	src/sim/rt_stream.c \
	src/sim/stubs.h \
	src/sim/timeline.h \
	src/sim/util.c \
	src/sim/util.h
nodist_src_sim_libcudart_la_SOURCES = src/sim/cudart-stubs.c
src_sim_libcudart_la_CPPFLAGS = $(AM_CPPFLAGS) $(SCSIM_CUPTI_CPPFLAGS)
src_sim_libcudart_la_LDFLAGS = $(AM_LDFLAGS) -version-info 13:0:0 -no-undefined -Wl,-Bsymbolic-functions \
	-Wl,--version-script=$(top_srcdir)/src/sim/libcudart.map
EXTRA_src_sim_libcudart_la_DEPENDENCIES = $(top_srcdir)/src/sim/libcudart.map

# ------------------------------------------------------- libcublas.so.13 ---
src_sim_libcublas_la_SOURCES = \
	src/sim/cublas.c \
	src/sim/drvbind.c \
	src/sim/drvbind.h \
	src/sim/stubs.h \
	src/sim/util.c \
	src/sim/util.h
nodist_src_sim_libcublas_la_SOURCES = src/sim/cublas-stubs.c
src_sim_libcublas_la_LDFLAGS = $(AM_LDFLAGS) -version-info 13:0:0 -no-undefined -Wl,-Bsymbolic-functions \
	-Wl,--version-script=$(top_srcdir)/src/sim/libcublas.map
EXTRA_src_sim_libcublas_la_DEPENDENCIES = $(top_srcdir)/src/sim/libcublas.map

# -------------------------------------------------------- libcupti.so.13 ---
# The activity API subset of a tracing client, over the driver's timeline
# (timeline.h), which it reaches like drvbind.c through cuGetProcAddress
# and cuGetExportTable; it does not link libcuda either.
src_sim_libcupti_la_SOURCES = \
	src/sim/cupti.c \
	src/sim/cupti_results.def \
	src/sim/drvbind.c \
	src/sim/drvbind.h \
	src/sim/stubs.h \
	src/sim/timeline.h \
	src/sim/util.c \
	src/sim/util.h
nodist_src_sim_libcupti_la_SOURCES = src/sim/cupti-stubs.c
src_sim_libcupti_la_CPPFLAGS = $(AM_CPPFLAGS) $(SCSIM_CUPTI_CPPFLAGS)
src_sim_libcupti_la_LDFLAGS = $(AM_LDFLAGS) -version-info 13:0:0 -no-undefined -Wl,-Bsymbolic-functions \
	-Wl,--version-script=$(top_srcdir)/src/sim/libcupti.map
EXTRA_src_sim_libcupti_la_DEPENDENCIES = $(top_srcdir)/src/sim/libcupti.map

include $(top_srcdir)/tests/sim/local.mk
