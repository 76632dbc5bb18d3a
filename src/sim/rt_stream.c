/* src/sim/rt_stream.c: runtime streams, events, graphs, host functions.
 * Stream handles pass through unchanged: 0, cudaStreamLegacy (0x1) and
 * cudaStreamPerThread (0x2) mean to the driver what they mean here. */
#include "config.h"

#include "sim/rt.h"

#include <stdlib.h>

/* ------------------------------------------------------------ streams --- */

SCSIM_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream,
                                                   unsigned int flags)
{
    SCRT_INIT();
    /* cudaStreamNonBlocking == CU_STREAM_NON_BLOCKING. */
    return scrt_drv_ret(DRV(cuStreamCreate)(pStream, flags));
}

SCSIM_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithFlags(pStream, cudaStreamDefault);
}

SCSIM_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream,
                                                      unsigned int flags,
                                                      int priority)
{
    SCRT_INIT();
    return scrt_drv_ret(
        DRV(cuStreamCreateWithPriority)(pStream, flags, priority));
}

SCSIM_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuStreamDestroy)(stream));
}

#define SCRT_STREAM_PAIR(name, params, args, drvcall)                         \
    static cudaError_t name##_impl(bool pt, SCRT_UNPAREN params)              \
    {                                                                         \
        SCRT_INIT();                                                          \
        return scrt_drv_ret(drvcall);                                         \
    }                                                                         \
    SCSIM_EXPORT cudaError_t name(SCRT_UNPAREN params)                        \
    {                                                                         \
        return name##_impl(false, SCRT_UNPAREN args);                         \
    }                                                                         \
    cudaError_t name##_ptsz(SCRT_UNPAREN params)                              \
    {                                                                         \
        return name##_impl(true, SCRT_UNPAREN args);                          \
    }
#define SCRT_UNPAREN(...) __VA_ARGS__

SCRT_STREAM_PAIR(cudaStreamQuery, (cudaStream_t stream), (stream),
                 DRVPT(pt, cuStreamQuery)(stream))
SCRT_STREAM_PAIR(cudaStreamSynchronize, (cudaStream_t stream), (stream),
                 DRVPT(pt, cuStreamSynchronize)(stream))
SCRT_STREAM_PAIR(cudaStreamWaitEvent,
                 (cudaStream_t stream, cudaEvent_t event, unsigned int flags),
                 (stream, event, flags),
                 DRVPT(pt, cuStreamWaitEvent)(stream, event, flags))
SCRT_STREAM_PAIR(cudaStreamGetFlags, (cudaStream_t hStream, unsigned int *flags),
                 (hStream, flags), DRVPT(pt, cuStreamGetFlags)(hStream, flags))
SCRT_STREAM_PAIR(cudaStreamGetPriority, (cudaStream_t hStream, int *priority),
                 (hStream, priority),
                 DRVPT(pt, cuStreamGetPriority)(hStream, priority))
SCRT_STREAM_PAIR(cudaStreamBeginCapture,
                 (cudaStream_t stream, enum cudaStreamCaptureMode mode),
                 (stream, mode),
                 DRVPT(pt, cuStreamBeginCapture)(stream,
                                                 (CUstreamCaptureMode)mode))
SCRT_STREAM_PAIR(cudaStreamEndCapture, (cudaStream_t stream, cudaGraph_t *pGraph),
                 (stream, pGraph), DRVPT(pt, cuStreamEndCapture)(stream, pGraph))
SCRT_STREAM_PAIR(cudaGraphLaunch, (cudaGraphExec_t graphExec, cudaStream_t stream),
                 (graphExec, stream), DRVPT(pt, cuGraphLaunch)(graphExec, stream))
SCRT_STREAM_PAIR(cudaEventRecord, (cudaEvent_t event, cudaStream_t stream),
                 (event, stream), DRVPT(pt, cuEventRecord)(event, stream))
SCRT_STREAM_PAIR(cudaEventRecordWithFlags,
                 (cudaEvent_t event, cudaStream_t stream, unsigned int flags),
                 (event, stream, flags),
                 DRVPT(pt, cuEventRecordWithFlags)(event, stream, flags))
SCRT_STREAM_PAIR(cudaLaunchHostFunc,
                 (cudaStream_t stream, cudaHostFn_t fn, void *userData),
                 (stream, fn, userData),
                 DRVPT(pt, cuLaunchHostFunc)(stream, fn, userData))

static cudaError_t is_capturing(bool pt, cudaStream_t stream,
                                enum cudaStreamCaptureStatus *pStatus)
{
    SCRT_INIT();
    if (!pStatus)
        return scrt_ret(cudaErrorInvalidValue);
    CUstreamCaptureStatus st;
    CUresult r = DRVPT(pt, cuStreamIsCapturing)(stream, &st);
    if (r == CUDA_SUCCESS)
        *pStatus = (enum cudaStreamCaptureStatus)st;
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                               enum cudaStreamCaptureStatus *s)
{
    return is_capturing(false, stream, s);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       enum cudaStreamCaptureStatus *s)
{
    return is_capturing(true, stream, s);
}

/* The runtime's callback takes a cudaStream_t and cudaError_t; give the
 * driver a trampoline rather than cast the function type. */
typedef struct callback_data {
    cudaStreamCallback_t fn;
    void *data;
} callback_data;

static void CUDA_CB callback_trampoline(CUstream s, CUresult status, void *p)
{
    callback_data d = *(callback_data *)p;
    free(p);
    d.fn(s, scrt_err(status), d.data);
}

static cudaError_t add_callback(bool pt, cudaStream_t stream,
                                cudaStreamCallback_t callback, void *userData,
                                unsigned int flags)
{
    SCRT_INIT();
    if (!callback)
        return scrt_ret(cudaErrorInvalidValue);
    callback_data *d = malloc(sizeof *d);
    if (!d)
        return scrt_ret(cudaErrorMemoryAllocation);
    d->fn = callback;
    d->data = userData;
    CUresult r = DRVPT(pt, cuStreamAddCallback)(stream, callback_trampoline, d,
                                                flags);
    if (r != CUDA_SUCCESS)
        free(d);
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream,
                                               cudaStreamCallback_t callback,
                                               void *userData,
                                               unsigned int flags)
{
    return add_callback(false, stream, callback, userData, flags);
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
                                       cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags)
{
    return add_callback(true, stream, callback, userData, flags);
}

/* ------------------------------------------------------------- graphs --- */

SCSIM_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec,
                                              cudaGraph_t graph,
                                              unsigned long long flags)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuGraphInstantiateWithFlags)(pGraphExec, graph, flags));
}

SCSIM_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                                       cudaGraph_t graph,
                                                       unsigned long long flags)
{
    return cudaGraphInstantiate(pGraphExec, graph, flags);
}

SCSIM_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuGraphExecDestroy)(graphExec));
}

SCSIM_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuGraphDestroy)(graph));
}

/* ------------------------------------------------------------- events --- */

SCSIM_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event,
                                                  unsigned int flags)
{
    SCRT_INIT();
    /* cudaEvent* flags are the driver's CU_EVENT_* values. */
    return scrt_drv_ret(DRV(cuEventCreate)(event, flags));
}

SCSIM_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

SCSIM_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuEventQuery)(event));
}

SCSIM_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuEventSynchronize)(event));
}

SCSIM_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                              cudaEvent_t end)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuEventElapsedTime)(ms, start, end));
}

SCSIM_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuEventDestroy)(event));
}
