/* locate.h: the launcher's installed pieces (locate.c), found relative to
 * the launcher (relocatable), or from STREAMCHECK_LIB / STREAMCHECK_SIMDIR /
 * STREAMCHECK_LIBEXECDIR.  Each returns 0 and the path in out, or -1 (out
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


int sc_cli_find_lib(char *out, size_t len);     /* libstreamcheck.so */
int sc_cli_find_simdir(char *out, size_t len);  /* the simulator's libcuda.so.1 folder */
int sc_cli_find_libexec(char *out, size_t len); /* the test apps' parent folder */

#endif /* SC_LOCATE_H */
