/* inject.c: makes libstreamcheck.so the program's NVTX injection library,
 * as Nsight's tools make theirs: NVTX loads the library that
 * NVTX_INJECTION64_PATH names at its first call (the shim's nvtx.c says
 * what follows), so that findings name the NVTX range they happened in
 * and --range can keep to one.  A library of another tool named there
 * already is left in place: NVTX takes one. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

#define NVTX_VAR "NVTX_INJECTION64_PATH"

/* Whether two paths name one file (as dlopen would find it). */
static int same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    if (!strcmp(a, b))
        return 1;
    return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

void sc_cli_nvtx_inject(const char *lib, const sc_launch *l)
{
    char abs[PATH_MAX];
    /* dlopen reads a name without a slash as a library to search for. */
    if (lib[0] != '/' && realpath(lib, abs))
        lib = abs;
    const char *held = getenv(NVTX_VAR);
    if (!held || !*held) {
        setenv(NVTX_VAR, lib, 1);
        return;
    }
    if (same_file(held, lib))
        return;
    const char *lvl = l->set[SC_OPT_LOG_LEVEL];
    if (lvl && !strcmp(lvl, "quiet"))
        return;
    fprintf(stderr, "%s: %s names another tool's library (%s): findings will name no NVTX range%s\n",
            SC_PROG, NVTX_VAR, held, l->set[SC_OPT_RANGE] ? ", and --range will find nothing" : "");
}
