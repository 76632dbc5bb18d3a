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
    if (self_dir(self, sizeof self) < 0)
        return -1;
    snprintf(out, len, "%s/%s", self, rel);
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

int sc_cli_find_libexec(char *out, size_t len)
{
    if (from_env("STREAMCHECK_LIBEXECDIR", out, len))
        return access(out, R_OK);
    return find_installed(SC_PKGLIBEXECDIR, ".", out, len);
}
