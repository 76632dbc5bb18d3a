/* pyframes.c: the Python line behind a CUDA call.
 *
 * For a PyTorch user a call site inside libtorch_cuda.so is useless; they
 * need train.py:42.  When the process runs CPython we read the innermost
 * Python frames of the calling thread.
 *
 * Not through the C API.  PyTorch releases the GIL around its ops
 * (pybind11::gil_scoped_release), so at the driver call this thread usually
 * does not hold it.  Taking it back from inside the call can deadlock (the
 * holder may be waiting for a lock this thread holds), and the frame API
 * allocates frame objects, which is only safe under the GIL.  So we read the
 * thread's interpreter frames directly, as sampling profilers do, but in
 * process and only our own thread's: while this thread is inside the
 * intercepted call it runs no Python code, so its frame chain cannot change
 * under us (with or without the GIL).  We only read: no reference counts, no
 * allocation, and of the interpreter only three functions that read
 * (Py_IsInitialized; PyGILState_GetThisThreadState, a TSS lookup;
 * PyCode_Addr2Line, a walk over the code object's line table).
 *
 * The structures are private to CPython and change with each minor version.
 * We know those of 3.11, 3.12 and 3.13 (64-bit; x86-64 and aarch64 lay them
 * out alike) from their headers, check at resolution what the interpreter
 * says of itself (type sizes; 3.13's _Py_DebugOffsets), and validate every
 * object we follow: any surprise ends the walk with what we have.  Other
 * versions get no Python frames, and sc_debug says why, once.
 *
 * Frames in installed packages and the standard library are skipped until
 * the first frame of the program itself, so a frame in torch.nn does not
 * hide the user's line; the innermost of them is kept beside it, the
 * library code that made the call (the report shows it "via").
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "intern.h"
#include "modules.h"
#include "pyframes.h"
#include "real.h"
#include "report.h"

/* ------------------------------------------------------------ layouts --- */
/* Facts common to 3.11-3.13, LP64:
   - PyObject is {Py_ssize_t ob_refcnt; PyTypeObject *ob_type} and
     PyVarObject adds Py_ssize_t ob_size (Include/object.h; in 3.12+ the
     refcount is a union of the same size).  A free-threaded 3.13t build
     differs; _Py_DebugOffsets tells, and we refuse it.
   - PyTypeObject starts {PyObject_VAR_HEAD; const char *tp_name;
     Py_ssize_t tp_basicsize, tp_itemsize; ...} (Include/cpython/object.h).
   - PyASCIIObject is {PyObject_HEAD; Py_ssize_t length; Py_hash_t hash;
     struct {unsigned interned:2, kind:3, compact:1, ascii:1, ...} state; ...}
     (Include/cpython/unicodeobject.h); GCC and Clang allocate bit-fields
     from the low bit on both targets, so compact is 0x20 and ascii 0x40.
   - _Py_CODEUNIT is 2 bytes; Py_SIZE(code) counts code units
     (_PyCode_NBYTES in Include/cpython/code.h).
   - FRAME_OWNED_BY_GENERATOR is 1 (Include/internal/pycore_frame.h). */
#define OB_TYPE 8
#define OB_SIZE 16
#define TP_BASICSIZE 32
#define TP_ITEMSIZE 40
#define STR_LENGTH 16
#define STR_STATE 32
#define STR_COMPACT 0x20u
#define STR_ASCII 0x40u
#define CODEUNIT 2
#define OWNED_BY_GENERATOR 1

/* Frames visited, skipped ones included: deep enough for a framework's
   stack above the program's frame (Python's own recursion limit is 1000),
   where a step costs a few loads. */
#define MAX_WALK 1024
#define MAX_STR 4096     /* longer names are reported as "?" */

typedef struct pylayout {
    /* PyThreadState -> the current _PyInterpreterFrame */
    int ts_cframe;         /* offsetof(PyThreadState, cframe); -1: no _PyCFrame */
    int cur_frame;         /* offsetof(_PyCFrame, current_frame), or of
                              PyThreadState's own current_frame */
    /* _PyInterpreterFrame */
    int fr_code;           /* f_code (3.11, 3.12), f_executable (3.13) */
    int fr_previous;
    int fr_instr;          /* prev_instr (3.11, 3.12), instr_ptr (3.13) */
    int fr_owner;          /* char owner */
    int owner_max;         /* the highest enum _frameowner value */
    int owned_by_cstack;   /* FRAME_OWNED_BY_CSTACK, -1 where there is none */
    /* PyCodeObject */
    int co_filename, co_name, co_qualname;
    int co_firsttraceable; /* int _co_firsttraceable */
    int co_code;           /* co_code_adaptive; also PyCode_Type.tp_basicsize */
    /* str */
    int ascii_size;        /* sizeof(PyASCIIObject): a compact ASCII string's bytes */
    int utf8_length, utf8; /* in PyCompactUnicodeObject */
    int str_basicsize;     /* PyUnicode_Type.tp_basicsize: sizeof(PyUnicodeObject) */
} pylayout;

