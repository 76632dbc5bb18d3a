/* cli.h: pieces of the streamcheck launcher. */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <stddef.h>
#include <stdio.h>

/* `streamcheck report` and `--list-rules` are in report.h (cli_report.c). */
/* `streamcheck --selftest` (selftest.c). */
int sc_cli_selftest(int simulate);
/* A suppressions file is checked with sc_filter_check_suppressions
   (src/report/filter.h), as the shim does. */

/* Installed pieces, found relative to the launcher (relocatable), or from
   STREAMCHECK_LIB / STREAMCHECK_SIMDIR / STREAMCHECK_LIBEXECDIR. */
int sc_cli_find_lib(char *out, size_t len);
int sc_cli_find_simdir(char *out, size_t len);
int sc_cli_find_libexec(char *out, size_t len);

#endif
