/* calibrate.c: the pinned copy rate (calibrate.h).  At the first copy of a
 * device and direction that a pinning fix would change (or, for the run
 * log's pinned copies, before the first async copy of pinned memory while
 * the device has no work, else after the first synchronization that leaves
 * it none: dispatch.c, calibrate_pinned), the calling thread
 * -- inside that copy's slow path, in its context, right after the copy
 * returned -- times a copy of the same size between pinned memory and device
 * memory of the shim's own, best of three after a warm-up, then frees them.
 * That is once per device and direction, a few milliseconds with the
 * allocations (which NVIDIA documents as synchronizing: a pageable copy
 * has just waited for its stream anyway).  The second direction's timing
 * also times copies both ways at once, each half of its buffer on a
 * non-blocking stream of the shim's own (CUDA C++ Programming Guide,
 * Asynchronous Concurrent Execution > Overlap of Data Transfer: copies
 * each way overlap where the device has a copy engine each way, but they
 * share the link between host and device), against the two ways' rates
 * alone (duplex_share): on H200 hosts the two together moved 71-91 GB/s
 * where each moved 48-53 alone, timed by the host.  No allocation more: a
 * fraction of a millisecond.  At exit it could not be done:
 * the CUDA runtime's own exit handlers run first and release the context.
 * On the simulator the copies take the simulator's time, which is what its
 * pageable copies are compared with: the price follows the machine it ran
 * on.
 */
#include "config.h"

#include <stdatomic.h>

#include "calibrate.h"
#include "core.h"
#include "real.h"

/* At most 8 MiB: a pinned copy of that size is about 150 us of transfer at
   55 GB/s against a fixed cost of about 10, so its rate is within a few
   percent of larger copies' (not yet measured on a GPU), while pinning the buffer
   costs in proportion to its size: a 32 MiB one took 24.6 ms of the
   program's time at its first copy (pageable_loop on an H200), once. */
#define CAL_MAX (8ull << 20)
#define CAL_DEV 32

static _Atomic int state[CAL_DEV][2];     /* 0 not yet, 1 taken, 2 done */
static _Atomic uint64_t deferred[CAL_DEV][2];   /* bytes to time once the device has no work */
static _Atomic uint64_t span_a[CAL_DEV][2], span_b[CAL_DEV][2];   /* when it was timed (sc_now_ns) */
static _Atomic uint64_t rate_x1e6[CAL_DEV][2];   /* bytes per ns, times 10^6 */
static _Atomic uint64_t duplex_x1e6[CAL_DEV];   /* both ways at once, bytes per ns in all, times 10^6 */

/* Below this the copies both ways are not timed: their halves would be
   mostly latency, and the rate both ways at once too low. */
#define DUPLEX_MIN (2ull << 20)

static uint64_t timed_copies(void *h, CUdeviceptr d, uint64_t bytes, int d2h)
{
    uint64_t best = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t t0 = sc_now_ns();
        CUresult r = d2h ? sc_d.MemcpyDtoH(h, d, bytes) : sc_d.MemcpyHtoD(d, h, bytes);
        uint64_t dt = sc_now_ns() - t0;
        if (r != CUDA_SUCCESS) {
            sc_debug("pinned copy rate: the timed copy failed (CUDA error %d)", (int)r);
            return 0;
        }
        if (i && (!best || dt < best))   /* the first one warms up */
            best = dt;
    }
    return best;
}

/* Copies both ways at once, half of the buffers each way, on two
   non-blocking streams of our own: the best of three after a warm-up, in
   ns, or 0 (a call failed, or one the driver lacks). */
static uint64_t timed_duplex(void *h, CUdeviceptr d, uint64_t half)
{
    if (!sc_d.StreamCreate || !sc_d.StreamDestroy || !sc_d.StreamSynchronize || !sc_d.MemcpyHtoDAsync ||
        !sc_d.MemcpyDtoHAsync)
        return 0;
    CUstream s[2] = {NULL, NULL};
    uint64_t best = 0;
    CUresult r = sc_d.StreamCreate(&s[0], CU_STREAM_NON_BLOCKING);
    if (r == CUDA_SUCCESS)
        r = sc_d.StreamCreate(&s[1], CU_STREAM_NON_BLOCKING);
    for (int i = 0; i < 4 && r == CUDA_SUCCESS; i++) {
        uint64_t t0 = sc_now_ns();
        r = sc_d.MemcpyHtoDAsync(d, h, half, s[0]);
        if (r == CUDA_SUCCESS)
            r = sc_d.MemcpyDtoHAsync((char *)h + half, d + half, half, s[1]);
        CUresult r0 = s[0] ? sc_d.StreamSynchronize(s[0]) : CUDA_SUCCESS;   /* what was queued, done */
        CUresult r1 = s[1] ? sc_d.StreamSynchronize(s[1]) : CUDA_SUCCESS;
        uint64_t dt = sc_now_ns() - t0;
        if (r == CUDA_SUCCESS)
            r = r0 != CUDA_SUCCESS ? r0 : r1;
        if (r == CUDA_SUCCESS && i && (!best || dt < best))
            best = dt;
    }
    if (r != CUDA_SUCCESS) {
        sc_debug("copy rate both ways: a timed copy failed (CUDA error %d)", (int)r);
        best = 0;
    }
    for (int k = 0; k < 2; k++)
        if (s[k])
            sc_d.StreamDestroy(s[k]);
    return best;
}

