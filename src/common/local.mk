# src/common/local.mk: what the shim, the report library and the launcher
# share: the rule catalogue, the settings, JSON, small helpers.  Nothing here
# includes a header of src/shim, src/report or src/cli.
SC_COMMON_CPPFLAGS = -I$(top_srcdir)/src/common

# The rule catalogue alone (the man page generator needs nothing else).
noinst_LTLIBRARIES += src/common/libscrules.la
src_common_libscrules_la_SOURCES = src/common/rules.c src/common/rules.h src/common/rules.def
src_common_libscrules_la_CPPFLAGS = $(AM_CPPFLAGS) $(SC_COMMON_CPPFLAGS)

noinst_LTLIBRARIES += src/common/libsccommon.la
src_common_libsccommon_la_SOURCES = src/common/options.c src/common/options.h src/common/options.def \
	src/common/formats.c src/common/formats.h src/common/formats.def \
	src/common/sc.h src/common/json.c src/common/json.h src/common/fsutil.c src/common/fsutil.h
src_common_libsccommon_la_CPPFLAGS = $(AM_CPPFLAGS) $(SC_COMMON_CPPFLAGS)
src_common_libsccommon_la_LIBADD = src/common/libscrules.la
