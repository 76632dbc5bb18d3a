/* src/sim/drvbind.c: resolve driver entry points through dlopen and
 * cuGetProcAddress (see drvbind.h). */
#include "config.h"

#include "sim/drvbind.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <string.h>

static void *getproc_ptr;

void *scsim_drvbind_getproc(void)
{
    return __atomic_load_n(&getproc_ptr, __ATOMIC_ACQUIRE);
}

scsim_bind_status scsim_drvbind(const scsim_bind *b, size_t n,
                                const char **missing)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h)
        return SCSIM_BIND_NO_DRIVER;
    /* dlsym, not dlvsym: an interposed dlsym must see this lookup. */
    void *sym = dlsym(h, "cuGetProcAddress_v2");
    if (!sym)
        return SCSIM_BIND_NO_DRIVER;
    PFN_cuGetProcAddress_v12000 first, gpa;
    memcpy(&first, &sym, sizeof first);
    void *p = NULL;
    CUdriverProcAddressQueryResult st;
    if (first("cuGetProcAddress", &p, 12000, 0, &st) != CUDA_SUCCESS || !p)
        return SCSIM_BIND_NO_DRIVER;
    memcpy(&gpa, &p, sizeof gpa);
    __atomic_store_n(&getproc_ptr, p, __ATOMIC_RELEASE);
    for (size_t i = 0; i < n; i++) {
        p = NULL;
        if (gpa(b[i].name, &p, b[i].version, 0, &st) != CUDA_SUCCESS || !p) {
            *missing = b[i].name;
            return SCSIM_BIND_MISSING;
        }
        memcpy(b[i].slot, &p, sizeof p);
        if (!b[i].ptversion)
            continue;
        p = NULL;
        if (gpa(b[i].name, &p, b[i].ptversion,
                CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st) !=
                CUDA_SUCCESS ||
            !p) {
            *missing = b[i].name;
            return SCSIM_BIND_MISSING;
        }
        memcpy(b[i].ptslot, &p, sizeof p);
    }
    return SCSIM_BIND_OK;
}
