# src/local.mk: the shim (libstreamcheck.so), the launcher, and the code
# they share.

# Rule catalogue and settings, linked into the shim, the launcher and tests.
noinst_LTLIBRARIES += src/libsccommon.la
src_libsccommon_la_SOURCES = \
	src/rules.c src/rules.h src/rules.def \
	src/options.c src/options.h src/options.def src/sc.h

# The shim.  Hidden by default (-fvisibility=hidden); SC_EXPORT marks what
# programs may bind to.  -Bsymbolic-functions keeps our own references to
# our exports pointing at us; nodelete keeps it mapped if anyone dlcloses it.
lib_LTLIBRARIES += src/libstreamcheck.la
src_libstreamcheck_la_SOURCES = \
	src/shim.h src/resolve.c src/dlsym_tramp.S \
	src/hooks_driver.c src/hooks_runtime.c src/hooks_cublas.c \
	src/hooks/README src/hooks/all.def src/hooks/launch.def src/hooks/copy.def \
	src/hooks/memset.def src/hooks/alloc.def src/hooks/stream.def src/hooks/event.def \
	src/hooks/ctx.def src/hooks/runtime.def \
	src/threads.c src/modules.c src/streams.c src/hostmem.c \
	src/analyze.c src/callsites.c src/callsites.h src/pyframes.c \
	src/findings.c src/findings.h src/symbolize.c src/symbolize.h \
	src/shim_report.c src/filter.h
src_libstreamcheck_la_CFLAGS = $(AM_CFLAGS) $(LIBUNWIND_CFLAGS)
src_libstreamcheck_la_LDFLAGS = -module -avoid-version -no-undefined -shared \
	-Wl,-Bsymbolic-functions -Wl,-z,nodelete
src_libstreamcheck_la_LIBADD = src/libscreport.la src/libsccommon.la $(LIBUNWIND_LIBS) -ldl -lpthread
