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

#endif