/* Each table: the headers of a release (Include/cpython/pystate.h for
   struct _ts and _PyCFrame, Include/internal/pycore_frame.h for
   _PyInterpreterFrame and enum _frameowner, Include/cpython/code.h for
   PyCodeObject, Include/cpython/unicodeobject.h for the str structs),
   measured with offsetof() compiled against them (Py_BUILD_CORE).  The
   thread state, frame, co_filename/co_name and string sizes also match
   DWARF dumps of every release of the minor version from .0 to .8 (3.11)
   and .2 (3.12), x86-64 and aarch64.

   v3.11.7: _PyCFrame is {uint8_t use_tracing; current_frame; previous}
   (current_frame lands at 8 all the same); _PyInterpreterFrame is {f_func,
   f_globals, f_builtins, f_locals, f_code, frame_obj, previous, prev_instr,
   int stacktop, bool is_entry, char owner}, and enum _frameowner has no
   FRAME_OWNED_BY_CSTACK yet (THREAD, GENERATOR, FRAME_OBJECT); PyASCIIObject
   still carries wchar_t *wstr, PyCompactUnicodeObject wstr_length. */
static const pylayout py311 = {
    .ts_cframe = 56, .cur_frame = 8,
    .fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_owner = 69,
    .owner_max = 2, .owned_by_cstack = -1,
    .co_filename = 112, .co_name = 120, .co_qualname = 128,
    .co_firsttraceable = 168, .co_code = 184,
    .ascii_size = 48, .utf8_length = 48, .utf8 = 56, .str_basicsize = 80,
};

/* v3.12.1: _PyCFrame is {current_frame; previous}; _PyInterpreterFrame is
   {f_code, previous, f_funcobj, f_globals, f_builtins, f_locals, frame_obj,
   prev_instr, int stacktop, uint16_t return_offset, char owner};
   FRAME_OWNED_BY_CSTACK = 3 marks the entry frame that each C -> Python
   call pushes; wstr is gone from the str structs. */
static const pylayout py312 = {
    .ts_cframe = 56, .cur_frame = 0,
    .fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_owner = 70,
    .owner_max = 3, .owned_by_cstack = 3,
    .co_filename = 112, .co_name = 120, .co_qualname = 128,
    .co_firsttraceable = 176, .co_code = 192,
    .ascii_size = 40, .utf8_length = 40, .utf8 = 48, .str_basicsize = 64,
};

/* v3.13.0: no _PyCFrame, PyThreadState holds current_frame itself (after
   eval_breaker, _status, _whence and state); _PyInterpreterFrame is
   {f_executable, previous, f_funcobj, f_globals, f_builtins, f_locals,
   frame_obj, instr_ptr, int stacktop, uint16_t return_offset, char owner},
   FRAME_OWNED_BY_CSTACK = 3.  Checked at run time against the interpreter's
   own _Py_DebugOffsets as well. */
static const pylayout py313 = {
    .ts_cframe = -1, .cur_frame = 72,
    .fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_owner = 70,
    .owner_max = 3, .owned_by_cstack = 3,
    .co_filename = 112, .co_name = 120, .co_qualname = 128,
    .co_firsttraceable = 184, .co_code = 200,
    .ascii_size = 40, .utf8_length = 40, .utf8 = 48, .str_basicsize = 64,
};

/* Reads through memcpy: no alignment or aliasing assumptions, one load. */
static inline const char *rd_ptr(const char *base, int off)
{
    const char *p;
    memcpy(&p, base + off, sizeof p);
    return p;
}
static inline intptr_t rd_ssize(const char *base, int off)
{
    intptr_t v;
    memcpy(&v, base + off, sizeof v);
    return v;
}
static inline int rd_int(const char *base, int off)
{
    int v;
    memcpy(&v, base + off, sizeof v);
    return v;
}
static inline uint32_t rd_u32(const char *base, int off)
{
    uint32_t v;
    memcpy(&v, base + off, sizeof v);
    return v;
}
static inline uint64_t rd_u64(const char *base, int off)
{
    uint64_t v;
    memcpy(&v, base + off, sizeof v);
    return v;
}
static inline int aligned(const char *p) { return p && ((uintptr_t)p & 7) == 0; }

