/* resolve.c: where the shim finds the real CUDA driver, and how programs find
 * the shim.
 *
 * ARCHITECTURE.md §2: static and shared cudart do one dlsym(libcuda,
 * "cuGetProcAddress_v2"), ask that for "cuGetProcAddress" itself, then fetch
 * every entry point through the pointer they got.  So we override dlsym,
 * hand out our cuGetProcAddress wrappers, return our own wrapper again when
 * cuGetProcAddress is asked for itself, and from then on substitute a wrapper
 * for every (name, version, flags) we know.  Libraries that look entry points
 * up by name through dlsym (cuBLASLt, cuFFT) get wrappers the same way, and
 * programs linked with -lcuda bind to our exported cu* symbols.
 *
 * Real pointers are kept per ABI entry point (sc_real[id]); an id is one
 * (name, ABI version, legacy/per-thread) triple, so entry points asked for at
 * several versions with different signatures never share a slot.
 */
#include "config.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

/* cuda.h maps cuGetProcAddress to cuGetProcAddress_v2; we export both ABIs. */
#undef cuGetProcAddress
extern __typeof__(*(PFN_cuGetProcAddress_v11030)0) cuGetProcAddress;
extern __typeof__(*(PFN_cuGetProcAddress_v12000)0) cuGetProcAddress_v2;

/* ------------------------------------------------------- real dlsym --- */
typedef void *(*dlsym_fn)(void *, const char *);
SC_HIDDEN void *sc_real_dlsym;       /* read by dlsym_tramp.S */

SC_HIDDEN void *sc_resolve_real_dlsym(void);
SC_HIDDEN SC_NO_SANITIZE void *sc_resolve_real_dlsym(void)
{
    void *p = __atomic_load_n(&sc_real_dlsym, __ATOMIC_ACQUIRE);
    if (p)
        return p;
    /* dlvsym is not ours, so this cannot recurse.  GLIBC_2.34 moved dlsym
       into libc; older programs and libraries still bind GLIBC_2.2.5. */
    p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p)
        p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    __atomic_store_n(&sc_real_dlsym, p, __ATOMIC_RELEASE);
    return p;
}

SC_NO_SANITIZE static void *real_dlsym(void *h, const char *name)
{
    dlsym_fn f = (dlsym_fn)sc_resolve_real_dlsym();
    return f ? f(h, name) : NULL;
}

/* ----------------------------------------------------- name lookups --- */
/* Open-addressing tables over the API table, built once: exported name ->
   id (dlsym), and base name -> first id of its chain (cuGetProcAddress). */
#define NAME_SLOTS 512
static uint16_t by_name[NAME_SLOTS];
static uint16_t by_base[NAME_SLOTS];
static uint16_t base_next[SC_NAPI];   /* next legacy id with the same base */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static unsigned name_hash(const char *s)
{
    return (unsigned)sc_hash_bytes(SC_HASH_INIT, s, strlen(s)) & (NAME_SLOTS - 1);
}

static void build_tables(void)
{
    for (unsigned i = 0; i < NAME_SLOTS; i++)
        by_name[i] = by_base[i] = SC_NO_API;
    for (unsigned id = 0; id < SC_NAPI; id++) {
        base_next[id] = SC_NO_API;
        unsigned h = name_hash(sc_apis[id].name);
        while (by_name[h] != SC_NO_API)
            h = (h + 1) & (NAME_SLOTS - 1);
        by_name[h] = (uint16_t)id;
        if (sc_apis[id].pt)
            continue;
        h = name_hash(sc_apis[id].base);
        while (by_base[h] != SC_NO_API && strcmp(sc_apis[by_base[h]].base, sc_apis[id].base))
            h = (h + 1) & (NAME_SLOTS - 1);
        if (by_base[h] == SC_NO_API) {
            by_base[h] = (uint16_t)id;
        } else {
            unsigned j = by_base[h];
            while (base_next[j] != SC_NO_API)
                j = base_next[j];
            base_next[j] = (uint16_t)id;
        }
    }
}

