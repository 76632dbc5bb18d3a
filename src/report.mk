# src/report.mk: the report model, renderers, reader and the report tool.

# Linked into the shim (a shared object, hence PIC: libtool builds
# convenience libraries PIC) and into the launcher.  No CUDA here.
noinst_LTLIBRARIES += src/libscreport.la
src_libscreport_la_SOURCES = \
	src/report.c src/report.h \
	src/report_text.c src/report_json.c src/report_read.c \
	src/report_sarif.c src/report_junit.c \
	src/json.c src/json.h \
	src/suppress.c src/suppress.h \
	src/expect.c src/expect.h \
	src/cli_report.c

# Link both: libscrules.la is not folded into libscreport.la, so that the
# shim, which links both, does not get the catalogue twice.
SC_REPORT_LIBS = src/libscreport.la src/libscrules.la

# The man page generator (man/local.mk runs it).
noinst_PROGRAMS += src/gen-man-rules
src_gen_man_rules_SOURCES = src/gen-man-rules.c
src_gen_man_rules_LDADD = src/libscrules.la

# ---------------------------------------------------------------- tests ---
check_PROGRAMS += tests/golden/golden-report
tests_golden_golden_report_SOURCES = tests/golden/golden-report.c \
	tests/golden/fixture.c tests/golden/fixture.h
tests_golden_golden_report_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/golden
tests_golden_golden_report_LDADD = $(SC_REPORT_LIBS)

# Check unit tests; they speak TAP through CK_TAP_LOG_FILE_NAME=-.
SC_UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
SC_UNIT_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/golden
SC_UNIT_LDADD = $(SC_REPORT_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/unit/test-json
tests_unit_test_json_SOURCES = tests/unit/test-json.c
tests_unit_test_json_CFLAGS = $(SC_UNIT_CFLAGS)
tests_unit_test_json_CPPFLAGS = $(SC_UNIT_CPPFLAGS)
tests_unit_test_json_LDADD = $(SC_UNIT_LDADD)
TESTS += tests/unit/test-json

check_PROGRAMS += tests/unit/test-report
tests_unit_test_report_SOURCES = tests/unit/test-report.c \
	tests/golden/fixture.c tests/golden/fixture.h
tests_unit_test_report_CFLAGS = $(SC_UNIT_CFLAGS)
tests_unit_test_report_CPPFLAGS = $(SC_UNIT_CPPFLAGS)
tests_unit_test_report_LDADD = $(SC_UNIT_LDADD)
TESTS += tests/unit/test-report

check_PROGRAMS += tests/unit/test-suppress
tests_unit_test_suppress_SOURCES = tests/unit/test-suppress.c \
	tests/golden/fixture.c tests/golden/fixture.h
tests_unit_test_suppress_CFLAGS = $(SC_UNIT_CFLAGS)
tests_unit_test_suppress_CPPFLAGS = $(SC_UNIT_CPPFLAGS)
tests_unit_test_suppress_LDADD = $(SC_UNIT_LDADD)
TESTS += tests/unit/test-suppress

check_PROGRAMS += tests/unit/test-expect
tests_unit_test_expect_SOURCES = tests/unit/test-expect.c \
	tests/golden/fixture.c tests/golden/fixture.h
tests_unit_test_expect_CFLAGS = $(SC_UNIT_CFLAGS)
tests_unit_test_expect_CPPFLAGS = $(SC_UNIT_CPPFLAGS)
tests_unit_test_expect_LDADD = $(SC_UNIT_LDADD)
TESTS += tests/unit/test-expect
