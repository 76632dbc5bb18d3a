/* frames.c: which frames of a call site are the program's, which one is
 * the place to show (the primary frame), and the paths they name (base
 * names, normalization, the source root).
 *
 * The shim drops NVIDIA's libraries from a stack when it walks it (their
 * frames are never the line a user wrote); the report then chooses, among
 * the frames kept, the first one that is neither NVIDIA's, nor the glue nvcc
 * generates for a kernel<<<...>>> launch, nor the C runtime's.  Everything
 * here is a pure function of the frames, so a report read back from JSON
 * gets the same choice as the live one.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

static int ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* --------------------------------------------------------- libraries --- */

/* Basename prefixes, separator included, so that libcuda.so.1 matches and
   a libcudaops.so of the program does not. */
static const char *const nvidia_libs[] = {
    "libcuda.so", "libcudart.so",                    /* driver, runtime */
    "libcudnn.so", "libcudnn_",                      /* cuDNN 8/9: libcudnn_engines_precompiled.so.9 ... */
    "libcublas.so", "libcublasLt.so",
    "libcufft.so", "libcufftw.so",
    "libcusparse.so", "libcusparseLt.so",
    "libcurand.so",
    "libcusolver.so", "libcusolverMg.so",
    "libnccl.so",
    "libnvrtc.so", "libnvrtc-builtins.so",
    "libnvJitLink.so",
    "libcupti.so",
    "libcutensor.so", "libcutensorMg.so",
    "libnvblas.so",
};

int sc_nvidia_library(const char *path)
{
    if (!path || !*path)
        return 0;
    /* pip's wheels: site-packages/nvidia/<component>/lib/lib*.so* */
    if (strstr(path, "-packages/nvidia/"))
        return 1;
    const char *b = sc_basename(path);
    for (size_t i = 0; i < sizeof nvidia_libs / sizeof nvidia_libs[0]; i++)
        if (starts(b, nvidia_libs[i]))
            return 1;
    return 0;
}

/* The C and C++ runtimes: _start, __libc_start_main, start_thread, clone,
   std::thread's trampoline.  Where they have line numbers (a distribution's
   debug info) they would otherwise beat a program frame without any. */
static const char *const system_libs[] = {
    "libc.so", "libc-", "ld-linux", "ld64.so", "libpthread.so", "libpthread-", "libdl.so",
    "libstdc++.so", "libgcc_s.so", "libc++.so", "libc++abi.so",
};

int sc_system_library(const char *path)
{
    if (!path || !*path)
        return 0;
    const char *b = sc_basename(path);
    for (size_t i = 0; i < sizeof system_libs / sizeof system_libs[0]; i++)
        if (starts(b, system_libs[i]))
            return 1;
    return 0;
}

/* ------------------------------------------------------ launch glue --- */

#define STUB_PREFIX "__device_stub__"

/* What follows "__device_stub__" in a stub's name, demangled
   (__device_stub__Z8sc_saxpyifPKfPf(int, ...)) or not, when the demangler
   was missing (_Z31__device_stub__Z8sc_saxpyifPKfPfifPKfPf); else NULL. */
static const char *stub_kernel(const char *fn)
{
    if (!fn)
        return NULL;
    if (fn[0] == '_' && fn[1] == 'Z' && isdigit((unsigned char)fn[2])) {
        fn += 2;
        while (isdigit((unsigned char)*fn))
            fn++;
    }
    return starts(fn, STUB_PREFIX) ? fn + strlen(STUB_PREFIX) : NULL;
}

/* The headers nvcc's launch code lives in: CUDA's include/crt/ headers
   (__cudaLaunchKernel_helper in crt/device_functions.h) and
   cuda_runtime.h (the cudaLaunchKernel template). */
static int cuda_glue_header(const char *file)
{
    const char *b = sc_basename(file);
    if (!strcmp(b, "cuda_runtime.h"))
        return 1;
    if (!ends(b, ".h") && !ends(b, ".hpp"))
        return 0;
    size_t dir = (size_t)(b - file);
    return (dir == 4 && starts(file, "crt/")) || (dir >= 5 && !strncmp(b - 5, "/crt/", 5));
}

