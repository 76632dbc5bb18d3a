/* tests/sim/interpose.c: see interpose.h. */
#include "config.h"

#include "interpose.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

ip_lookup ip_lookups[IP_MAX_LOOKUPS];
atomic_int ip_nlookups;
atomic_int ip_dlsym_count;
ip_call ip_calls[IP_MAX_CALLS];
atomic_int ip_ncalls;

static PFN_cuGetProcAddress_v12000 real_gpa;

static void record_call(const char *symbol, CUstream s)
{
    int i = atomic_fetch_add(&ip_ncalls, 1);
    if (i < IP_MAX_CALLS)
        ip_calls[i] = (ip_call){symbol, s};
}

void ip_reset_calls(void)
{
    atomic_store(&ip_ncalls, 0);
}

const ip_call *ip_last_call(void)
{
    int n = atomic_load(&ip_ncalls);
    return n > 0 && n <= IP_MAX_CALLS ? &ip_calls[n - 1] : NULL;
}

int ip_find_lookup(const char *name, int version, unsigned long long flags)
{
    int n = atomic_load(&ip_nlookups);
    for (int i = 0; i < n && i < IP_MAX_LOOKUPS; i++)
        if (strcmp(ip_lookups[i].name, name) == 0 &&
            ip_lookups[i].version == version && ip_lookups[i].flags == flags)
            return i;
    return -1;
}

/* ----------------------------------------------------------- wrappers --- */

/* One wrapper per (entry point, variant): the real pointer and a
 * function recording the call, then forwarding it. */
#define IP_WRAP(id, sym, ret, params, args, stream)                          \
    static ret(*real_##id) params;                                            \
    static ret wrap_##id params                                               \
    {                                                                         \
        record_call(sym, stream);                                             \
        return real_##id args;                                                \
    }

#define LAUNCH_PARAMS                                                         \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,        \
     unsigned by, unsigned bz, unsigned sh, CUstream s, void **p, void **e)
#define LAUNCH_ARGS (f, gx, gy, gz, bx, by, bz, sh, s, p, e)
IP_WRAP(launch, "cuLaunchKernel", CUresult, LAUNCH_PARAMS, LAUNCH_ARGS, s)
IP_WRAP(launch_pt, "cuLaunchKernel_ptsz", CUresult, LAUNCH_PARAMS, LAUNCH_ARGS, s)
IP_WRAP(htod_async, "cuMemcpyHtoDAsync_v2", CUresult,
        (CUdeviceptr d, const void *h, size_t n, CUstream s), (d, h, n, s), s)
IP_WRAP(htod_async_pt, "cuMemcpyHtoDAsync_v2_ptsz", CUresult,
        (CUdeviceptr d, const void *h, size_t n, CUstream s), (d, h, n, s), s)
IP_WRAP(dtoh_async, "cuMemcpyDtoHAsync_v2", CUresult,
        (void *h, CUdeviceptr d, size_t n, CUstream s), (h, d, n, s), s)
IP_WRAP(dtod_async, "cuMemcpyDtoDAsync_v2", CUresult,
        (CUdeviceptr d, CUdeviceptr e, size_t n, CUstream s), (d, e, n, s), s)
IP_WRAP(any_async, "cuMemcpyAsync", CUresult,
        (CUdeviceptr d, CUdeviceptr e, size_t n, CUstream s), (d, e, n, s), s)
IP_WRAP(htod, "cuMemcpyHtoD_v2", CUresult,
        (CUdeviceptr d, const void *h, size_t n), (d, h, n), NULL)
IP_WRAP(htod_pt, "cuMemcpyHtoD_v2_ptds", CUresult,
        (CUdeviceptr d, const void *h, size_t n), (d, h, n), NULL)
IP_WRAP(any, "cuMemcpy", CUresult, (CUdeviceptr d, CUdeviceptr e, size_t n),
        (d, e, n), NULL)
IP_WRAP(memset_async, "cuMemsetD8Async", CUresult,
        (CUdeviceptr d, unsigned char v, size_t n, CUstream s), (d, v, n, s), s)
IP_WRAP(sync, "cuStreamSynchronize", CUresult, (CUstream s), (s), s)
IP_WRAP(sync_pt, "cuStreamSynchronize_ptsz", CUresult, (CUstream s), (s), s)
IP_WRAP(lib_load, "cuLibraryLoadData", CUresult,
        (CUlibrary * l, const void *c, CUjit_option *o, void **ov, unsigned no,
         CUlibraryOption *lo, void **lov, unsigned nlo),
        (l, c, o, ov, no, lo, lov, nlo), NULL)