/* ---------------------------------------------------------- resolving --- */
static struct {
    int (*IsInitialized)(void);
    const char *(*GetThisThreadState)(void);
    int (*Addr2Line)(const char *code, int byte_offset);
    const char *code_type, *unicode_type, *none;
    const pylayout *layout;
} py;
/* 1 ok; -1 not a Python process (yet): try again when modules load;
   -2 a Python we do not read: for good. */
static _Atomic int resolved;
static _Atomic unsigned resolved_at;   /* module count when we last tried */

/* 3.13 puts _Py_DebugOffsets first in _PyRuntime so that debuggers need not
   guess the layout (Include/internal/pycore_runtime.h, v3.13.0).  We check
   ours against it; its own positions are those of v3.13.0, measured with
   offsetof.  NULL if all agree, else what differs. */
static const char *check_debug_offsets(const pylayout *L, unsigned long version)
{
    const char *rt = sc_dlsym_default("_PyRuntime");
    if (!rt)
        return "no _PyRuntime";
    if (memcmp(rt, "xdebugpy", 8) != 0)
        return "no debug offsets in _PyRuntime";
    if (rd_u64(rt, 8) != version)
        return "debug offsets of another version";
    if (rd_u64(rt, 16) != 0)
        return "a free-threaded build";
    static const struct {
        int at;
        const char *what;
    } where[] = {
        {184, "_Py_DebugOffsets disagrees on thread_state.current_frame"},
        {232, "_Py_DebugOffsets disagrees on interpreter_frame.previous"},
        {240, "_Py_DebugOffsets disagrees on interpreter_frame.executable"},
        {248, "_Py_DebugOffsets disagrees on interpreter_frame.instr_ptr"},
        {264, "_Py_DebugOffsets disagrees on interpreter_frame.owner"},
        {280, "_Py_DebugOffsets disagrees on code_object.filename"},
        {288, "_Py_DebugOffsets disagrees on code_object.name"},
        {296, "_Py_DebugOffsets disagrees on code_object.qualname"},
        {344, "_Py_DebugOffsets disagrees on code_object.co_code_adaptive"},
        {360, "_Py_DebugOffsets disagrees on pyobject.ob_type"},
        {544, "_Py_DebugOffsets disagrees on unicode_object.state"},
        {552, "_Py_DebugOffsets disagrees on unicode_object.length"},
        {560, "_Py_DebugOffsets disagrees on unicode_object.asciiobject_size"},
    };
    const uint64_t want[] = {
        (uint64_t)L->cur_frame, (uint64_t)L->fr_previous, (uint64_t)L->fr_code,
        (uint64_t)L->fr_instr,  (uint64_t)L->fr_owner,    (uint64_t)L->co_filename,
        (uint64_t)L->co_name,   (uint64_t)L->co_qualname, (uint64_t)L->co_code,
        OB_TYPE,                STR_STATE,                STR_LENGTH,
        (uint64_t)L->ascii_size,
    };
    _Static_assert(SC_ARRAY_LEN(where) == SC_ARRAY_LEN(want), "one value per field");
    for (unsigned i = 0; i < SC_ARRAY_LEN(where); i++)
        if (rd_u64(rt, where[i].at) != want[i])
            return where[i].what;
    return NULL;
}

/* Why this Python is not read, said once; the answer is for good. */
static int refuse(const char *version, const char *why)
{
    static _Atomic int said;
    if (!atomic_exchange(&said, 1))
        sc_debug("Python %s: no Python frames in call sites: %s", version, why);
    atomic_store(&resolved, -2);
    return 0;
}

