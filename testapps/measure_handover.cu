// measure_handover: a program with a CUPTI profiler of its own, started
// part-way through the run as torch.profiler starts Kineto.  Only one CUPTI
// client works at a time (CUDA 13), so under --measure streamcheck must
// hand CUPTI over when the program subscribes, or the program's profiler
// gets nothing (tests/measure.sh).  Before the hand-over: the barrier of
// measure_barrier, an SC101 that costs about 100 ms of GPU time; after it,
// the program's own session: three kernels on a stream and one on the
// legacy stream between them, all four of which its profiler must see.
// With --dlsym it looks cuptiSubscribe up in libcupti's handle, as XLA's
// CUPTI wrapper does, instead of calling the function it was linked with.
#include <cupti.h>
#include <dlfcn.h>

#include "common.h"

static size_t kernels;

static void CUPTIAPI requested(uint8_t **buf, size_t *size, size_t *max_records)
{
    *size = 1 << 16;
    *buf = (uint8_t *)aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI completed(CUcontext, uint32_t, uint8_t *buf, size_t, size_t valid)
{
    CUpti_Activity *rec = NULL;
    while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            kernels++;
    free(buf);
}

static void CUPTIAPI no_callback(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

// The program's profiler: what it could not do is part of its output.
static int profiler_start(CUpti_SubscriberHandle *sub, bool by_name)
{
    const char *why = "";
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) = cuptiSubscribe;
    if (by_name) {
        void *lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
        subscribe = lib ? (decltype(subscribe))dlsym(lib, "cuptiSubscribe") : NULL;
        if (!subscribe) {
            printf("measure_handover: cuptiSubscribe not found by name\n");
            return 0;
        }
    }
    CUptiResult r = subscribe(sub, no_callback, NULL);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityRegisterCallbacks(requested, completed);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r == CUPTI_SUCCESS)
        return 1;
    cuptiGetResultString(r, &why);
    printf("measure_handover: the profiler could not start: %s\n", why);
    return 0;
}

int main(int argc, char **argv)
{
    cudaStream_t a, b;
    CHECK(cudaStreamCreate(&a)); // expect: SC102 x1
    CHECK(cudaStreamCreate(&b)); // expect: SC102 x1
    sc_spin<<<1, 1, 0, a>>>(MS(100));
    LAUNCHED();
    sc_spin<<<1, 1>>>(0); // expect: SC101 x1
    LAUNCHED();
    sc_spin<<<1, 1, 0, b>>>(MS(100));
    LAUNCHED();
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaStreamSynchronize(b));

    CUpti_SubscriberHandle sub;
    int profiling = profiler_start(&sub, argc > 1 && !strcmp(argv[1], "--dlsym"));
    sc_spin<<<1, 1, 0, a>>>(MS(10));
    LAUNCHED();
    sc_spin<<<1, 1>>>(0); // expect: SC101 x1
    LAUNCHED();
    for (int i = 0; i < 2; i++) {
        sc_spin<<<1, 1, 0, a>>>(MS(10));
        LAUNCHED();
    }
    CHECK(cudaStreamSynchronize(a)); // the legacy kernel ran before the last two
    if (profiling) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        cuptiUnsubscribe(sub);
        printf("measure_handover: the profiler saw %zu kernels\n", kernels);
    }
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    return 0;
}
