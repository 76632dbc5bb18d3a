/* src/sim/drvbind.h: how the simulated runtime and cuBLAS reach the
 * driver, exactly as NVIDIA's CUDA 13 runtime does (docs/ARCHITECTURE.md,
 * "Why the driver layer"):
 *   dlopen("libcuda.so.1", RTLD_NOW)
 *   dlsym(handle, "cuGetProcAddress_v2")
 *   cuGetProcAddress_v2("cuGetProcAddress", &p, 12000, 0, &status)
 * and from then on only through that returned pointer, each entry point
 * with flags 0 and, for the per-thread (stream-ordered) ones, again with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM.  Neither library links
 * against libcuda or names a driver symbol, so an interposer of dlsym and
 * cuGetProcAddress (streamcheck) sees every entry point. */
#ifndef SC_SIM_DRVBIND_H
#define SC_SIM_DRVBIND_H

#include <cuda.h>
#include <stddef.h>

typedef struct scsim_bind {
    const char *name;
    int version;    /* ABI version asked with flags 0 */
    int ptversion;  /* 0, or the version asked with flags 2 */
    void *slot;     /* where the legacy pointer goes (a PFN object) */
    void *ptslot;   /* where the per-thread pointer goes */
} scsim_bind;

typedef enum scsim_bind_status {
    SCSIM_BIND_OK,
    SCSIM_BIND_NO_DRIVER,   /* libcuda.so.1 or cuGetProcAddress_v2 missing */
    SCSIM_BIND_MISSING,     /* an entry point could not be resolved */
} scsim_bind_status;

/* Resolves every entry; on SCSIM_BIND_MISSING *missing names the first
 * entry point the driver did not give. */
scsim_bind_status scsim_drvbind(const scsim_bind *b, size_t n,
                                const char **missing);

/* The cuGetProcAddress pointer scsim_drvbind obtained (NULL before). */
void *scsim_drvbind_getproc(void);

#endif /* SC_SIM_DRVBIND_H */
