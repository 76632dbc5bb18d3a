# tests/pyframes/local.mk: Python frames read without the GIL (src/shim/pyframes.c).
# Include after tests/local.mk (it sets check_LTLIBRARIES).

# sc_py_capture() behind a C function that Python calls through ctypes.
check_LTLIBRARIES += tests/pyframes/libpyprobe.la
tests_pyframes_libpyprobe_la_SOURCES = tests/pyframes/pyprobe.c
tests_pyframes_libpyprobe_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_pyframes_libpyprobe_la_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
tests_pyframes_libpyprobe_la_LIBADD = $(SC_SHIM_LIBS) \
	$(LIBUNWIND_LIBS) -ldl -lpthread

dist_check_SCRIPTS += tests/pyframes/pyframes.sh tests/pyframes/via.sh
TESTS += tests/pyframes/pyframes.sh tests/pyframes/via.sh
EXTRA_DIST += tests/pyframes/probe.py tests/pyframes/via_user.py \
	tests/pyframes/site-packages/fakeframework/__init__.py \
	tests/pyframes/site-packages/fakeframework/apply_func.py
