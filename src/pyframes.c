/* pyframes.c: the Python line behind a CUDA call.
 *
 * For a PyTorch user a call site inside libtorch_cuda.so is useless; they
 * need train.py:42.  When the process runs CPython we read the innermost
 * Python frames through the C API, resolved at run time (we never link
 * against libpython), and only when this thread holds the GIL: without it
 * the frame stack may be changing under us.
 *
 * Frames in installed packages and the standard library are skipped until
 * the first frame of the program itself, so a frame in torch.nn does not
 * hide the user's line.
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "callsites.h"
#include "shim.h"

void *sc_dlsym_default(const char *name);

static struct {
    int (*IsInitialized)(void);
    int (*GILState_Check)(void);
    void *(*EvalGetFrame)(void);
    void *(*FrameGetBack)(void *);
    void *(*FrameGetCode)(void *);
    int (*FrameGetLineNumber)(void *);
    void *(*GetAttrString)(void *, const char *);
    const char *(*UnicodeAsUTF8)(void *);
    void (*IncRef)(void *);
    void (*DecRef)(void *);
    void (*ErrFetch)(void **, void **, void **);
    void (*ErrRestore)(void *, void *, void *);
    void (*ErrClear)(void);
} py;
static _Atomic int resolved;            /* 1 ok, -1 not a Python process (yet) */
static _Atomic unsigned resolved_at;    /* module count when we last tried */

static int resolve(void)
{
    int r = atomic_load(&resolved);
    if (r > 0)
        return 1;
    unsigned nmods = sc_module_count();
    if (r < 0 && atomic_load(&resolved_at) == nmods)
        return 0;
    atomic_store(&resolved_at, nmods);
#define GET(field, sym) (*(void **)&py.field = sc_dlsym_default(sym))
    GET(IsInitialized, "Py_IsInitialized");
    GET(GILState_Check, "PyGILState_Check");
    GET(EvalGetFrame, "PyEval_GetFrame");
    GET(FrameGetBack, "PyFrame_GetBack");
    GET(FrameGetCode, "PyFrame_GetCode");
    GET(FrameGetLineNumber, "PyFrame_GetLineNumber");
    GET(GetAttrString, "PyObject_GetAttrString");
    GET(UnicodeAsUTF8, "PyUnicode_AsUTF8");
    GET(IncRef, "Py_IncRef");
    GET(DecRef, "Py_DecRef");
    GET(ErrFetch, "PyErr_Fetch");
    GET(ErrRestore, "PyErr_Restore");
    GET(ErrClear, "PyErr_Clear");
#undef GET
    int ok = py.IsInitialized && py.GILState_Check && py.EvalGetFrame && py.FrameGetBack &&
             py.FrameGetCode && py.FrameGetLineNumber && py.GetAttrString && py.UnicodeAsUTF8 &&
             py.IncRef && py.DecRef && py.ErrFetch && py.ErrRestore && py.ErrClear;
    atomic_store(&resolved, ok ? 1 : -1);
    return ok;
}

void sc_py_forget(void)
{
    atomic_store(&resolved, 0);
}

static const char *attr_str(void *obj, const char *name)
{
    void *v = py.GetAttrString(obj, name);
    if (!v) {
        py.ErrClear();
        return NULL;
    }
    const char *s = py.UnicodeAsUTF8(v);
    const char *r = s ? sc_intern(s) : NULL;
    if (!s)
        py.ErrClear();
    py.DecRef(v);
    return r;
}

static int library_frame(const char *file)
{
    return strstr(file, "/site-packages/") || strstr(file, "/dist-packages/") ||
           strstr(file, "/lib/python3") || file[0] == '<';
}

int sc_py_capture(sc_pyref *out, int max)
{
    if (max <= 0 || !resolve() || !py.IsInitialized() || !py.GILState_Check())
        return 0;
    void *et = NULL, *ev = NULL, *tb = NULL;
    py.ErrFetch(&et, &ev, &tb);   /* keep a pending exception intact */

    sc_pyref all[32];
    int n = 0;
    void *f = py.EvalGetFrame();  /* borrowed */
    if (f)
        py.IncRef(f);
    while (f && n < (int)SC_ARRAY_LEN(all)) {
        void *code = py.FrameGetCode(f);
        if (code) {
            const char *file = attr_str(code, "co_filename");
            const char *func = attr_str(code, "co_qualname");
            if (!func)
                func = attr_str(code, "co_name");
            int line = py.FrameGetLineNumber(f);
            all[n].file = file ? file : "?";
            all[n].func = func ? func : "?";
            all[n].line = line > 0 ? (unsigned)line : 0;
            n++;
            py.DecRef(code);
        }
        void *back = py.FrameGetBack(f);   /* new reference */
        py.DecRef(f);
        f = back;
    }
    if (f)
        py.DecRef(f);
    py.ErrRestore(et, ev, tb);

    int first = 0;
    while (first < n && library_frame(all[first].file))
        first++;
    if (first == n)
        first = 0;
    int k = 0;
    for (int i = first; i < n && k < max; i++)
        out[k++] = all[i];
    return k;
}