/* What copies both ways at once move (half the buffer each way) over what
   the two ways move alone: their whole buffer's rates, `alone` bytes per ns
   in all; 0 when not timed, at most 1.  Against those rates the calls'
   fixed cost (two queued copies and two synchronizations, about 10 us on
   an H200) weighs more on the halves: the share came to 0.75 where CUPTI
   timed seed 003's 4 MiB copies each way at once at 0.91 of their speed
   alone (85-87 us, 79 alone).  So they are set against the same halves
   each way alone, and the fixed cost weighs alike in both: on an H200,
   0.83-0.90 of the rates alone over twelve runs (0.73-0.87 the old way).
   STREAMCHECK_TEST_DUPLEX_HALVES=0, a test hook, times the old way. */
static double duplex_share(void *h, CUdeviceptr d, uint64_t half, double alone)
{
    if (sc_test_switch("STREAMCHECK_TEST_DUPLEX_HALVES", 1)) {
        uint64_t up = timed_copies(h, d, half, 0), down = up ? timed_copies(h, d, half, 1) : 0;
        alone = down ? (double)half / (double)up + (double)half / (double)down : 0;
    }
    uint64_t both = alone > 0 ? timed_duplex(h, d, half) : 0;
    if (!both)
        return 0;
    double f = (double)(2 * half) / (double)both / alone;
    return f < 1 ? f : 1;
}

int sc_cal_wanted(unsigned device, int d2h)
{
    return device < CAL_DEV && atomic_load(&state[device][!!d2h]) == 0;
}

void sc_cal_defer(unsigned device, int d2h, uint64_t bytes)
{
    if (device >= CAL_DEV)
        return;
    uint64_t b = atomic_load(&deferred[device][!!d2h]);
    while (b < bytes && !atomic_compare_exchange_weak(&deferred[device][!!d2h], &b, bytes))
        ;
}

uint64_t sc_cal_deferred(unsigned device, int d2h)
{
    return device < CAL_DEV && sc_cal_wanted(device, d2h) ? atomic_load(&deferred[device][!!d2h]) : 0;
}

void sc_cal_note(unsigned device, int d2h, uint64_t bytes)
{
    if (device >= CAL_DEV || !bytes)
        return;
    d2h = !!d2h;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&state[device][d2h], &expect, 1))
        return;
    if (!sc_d.MemAlloc || !sc_d.MemFree || !sc_d.MemAllocHost || !sc_d.MemFreeHost || !sc_d.MemcpyHtoD ||
        !sc_d.MemcpyDtoH) {
        atomic_store(&state[device][d2h], 2);
        return;
    }
    if (bytes > CAL_MAX)
        bytes = CAL_MAX;
    void *h = NULL;
    CUdeviceptr d = 0;
    uint64_t a = sc_now_ns();
    CUresult r = sc_d.MemAllocHost(&h, bytes);
    if (r == CUDA_SUCCESS)
        r = sc_d.MemAlloc(&d, bytes);
    uint64_t ns = r == CUDA_SUCCESS ? timed_copies(h, d, bytes, d2h) : 0;
    if (r != CUDA_SUCCESS)
        sc_debug("pinned copy rate: allocating %llu bytes failed (CUDA error %d)", (unsigned long long)bytes,
                 (int)r);
    double frac = 0, other = (double)atomic_load(&rate_x1e6[device][!d2h]) / 1e6;
    double alone = ns ? (double)bytes / (double)ns + other : 0;
    if (ns && bytes >= DUPLEX_MIN && other > 0)   /* the other way's is timed */
        frac = duplex_share(h, d, (bytes / 2) & ~(uint64_t)4095, alone);
    if (d)
        sc_d.MemFree(d);
    if (h)
        sc_d.MemFreeHost(h);
    if (ns)
        atomic_store(&rate_x1e6[device][d2h], (uint64_t)((double)bytes / (double)ns * 1e6));
    if (frac > 0)   /* kept as a rate both ways: that share of the two ways' rates */
        atomic_store(&duplex_x1e6[device], (uint64_t)(frac * alone * 1e6));
    atomic_store(&span_a[device][d2h], a);
    atomic_store(&span_b[device][d2h], sc_now_ns());
    atomic_store(&state[device][d2h], 2);
}

int sc_cal_span(unsigned device, int d2h, uint64_t *a, uint64_t *b)
{
    if (device >= CAL_DEV || atomic_load(&state[device][!!d2h]) != 2)
        return 0;
    *a = atomic_load(&span_a[device][!!d2h]);
    *b = atomic_load(&span_b[device][!!d2h]);
    return *b > *a;
}

double sc_cal_rate(unsigned device, int d2h)
{
    if (device >= CAL_DEV)
        return 0;
    return (double)atomic_load(&rate_x1e6[device][!!d2h]) / 1e6;
}

double sc_cal_duplex(unsigned device)
{
    if (device >= CAL_DEV)
        return 0;
    return (double)atomic_load(&duplex_x1e6[device]) / 1e6;
}

/* In a forked child the parent's measure stands (the same machine). */
