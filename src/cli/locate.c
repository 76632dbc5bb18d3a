/* locate.c: where the launcher's installed pieces are.  Each is found
 * relative to the launcher first, so an installed tree can be moved, then
 * where configure put it; run from the build tree, the launcher takes what
 * was built beside it, never an older installed copy. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locate.h"

/* Where the launcher lives, resolved through symlinks. */
static int self_dir(char *out, size_t len)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = 0;
    snprintf(out, len, "%s", buf);
    return 0;
}

/* The path of `to` relative to `from` (both absolute, as configured). */
static void relpath(const char *from, const char *to, char *out, size_t len)
{
    size_t common = 0, i = 0;
    while (from[i] && to[i] && from[i] == to[i]) {
        if (from[i] == '/')
            common = i;
        i++;
    }
    if ((!from[i] || from[i] == '/') && (!to[i] || to[i] == '/'))
        common = i;
    out[0] = 0;
    for (const char *p = from + common; *p; p++)
        if (*p == '/')
            strncat(out, "../", len - strlen(out) - 1);
    const char *rest = to + common;
    if (*rest == '/')
        rest++;
    strncat(out, *rest ? rest : ".", len - strlen(out) - 1);
}

/* An installed file: relative to the launcher first (relocatable tree),
   then where configure put it. */
static int find_installed(const char *dir, const char *name, char *out, size_t len)
{
    char self[PATH_MAX], rel[PATH_MAX];
    if (self_dir(self, sizeof self) == 0) {
        relpath(SC_BINDIR, dir, rel, sizeof rel);
        snprintf(out, len, "%s/%s/%s", self, rel, name);
        if (access(out, F_OK) == 0)
            return 0;
    }
    snprintf(out, len, "%s/%s", dir, name);
    return access(out, F_OK);
}

/* Run from the build tree (src/streamcheck): the library built beside it,
   never an older installed one. */
static int find_built(const char *rel, char *out, size_t len)
{
    char self[PATH_MAX];
    if (self_dir(self, sizeof self) < 0 || (size_t)snprintf(out, len, "%s/%s", self, rel) >= len)
        return -1;
    return access(out, R_OK);
}

/* A variable that names the piece wins: whether var is set (its value then
   in out). */
static int from_env(const char *var, char *out, size_t len)
{
    const char *e = getenv(var);
    if (!e || !*e)
        return 0;
    snprintf(out, len, "%s", e);
    return 1;
}

int sc_cli_find_lib(char *out, size_t len)
{
    if (from_env("STREAMCHECK_LIB", out, len))
        return access(out, R_OK);
    if (find_built(".libs/libstreamcheck.so", out, len) == 0)
        return 0;
    return find_installed(SC_LIBDIR, "libstreamcheck.so", out, len);
}

int sc_cli_find_simdir(char *out, size_t len)
{
    if (from_env("STREAMCHECK_SIMDIR", out, len))
        return access(out, R_OK);
    if (find_built("sim/.libs/libcuda.so.1", out, len) == 0) {
        out[strlen(out) - strlen("/libcuda.so.1")] = 0;
        return 0;
    }
    return find_installed(SC_PKGLIBEXECDIR, "sim", out, len);
}

/* STREAMCHECK_TESTAPPS (and STREAMCHECK_TESTAPPS_LIST); run from the
   build tree, the apps built beside the launcher, listed in the source
   tree (the two differ in a VPATH build); else the installed ones, below
   STREAMCHECK_LIBEXECDIR when it is set. */
int sc_cli_find_testapps(char *dir, size_t dlen, char *list, size_t llen)
{
    char lib[PATH_MAX];
    int env = from_env("STREAMCHECK_TESTAPPS", dir, dlen);
    if (!env && find_built(".libs/libstreamcheck.so", lib, sizeof lib) == 0 &&
        find_built("../testapps", dir, dlen) == 0) {
        snprintf(list, llen, "%s/testapps/selftest.list", SC_TOP_SRCDIR);
        if (access(list, R_OK))
            snprintf(list, llen, "%s/selftest.list", dir);
        return 0;
    }
    char libexec[PATH_MAX];
    if (!env && from_env("STREAMCHECK_LIBEXECDIR", libexec, sizeof libexec)) {
        if ((size_t)snprintf(dir, dlen, "%s/testapps", libexec) >= dlen || access(dir, R_OK))
            return -1;
    } else if (!env && find_installed(SC_PKGLIBEXECDIR, "testapps", dir, dlen)) {
        return -1;
    }
    if (!from_env("STREAMCHECK_TESTAPPS_LIST", list, llen))
        snprintf(list, llen, "%s/selftest.list", dir);
    return 0;
}
