// seed_common.h: shared by the seed-exercise apps (testapps/seed*.cu), the
// lessons of shared/seeds/ as CUDA C.  Include once, instead of common.h.
//
// What every seed app does, and why:
//  - output: checksums on stdout, identical plainly and under streamcheck
//    (the self-test compares them byte for byte); times on stderr as
//    NAME_ms=VALUE lines, which bench/seeds.py reads;
//  - timing: CUDA events around the work region (seed_timer), so CUDA
//    initialization, allocation and the settling spin below are not in it;
//  - determinism of the report: a synchronization that finds nothing
//    pending is rule SC402, so every synchronization goes through
//    seed_settle(), which puts a HOLD spin in front of it; allocations come
//    first, while no stream has work (they would be SC301/SC302, and they
//    synchronize the device on the simulator); no cudaDeviceSynchronize.
//  - data: seeded pseudo-random values, never zeros;
//  - the timed region (what elapsed_ms= covers) is inside the NVTX range
//    "timed" (seed_timed_begin/end), so that bench/seeds.py can ask
//    streamcheck (--range=timed) for the findings of what it times only:
//    most apps run a warm-up pass first, whose findings are not in the
//    time.  Without a tool attached NVTX's calls do nothing.
#ifndef SC_SEED_COMMON_H
#define SC_SEED_COMMON_H

#include <stdint.h>

#include <nvtx3/nvToolsExt.h>

#include "common.h"
#include "sc_seed_kernels.cuh"

// A cuBLAS status check, for the apps that include cublas_v2.h first.
#ifdef CUBLAS_V2_H_
#define CHECK_BLAS(call)                                                          \
    do {                                                                          \
        cublasStatus_t b_ = (call);                                               \
        if (b_ != CUBLAS_STATUS_SUCCESS) {                                        \
            fprintf(stderr, "%s:%d: %s failed: status %d\n", __FILE__, __LINE__, \
                    #call, (int)b_);                                              \
            exit(1);                                                              \
        }                                                                         \
    } while (0)
#endif

// Integer argument i of the command line, def when absent; out of [lo, hi]
// is a usage error (exit 2, as the launcher does for its own).
static inline long seed_arg(int argc, char **argv, int i, long def, long lo, long hi,
                            const char *usage)
{
    if (argc <= i)
        return def;
    char *end = NULL;
    long v = strtol(argv[i], &end, 10);
    if (!end || *end || v < lo || v > hi) {
        fprintf(stderr, "usage: %s %s\n", argv[0], usage);
        exit(2);
    }
    return v;
}

// Argument i as one of the names in modes (NULL-terminated); returns its
// index, 0 (the first, the default) when absent.
static inline int seed_mode(int argc, char **argv, int i, const char *const *modes,
                            const char *usage)
{
    if (argc <= i)
        return 0;
    for (int k = 0; modes[k]; k++)
        if (!strcmp(argv[i], modes[k]))
            return k;
    fprintf(stderr, "usage: %s %s\n", argv[0], usage);
    exit(2);
}

// Seeded uniform values in [lo, hi) (xorshift32): the same data in every
// run and on every platform, and not zeros.
static inline void seed_fill_random(float *p, size_t n, uint32_t seed, float lo, float hi)
{
    uint32_t x = seed ? seed : 0x9e3779b9u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = lo + (hi - lo) * (float)(x >> 8) * (1.0f / 16777216.0f);
    }
}

// common.h's checksum for buffers of any size.
static inline double seed_checksum(const float *p, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)p[i] * (double)((i % 13) + 1);
    return s;
}

// The settling spin's length: HOLD, or SEED_HOLD_MS milliseconds (1 to
// 60000) where it is set.  The spin is inside the range "timed", which is
// what streamcheck's shares are of under --range=timed, and HOLD (60 ms) is
// 20 times a 3 ms region: a fix that saves a third of the region saved 2%
// of the range, under SC703's 5% bar.  bench/seeds.py sets 2 on the GPU,
// where a synchronization right after a 2 ms spin finds it pending; the
// simulator, slower and shared in CI, keeps HOLD.
static inline unsigned long long seed_hold(void)
{
    static unsigned long long ns;
    if (!ns) {
        const char *v = getenv("SEED_HOLD_MS");
        long ms = v ? strtol(v, NULL, 10) : 0;
        ns = ms >= 1 && ms <= 60000 ? MS(ms) : HOLD;
    }
    return ns;
}

// Synchronizes s after a HOLD spin (seed_hold), so that the synchronization
// always finds work pending (on a GPU and on the simulator) and is never
// SC402.  Whatever was queued on s before is complete when it returns.
static inline void seed_settle(cudaStream_t s)
{
    sc_spin<<<1, 1, 0, s>>>(seed_hold());
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));
}

// The work region's time, from CUDA events: start and stop are recorded on
// one stream, which the region's other streams join before the stop.  The
// elapsed time is read after seed_settle() of that stream; the settling spin
// comes after the stop event, so it is not counted.
typedef struct seed_timer {
    cudaEvent_t start, stop;
} seed_timer;

static inline void seed_timer_init(seed_timer *t)
{
    CHECK(cudaEventCreate(&t->start));
    CHECK(cudaEventCreate(&t->stop));
}

static inline void seed_timer_free(seed_timer *t)
{
    CHECK(cudaEventDestroy(t->start));
    CHECK(cudaEventDestroy(t->stop));
}

static inline float seed_timer_ms(const seed_timer *t)
{
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}

// The NVTX range around the timed region: it opens before the region's
// first call (the start event's record) and closes once the region's work is
// complete (after the seed_settle() that follows the stop event), so the
// range holds every call of the timed region and all of its GPU time; also
// the settling spin, and in some apps the result's download after the stop
// event, which are not timed and leave no finding.  A push, not a
// start/end pair: the region is on one thread.
#define SEED_TIMED_RANGE "timed"

static inline void seed_timed_begin(void)
{
    nvtxRangePushA(SEED_TIMED_RANGE);
}

static inline void seed_timed_end(void)
{
    nvtxRangePop();
}

// Makes waiter's later work wait for what s has queued so far (no host
// synchronization; CUDA Runtime API, cudaStreamWaitEvent).  ev is the
// caller's, created with cudaEventDisableTiming.
static inline void seed_join(cudaStream_t waiter, cudaStream_t s, cudaEvent_t ev)
{
    CHECK(cudaEventRecord(ev, s));
    CHECK(cudaStreamWaitEvent(waiter, ev, 0));
}

#endif
