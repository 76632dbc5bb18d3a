/* src/sim/rt.h: internals of the simulated libcudart.so.13. */
#ifndef SC_SIM_RT_H
#define SC_SIM_RT_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <cupti_runtime_cbid.h>
#include <stdbool.h>

#include "sim/drvbind.h"
#include "sim/timeline.h"
#include "sim/util.h"

/* The driver entry points (rt_drv.def), legacy and per-thread. */
typedef struct scrt_driver {
#define SC_RT_DRV(name, ver) PFN_##name##_v##ver p_##name;
#define SC_RT_DRV_PT(name, ver, ptver, suffix)                                \
    PFN_##name##_v##ver p_##name;                                             \
    PFN_##name##_v##ptver##suffix pt_##name;
#include "sim/rt_drv.def"
#undef SC_RT_DRV
#undef SC_RT_DRV_PT
} scrt_driver;

extern scrt_driver scrt_drv;

/* DRV(cuX) is the legacy entry point; DRVPT(pt, cuX) the per-thread one
 * when pt (a _ptsz/_ptds runtime entry point), else the legacy one. */
#define DRV(name) (scrt_drv.p_##name)
#define DRVPT(pt, name) ((pt) ? scrt_drv.pt_##name : scrt_drv.p_##name)

/* Lazy, thread-safe initialization on the first runtime call of a
 * thread: bind the driver, cuInit, retain device 0's primary context, make
 * it current (unless the thread has a current context).  Returns the
 * (sticky) initialization error. */
cudaError_t scrt_init(void);
/* Device dev's primary context, retained on first use; NULL (and *err)
 * for a device that does not exist. */
CUcontext scrt_primary(int dev, cudaError_t *err);

/* Records e as the thread's last error (cudaErrorNotReady is a status,
 * not an error) and returns it. */
cudaError_t scrt_ret(cudaError_t e);
/* The runtime error for a driver result. */
cudaError_t scrt_err(CUresult r);
/* Both: scrt_ret(scrt_err(r)). */
cudaError_t scrt_drv_ret(CUresult r);

/* Begins every runtime entry point that needs the driver. */
#define SCRT_INIT()                                                           \
    do {                                                                      \
        cudaError_t e_ = scrt_init();                                         \
        if (e_ != cudaSuccess)                                                \
            return scrt_ret(e_);                                              \
    } while (0)

/* The simulated driver's timeline (timeline.h), NULL before
 * initialization or with another driver.  A traced runtime entry point:
 *     SCRT_API(cbid name without CUPTI_RUNTIME_TRACE_CBID_);
 *     return SCRT_API_RET(expr);
 * owns the correlation id the driver calls it makes share. */
extern const scsim_tl_table *scrt_tl;
#define SCRT_API(cbid)                                                        \
    scsim_tl_api scrt_api_ = {.active = 0};                                   \
    const scsim_tl_table *scrt_tl_ =                                          \
        __atomic_load_n(&scrt_tl, __ATOMIC_ACQUIRE);                          \
    if (scrt_tl_ &&                                                           \
        atomic_load_explicit(scrt_tl_->mask, memory_order_relaxed))           \
    scrt_tl_->api_begin(&scrt_api_, SCSIM_TL_RUNTIME,                         \
                        CUPTI_RUNTIME_TRACE_CBID_##cbid)
#define SCRT_API_RET(expr) scrt_api_ret(scrt_tl_, &scrt_api_, (expr))
static inline cudaError_t scrt_api_ret(const scsim_tl_table *t,
                                       scsim_tl_api *a, cudaError_t e)
{
    if (a->active)
        t->api_end(a, (int)e);
    return e;
}

/* The kernel a host stub address stands for (kernel registration). */
cudaError_t scrt_kernel_of(const void *hostFun, CUkernel *out);

/* Declares name_ptsz/_ptds with the type of name, so each per-thread
 * entry point is checked against NVIDIA's prototype of its base. */
#define SCRT_PT_DECL(name, suffix)                                            \
    extern __typeof__(name) name##suffix SCSIM_EXPORT;

/* rt_register.c: the entry points nvcc emits.  nvcc's prototypes are
   C++-only; the same declarations in C. */
SCSIM_EXPORT void **__cudaRegisterFatBinary(void *fatCubin);
SCSIM_EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
SCSIM_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle);
SCSIM_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar,
                                    char *deviceAddress,
                                    const char *deviceName, int ext,
                                    size_t size, int constant, int global);
SCSIM_EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle,
                                           void **hostVarPtrAddress,
                                           char *deviceAddress,
                                           const char *deviceName, int ext,
                                           size_t size, int constant,
                                           int global);
SCSIM_EXPORT char __cudaInitModule(void **fatCubinHandle);
SCSIM_EXPORT void __cudaRegisterFunction(void **fatCubinHandle,
                                         const char *hostFun, char *deviceFun,
                                         const char *deviceName,
                                         int thread_limit, uint3 *tid,
                                         uint3 *bid, dim3 *bDim, dim3 *gDim,
                                         int *wSize);
SCSIM_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                  size_t sharedMem,
                                                  struct CUstream_st *stream);
SCSIM_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim,
                                                    dim3 *blockDim,
                                                    size_t *sharedMem,
                                                    void *stream);
SCSIM_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel,
                                         const void *hostFun);
SCSIM_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
                                            dim3 blockDim, void **args,
                                            size_t sharedMem,
                                            cudaStream_t stream);
SCRT_PT_DECL(__cudaLaunchKernel, _ptsz)
SCRT_PT_DECL(cudaLaunchKernel, _ptsz)

/* The per-thread entry points, each checked against the prototype of its
   base. */
/* rt_mem.c */
SCRT_PT_DECL(cudaMemcpy, _ptds)
SCRT_PT_DECL(cudaMemcpyAsync, _ptsz)
SCRT_PT_DECL(cudaMemcpy2D, _ptds)
SCRT_PT_DECL(cudaMemcpy2DAsync, _ptsz)
SCRT_PT_DECL(cudaMemset, _ptds)
SCRT_PT_DECL(cudaMemsetAsync, _ptsz)
SCRT_PT_DECL(cudaMemset2D, _ptds)
SCRT_PT_DECL(cudaMemset2DAsync, _ptsz)
SCRT_PT_DECL(cudaMallocAsync, _ptsz)
SCRT_PT_DECL(cudaFreeAsync, _ptsz)
/* rt_stream.c */
SCRT_PT_DECL(cudaStreamQuery, _ptsz)
SCRT_PT_DECL(cudaStreamSynchronize, _ptsz)
SCRT_PT_DECL(cudaStreamWaitEvent, _ptsz)
SCRT_PT_DECL(cudaStreamGetFlags, _ptsz)
SCRT_PT_DECL(cudaStreamGetPriority, _ptsz)
SCRT_PT_DECL(cudaStreamAddCallback, _ptsz)
SCRT_PT_DECL(cudaStreamBeginCapture, _ptsz)
SCRT_PT_DECL(cudaStreamEndCapture, _ptsz)
SCRT_PT_DECL(cudaStreamIsCapturing, _ptsz)
SCRT_PT_DECL(cudaGraphLaunch, _ptsz)
SCRT_PT_DECL(cudaEventRecord, _ptsz)
SCRT_PT_DECL(cudaEventRecordWithFlags, _ptsz)
SCRT_PT_DECL(cudaLaunchHostFunc, _ptsz)

#endif /* SC_SIM_RT_H */