/* The host stub file nvcc generates: /tmp/tmpxft_00001c72_00000000-6_app.cudafe1.stub.c */
static int nvcc_stub_file(const char *file)
{
    const char *b = sc_basename(file);
    return ends(b, ".cudafe1.stub.c") || (starts(b, "tmpxft_") && ends(b, ".stub.c"));
}

int sc_frame_is_launch_glue(const sc_frame *f)
{
    return stub_kernel(f->function) || (f->file && (cuda_glue_header(f->file) ||
                                                                            nvcc_stub_file(f->file)));
}

/* Past the template arguments at s ('I'), or NULL when they do not end. */
static const char *skip_template_args(const char *s)
{
    int depth = 0;
    while (*s) {
        if (*s == 'I' || *s == 'X') {
            depth++;
            s++;
        } else if (*s == 'E') {
            s++;
            if (--depth == 0)
                return s;
        } else if (*s == 'L') {             /* a literal: L <type> <value> E */
            const char *e = strchr(s, 'E');
            if (!e)
                return NULL;
            s = e + 1;
        } else if (isdigit((unsigned char)*s)) {
            char *end;
            unsigned long n = strtoul(s, &end, 10);
            if (strlen(end) < n)
                return NULL;
            s = end + n;
        } else {
            s++;
        }
    }
    return NULL;
}

/* The unqualified name a mangled kernel name ends in: Z8sc_saxpyifPKfPf is
   sc_saxpy, ZN2ns6kernelEPf kernel, Z5scaleIfEvPT_i scale (the stub's name
   drops the leading underscore; _Z... is read too).  An unmangled name
   (extern "C") is itself, up to a '('.  Returns the length, 0 if none. */
static size_t mangled_kernel_name(const char *s, const char **name)
{
    if (s[0] == '_' && s[1] == 'Z')
        s++;
    if (*s != 'Z') {
        size_t n = 0;
        while (s[n] == '_' || isalnum((unsigned char)s[n]))
            n++;
        *name = s;
        return n;
    }
    s++;
    int nested = *s == 'N';
    s += nested;
    const char *last = NULL;
    size_t lastn = 0;
    while (*s && *s != 'E') {
        if (*s == 'K' || *s == 'V' || *s == 'r' || *s == 'R' || *s == 'O') {
            s++;                                /* qualifiers of a member function */
        } else if (s[0] == 'S' && s[1] == 't') {
            s += 2;                             /* std:: */
        } else if (*s == 'S') {                 /* a substitution: S_, S0_ ... */
            const char *u = strchr(s, '_');
            if (!u)
                break;
            s = u + 1;
        } else if (isdigit((unsigned char)*s)) {
            char *end;
            unsigned long n = strtoul(s, &end, 10);
            if (n == 0 || strlen(end) < n)
                break;
            last = end;
            lastn = n;
            s = end + n;
            if (!nested)
                break;                          /* what follows are template arguments and parameters */
        } else if (*s == 'I') {
            if (!(s = skip_template_args(s)))
                break;
        } else {
            break;
        }
    }
    *name = last;
    return last ? lastn : 0;
}

/* The unqualified name of a demangled function: "void ns::scale<float>(float*, int)"
   is scale.  Returns the length, 0 if none. */
static size_t demangled_name(const char *fn, const char **name)
{
    const char *end = fn;
    int depth = 0;
    for (; *end; end++) {
        if (starts(end, "(anonymous namespace)"))
            end += strlen("(anonymous namespace)") - 1;
        else if (*end == '<')
            depth++;
        else if (*end == '>')
            depth--;
        else if (*end == '(' && depth <= 0)
            break;
    }
    /* Drop template arguments that end the name. */
    while (end > fn && end[-1] == '>') {
        depth = 0;
        do {
            end--;
            if (*end == '>')
                depth++;
            else if (*end == '<')
                depth--;
        } while (end > fn && depth > 0);
    }
    const char *start = end;
    while (start > fn && (start[-1] == '_' || isalnum((unsigned char)start[-1])))
        start--;
    *name = start;
    return (size_t)(end - start);
}

