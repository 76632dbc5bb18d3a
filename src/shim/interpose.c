/* interpose.c: how programs find the shim.
 *
 * docs/ARCHITECTURE.md, "Why the driver layer": static and shared cudart do
 * one dlsym(libcuda, "cuGetProcAddress_v2"), ask that for "cuGetProcAddress"
 * itself, then fetch every entry point through the pointer they got.  So we
 * override dlsym, hand out our cuGetProcAddress wrappers, return our own
 * wrapper again when cuGetProcAddress is asked for itself, and from then on
 * substitute a wrapper for every (name, version, flags) we know.  Libraries
 * that look entry points up by name through dlsym (cuBLASLt, cuFFT) get
 * wrappers the same way, and programs linked with -lcuda bind to our
 * exported cu* symbols.  The real pointers are real.c's.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "apis.h"
#include "core.h"
#include "hooks_cublas.h"
#include "hooks_cupti.h"
#include "hooks_driver.h"
#include "hooks_runtime.h"
#include "interpose.h"
#include "real.h"
#include "simcheck.h"

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

/* -------------------------------------------------- cuGetProcAddress --- */
static int active(void)
{
    return atomic_load_explicit(&sc_g.mode, memory_order_acquire) == SC_MODE_ACTIVE || sc_enter_slow();
}

/* What to hand out for (symbol, ver, flags) given the real pointer p. */
static void *gpa_filter(const char *symbol, void *p, int ver, cuuint64_t flags)
{
    if (!strcmp(symbol, "cuGetProcAddress"))
        /* The self-lookup: without our wrapper here every later lookup of
           the runtime would bypass us (seen on H100). */
        return ver >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
    p = sc_simcheck_filter(symbol, p);
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
        if (sc_real_lookup(symbol, &q, a->ver, flags) != CUDA_SUCCESS || q != p) {
            sc_debug("passing %s (version %d, flags %llu) through: it differs from the "
                     "version-%d entry point we wrap", symbol, ver, (unsigned long long)flags, a->ver);
            return p;
        }
    }
    sc_real_set((unsigned)id, p);
    return sc_wrappers[id];
}

SC_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int ver, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult *status)
{
    int saved = errno;
    sc_real_gpa_resolve();
    CUresult r;
    if (sc_real_gpa_v2)
        r = sc_real_gpa_v2(symbol, pfn, ver, flags, status);
    else if (sc_real_gpa_v1) {
        r = sc_real_gpa_v1(symbol, pfn, ver, flags);
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
    sc_real_gpa_resolve();
    CUresult r;
    if (sc_real_gpa_v1)
        r = sc_real_gpa_v1(symbol, pfn, ver, flags);
    else if (sc_real_gpa_v2)
        r = sc_real_gpa_v2(symbol, pfn, ver, flags, NULL);
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
/* Not instrumented: a sanitizer runtime calls it (for names that are not
   CUDA's) before its own start-up is done. */
SC_HIDDEN SC_NO_SANITIZE void *sc_dlsym_impl(void *handle, const char *name)
{
    void *p = sc_dlsym_real(handle, name);
    if (!name || name[0] != 'c' || name[1] != 'u')
        return p;
    int saved = errno;
    if (name[2] == 'd' && name[3] == 'a') {            /* cuda*: runtime attribution hooks */
        p = sc_runtime_dlsym_filter(handle, name, p);
    } else if (!strncmp(name, "cublas", 6)) {
        p = sc_cublas_dlsym_filter(handle, name, p);
    } else if (!strncmp(name, "cupti", 5)) {
        p = sc_cupti_dlsym_filter(handle, name, p);
    } else if (!strcmp(name, "cuGetProcAddress_v2") || !strcmp(name, "cuGetProcAddress")) {
        if (p && !sc_is_ours(p)) {
            sc_note_libcuda(handle);
            if (name[16] == '_')
                __atomic_store_n(&sc_real_gpa_v2, (PFN_cuGetProcAddress_v12000)p, __ATOMIC_RELEASE);
            else
                __atomic_store_n(&sc_real_gpa_v1, (PFN_cuGetProcAddress_v11030)p, __ATOMIC_RELEASE);
            p = name[16] == '_' ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
        } else if (p && sc_is_ours(p)) {
            sc_real_gpa_resolve();
            if (!(name[16] == '_' ? (void *)sc_real_gpa_v2 : (void *)sc_real_gpa_v1))
                p = NULL;
        }
    } else if (p) {
        int id = lookup_name(name);
        if (id >= 0) {
            if (sc_is_ours(p)) {
                if (!sc_real_slow((unsigned)id))
                    p = NULL;
            } else if (active()) {
                /* cuBLASLt, cuFFT & co. look launches and copies up by name. */
                sc_real_set((unsigned)id, p);
                p = sc_wrappers[id];
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
        return sc_dlsym_real(handle, name);
    return sc_dlsym_impl(handle, name);
}
#endif

