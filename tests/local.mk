# tests/local.mk: the shim's unit tests and the end-to-end tests.

# Unit tests of the shim: its real wrappers against a fake driver.
check_PROGRAMS += tests/unit/test_rules
tests_unit_test_rules_SOURCES = tests/unit/test_rules.c tests/unit/fake_driver.c tests/unit/fake_driver.h
tests_unit_test_rules_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_rules_LDADD = src/libscshim.la src/libscreport.la src/libsccommon.la \
	$(CHECK_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
TESTS += tests/unit/test_rules
