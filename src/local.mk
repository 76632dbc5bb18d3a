# src/local.mk: the shim (libstreamcheck.so), the launcher, and the code
# they share.

# The rule catalogue, and the settings; linked into the shim, the launcher
# and the tests.
noinst_LTLIBRARIES += src/libscrules.la src/libsccommon.la
src_libscrules_la_SOURCES = src/rules.c src/rules.h src/rules.def
src_libsccommon_la_SOURCES = src/options.c src/options.h src/options.def src/sc.h
src_libsccommon_la_LIBADD = src/libscrules.la

# The shim's code, as a convenience library: the shared object below is
# made of it, and the unit tests link it with a fake driver.
noinst_LTLIBRARIES += src/libscshim.la
src_libscshim_la_SOURCES = \
	src/shim.h src/resolve.c src/dlsym_tramp.S \
	src/hooks_driver.c src/hooks_runtime.c src/hooks_cublas.c \
	src/hooks/README src/hooks/all.def src/hooks/launch.def src/hooks/copy.def \
	src/hooks/memset.def src/hooks/alloc.def src/hooks/stream.def src/hooks/event.def \
	src/hooks/ctx.def src/hooks/runtime.def \
	src/threads.c src/modules.c src/streams.c src/hostmem.c \
	src/analyze.c src/callsites.c src/callsites.h src/pyframes.c \
	src/findings.c src/findings.h src/symbolize.c src/symbolize.h \
	src/shim_report.c src/filter.h src/filter.c
src_libscshim_la_CFLAGS = $(AM_CFLAGS) $(LIBUNWIND_CFLAGS)

# The shim.  Hidden by default (-fvisibility=hidden); SC_EXPORT marks what
# programs may bind to.  -Bsymbolic-functions keeps our own references to
# our exports pointing at us; nodelete keeps it mapped if anyone dlcloses it.
lib_LTLIBRARIES += src/libstreamcheck.la
src_libstreamcheck_la_SOURCES =
# $ORIGIN: a libunwind.so.8 or libdw.so.1 copied next to the installed shim
# is found there (clusters that lack them).
src_libstreamcheck_la_LDFLAGS = -module -avoid-version -no-undefined -shared \
	-Wl,-Bsymbolic-functions -Wl,-z,nodelete -Wl,-rpath,'$$ORIGIN'

src_libstreamcheck_la_LIBADD = src/libscshim.la src/libscreport.la src/libsccommon.la \
	$(LIBUNWIND_LIBS) -ldl -lpthread
# Automake wants a linker for an object-less library: the C one.
nodist_EXTRA_src_libstreamcheck_la_SOURCES = src/dummy.c

# The launcher.  It finds the shim, the simulator and the test apps relative
# to itself, so it needs the configured directories.
bin_PROGRAMS += src/streamcheck
src_streamcheck_SOURCES = src/cli.c src/cli.h src/selftest.c
src_streamcheck_CPPFLAGS = $(AM_CPPFLAGS) -DSC_BINDIR='"$(bindir)"' -DSC_LIBDIR='"$(libdir)"' \
	-DSC_PKGLIBEXECDIR='"$(pkglibexecdir)"'
src_streamcheck_LDADD = src/libscreport.la src/libsccommon.la