/* Whether f is the host function nvcc emits at the kernel's definition line
   (void kern(args) { __device_stub__...(args); }), given the stub frame
   innermost to it. */
static int kernel_wrapper(const sc_frame *stub, const sc_frame *f)
{
    const char *k, *n, *sk = stub_kernel(stub->function);
    if (!f->function || !sk)
        return 0;
    size_t kl = mangled_kernel_name(sk, &k);
    size_t nl = f->function[0] == '_' && f->function[1] == 'Z' ? mangled_kernel_name(f->function, &n)
                                                                : demangled_name(f->function, &n);
    return kl && kl == nl && !memcmp(k, n, kl);
}

/* ----------------------------------------------------------- primary --- */

long sc_callsite_primary(const sc_callsite *cs)
{
    if (!cs || !cs->nframes)
        return -1;
    long first_kept = -1, first_own = -1;
    for (size_t i = 0; i < cs->nframes; i++) {
        const sc_frame *f = &cs->frames[i];
        if (sc_nvidia_library(f->module) || sc_frame_is_launch_glue(f))
            continue;
        if (i > 0 && kernel_wrapper(&cs->frames[i - 1], f))
            continue;
        if (first_kept < 0)
            first_kept = (long)i;
        if (sc_system_library(f->module))
            continue;
        if (first_own < 0)
            first_own = (long)i;
        if (f->file && f->line)
            return (long)i;
    }
    return first_own >= 0 ? first_own : first_kept >= 0 ? first_kept : 0;
}

/* ------------------------------------------------------------ Python --- */

/* Where installed packages and the standard library live: the part of a
   path after one of these is the package's own path.  The standard library
   is lib/python3.X, or lib64/python3.X where Red Hat's distributions put it
   (/usr/lib64/python3.12/contextlib.py). */
static const char *const py_lib_dirs[] = {"/site-packages/", "/dist-packages/", "/lib/python3", "/lib64/python3"};

/* Whether one of py_lib_dirs occurs in file: what strstr of each would
   answer, in one pass over the path's slashes.  The shim asks this of every
   Python frame it passes over on a hazard's path (pyframes.c), 30 or more
   under a Hugging Face model, where a strstr for each over a path without
   "/site-packages/" (Debian's dist-packages) cost several times as much. */
int sc_pyframe_is_library(const char *file)
{
    if (!file || file[0] == '<')   /* <frozen importlib._bootstrap>, <string> */
        return 1;
    for (const char *p = strchr(file, '/'); p; p = strchr(p + 1, '/')) {
        for (size_t i = 0; i < sizeof py_lib_dirs / sizeof py_lib_dirs[0]; i++) {
            const char *d = py_lib_dirs[i];   /* "/" then the rest */
            if (p[1] == d[1] && !strncmp(p + 1, d + 1, strlen(d + 1)))
                return 1;
        }
    }
    return 0;
}

const char *sc_pyframe_libpath(const char *file)
{
    const char *p;
    if (!file)
        return NULL;
    for (size_t i = 0; i < 2; i++)
        if ((p = strstr(file, py_lib_dirs[i])))
            return p + strlen(py_lib_dirs[i]);
    /* the standard library: after lib/python3.X/ or lib64/python3.X/ */
    for (size_t i = 2; i < 4; i++)
        if ((p = strstr(file, py_lib_dirs[i])) && (p = strchr(p + 1, '/')) && (p = strchr(p + 1, '/')) && p[1])
            return p + 1;
    return file;
}

/* The innermost Python frame with file and line, the program's own first
   (a frame of torch.nn does not hide the user's line). */
static long shown_py(const sc_callsite *cs)
{
    long any = -1;
    for (size_t i = 0; i < cs->npy; i++)
        if (cs->py[i].file && cs->py[i].line) {
            if (!sc_pyframe_is_library(cs->py[i].file))
                return (long)i;
            if (any < 0)
                any = (long)i;
        }
    return any;
}

