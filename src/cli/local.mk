# src/cli/local.mk: the `streamcheck` launcher: running a program under the
# shim, `--selftest`, `streamcheck report` (merge, re-render, expectations).
# It includes report and common headers, never the shim's.
SC_CLI_CPPFLAGS = -I$(top_srcdir)/src/cli $(SC_REPORT_CPPFLAGS)

# `streamcheck report` and the expectations, as a library the tests link too.
noinst_LTLIBRARIES += src/cli/libsccli.la
src_cli_libsccli_la_SOURCES = src/cli/cli_report.c src/cli/cli_report.h src/cli/expect.c src/cli/expect.h
src_cli_libsccli_la_CPPFLAGS = $(AM_CPPFLAGS) $(SC_CLI_CPPFLAGS)

# The launcher is built as src/streamcheck, beside the shim (src/.libs), so
# that run from the build tree it finds what was built with it.  It finds
# the shim, the simulator and the test apps relative to itself, so it needs
# the configured directories (and, run from the build tree, the source tree's
# list of the apps).
bin_PROGRAMS += src/streamcheck
src_streamcheck_SOURCES = src/cli/cli.c src/cli/args.c src/cli/args.h src/cli/args.def \
	src/cli/run.c src/cli/run.h src/cli/inject.c src/cli/inject.h src/cli/status.c src/cli/status.h \
	src/cli/finish.c src/cli/finish.h src/cli/gpu.c src/cli/gpu.h \
	src/cli/locate.c src/cli/locate.h src/cli/selftest.c src/cli/selftest.h
src_streamcheck_CPPFLAGS = $(AM_CPPFLAGS) $(SC_CLI_CPPFLAGS) -DSC_BINDIR='"$(bindir)"' \
	-DSC_LIBDIR='"$(libdir)"' -DSC_PKGLIBEXECDIR='"$(pkglibexecdir)"' -DSC_TOP_SRCDIR='"$(abs_top_srcdir)"'
src_streamcheck_LDADD = src/cli/libsccli.la $(SC_REPORT_LIBS)
# The launcher names the reports' frames after the program (src/report/
# symbols.c opens libdw.so.1 by dlopen): a libdw.so.1 copied beside the
# installed shim, for hosts that lack it, is found from the launcher too.
src_streamcheck_LDFLAGS = -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$(libdir)'
