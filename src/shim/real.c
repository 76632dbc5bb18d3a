/* real.c: where the shim finds the real CUDA driver.
 *
 * The real dlsym (ours is interpose.c's), the real pointer of every entry
 * point we wrap (sc_real[id]; an id is one (name, ABI version,
 * legacy/per-thread) triple, so entry points asked for at several versions
 * with different signatures never share a slot), the real cuGetProcAddress,
 * and the driver functions the shim calls for itself (sc_d).  Nothing here
 * hands anything to the program: that is interpose.c.
 */
#include "config.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "apis.h"
#include "core.h"
#include "real.h"

/* ------------------------------------------------------- real dlsym --- */
typedef void *(*dlsym_fn)(void *, const char *);
SC_HIDDEN void *sc_real_dlsym;       /* read by dlsym_tramp.S */

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

/* The real dlsym, whichever glibc.  Not instrumented (see sc_dlsym_impl). */
SC_NO_SANITIZE void *sc_dlsym_real(void *h, const char *name)
{
    dlsym_fn f = (dlsym_fn)sc_resolve_real_dlsym();
    return f ? f(h, name) : NULL;
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

void sc_note_libcuda(void *handle)
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

/* 1 if p is inside the shim itself. */
int sc_is_ours(const void *p)
{
    sc_self_range();
    return (uintptr_t)p >= sc_g.self_lo && (uintptr_t)p < sc_g.self_hi;
}

/* Stores p as the real entry point id unless one is there already; returns
   the pointer in the slot. */
void *sc_real_set(unsigned id, void *p)
{
    if (sc_is_ours(p))
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
    p = sc_dlsym_real(RTLD_NEXT, name);
    if (!p || sc_is_ours(p)) {
        void *h = sc_libcuda_handle();
        p = h ? sc_dlsym_real(h, name) : NULL;
    }
    if (!p || sc_is_ours(p))
        return NULL;
    return sc_real_set(id, p);
}

CUresult sc_unresolved(unsigned id)
{
    static int warned[SC_NAPI];
    sc_warn_once(&warned[id], "cannot find the real %s (is libcuda.so.1 loaded?); returning "
                 "CUDA_ERROR_NOT_INITIALIZED", sc_apis[id].name);
    return CUDA_ERROR_NOT_INITIALIZED;
}

/* -------------------------------------------------- cuGetProcAddress --- */
PFN_cuGetProcAddress_v12000 sc_real_gpa_v2;
PFN_cuGetProcAddress_v11030 sc_real_gpa_v1;

void sc_real_gpa_resolve(void)
{
    if (!__atomic_load_n(&sc_real_gpa_v2, __ATOMIC_ACQUIRE)) {
        void *p = sc_dlsym_real(RTLD_NEXT, "cuGetProcAddress_v2");
        if (!p || sc_is_ours(p)) {
            void *h = sc_libcuda_handle();
            p = h ? sc_dlsym_real(h, "cuGetProcAddress_v2") : NULL;
        }
        if (p && !sc_is_ours(p))
            __atomic_store_n(&sc_real_gpa_v2, (PFN_cuGetProcAddress_v12000)p, __ATOMIC_RELEASE);
    }
    if (!__atomic_load_n(&sc_real_gpa_v1, __ATOMIC_ACQUIRE)) {
        void *p = sc_dlsym_real(RTLD_NEXT, "cuGetProcAddress");
        if (!p || sc_is_ours(p)) {
            void *h = sc_libcuda_handle();
            p = h ? sc_dlsym_real(h, "cuGetProcAddress") : NULL;
        }
        if (p && !sc_is_ours(p))
            __atomic_store_n(&sc_real_gpa_v1, (PFN_cuGetProcAddress_v11030)p, __ATOMIC_RELEASE);
    }
}

/* Asks the real driver, whichever ABI of cuGetProcAddress we have. */
CUresult sc_real_lookup(const char *sym, void **pfn, int ver, cuuint64_t flags)
{
    sc_real_gpa_resolve();
    CUdriverProcAddressQueryResult st;
    if (sc_real_gpa_v2)
        return sc_real_gpa_v2(sym, pfn, ver, flags, &st);
    if (sc_real_gpa_v1)
        return sc_real_gpa_v1(sym, pfn, ver, flags);
    return CUDA_ERROR_NOT_INITIALIZED;
}

/* ----------------------------------------- our own driver pointers --- */
sc_drv sc_d;

void sc_drv_resolve(void)
{
    static _Atomic int done;
    if (atomic_load(&done))
        return;
    /* sym: the library's symbol of that ABI, when the lookup cannot give it
       (the bare name is the oldest ABI) */
    struct { const char *name; int ver; void **slot; const char *sym; } want[] = {
        {"cuCtxGetCurrent", 4000, (void **)&sc_d.CtxGetCurrent, NULL},
        {"cuStreamQuery", 2000, (void **)&sc_d.StreamQuery, NULL},
        {"cuStreamGetFlags", 5050, (void **)&sc_d.StreamGetFlags, NULL},
        {"cuStreamGetPriority", 5050, (void **)&sc_d.StreamGetPriority, NULL},
        {"cuStreamGetCtx", 9020, (void **)&sc_d.StreamGetCtx, NULL},
        {"cuEventQuery", 2000, (void **)&sc_d.EventQuery, NULL},
        {"cuStreamSynchronize", 2000, (void **)&sc_d.StreamSynchronize, NULL},
        {"cuCtxGetDevice", 2000, (void **)&sc_d.CtxGetDevice, NULL},
        {"cuPointerGetAttributes", 7000, (void **)&sc_d.PointerGetAttributes, NULL},
        {"cuDriverGetVersion", 2020, (void **)&sc_d.DriverGetVersion, NULL},
        {"cuDeviceGet", 2000, (void **)&sc_d.DeviceGet, NULL},
        {"cuDeviceGetName", 2000, (void **)&sc_d.DeviceGetName, NULL},
        {"cuDeviceGetAttribute", 2000, (void **)&sc_d.DeviceGetAttribute, NULL},
        {"cuStreamIsCapturing", 10000, (void **)&sc_d.StreamIsCapturing, NULL},
        {"cuStreamCreate", 2000, (void **)&sc_d.StreamCreate, NULL},
        {"cuStreamDestroy", 4000, (void **)&sc_d.StreamDestroy, NULL},
        {"cuEventCreate", 2000, (void **)&sc_d.EventCreate, NULL},
        {"cuEventRecord", 2000, (void **)&sc_d.EventRecord, NULL},
        {"cuStreamWaitEvent", 3020, (void **)&sc_d.StreamWaitEvent, NULL},
        {"cuDevicePrimaryCtxGetState", 7000, (void **)&sc_d.PrimaryCtxGetState, NULL},
        /* the GPU sampler and the pinned-rate measure (gpusample.c, calibrate.c) */
        {"cuCtxSetCurrent", 4000, (void **)&sc_d.CtxSetCurrent, NULL},
        {"cuCtxPushCurrent", 4000, (void **)&sc_d.CtxPushCurrent, "cuCtxPushCurrent_v2"},
        {"cuCtxPopCurrent", 4000, (void **)&sc_d.CtxPopCurrent, "cuCtxPopCurrent_v2"},
        {"cuMemAlloc", 3020, (void **)&sc_d.MemAlloc, "cuMemAlloc_v2"},
        {"cuMemFree", 3020, (void **)&sc_d.MemFree, "cuMemFree_v2"},
        {"cuMemAllocHost", 3020, (void **)&sc_d.MemAllocHost, "cuMemAllocHost_v2"},
        {"cuMemFreeHost", 2000, (void **)&sc_d.MemFreeHost, NULL},
        {"cuMemcpyHtoD", 3020, (void **)&sc_d.MemcpyHtoD, "cuMemcpyHtoD_v2"},
        {"cuMemcpyDtoH", 3020, (void **)&sc_d.MemcpyDtoH, "cuMemcpyDtoH_v2"},
        {"cuMemcpyHtoDAsync", 3020, (void **)&sc_d.MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"},
        {"cuMemcpyDtoHAsync", 3020, (void **)&sc_d.MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"},
        {"cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050,
         (void **)&sc_d.OccupancyMaxActiveBlocksPerMultiprocessor, NULL},
    };
    int all = 1, some = 0;
    for (size_t i = 0; i < SC_ARRAY_LEN(want); i++) {
        if (*want[i].slot) {
            some = 1;
            continue;
        }
        void *p = NULL;
        /* Legacy flags: these are our own queries, never per-thread. */
        if (sc_real_lookup(want[i].name, &p, want[i].ver, CU_GET_PROC_ADDRESS_LEGACY_STREAM) != CUDA_SUCCESS)
            p = NULL;
        if (!p || sc_is_ours(p)) {
            /* A driver whose lookup hands out its exported (interposable)
               symbols gives us our own wrapper: ask the library itself. */
            void *h = sc_libcuda_handle();
            p = h ? sc_dlsym_real(h, want[i].sym ? want[i].sym : want[i].name) : NULL;
        }
        if (p && !sc_is_ours(p)) {
            __atomic_store_n(want[i].slot, p, __ATOMIC_RELEASE);
            some = 1;
        } else {
            all = 0;
            sc_debug("cannot resolve %s for our own use yet", want[i].name);
        }
    }
    /* Once the driver answered, what it lacks stays missing (an older
       driver): asking again on every slow call would cost a failed lookup
       each, and a dlopen that searches the library path when the driver
       came through a handle we never saw. */
    if (all || some)
        atomic_store(&done, 1);
}

/* For pyframes.c: a symbol from the global scope, through the real
   dlsym. */
void *sc_dlsym_default(const char *name)
{
    return sc_dlsym_real(RTLD_DEFAULT, name);
}

/* Our own address range is looked up at initialization (the call-site
   walker skips our frames), and on demand before it. */
static const sc_part part = {"real", 0, NULL, NULL, NULL, sc_self_range, NULL};
SC_PART_REGISTER(part)
