# tools/local.mk: generators the build runs, and the scripts we run on a
# lent GPU (stage-gpu.sh, gpu-session.sh; not installed).

# The man page generator (man/local.mk runs it).
noinst_PROGRAMS += tools/gen-man-rules
tools_gen_man_rules_SOURCES = tools/gen-man-rules.c
tools_gen_man_rules_CPPFLAGS = $(AM_CPPFLAGS) $(SC_REPORT_CPPFLAGS)
tools_gen_man_rules_LDADD = src/common/libscrules.la
EXTRA_DIST += tools/stage-gpu.sh tools/gpu-session.sh tools/resnet-verify.py tools/gpu-verify.sh \
	tools/measure-check.sh tools/overhead-probe.sh tools/overhead-4gpu.sh tools/sigterm-check.sh

# The layering rules (docs/ARCHITECTURE.md, "Layering"), checked with nm on
# the shim's objects and on the sources.
dist_check_SCRIPTS += tools/check-layering.sh
TESTS += tools/check-layering.sh
