# tests/report.mk: the report library's tests: golden files, unit tests,
# SARIF schema, fuzz corpora.

# What the report tests link: the report library and `streamcheck report`.
SC_CLI_LIBS = src/cli/libsccli.la $(SC_REPORT_LIBS)

check_PROGRAMS += tests/golden/golden-report
tests_golden_golden_report_SOURCES = tests/golden/golden-report.c \
	tests/golden/fixture.c tests/golden/fixture.h
tests_golden_golden_report_CPPFLAGS = $(AM_CPPFLAGS) $(SC_CLI_CPPFLAGS) -I$(top_srcdir)/tests/golden
tests_golden_golden_report_LDADD = $(SC_CLI_LIBS)

# Check unit tests; they speak TAP through CK_TAP_LOG_FILE_NAME=-.
SC_UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
SC_UNIT_CPPFLAGS = $(AM_CPPFLAGS) $(SC_CLI_CPPFLAGS) -I$(top_srcdir)/tests/golden
SC_UNIT_LDADD = $(SC_CLI_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/unit/test-json
tests_unit_test_json_SOURCES = tests/unit/test-json.c
tests_unit_test_json_CFLAGS = $(SC_UNIT_CFLAGS)
tests_unit_test_json_CPPFLAGS = $(SC_UNIT_CPPFLAGS)
tests_unit_test_json_LDADD = $(SC_UNIT_LDADD)
TESTS += tests/unit/test-json

# The symbolizer (src/report/symbols.c), on this test's own frames.
check_PROGRAMS += tests/unit/test-symbols
tests_unit_test_symbols_SOURCES = tests/unit/test-symbols.c
tests_unit_test_symbols_CFLAGS = $(SC_UNIT_CFLAGS) -g
tests_unit_test_symbols_CPPFLAGS = $(SC_UNIT_CPPFLAGS)
tests_unit_test_symbols_LDADD = $(SC_UNIT_LDADD)
TESTS += tests/unit/test-symbols

check_PROGRAMS += tests/unit/test-formats
tests_unit_test_formats_SOURCES = tests/unit/test-formats.c \
	tests/golden/fixture.c tests/golden/fixture.h
tests_unit_test_formats_CFLAGS = $(SC_UNIT_CFLAGS)
tests_unit_test_formats_CPPFLAGS = $(SC_UNIT_CPPFLAGS)
tests_unit_test_formats_LDADD = $(SC_UNIT_LDADD)
TESTS += tests/unit/test-formats

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

# The STREAMCHECK_* settings (src/common/options.def).
check_PROGRAMS += tests/unit/test-options
tests_unit_test_options_SOURCES = tests/unit/test-options.c
tests_unit_test_options_CFLAGS = $(SC_UNIT_CFLAGS)
tests_unit_test_options_CPPFLAGS = $(SC_UNIT_CPPFLAGS)
tests_unit_test_options_LDADD = $(SC_UNIT_LDADD)
TESTS += tests/unit/test-options

# Golden files: the fixture rendered in every format, compared byte for byte.
SC_GOLDEN = \
	tests/golden/single.txt tests/golden/merged.txt tests/golden/merged-verbose.txt \
	tests/golden/empty.txt tests/golden/single.json tests/golden/merged.json \
	tests/golden/empty.json tests/golden/merged.sarif tests/golden/empty.sarif \
	tests/golden/merged.xml tests/golden/merged-never.xml \
	tests/golden/single.md tests/golden/merged.md tests/golden/empty.md tests/golden/priced.md
EXTRA_DIST += tests/golden/cases tests/golden/tap.sh $(SC_GOLDEN)
dist_check_SCRIPTS += tests/golden/golden.sh
TESTS += tests/golden/golden.sh

# Rewrites the golden files from the current renderers; review the diff.
update-golden: tests/golden/golden-report$(EXEEXT)
	$(AM_V_at)grep -v '^#' $(srcdir)/tests/golden/cases | while read -r name case format; do \
	  echo "  GOLDEN   tests/golden/$$name"; \
	  tests/golden/golden-report$(EXEEXT) $$case $$format > $(srcdir)/tests/golden/$$name.tmp && \
	  mv -f $(srcdir)/tests/golden/$$name.tmp $(srcdir)/tests/golden/$$name || exit 1; \
	done
.PHONY: update-golden

# `streamcheck report` without the launcher (which is built elsewhere).
check_PROGRAMS += tests/unit/report-cli
tests_unit_report_cli_SOURCES = tests/unit/report-cli.c
tests_unit_report_cli_CPPFLAGS = $(AM_CPPFLAGS) $(SC_CLI_CPPFLAGS)
tests_unit_report_cli_LDADD = $(SC_CLI_LIBS)
dist_check_SCRIPTS += tests/golden/report-cli.sh
TESTS += tests/golden/report-cli.sh

# SARIF output against the vendored OASIS schema (tests/sarif/README).
if HAVE_JSONSCHEMA
SC_HAVE_JSONSCHEMA = yes
else
SC_HAVE_JSONSCHEMA = no
endif
tests/sarif/jsonschema.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/sarif && echo "have_jsonschema=$(SC_HAVE_JSONSCHEMA)" > $@
check_SCRIPTS += tests/sarif/jsonschema.sh
CLEANFILES += tests/sarif/jsonschema.sh
EXTRA_DIST += tests/sarif/README tests/sarif/sarif-schema-2.1.0.json tests/sarif/validate.py
dist_check_SCRIPTS += tests/sarif/validate.sh
TESTS += tests/sarif/validate.sh
dist_check_SCRIPTS += tests/golden/junit.sh
TESTS += tests/golden/junit.sh
dist_check_SCRIPTS += tests/golden/man-page.sh
TESTS += tests/golden/man-page.sh

# ----------------------------------------------------------------- fuzz ---
# Fuzz targets for the JSON reader and the suppression/expectation parsers
# (tests/fuzz/fuzz-*.c).  'make check' replays their seed corpora through
# the same entry points with the ordinary compiler (replay.c); 'make fuzz'
# builds them with clang's libFuzzer and runs each for FUZZ_TIME seconds
# (needs clang and libclang-rt-14-dev, or another clang with its runtime).
# New inputs land in tests/fuzz/work-TARGET; crashes in tests/fuzz/crash-*;
# FUZZ_ARGS passes more libFuzzer flags (e.g. FUZZ_ARGS='-fork=2').
SC_FUZZ_TARGETS = json suppress
# Everything the replay programs link, from the libraries' own source lists,
# so a file added to one of them is in the fuzz build too (a hand-kept list
# here fell behind the libraries twice, and 'make fuzz' stopped linking).
SC_FUZZ_LIBSRC = $(filter %.c,$(src_report_libscreport_la_SOURCES) $(src_common_libsccommon_la_SOURCES) \
	$(src_common_libscrules_la_SOURCES) $(src_cli_libsccli_la_SOURCES)) tests/golden/fixture.c
FUZZ_CC = clang
FUZZ_TIME = 60
FUZZ_ARGS =
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

check_PROGRAMS += tests/fuzz/replay-json tests/fuzz/replay-suppress
tests_fuzz_replay_json_SOURCES = tests/fuzz/fuzz-json.c tests/fuzz/replay.c
tests_fuzz_replay_json_CPPFLAGS = $(AM_CPPFLAGS) $(SC_CLI_CPPFLAGS)
tests_fuzz_replay_json_LDADD = $(SC_CLI_LIBS)
tests_fuzz_replay_suppress_SOURCES = tests/fuzz/fuzz-suppress.c tests/fuzz/replay.c \
	tests/golden/fixture.c tests/golden/fixture.h
tests_fuzz_replay_suppress_CPPFLAGS = $(AM_CPPFLAGS) $(SC_CLI_CPPFLAGS) -I$(top_srcdir)/tests/golden
tests_fuzz_replay_suppress_LDADD = $(SC_CLI_LIBS)
dist_check_SCRIPTS += tests/fuzz/replay.sh
TESTS += tests/fuzz/replay.sh
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/json.dict tests/fuzz/suppress.dict

fuzz: src/report/html_assets.h
	$(AM_V_at)$(MKDIR_P) tests/fuzz
	$(AM_V_at)srcs=; for f in $(SC_FUZZ_LIBSRC); do srcs="$$srcs $(srcdir)/$$f"; done; \
	for t in $(SC_FUZZ_TARGETS); do \
	  echo "  FUZZCC   tests/fuzz/fuzz-$$t"; \
	  $(FUZZ_CC) $(FUZZ_FLAGS) -std=gnu11 -D_GNU_SOURCE -I$(top_builddir) -I$(top_srcdir)/src/common \
	    -I$(top_srcdir)/src/report -I$(top_builddir)/src/report -I$(top_srcdir)/src/cli \
	    -I$(top_srcdir)/tests/golden -o tests/fuzz/fuzz-$$t $(srcdir)/tests/fuzz/fuzz-$$t.c $$srcs || exit 1; \
	done; \
	for t in $(SC_FUZZ_TARGETS); do \
	  echo "  FUZZ     tests/fuzz/fuzz-$$t for $(FUZZ_TIME) s"; \
	  $(MKDIR_P) tests/fuzz/work-$$t && \
	  (cd tests/fuzz && ./fuzz-$$t -max_total_time=$(FUZZ_TIME) $(FUZZ_ARGS) \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -dict=$(abs_srcdir)/tests/fuzz/$$t.dict \
	    -artifact_prefix=crash-$$t- work-$$t $(abs_srcdir)/tests/fuzz/corpus/$$t) || exit 1; \
	done
# Adds to the committed corpora the inputs the fuzzers found that reach
# code the corpora do not (edges only, so the corpora stay small).
fuzz-merge:
	$(AM_V_at)for t in $(SC_FUZZ_TARGETS); do \
	  tests/fuzz/fuzz-$$t -merge=1 -use_counters=0 -use_cmp=0 \
	    $(srcdir)/tests/fuzz/corpus/$$t tests/fuzz/work-$$t || exit 1; \
	done
fuzz-clean:
	rm -rf tests/fuzz/work-* tests/fuzz/crash-* tests/fuzz/fuzz-json tests/fuzz/fuzz-suppress tests/fuzz/fuzz-*.log
.PHONY: fuzz fuzz-merge fuzz-clean
