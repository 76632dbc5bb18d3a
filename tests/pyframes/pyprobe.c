/* pyprobe.c: sc_py_capture() made callable from Python, for probe.py.
 *
 * Built as a module from the shim's own convenience library, so the code
 * under test is the shim's, called from inside a foreign call as a driver
 * wrapper would be.  ctypes.CDLL releases the GIL around the call (as
 * PyTorch does around its ops); ctypes.PyDLL keeps it.
 */
#include "config.h"

#include <stdio.h>

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
    sc_pyref fr[32];
    int n = sc_py_capture(fr, (int)SC_ARRAY_LEN(fr));
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
