// common.h: shared by the test apps.  Each app is one .cu file that
// includes this once (it pulls in the kernels, which must be defined in
// exactly one translation unit).
//
// Expectations: a comment "// expect: SC101 x10" on the line of a call says
// streamcheck must report rule SC101 at this line exactly 10 times;
// "// expect-api: cuLaunchKernel 21" says the driver saw exactly 21 calls.
// Every finding must be expected: an app without expectations must get
// none.  testapps/expect.awk turns the comments into APP.expect.
#ifndef SC_TESTAPP_COMMON_H
#define SC_TESTAPP_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_kernels.cuh"

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    cudaGetErrorString(e_));                                     \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#define LAUNCHED() CHECK(cudaGetLastError())

// Spin lengths.  HOLD keeps a stream busy long enough that a
// synchronization issued right after it always finds work pending, on a
// GPU and on the simulator; SPIN is independent background work.
#define MS(x) ((unsigned long long)(x) * 1000000ull)
#define HOLD MS(60)
#define SPIN MS(2)

// Apps that need several devices: with fewer they say so on stdout and
// exit 77, which the selftest and make check count as a skip.  On the
// simulator, STREAMCHECK_SIM_DEVICES=2 (selftest.list) gives them two.
static inline void need_devices(int n)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < n) {
        printf("SKIP: needs %d CUDA devices, found %d\n", n, count);
        exit(77);
    }
}

static inline double checksum(const float *p, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)p[i] * (double)((i % 13) + 1);
    return s;
}

static inline void fill_host(float *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (float)(i % 7) * 0.25f;
}

// Timing for bench/seeds.py.  With SC_TESTAPP_TIMER=1 in the environment,
// an app prints "main_ms=..." on stderr when it exits: the time from just
// after CUDA's initialization (forced before main by cudaFree(NULL), which
// creates the context) to exit, so an app and its fixed twin can be compared
// without context creation in the number.  The kernels' modules load there
// too (CUDA_MODULE_LOADING=EAGER unless the environment says otherwise), not
// at each kernel's first launch, which can wait for kernels already running:
// on an H200, blocking_stream_fixed's first sc_saxpy, behind its 2 ms spin,
// held its 60 ms spin back 2 ms, and the pair's gain came to 3.9 ms where
// with eager loading it is 5.6 (the hazard app had loaded it with the GPU
// idle).  An app whose libraries load their own kernels inside main (cuBLAS,
// at cublasCreate: 2.4 s of main_ms, eagerly) defines SC_TIMER_LAZY_MODULES
// first and keeps lazy loading.  Without the variable (the self-test, make
// check) nothing happens: no call, no output.
#include <time.h>

static double sc_timer_t0_ms;

static double sc_timer_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sc_timer_report(void)
{
    fprintf(stderr, "main_ms=%.3f\n", sc_timer_now_ms() - sc_timer_t0_ms);
}

__attribute__((constructor)) static void sc_timer_begin(void)
{
    const char *e = getenv("SC_TESTAPP_TIMER");
    if (!e || strcmp(e, "1") != 0)
        return;
#ifndef SC_TIMER_LAZY_MODULES
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
#endif
    if (cudaFree(NULL) != cudaSuccess)
        return;
    sc_timer_t0_ms = sc_timer_now_ms();
    atexit(sc_timer_report);
}

#endif