static int resolve(void)
{
    int r = atomic_load(&resolved);
    if (r > 0)
        return 1;
    if (r == -2)
        return 0;
    unsigned nmods = sc_module_count();
    if (r < 0 && atomic_load(&resolved_at) == nmods)
        return 0;
    atomic_store(&resolved_at, nmods);

    void *is_init = sc_dlsym_default("Py_IsInitialized");
    void *this_ts = sc_dlsym_default("PyGILState_GetThisThreadState");
    if (!is_init || !this_ts) {
        atomic_store(&resolved, -1);
        return 0;
    }
    const unsigned long *version = sc_dlsym_default("Py_Version");
    if (!version) {
        /* Older than 3.11, which brought Py_Version.  Py_GetVersion formats
           into a static buffer; called only for this message. */
        const char *(*get)(void);
        *(void **)&get = sc_dlsym_default("Py_GetVersion");
        const char *v = get ? get() : "?";
        char vs[32];
        size_t k = 0;
        while (k < sizeof vs - 1 && v[k] && v[k] != ' ')
            k++;
        memcpy(vs, v, k);
        vs[k] = '\0';
        return refuse(vs, "streamcheck reads 3.11 to 3.13");
    }
    unsigned long v = *version, major = v >> 24 & 0xff, minor = v >> 16 & 0xff, level = v >> 4 & 0xf;
    char vs[32];
    snprintf(vs, sizeof vs, "%lu.%lu", major, minor);
    const pylayout *L = NULL;
    if (major == 3 && minor == 11)
        L = &py311;
    else if (major == 3 && minor == 12)
        L = &py312;
    else if (major == 3 && minor == 13)
        L = &py313;
    if (!L)
        return refuse(vs, "streamcheck reads 3.11 to 3.13");
    if (level < 0xc)   /* alphas and betas: layouts still moving */
        return refuse(vs, "a pre-release, whose layout we do not know");

    const char *code_type = sc_dlsym_default("PyCode_Type");
    const char *unicode_type = sc_dlsym_default("PyUnicode_Type");
    void *addr2line = sc_dlsym_default("PyCode_Addr2Line");
    const char *none = sc_dlsym_default("_Py_NoneStruct");
    if (!code_type || !unicode_type || !addr2line || !none)
        return refuse(vs, "PyCode_Type, PyUnicode_Type, PyCode_Addr2Line or _Py_NoneStruct not found");
    /* The types tell their own sizes: the code object's bytecode starts at
       its tp_basicsize (codeobject.c declares PyCode_Type with
       offsetof(PyCodeObject, co_code_adaptive), sizeof(_Py_CODEUNIT)), and a
       str's basic size is sizeof(PyUnicodeObject).  A debug build with
       Py_TRACE_REFS, whose object header is larger, fails here too. */
    if (rd_ssize(code_type, TP_BASICSIZE) != L->co_code || rd_ssize(code_type, TP_ITEMSIZE) != CODEUNIT ||
        rd_ssize(unicode_type, TP_BASICSIZE) != L->str_basicsize)
        return refuse(vs, "code or str objects are not laid out as we know them");
    if (minor >= 13) {
        const char *why = check_debug_offsets(L, v);
        if (why)
            return refuse(vs, why);
    }

    /* Threads racing here store the same values. */
    *(void **)&py.IsInitialized = is_init;
    *(void **)&py.GetThisThreadState = this_ts;
    *(void **)&py.Addr2Line = addr2line;
    py.code_type = code_type;
    py.unicode_type = unicode_type;
    py.none = none;
    py.layout = L;
    atomic_store(&resolved, 1);
    return 1;
}

/* ------------------------------------------------------------ reading --- */
/* A str object's text, in place (the str outlives the call: the code
   object holds it).  1: read; 0: a str we cannot read without the
   interpreter's help (non-compact, or not ASCII and no UTF-8 cached:
   PyUnicode_AsUTF8 would allocate), *out is "?"; -1: not a str at all, so
   the layout is not what we think: stop. */
static int str_at(const pylayout *L, const char *o, const char **out)
{
    *out = "?";
    if (!aligned(o) || rd_ptr(o, OB_TYPE) != py.unicode_type)
        return -1;
    uint32_t state = rd_u32(o, STR_STATE);
    if (!(state & STR_COMPACT))
        return 0;
    const char *s;
    intptr_t len;
    if (state & STR_ASCII) {
        s = o + L->ascii_size;   /* the bytes follow the header, NUL-terminated */
        len = rd_ssize(o, STR_LENGTH);
    } else {
        s = rd_ptr(o, L->utf8);  /* NULL until someone asked for UTF-8 */
        len = rd_ssize(o, L->utf8_length);
        if (!s)
            return 0;
    }
    if (len < 0 || len > MAX_STR || s[len] != '\0')
        return 0;
    *out = s;
    return 1;
}

/* A frame found valid, not yet turned into names and a line. */
typedef struct rawframe {
    const char *code;
    intptr_t off;          /* byte offset of the instruction in the bytecode */
    const char *file, *func;
} rawframe;

/* The next frame of the chain worth reporting, from *f on; 0 at the end of
   the chain or at the first thing that is not what we expect. */
