/* calibrate.c: a pinned copy timed at report time (calibrate.h).  The
 * program has finished its work by then, so the copies disturb nothing it
 * measures; they use buffers of the shim's own, in the context the
 * program's copies used, through the real driver.  On the simulator they
 * take the simulator's time, which is what its pageable copies are
 * compared with: the price follows the machine it ran on.
 */
#include "config.h"

#include "calibrate.h"
#include "core.h"
#include "real.h"

#define CAL_MAX (64ull << 20)

uint64_t sc_cal_pinned_ns(CUcontext ctx, int d2h, uint64_t bytes)
{
    if (!ctx || !bytes || !sc_d.CtxPushCurrent || !sc_d.CtxPopCurrent || !sc_d.MemAlloc || !sc_d.MemFree ||
        !sc_d.MemAllocHost || !sc_d.MemFreeHost || !sc_d.MemcpyHtoD || !sc_d.MemcpyDtoH)
        return 0;
    if (bytes > CAL_MAX)
        bytes = CAL_MAX;
    if (sc_d.CtxPushCurrent(ctx) != CUDA_SUCCESS)
        return 0;
    void *h = NULL;
    CUdeviceptr d = 0;
    uint64_t best = 0;
    if (sc_d.MemAllocHost(&h, bytes) == CUDA_SUCCESS && sc_d.MemAlloc(&d, bytes) == CUDA_SUCCESS) {
        for (int i = 0; i < 4; i++) {
            uint64_t t0 = sc_now_ns();
            CUresult r = d2h ? sc_d.MemcpyDtoH(h, d, bytes) : sc_d.MemcpyHtoD(d, h, bytes);
            uint64_t dt = sc_now_ns() - t0;
            if (r != CUDA_SUCCESS) {
                best = 0;
                break;
            }
            if (i && (!best || dt < best))   /* the first one warms up */
                best = dt;
        }
    }
    if (d)
        sc_d.MemFree(d);
    if (h)
        sc_d.MemFreeHost(h);
    CUcontext popped;
    sc_d.CtxPopCurrent(&popped);
    return best;
}