static int lookup_name(const char *name)
{
    pthread_once(&tables_once, build_tables);
    for (unsigned h = name_hash(name); by_name[h] != SC_NO_API; h = (h + 1) & (NAME_SLOTS - 1))
        if (!strcmp(sc_apis[by_name[h]].name, name))
            return by_name[h];
    return -1;
}

/* The legacy entry point of `base` with the greatest ABI version <= ver. */
static int lookup_base(const char *base, int ver)
{
    pthread_once(&tables_once, build_tables);
    for (unsigned h = name_hash(base); by_base[h] != SC_NO_API; h = (h + 1) & (NAME_SLOTS - 1)) {
        if (strcmp(sc_apis[by_base[h]].base, base))
            continue;
        int best = -1;
        for (unsigned id = by_base[h]; id != SC_NO_API; id = base_next[id])
            if (sc_apis[id].ver <= ver && (best < 0 || sc_apis[id].ver > sc_apis[best].ver))
                best = (int)id;
        return best;
    }
    return -1;
}

/* ----------------------------------------------------- real pointers --- */
_Atomic(void *) sc_real[SC_NAPI];
static void *libcuda;   /* a handle on the driver library, once it is loaded */

void *sc_libcuda_handle(void)
{
    void *h = __atomic_load_n(&libcuda, __ATOMIC_ACQUIRE);
    if (!h) {
        /* RTLD_NOLOAD: never load the driver ourselves. */
        h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        if (h)
            __atomic_store_n(&libcuda, h, __ATOMIC_RELEASE);
    }
    return h;
}

static void note_libcuda(void *handle)
{
    if (handle && handle != RTLD_DEFAULT && !__atomic_load_n(&libcuda, __ATOMIC_ACQUIRE))
        __atomic_store_n(&libcuda, handle, __ATOMIC_RELEASE);
}

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t me = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo) lo = s;
        if (s + ph->p_memsz > hi) hi = s + ph->p_memsz;
    }
    if (me < lo || me >= hi)
        return 0;
    sc_g.self_lo = lo;
    __atomic_store_n(&sc_g.self_hi, hi, __ATOMIC_RELEASE);
    return 1;
}

/* Our own address range; needed before initialization too (dlsym may be
   called first), so found on demand. */
void sc_self_range(void)
{
    if (!__atomic_load_n(&sc_g.self_hi, __ATOMIC_ACQUIRE))
        dl_iterate_phdr(find_self, (void *)(uintptr_t)&sc_self_range);
}

static int is_ours(void *p)
{
    sc_self_range();
    return (uintptr_t)p >= sc_g.self_lo && (uintptr_t)p < sc_g.self_hi;
}

/* Stores p as the real entry point id unless one is there already; returns
   the pointer in the slot. */
static void *set_real(unsigned id, void *p)
{
    if (is_ours(p))
        return atomic_load(&sc_real[id]);   /* never "forward" to ourselves */
    void *expected = NULL;
    if (!atomic_compare_exchange_strong(&sc_real[id], &expected, p))
        return expected;
    return p;
}

/* Looks the real driver symbol up: in the global scope after us, then in the
   driver library itself (cudart loads it RTLD_LOCAL). */
void *sc_real_slow(unsigned id)
{
    void *p = atomic_load(&sc_real[id]);
    if (p)
        return p;
    const char *name = sc_apis[id].name;
    p = real_dlsym(RTLD_NEXT, name);
    if (!p || is_ours(p)) {
        void *h = sc_libcuda_handle();
        p = h ? real_dlsym(h, name) : NULL;
    }
    if (!p || is_ours(p))
        return NULL;
    return set_real(id, p);
}