long sc_callsite_via(const sc_callsite *cs)
{
    long at = cs ? shown_py(cs) : -1;
    if (at < 0 || sc_pyframe_is_library(cs->py[at].file))
        return -1;
    for (long i = 0; i < at; i++)
        if (cs->py[i].file && cs->py[i].file[0] != '<' && sc_pyframe_is_library(cs->py[i].file))
            return i;
    return -1;
}

long sc_callsite_shown(const sc_callsite *cs, int *py)
{
    *py = 0;
    if (!cs)
        return -1;
    long at = shown_py(cs);
    if (at >= 0) {
        *py = 1;
        return at;
    }
    long p = sc_callsite_primary(cs);
    if (p >= 0 && cs->frames[p].file && cs->frames[p].line)
        return p;
    if (cs->npy) {
        *py = 1;
        return 0;
    }
    return p;
}

int sc_frame_is_programs(const sc_frame *f)
{
    return !sc_nvidia_library(f->module) && !sc_system_library(f->module) && !sc_frame_is_launch_glue(f);
}

/* ------------------------------------------------------------- paths --- */

const char *sc_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

void sc_path_normalize(char *path)
{
    int abs = path[0] == '/';
    char *start = path + abs, *o = start;
    const char *p = start;
    size_t kept = 0;              /* components written that a ".." may remove */
    while (*p) {
        const char *seg = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - seg);
        while (*p == '/')
            p++;
        if (n == 0 || (n == 1 && seg[0] == '.'))
            continue;
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            if (kept) {
                while (o > start && o[-1] != '/')
                    o--;
                if (o > start)
                    o--;              /* the separator before it */
                kept--;
                continue;
            }
            if (abs)
                continue;             /* /.. is / */
        } else {
            kept++;
        }
        /* The output never overtakes the input: it drops, never adds. */
        if (o > start)
            *o++ = '/';
        memmove(o, seg, n);
        o += n;
    }
    if (o == path)
        *o++ = '.';
    *o = '\0';
}

int sc_srcroot_init(sc_srcroot *r, const char *dir)
{
    memset(r, 0, sizeof *r);
    if (!dir || !*dir)
        return 0;
    if (dir[0] == '/') {
        r->lex = strdup(dir);
    } else {
        char *cwd = getcwd(NULL, 0);
        if (!cwd)
            return -1;
        size_t n = strlen(cwd) + strlen(dir) + 2;
        r->lex = malloc(n);
        if (r->lex)
            snprintf(r->lex, n, "%s/%s", cwd, dir);
        free(cwd);
    }
    if (!r->lex)
        return -1;
    sc_path_normalize(r->lex);
    /* The same directory through its symbolic links resolved, when it
       exists here: compilers record the logical path ($PWD) as often as
       the physical one. */
    r->real = realpath(r->lex, NULL);
    if (r->real && !strcmp(r->real, r->lex)) {
        free(r->real);
        r->real = NULL;
    }
    return 0;
}

void sc_srcroot_free(sc_srcroot *r)
{
    free(r->lex);
    free(r->real);
    memset(r, 0, sizeof *r);
}

static const char *below(const char *file, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        n = 0;
    if (strncmp(file, root, n) || file[n] != '/' || !file[n + 1])
        return NULL;
    return file + n + 1;
}

const char *sc_srcroot_rel(const sc_srcroot *r, const char *file, char *buf, size_t len)
{
    if (!r || !r->lex || !file || file[0] != '/')
        return NULL;
    const char *s = below(file, r->lex);
    if (!s && r->real)
        s = below(file, r->real);
    if (!s) {
        /* The file through its symbolic links, when it is here to look at. */
        char *real = realpath(file, NULL);
        if (real && strcmp(real, file)) {
            const char *t = below(real, r->real ? r->real : r->lex);
            if (t && strlen(t) < len)
                s = memcpy(buf, t, strlen(t) + 1);
        }
        free(real);
    }
    return s;
}

const char *sc_srcroot_show(const sc_srcroot *r, const char *file, char *buf, size_t len)
{
    const char *s = sc_srcroot_rel(r, file, buf, len);
    return s ? s : file;
}
