# tests/local.mk: the shim's unit tests and the end-to-end tests.

# Unit tests of the shim: its real wrappers against a fake driver.
check_PROGRAMS += tests/unit/test_rules
tests_unit_test_rules_SOURCES = tests/unit/test_rules.c tests/unit/fake_driver.c tests/unit/fake_driver.h
tests_unit_test_rules_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_rules_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
tests_unit_test_rules_LDFLAGS = $(SC_SHIM_LINK)
tests_unit_test_rules_LDADD = $(SC_SHIM_LIBS) \
	$(CHECK_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
TESTS += tests/unit/test_rules

# The happens-before tracker (src/shim/hb_*.c): its clocks through the real,
# interposed pthread functions, and the waits it adds for redirect.
check_PROGRAMS += tests/unit/test_hb
tests_unit_test_hb_SOURCES = tests/unit/test_hb.c
tests_unit_test_hb_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_hb_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
tests_unit_test_hb_LDFLAGS = $(SC_SHIM_LINK)
tests_unit_test_hb_LDADD = $(SC_SHIM_LIBS) \
	$(CHECK_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
TESTS += tests/unit/test_hb

# The GPU timeline of measured mode (src/shim/timeline.c, timeline_price.c):
# hand-made timelines with exact answers.
check_PROGRAMS += tests/unit/test_timeline
tests_unit_test_timeline_SOURCES = tests/unit/test_timeline.c
tests_unit_test_timeline_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_timeline_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
tests_unit_test_timeline_LDADD = $(SC_SHIM_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_timeline

# The shim as an NVTX injection library (src/shim/nvtx.c, ranges.c),
# attached to an NVTX instance made by the test.
check_PROGRAMS += tests/unit/test_nvtx
tests_unit_test_nvtx_SOURCES = tests/unit/test_nvtx.c
tests_unit_test_nvtx_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_nvtx_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
tests_unit_test_nvtx_LDFLAGS = $(SC_SHIM_LINK)
tests_unit_test_nvtx_LDADD = $(SC_SHIM_LIBS) \
	$(CHECK_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
TESTS += tests/unit/test_nvtx

# A CUDA-using library loaded late, with dlopen, by a program that does not
# link the runtime (tests/interception.sh; also run on a GPU).
check_LTLIBRARIES = tests/libscdlopen.la
tests_libscdlopen_la_SOURCES = tests/dlopen_helper.c
tests_libscdlopen_la_CFLAGS = $(AM_CFLAGS) -g -O0
tests_libscdlopen_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_libscdlopen_la_LIBADD = -L$(CUDA_LIBDIR) -lcudart
check_PROGRAMS += tests/late_dlopen
tests_late_dlopen_SOURCES = tests/late_dlopen.c
tests_late_dlopen_LDADD = -ldl
check_DATA = tests/dlopen_helper.expect
tests/dlopen_helper.expect: $(srcdir)/tests/dlopen_helper.c $(srcdir)/testapps/expect.awk
	$(AM_V_GEN)$(AWK) -f $(srcdir)/testapps/expect.awk $(srcdir)/tests/dlopen_helper.c > $@
CLEANFILES += tests/dlopen_helper.expect

# End to end, on the simulator.
dist_check_SCRIPTS += tests/selftest-sim.sh tests/interception.sh tests/docs.sh tests/redirect.sh tests/fail-on.sh \
	tests/output-dir.sh tests/callsites.sh tests/measure.sh tests/trace_check.py tests/multigpu.sh tests/ablate.sh \
	tests/nvtx.sh
TESTS += tests/selftest-sim.sh tests/interception.sh tests/docs.sh tests/redirect.sh tests/fail-on.sh \
	tests/output-dir.sh tests/callsites.sh tests/measure.sh tests/multigpu.sh tests/ablate.sh tests/nvtx.sh

# Forking while other threads are inside the shim (tests/fork.sh).
check_PROGRAMS += tests/fork_stress
tests_fork_stress_SOURCES = tests/fork_stress.c
tests_fork_stress_CFLAGS = $(AM_CFLAGS) -g
tests_fork_stress_LDADD = -L$(CUDA_LIBDIR) -lcublas -lcudart -lpthread
# Prices against what the fixes gain, on the simulator (bench/price_check.py).
dist_check_SCRIPTS += tests/pricing.sh
TESTS += tests/pricing.sh
dist_check_SCRIPTS += tests/loop.sh
TESTS += tests/loop.sh
dist_check_SCRIPTS += tests/second-read.sh
TESTS += tests/second-read.sh
dist_check_SCRIPTS += tests/price-replay.sh
TESTS += tests/price-replay.sh
# The model against the runs recorded on a GPU (bench/data).
dist_check_SCRIPTS += tests/price-offline.sh
TESTS += tests/price-offline.sh

dist_check_SCRIPTS += tests/fork.sh
TESTS += tests/fork.sh

# The HTML report (tests/html_check.py checks a page; tests/html.sh runs it).
dist_check_SCRIPTS += tests/html.sh tests/html_check.py
TESTS += tests/html.sh

# The GPU benchmarks' machinery on the simulator (bench/graphs, bench/side-by-side.sh).
dist_check_SCRIPTS += tests/bench-sim.sh
TESTS += tests/bench-sim.sh
dist_check_SCRIPTS += tests/train-bench.sh
TESTS += tests/train-bench.sh

# The launcher's options (tests/launcher-help.txt is its --help).
dist_check_SCRIPTS += tests/launcher.sh
EXTRA_DIST += tests/launcher-help.txt
TESTS += tests/launcher.sh
# The replay of a run's dependency graph (src/shim/replay.c), the pricing
# model's engine, on graphs with known answers.
check_PROGRAMS += tests/unit/test_replay
tests_unit_test_replay_SOURCES = tests/unit/test_replay.c
tests_unit_test_replay_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_replay_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
tests_unit_test_replay_LDFLAGS = $(SC_SHIM_LINK)
tests_unit_test_replay_LDADD = $(SC_SHIM_LIBS) \
	$(CHECK_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
TESTS += tests/unit/test_replay

# The first touch of a read-back's destination (src/shim/touch.c) on this
# process's own mappings.
check_PROGRAMS += tests/unit/test_touch
tests_unit_test_touch_SOURCES = tests/unit/test_touch.c
tests_unit_test_touch_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_touch_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
tests_unit_test_touch_LDFLAGS = $(SC_SHIM_LINK)
tests_unit_test_touch_LDADD = $(SC_SHIM_LIBS) \
	$(CHECK_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
TESTS += tests/unit/test_touch

# The pricing model (src/shim/pricing.c) on recorded runs written by hand.
check_PROGRAMS += tests/unit/test_pricing
tests_unit_test_pricing_SOURCES = tests/unit/test_pricing.c
tests_unit_test_pricing_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_pricing_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
tests_unit_test_pricing_LDFLAGS = $(SC_SHIM_LINK)
tests_unit_test_pricing_LDADD = $(SC_SHIM_LIBS) \
	$(CHECK_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
TESTS += tests/unit/test_pricing

# What a program's queries answer after its work completed, natively and
# under each --redirect-method (tests/redirect.sh).
check_PROGRAMS += tests/redirect_queries
tests_redirect_queries_SOURCES = tests/redirect_queries.c
tests_redirect_queries_CFLAGS = $(AM_CFLAGS) -g
tests_redirect_queries_LDADD = -L$(CUDA_LIBDIR) -lcudart

# A program that ends in the ways jobs end (tests/faults.sh).
check_PROGRAMS += tests/fault_app
tests_fault_app_SOURCES = tests/fault_app.c
tests_fault_app_CFLAGS = $(AM_CFLAGS) -g
tests_fault_app_LDADD = -L$(CUDA_LIBDIR) -lcudart -lpthread

# A program with a weak cuInit and no libcuda (tests/faults.sh).
check_PROGRAMS += tests/weak_cuinit
tests_weak_cuinit_SOURCES = tests/weak_cuinit.c

# Reports survive how jobs end, never a false clean, never a changed result
# or file (issue 26): signals, abort, crashes, exec, _exit, snapshots and
# SIGKILL, threads inside CUDA at exit, the program's own files, static
# cudart, bad settings files, planted links, weak references
# (tests/fault_app, tests/weak_cuinit).
dist_check_SCRIPTS += tests/faults.sh
TESTS += tests/faults.sh

# The launcher as a good parent: signals passed on, taken down with it,
# TMPDIR, why no report was written (tests/parent.sh; parent_app makes one
# CUDA call, then ends as told).
check_PROGRAMS += tests/parent_app
tests_parent_app_SOURCES = tests/parent_app.c
tests_parent_app_LDADD = -ldl
dist_check_SCRIPTS += tests/parent.sh tests/defer.sh tests/idle.sh tests/queues.sh
TESTS += tests/parent.sh tests/defer.sh tests/idle.sh tests/queues.sh
