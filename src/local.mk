# src/local.mk: the shim (libstreamcheck.so), the launcher, and the code
# they share.

# The rule catalogue, linked into the shim, the launcher and the tests.
noinst_LTLIBRARIES += src/libscrules.la
src_libscrules_la_SOURCES = src/rules.c src/rules.h src/rules.def
