/* pyprobe.c: sc_py_capture() made callable from Python, for probe.py.
 *
 * Built as a module from the shim's own convenience library, so the code
 * under test is the shim's, called from inside a foreign call as a driver
 * wrapper would be.  ctypes.CDLL releases the GIL around the call (as
 * PyTorch does around its ops); ctypes.PyDLL keeps it.
 */
#include "config.h"

#include <stdio.h>
#include <time.h>

#include "callsites.h"
#include "sc.h"

/* Writes the frames innermost first, one "file:line:function" a line, into
   buf (NUL-terminated, truncated to len); returns how many were captured. */
SC_EXPORT int sc_probe(char *buf, int len);
SC_EXPORT int sc_probe(char *buf, int len)
{
    /* Nothing else of the shim runs here: let its debug lines (why a Python
       is not read) reach stderr. */
    sc_log_level = SC_LOG_DEBUG;
    sc_pyref fr[32 + 1];   /* 32 of the program's, the library frame beside them */
    int n = sc_py_capture(fr, 32);
    if (!buf || len <= 0)
        return n;
    size_t used = 0, cap = (size_t)len;
    buf[0] = '\0';
    for (int i = 0; i < n && used < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s:%u:%s\n", fr[i].file, fr[i].line, fr[i].func);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return n;
}

/* Nanoseconds one sc_py_capture(, depth) takes here, the mean of iters
   calls (its cost on a hazard path; probe.py prints it). */
SC_EXPORT double sc_probe_cost(int iters, int depth);
SC_EXPORT double sc_probe_cost(int iters, int depth)
{
    sc_pyref fr[32 + 1];
    if (depth < 1 || depth > 32)
        return -1.0;
    struct timespec a, b;
    int n = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < iters; i++)
        n += sc_py_capture(fr, depth);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    return n > 0 && iters > 0 ? ns / iters : -1.0;
}