CUresult sc_unresolved(unsigned id)
{
    static int warned[SC_NAPI];
    sc_warn_once(&warned[id], "cannot find the real %s (is libcuda.so.1 loaded?); returning "
                 "CUDA_ERROR_NOT_INITIALIZED", sc_apis[id].name);
    return CUDA_ERROR_NOT_INITIALIZED;
}

/* -------------------------------------------------- cuGetProcAddress --- */
static PFN_cuGetProcAddress_v12000 real_gpa_v2;
static PFN_cuGetProcAddress_v11030 real_gpa_v1;

static void resolve_gpa(void)
{
    if (!__atomic_load_n(&real_gpa_v2, __ATOMIC_ACQUIRE)) {
        void *p = real_dlsym(RTLD_NEXT, "cuGetProcAddress_v2");
        if (!p || is_ours(p)) {
            void *h = sc_libcuda_handle();
            p = h ? real_dlsym(h, "cuGetProcAddress_v2") : NULL;
        }
        if (p && !is_ours(p))
            __atomic_store_n(&real_gpa_v2, (PFN_cuGetProcAddress_v12000)p, __ATOMIC_RELEASE);
    }
    if (!__atomic_load_n(&real_gpa_v1, __ATOMIC_ACQUIRE)) {
        void *p = real_dlsym(RTLD_NEXT, "cuGetProcAddress");
        if (!p || is_ours(p)) {
            void *h = sc_libcuda_handle();
            p = h ? real_dlsym(h, "cuGetProcAddress") : NULL;
        }
        if (p && !is_ours(p))
            __atomic_store_n(&real_gpa_v1, (PFN_cuGetProcAddress_v11030)p, __ATOMIC_RELEASE);
    }
}

/* Asks the real driver, whichever ABI of cuGetProcAddress we have. */
static CUresult real_lookup(const char *sym, void **pfn, int ver, cuuint64_t flags)
{
    resolve_gpa();
    CUdriverProcAddressQueryResult st;
    if (real_gpa_v2)
        return real_gpa_v2(sym, pfn, ver, flags, &st);
    if (real_gpa_v1)
        return real_gpa_v1(sym, pfn, ver, flags);
    return CUDA_ERROR_NOT_INITIALIZED;
}

static int active(void)
{
    int m = atomic_load_explicit(&sc_g.mode, memory_order_acquire);
    if (m == SC_MODE_UNINIT) {
        sc_init_slow();
        m = atomic_load_explicit(&sc_g.mode, memory_order_acquire);
    }
    return m == SC_MODE_ACTIVE;
}

/* What to hand out for (symbol, ver, flags) given the real pointer p. */
static void *gpa_filter(const char *symbol, void *p, int ver, cuuint64_t flags)
{
    if (!strcmp(symbol, "cuGetProcAddress"))
        /* The self-lookup: without our wrapper here every later lookup of
           the runtime would bypass us (seen on H100). */
        return ver >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
    if (!active())
        return p;
    int id = lookup_base(symbol, ver);
    if (id < 0)
        return p;      /* not a hook of ours, or an older ABI than we know: pass through */
    int want_pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    if (want_pt && sc_apis[id].twin != SC_NO_API)
        id = sc_apis[id].twin;
    const sc_api_info *a = &sc_apis[id];
    if (a->ver != ver) {
        /* Asked at a newer version than the ABI we compiled against: wrap
           only if the driver gives the very same function at our version,
           so a signature change we do not know of is passed through. */
        void *q = NULL;
        if (real_lookup(symbol, &q, a->ver, flags) != CUDA_SUCCESS || q != p) {
            sc_debug("passing %s (version %d, flags %llu) through: it differs from the "
                     "version-%d entry point we wrap", symbol, ver, (unsigned long long)flags, a->ver);
            return p;
        }
    }
    set_real((unsigned)id, p);
    return a->wrapper;
}

