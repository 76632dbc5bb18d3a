/* locate.h: the launcher's installed pieces (locate.c), found relative to
 * the launcher (relocatable), or from STREAMCHECK_LIB / STREAMCHECK_SIMDIR /
 * STREAMCHECK_TESTAPPS.  Each returns 0 and the path in out, or -1 (out
 * then holds the last place looked at). */
#ifndef SC_LOCATE_H
#define SC_LOCATE_H

#include <stddef.h>

/* Where configure installs them (src/cli/local.mk passes the real ones). */
#ifndef SC_BINDIR
#define SC_BINDIR "/usr/local/bin"
#endif
#ifndef SC_LIBDIR
#define SC_LIBDIR "/usr/local/lib"
#endif
#ifndef SC_PKGLIBEXECDIR
#define SC_PKGLIBEXECDIR "/usr/local/libexec/streamcheck"
#endif
#ifndef SC_TOP_SRCDIR   /* the source tree, for a launcher run from its build tree */
#define SC_TOP_SRCDIR "."
#endif


int sc_cli_find_lib(char *out, size_t len);     /* libstreamcheck.so */
int sc_cli_find_simdir(char *out, size_t len);  /* the simulator's libcuda.so.1 folder */
/* The test apps' folder and their list (selftest.list). */
int sc_cli_find_testapps(char *dir, size_t dlen, char *list, size_t llen);

#endif /* SC_LOCATE_H */