static int next_frame(const pylayout *L, const char **f, int *steps, rawframe *rf)
{
    for (; *f && *steps < MAX_WALK; ++*steps) {
        const char *fr = *f;
        if (!aligned(fr))
            return 0;
        int owner = (signed char)fr[L->fr_owner];
        if (owner < 0 || owner > L->owner_max)
            return 0;
        *f = rd_ptr(fr, L->fr_previous);
        if (owner == L->owned_by_cstack)   /* entry frame of a C -> Python call */
            continue;
        const char *code = rd_ptr(fr, L->fr_code);
        if (!aligned(code))
            return 0;
        if (rd_ptr(code, OB_TYPE) != py.code_type) {
            /* 3.13: f_executable is "code object or None" (pycore_frame.h) */
            if (code == py.none)
                continue;
            return 0;
        }
        /* Byte offset of the instruction: _PyInterpreterFrame_LASTI() *
           sizeof(_Py_CODEUNIT), what CPython's own _PyInterpreterFrame_GetLine
           gives PyCode_Addr2Line.  A fresh 3.11/3.12 frame has prev_instr
           one unit before the code. */
        intptr_t off = (intptr_t)((uintptr_t)rd_ptr(fr, L->fr_instr) - (uintptr_t)(code + L->co_code));
        intptr_t nbytes = rd_ssize(code, OB_SIZE) * CODEUNIT;
        if (off < -CODEUNIT || off >= nbytes || off > INT32_MAX)
            return 0;
        /* Incomplete frames (pushed, not yet at their first traceable
           instruction; also the shim frame 3.13 runs __init__ behind) are
           skipped, as _PyFrame_GetFirstComplete skips them. */
        if (owner != OWNED_BY_GENERATOR && off < (intptr_t)rd_int(code, L->co_firsttraceable) * CODEUNIT)
            continue;
        if (str_at(L, rd_ptr(code, L->co_filename), &rf->file) < 0)
            return 0;
        int r = str_at(L, rd_ptr(code, L->co_qualname), &rf->func);
        if (r < 0 || (r == 0 && str_at(L, rd_ptr(code, L->co_name), &rf->func) < 0))
            return 0;
        rf->code = code;
        rf->off = off;
        ++*steps;
        return 1;
    }
    return 0;
}

/* Names interned (sc_intern copies), line from the code's line table. */
static sc_pyref materialize(const rawframe *rf)
{
    int line = py.Addr2Line(rf->code, (int)rf->off);
    return (sc_pyref){
        .file = sc_intern(rf->file),
        .func = sc_intern(rf->func),
        .line = line > 0 ? (unsigned)line : 0,
    };
}

int sc_py_running(void)
{
    int saved = errno, r = resolve() && py.IsInitialized();
    errno = saved;
    return r;
}

int sc_py_capture(sc_pyref *out, int max)
{
    if (max <= 0)
        return 0;
    int saved = errno;
    int k = 0;
    if (resolve() && py.IsInitialized()) {
        /* This thread's own state, whether or not it holds the GIL. */
        const char *ts = py.GetThisThreadState();
        const pylayout *L = py.layout;
        const char *f = NULL;
        if (aligned(ts)) {
            if (L->ts_cframe < 0)
                f = rd_ptr(ts, L->cur_frame);
            else if (aligned(rd_ptr(ts, L->ts_cframe)))
                f = rd_ptr(rd_ptr(ts, L->ts_cframe), L->cur_frame);
        }
        /* Library frames are passed over until the program's first, which
           comes after the innermost of them with a file (the library code
           that made the call: Lightning's batch_to under the user's
           tr.fit(...)); if there is none, the innermost library frames are
           reported after all.  Only the frames reported pay for interning
           and line lookup. */
        rawframe lib[32], rf, via = {0};
        int nlib = 0, steps = 0, user = 0, has_via = 0;
        while (user < max && next_frame(L, &f, &steps, &rf)) {
            if (!user && sc_pyframe_is_library(rf.file)) {
                if (!has_via && rf.file[0] != '<') {
                    via = rf;
                    has_via = 1;
                }
                if (nlib < max && nlib < (int)SC_ARRAY_LEN(lib))
                    lib[nlib++] = rf;
                continue;
            }
            if (!user && has_via)
                out[k++] = materialize(&via);
            user++;
            out[k++] = materialize(&rf);
        }
        if (!user)
            for (int i = 0; i < nlib; i++)
                out[k++] = materialize(&lib[i]);
    }
    errno = saved;
    return k;
}
