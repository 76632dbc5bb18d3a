/* src/sim/drv_getproc.c: cuGetProcAddress (CUDA Driver API 6.33, "Driver
 * Entry Point Access").
 *
 * For a base name, a requested ABI version and flags, the answer is the
 * entry point of the greatest ABI version <= the requested one; with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM the per-thread (_ptsz,
 * _ptds) variant where one exists.  Versions come from every function the
 * real driver has (scsim_procs[], generated from libcuda-procs.txt), so a
 * request never gets an implementation of a different ABI: if the chosen
 * version is one the simulator implements (drv_api.def), the request gets
 * it, otherwise the stub of that exact exported symbol.
 *
 * A name the driver does not have, or a version below its first one, is
 * not an error: "The API will return CUDA_SUCCESS and set the returned pfn
 * to NULL if ... no ABI compatible driver function exists for the
 * specified cudaVersion or if the driver symbol is invalid", with
 * symbolStatus CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND or _VERSION_NOT_
 * SUFFICIENT; the CUDA 13.0 driver (580) on an H100 answers exactly so. */
#include "config.h"

#include "sim/drv_api.h"
#include "sim/sim.h"
#include "sim/stubs.h"

#include <stdlib.h>
#include <string.h>

typedef void (*scsim_fnptr)(void);

typedef struct impl {
    const char *base;
    int version;
    int variant; /* 0 legacy, 1 _ptsz, 2 _ptds, as in scsim_procs */
    scsim_fnptr fn;
} impl;

#define SCSIM_VARIANT_ 0
#define SCSIM_VARIANT__ptsz 1
#define SCSIM_VARIANT__ptds 2

static impl impls[] = {
#define SC_DRV(base, ver, variant, sym)                                       \
    {#base, ver, SCSIM_VARIANT_##variant, (scsim_fnptr)scsim_##sym},
#include "sim/drv_api.def"
#undef SC_DRV
};
#define NIMPLS (sizeof impls / sizeof impls[0])

static int impl_cmp(const void *pa, const void *pb)
{
    const impl *a = pa, *b = pb;
    int c = strcmp(a->base, b->base);
    if (c)
        return c;
    if (a->version != b->version)
        return a->version < b->version ? -1 : 1;
    return a->variant - b->variant;
}

static pthread_once_t sort_once = PTHREAD_ONCE_INIT;

static void sort_impls(void)
{
    qsort(impls, NIMPLS, sizeof impls[0], impl_cmp);
}

static scsim_fnptr find_impl(const char *base, int version, int variant)
{
    pthread_once(&sort_once, sort_impls);
    impl key = {base, version, variant, NULL};
    const impl *i = bsearch(&key, impls, NIMPLS, sizeof impls[0], impl_cmp);
    return i ? i->fn : NULL;
}

/* First entry of scsim_procs with this base name, or scsim_nprocs. */
static size_t procs_lower_bound(const char *base)
{
    size_t lo = 0, hi = scsim_nprocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(scsim_procs[mid].base, base) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static CUresult getproc(const char *symbol, void **pfn, int cudaVersion,
                        cuuint64_t flags, CUdriverProcAddressQueryResult *st)
{
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r;
    if (pfn)
        *pfn = NULL;
    if (!symbol || !pfn) {
        r = CUDA_ERROR_INVALID_VALUE;
        goto out;
    }
    if (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                              CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)) {
        r = CUDA_ERROR_INVALID_VALUE;
        goto out;
    }
    /* "If the specified CUDA version is greater than the driver version,
     * the API will return CUDA_ERROR_INVALID_VALUE." */
    if (cudaVersion > CUDA_VERSION) {
        r = CUDA_ERROR_INVALID_VALUE;
        goto out;
    }
    size_t lo = procs_lower_bound(symbol), hi = lo;
    while (hi < scsim_nprocs && strcmp(scsim_procs[hi].base, symbol) == 0)
        hi++;
    if (lo == hi) {
        r = CUDA_SUCCESS;
        goto out;
    }
    /* Entries are sorted by version: the last one <= the request wins. */
    long plain = -1, pt = -1;
    for (size_t i = lo; i < hi; i++) {
        if (scsim_procs[i].version > cudaVersion)
            continue;
        if (scsim_procs[i].variant == 0)
            plain = (long)i;
        else
            pt = (long)i;
    }
    long pick = plain;
    if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && pt >= 0 &&
        (plain < 0 || scsim_procs[pt].version >= scsim_procs[plain].version))
        pick = pt;
    if (pick < 0) {
        status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
        r = CUDA_SUCCESS;
        goto out;
    }
    const scsim_proc *p = &scsim_procs[pick];
    scsim_fnptr fn = find_impl(p->base, p->version, p->variant);
    if (!fn)
        fn = (scsim_fnptr)scsim_stubs[p->stub].fn;
    *pfn = (void *)fn;
    status = CU_GET_PROC_ADDRESS_SUCCESS;
    r = CUDA_SUCCESS;
out:
    if (st)
        *st = status;
    SCSIM_TRACE("cuGetProcAddress(\"%s\", %d, %llu) -> %d, status %d",
                symbol ? symbol : "(null)", cudaVersion,
                (unsigned long long)flags, (int)r, (int)status);
    return r;
}

CUresult scsim_cuGetProcAddress_v2(const char *symbol, void **pfn,
                                   int cudaVersion, cuuint64_t flags,
                                   CUdriverProcAddressQueryResult *symbolStatus)
{
    return getproc(symbol, pfn, cudaVersion, flags, symbolStatus);
}

CUresult scsim_cuGetProcAddress(const char *symbol, void **pfn,
                                int cudaVersion, cuuint64_t flags)
{
    return getproc(symbol, pfn, cudaVersion, flags, NULL);
}