SC_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int ver, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult *status)
{
    int saved = errno;
    resolve_gpa();
    CUresult r;
    if (real_gpa_v2)
        r = real_gpa_v2(symbol, pfn, ver, flags, status);
    else if (real_gpa_v1) {
        r = real_gpa_v1(symbol, pfn, ver, flags);
        if (status)
            *status = r == CUDA_SUCCESS ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    } else {
        static int warned;
        sc_warn_once(&warned, "cuGetProcAddress_v2 called but libcuda.so.1 is not loaded");
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    if (r == CUDA_SUCCESS && symbol && pfn && *pfn)
        *pfn = gpa_filter(symbol, *pfn, ver, flags);
    errno = saved;
    return r;
}

SC_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int ver, cuuint64_t flags)
{
    int saved = errno;
    resolve_gpa();
    CUresult r;
    if (real_gpa_v1)
        r = real_gpa_v1(symbol, pfn, ver, flags);
    else if (real_gpa_v2)
        r = real_gpa_v2(symbol, pfn, ver, flags, NULL);
    else {
        static int warned;
        sc_warn_once(&warned, "cuGetProcAddress called but libcuda.so.1 is not loaded");
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    if (r == CUDA_SUCCESS && symbol && pfn && *pfn)
        *pfn = gpa_filter(symbol, *pfn, ver, flags);
    errno = saved;
    return r;
}

/* ------------------------------------------------------------ dlsym --- */
/* Provider check for our own exports found through RTLD_DEFAULT: a program
   probing dlsym(RTLD_DEFAULT, "cuInit") must still see NULL when no driver
   is loaded. */
void *sc_runtime_dlsym_filter(void *handle, const char *name, void *p);
void *sc_cublas_dlsym_filter(void *handle, const char *name, void *p);

/* Not instrumented: a sanitizer runtime calls it (for names that are not
   CUDA's) before its own start-up is done. */
SC_HIDDEN void *sc_dlsym_impl(void *handle, const char *name);
SC_HIDDEN SC_NO_SANITIZE void *sc_dlsym_impl(void *handle, const char *name)
{
    void *p = real_dlsym(handle, name);
    if (!name || name[0] != 'c' || name[1] != 'u')
        return p;
    int saved = errno;
    if (name[2] == 'd' && name[3] == 'a') {            /* cuda*: runtime attribution hooks */
        p = sc_runtime_dlsym_filter(handle, name, p);
    } else if (!strncmp(name, "cublas", 6)) {
        p = sc_cublas_dlsym_filter(handle, name, p);
    } else if (!strcmp(name, "cuGetProcAddress_v2") || !strcmp(name, "cuGetProcAddress")) {
        if (p && !is_ours(p)) {
            note_libcuda(handle);
            if (name[16] == '_')
                __atomic_store_n(&real_gpa_v2, (PFN_cuGetProcAddress_v12000)p, __ATOMIC_RELEASE);
            else
                __atomic_store_n(&real_gpa_v1, (PFN_cuGetProcAddress_v11030)p, __ATOMIC_RELEASE);
            p = name[16] == '_' ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
        } else if (p && is_ours(p)) {
            resolve_gpa();
            if (!(name[16] == '_' ? (void *)real_gpa_v2 : (void *)real_gpa_v1))
                p = NULL;
        }
    } else if (p) {
        int id = lookup_name(name);
        if (id >= 0) {
            if (is_ours(p)) {
                if (!sc_real_slow((unsigned)id))
                    p = NULL;
            } else if (active()) {
                /* cuBLASLt, cuFFT & co. look launches and copies up by name. */
                set_real((unsigned)id, p);
                p = sc_apis[id].wrapper;
            }
        }
    }
    errno = saved;
    return p;
}

#if !defined(__x86_64__)
/* Without the assembly trampoline RTLD_NEXT resolves relative to the shim,
   not to the caller; documented as a limitation on these hosts. */
SC_EXPORT void *dlsym(void *handle, const char *name)
{
    if (handle == RTLD_NEXT)
        return real_dlsym(handle, name);
    return sc_dlsym_impl(handle, name);
}
#endif

/* ----------------------------------------- our own driver pointers --- */
sc_drv sc_d;

void sc_drv_resolve(void)
{
    static _Atomic int done;
    if (atomic_load(&done))
        return;
    struct { const char *name; int ver; void **slot; } want[] = {
        {"cuCtxGetCurrent", 4000, (void **)&sc_d.CtxGetCurrent},
        {"cuStreamQuery", 2000, (void **)&sc_d.StreamQuery},
        {"cuStreamGetFlags", 5050, (void **)&sc_d.StreamGetFlags},
        {"cuStreamGetPriority", 5050, (void **)&sc_d.StreamGetPriority},
        {"cuStreamGetCtx", 9020, (void **)&sc_d.StreamGetCtx},
        {"cuEventQuery", 2000, (void **)&sc_d.EventQuery},
        {"cuStreamSynchronize", 2000, (void **)&sc_d.StreamSynchronize},
        {"cuPointerGetAttributes", 7000, (void **)&sc_d.PointerGetAttributes},
        {"cuDriverGetVersion", 2020, (void **)&sc_d.DriverGetVersion},
        {"cuDeviceGet", 2000, (void **)&sc_d.DeviceGet},
        {"cuDeviceGetName", 2000, (void **)&sc_d.DeviceGetName},
        {"cuDeviceGetAttribute", 2000, (void **)&sc_d.DeviceGetAttribute},
        {"cuStreamIsCapturing", 10000, (void **)&sc_d.StreamIsCapturing},
        {"cuStreamCreate", 2000, (void **)&sc_d.StreamCreate},
        {"cuStreamDestroy", 4000, (void **)&sc_d.StreamDestroy},
        {"cuEventCreate", 2000, (void **)&sc_d.EventCreate},
        {"cuEventRecord", 2000, (void **)&sc_d.EventRecord},
        {"cuStreamWaitEvent", 3020, (void **)&sc_d.StreamWaitEvent},
        {"cuDevicePrimaryCtxGetState", 7000, (void **)&sc_d.PrimaryCtxGetState},
        {"cuCtxGetDevice", 2000, (void **)&sc_d.CtxGetDevice},
    };
    int all = 1;
    for (size_t i = 0; i < SC_ARRAY_LEN(want); i++) {
        if (*want[i].slot)
            continue;
        void *p = NULL;
        /* Legacy flags: these are our own queries, never per-thread. */
        if (real_lookup(want[i].name, &p, want[i].ver, CU_GET_PROC_ADDRESS_LEGACY_STREAM) != CUDA_SUCCESS)
            p = NULL;
        if (!p || is_ours(p)) {
            /* A driver whose lookup hands out its exported (interposable)
               symbols gives us our own wrapper: ask the library itself. */
            void *h = sc_libcuda_handle();
            p = h ? real_dlsym(h, want[i].name) : NULL;
        }
        if (p && !is_ours(p)) {
            __atomic_store_n(want[i].slot, p, __ATOMIC_RELEASE);
        } else {
            all = 0;
            sc_debug("cannot resolve %s for our own use yet", want[i].name);
        }
    }
    if (all)
        atomic_store(&done, 1);
}

/* Drops what a forked child must not trust. */
void sc_resolve_atfork_child(void);
void sc_resolve_atfork_child(void)
{
    /* Pointers into the driver stay valid in the child's copy of the address
       space; nothing to drop. */
}

/* For pyframes.c: a symbol from the global scope, through the real dlsym. */
void *sc_dlsym_default(const char *name);
void *sc_dlsym_default(const char *name)
{
    return real_dlsym(RTLD_DEFAULT, name);
}

/* For the runtime and cuBLAS layers. */
void *sc_dlsym_real(void *handle, const char *name);
int sc_is_ours(const void *p);
void *sc_dlsym_real(void *handle, const char *name) { return real_dlsym(handle, name); }
int sc_is_ours(const void *p) { return is_ours((void *)(uintptr_t)p); }