static const struct wrap {
    const char *name;
    int pt; /* wrap the flags-2 lookup, else flags 0 */
    void **real;
    void *wrapper;
} wraps[] = {
#define W(name, pt, id) {name, pt, (void **)&real_##id, (void *)wrap_##id}
    W("cuLaunchKernel", 0, launch),
    W("cuLaunchKernel", 1, launch_pt),
    W("cuMemcpyHtoDAsync", 0, htod_async),
    W("cuMemcpyHtoDAsync", 1, htod_async_pt),
    W("cuMemcpyDtoHAsync", 0, dtoh_async),
    W("cuMemcpyDtoDAsync", 0, dtod_async),
    W("cuMemcpyAsync", 0, any_async),
    W("cuMemcpyHtoD", 0, htod),
    W("cuMemcpyHtoD", 1, htod_pt),
    W("cuMemcpy", 0, any),
    W("cuMemsetD8Async", 0, memset_async),
    W("cuStreamSynchronize", 0, sync),
    W("cuStreamSynchronize", 1, sync_pt),
    W("cuLibraryLoadData", 0, lib_load),
#undef W
};

static CUresult lookup(const char *symbol, void **pfn, int version,
                       cuuint64_t flags, CUdriverProcAddressQueryResult *st,
                       int via_dlsym);

static CUresult gpa_returned(const char *symbol, void **pfn, int version,
                             cuuint64_t flags,
                             CUdriverProcAddressQueryResult *st)
{
    return lookup(symbol, pfn, version, flags, st, 0);
}

static CUresult gpa_dlsym(const char *symbol, void **pfn, int version,
                          cuuint64_t flags, CUdriverProcAddressQueryResult *st)
{
    return lookup(symbol, pfn, version, flags, st, 1);
}

static CUresult lookup(const char *symbol, void **pfn, int version,
                       cuuint64_t flags, CUdriverProcAddressQueryResult *st,
                       int via_dlsym)
{
    int i = atomic_fetch_add(&ip_nlookups, 1);
    if (i < IP_MAX_LOOKUPS) {
        snprintf(ip_lookups[i].name, sizeof ip_lookups[i].name, "%s",
                 symbol ? symbol : "(null)");
        ip_lookups[i].version = version;
        ip_lookups[i].flags = flags;
        ip_lookups[i].via_dlsym = via_dlsym;
    }
    CUresult r = real_gpa(symbol, pfn, version, flags, st);
    if (r != CUDA_SUCCESS || !symbol)
        return r;
    /* Asked for itself: return the wrapper, as streamcheck must. */
    if (strcmp(symbol, "cuGetProcAddress") == 0 && version >= 12000) {
        *pfn = (void *)gpa_returned;
        return r;
    }
    int pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
        if (strcmp(wraps[w].name, symbol) == 0 && wraps[w].pt == pt) {
            *wraps[w].real = *pfn;
            *pfn = wraps[w].wrapper;
            break;
        }
    }
    return r;
}

/* ------------------------------------------------------------- dlsym --- */

/* The real dlsym resolves RTLD_NEXT relative to its caller, which would
 * be this file, not the library that asked (the sanitizer runtimes look
 * up their real functions that way).  So RTLD_NEXT is resolved here:
 * the first object after the caller in the link map that defines the
 * symbol.  (A glibc link_map is also a dlopen handle.) */
static void *(*real_dlsym)(void *, const char *);

static void *next_after(const void *caller, const char *name)
{
    Dl_info info;
    struct link_map *self = NULL;
    if (!dladdr1(caller, &info, (void **)&self, RTLD_DL_LINKMAP) || !self)
        return real_dlsym(RTLD_DEFAULT, name);
    for (struct link_map *l = self->l_next; l; l = l->l_next) {
        void *p = real_dlsym(l, name);
        struct link_map *owner = NULL;
        if (p && dladdr1(p, &info, (void **)&owner, RTLD_DL_LINKMAP) &&
            owner == l)
            return p;
    }
    return NULL;
}

__attribute__((visibility("default"))) void *dlsym(void *handle, const char *name);

void *dlsym(void *handle, const char *name)
{
    if (!real_dlsym) {
        void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!p)
            p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        memcpy(&real_dlsym, &p, sizeof p);
    }
    if (handle == RTLD_NEXT)
        return next_after(__builtin_return_address(0), name);
    void *p = real_dlsym(handle, name);
    if (p && strcmp(name, "cuGetProcAddress_v2") == 0) {
        atomic_fetch_add(&ip_dlsym_count, 1);
        memcpy(&real_gpa, &p, sizeof p);
        return (void *)gpa_dlsym;
    }
    return p;
}
