# src/shim/local.mk: the preloaded library, libstreamcheck.so.  It includes
# its own headers, the report's (it writes the report at exit) and common's.
SC_SHIM_CPPFLAGS = -I$(top_srcdir)/src/shim $(SC_REPORT_CPPFLAGS)

# The shim's code, as a convenience library: the shared object below is
# made of it, and the unit tests link it with a fake driver.
noinst_LTLIBRARIES += src/shim/libscshim.la
src_shim_libscshim_la_SOURCES = \
	src/shim/shim.h src/shim/thread.h src/shim/thread_parts.h \
	src/shim/core.h src/shim/core.c src/shim/apis.h src/shim/apis.c src/shim/real.h src/shim/real.c \
	src/shim/interpose.c src/shim/interpose.h src/shim/dlsym_tramp.S \
	src/shim/hooks_driver.c src/shim/hooks_driver.h src/shim/hooks_runtime.c src/shim/hooks_runtime.h \
	src/shim/hooks_cublas.c src/shim/hooks_cublas.h src/shim/hooks_cupti.c src/shim/hooks_cupti.h \
	src/shim/hooks/README src/shim/hooks/all.def src/shim/hooks/launch.def src/shim/hooks/copy.def \
	src/shim/hooks/memset.def src/shim/hooks/alloc.def src/shim/hooks/stream.def src/shim/hooks/event.def \
	src/shim/hooks/ctx.def src/shim/hooks/runtime.def \
	src/shim/kinds.def src/shim/kinds.h src/shim/fast.h src/shim/fast.c src/shim/notes.h \
	src/shim/modules.h src/shim/modules.c src/shim/streams.h src/shim/streams.c \
	src/shim/hostmem.h src/shim/hostmem.c src/shim/hb.h src/shim/hb_clock.h src/shim/hb_clock.c \
	src/shim/hb_order.c src/shim/hb_pthread.c src/shim/hb_pthread.def src/shim/interposed.list \
	src/shim/dispatch.h src/shim/dispatch.c src/shim/classify.h src/shim/classify.c src/shim/settle.h src/shim/settle.c \
	src/shim/drain.h src/shim/drain.c src/shim/touch.h src/shim/touch.c \
	src/shim/lanes.h src/shim/lanes.c \
	src/shim/memclass.h src/shim/memclass.c src/shim/track.h src/shim/track.c \
	src/shim/redirect.h src/shim/redirect.c src/shim/detect.h src/shim/detect_legacy.c \
	src/shim/detect_copy.c src/shim/detect_alloc.c src/shim/detect_sync.c src/shim/detect_queue.c \
	src/shim/callsites.c src/shim/callsites.h src/shim/pyframes.c src/shim/pyframes.h \
	src/shim/intern.c src/shim/intern.h src/shim/ranges.c src/shim/ranges.h src/shim/nvtx.c src/shim/nvtx.h \
	src/shim/findings.c src/shim/findings.h src/shim/aggkey.h \
	src/shim/shim_report.h src/shim/shim_report.c src/shim/names.c src/shim/names.h src/shim/measure.c src/shim/measure.h src/shim/prof.c \
	src/shim/cupti_session.c src/shim/cupti_session.h src/shim/measure_window.c src/shim/measure_window.h \
	src/shim/timeline.c src/shim/timeline_price.c \
	src/shim/timeline.h src/shim/vec.h \
	src/shim/replay.c src/shim/replay.h src/shim/pricing.c src/shim/pricing_attribute.c \
	src/shim/pricing_loop.c src/shim/pricing_copies.c src/shim/pricing_events.c src/shim/pricing_savings.c \
	src/shim/pricing.h \
	src/shim/runlog.c src/shim/runlog.h src/shim/occupancy.c src/shim/occupancy.h \
	src/shim/gpusample.c src/shim/gpusample.h \
	src/shim/calibrate.c src/shim/calibrate.h src/shim/price.c src/shim/price.h \
	src/shim/status.c src/shim/status.h src/shim/reporter.c src/shim/reporter.h \
	src/shim/signals.c src/shim/signals.h src/shim/fault_trace.c src/shim/fault_trace.h src/shim/sigsafe.h src/shim/exec.c src/shim/unmap.c src/shim/simcheck.c src/shim/simcheck.h \
	src/shim/weakrefs.c
nodist_src_shim_libscshim_la_SOURCES = src/shim/cbid_names.h
src_shim_libscshim_la_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS) -I$(top_builddir)/src/shim
src_shim_libscshim_la_CFLAGS = $(AM_CFLAGS) $(LIBUNWIND_CFLAGS)
SC_SHIM_LIBS = src/shim/libscshim.la $(SC_REPORT_LIBS)
# A program that links SC_SHIM_LIBS (the unit tests, the benchmark) gets the
# interposed pthread functions (hb_pthread.c) even when a sanitizer's
# runtime, which the compiler links first, defines them too: nothing else
# would take their object out of the archive.
SC_SHIM_LINK = -Wl,-u,sc_hb_interposers

# The shim.  Hidden by default (-fvisibility=hidden); SC_EXPORT marks what
# programs may bind to.  -Bsymbolic-functions keeps our own references to
# our exports pointing at us; nodelete keeps it mapped if anyone dlcloses it.
# Built as src/libstreamcheck.la, beside the launcher (src/cli/local.mk).
lib_LTLIBRARIES += src/libstreamcheck.la
src_libstreamcheck_la_SOURCES =
# $ORIGIN: a libunwind.so.8 or libdw.so.1 copied next to the installed shim
# is found there (clusters that lack them).
# The pthread functions hb_pthread.c interposes are left preemptible
# (interposed.list says why).
src_libstreamcheck_la_LDFLAGS = -module -avoid-version -no-undefined -shared \
	-Wl,-Bsymbolic-functions -Wl,--dynamic-list=$(top_srcdir)/src/shim/interposed.list \
	-Wl,-z,nodelete -Wl,-rpath,'$$ORIGIN'
src_libstreamcheck_la_LIBADD = $(SC_SHIM_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
# Automake wants a linker for an object-less library: the C one.
nodist_EXTRA_src_libstreamcheck_la_SOURCES = src/shim/dummy.c

# Names of CUPTI's API records (cupti_session.c), from the toolkit's cbid headers:
# SC_CBID(runtime, cbid, "name"); runtime names without their _vNNNN.
src/shim/cbid_names.h:
	$(AM_V_GEN)$(MKDIR_P) src/shim && for h in $(CUDA_HOME)/include $(CUDA_HOME)/extras/CUPTI/include; do \
	  if test -f $$h/cupti_driver_cbid.h && test -f $$h/cupti_runtime_cbid.h; then \
	    sed -n 's/^ *CUPTI_DRIVER_TRACE_CBID_\([A-Za-z0-9_]*\) *= *\([0-9][0-9]*\),.*/SC_CBID(0, \2, "\1")/p' \
	      $$h/cupti_driver_cbid.h; \
	    sed -n 's/^ *CUPTI_RUNTIME_TRACE_CBID_\([A-Za-z0-9_]*\) *= *\([0-9][0-9]*\),.*/SC_CBID(1, \2, "\1")/p' \
	      $$h/cupti_runtime_cbid.h | sed 's/_v[0-9]*")$$/")/'; \
	    break; \
	  fi; \
	done | grep -v '"INVALID")\|"SIZE")' > $@-t && mv -f $@-t $@
BUILT_SOURCES += src/shim/cbid_names.h
CLEANFILES += src/shim/cbid_names.h
