// tests/sim/gpu_probe.cu: prints what the real CUDA driver and runtime
// answer in the cases the simulator models, to check the model against a
// GPU (not part of `make check`).  Build and run on a GPU host:
//   nvcc -cudart shared -I kernels -o gpu_probe tests/sim/gpu_probe.cu -lcuda -ldl
//   ./gpu_probe            # and LD_LIBRARY_PATH=$SC_SIMDIR ./gpu_probe
// Each line is "key: value"; the simulator should print the same.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "sc_kernels.cuh"

static double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define SHOW(key, val) printf("%s: %d\n", key, (int)(val))

static cudaStream_t g_stream;
static cudaError_t g_err;

static void *malloc_other_thread(void *)
{
    void *p = nullptr;
    g_err = cudaMalloc(&p, 64);
    return nullptr;
}

static void *end_capture_other_thread(void *)
{
    cudaGraph_t g;
    g_err = cudaStreamEndCapture(g_stream, &g);
    return nullptr;
}

static cudaError_t in_thread(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, nullptr, fn, nullptr);
    pthread_join(t, nullptr);
    return g_err;
}

static void CUDART_CB cb(cudaStream_t, cudaError_t, void *) {}

int main()
{
    cudaFree(0);
    char pageable[256];
    void *p = nullptr;
    CUdriverProcAddressQueryResult st;
    CUresult r;

    // ---- cuGetProcAddress
    r = cuGetProcAddress("cuNoSuchFunction", &p, 13000, 0, &st);
    printf("getproc_unknown: r=%d status=%d null=%d\n", r, st, p == nullptr);
    r = cuGetProcAddress("cuMemAllocAsync", &p, 11000, 0, &st);
    printf("getproc_too_old: r=%d status=%d null=%d\n", r, st, p == nullptr);
    r = cuGetProcAddress("", &p, 0, 0, &st);
    printf("getproc_empty: r=%d status=%d\n", r, st);
    r = cuGetProcAddress("cuInit", &p, 13010, 0, &st);
    printf("getproc_newer_than_driver: r=%d status=%d\n", r, st);
    r = cuGetProcAddress("cuMemAlloc_v2", &p, 13000, 0, &st);
    printf("getproc_versioned_name: r=%d status=%d\n", r, st);

    void *dl = dlopen("libcuda.so.1", RTLD_NOW);
    const char *names[] = {"cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2_ptsz",
                           "cuStreamBeginCapture", "cuStreamBeginCapture_ptsz",
                           "cuStreamBeginCapture_v2_ptsz", "cuCtxSynchronize",
                           "cuCtxSynchronize_v2"};
    struct {
        const char *base;
        int version, flags;
    } lookups[] = {{"cuMemcpyHtoDAsync", 7000, 2}, {"cuStreamBeginCapture", 10000, 0},
                   {"cuStreamBeginCapture", 10000, 2}, {"cuStreamBeginCapture", 12000, 2},
                   {"cuCtxSynchronize", 12090, 0}, {"cuCtxSynchronize", 13000, 0}};
    for (auto &l : lookups) {
        p = nullptr;
        cuGetProcAddress(l.base, &p, l.version, l.flags, &st);
        const char *which = "?";
        for (const char *n : names)
            if (p && p == dlsym(dl, n))
                which = n;
        printf("getproc %s %d %d: %s\n", l.base, l.version, l.flags, which);
    }

    // ---- device
    int v = 0;
    cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 0);
    SHOW("async_engines", v);
    r = cuDeviceGetAttribute(&v, (CUdevice_attribute)9999, 0);
    printf("unknown_attribute: r=%d\n", r);
    int least, greatest;
    cuCtxGetStreamPriorityRange(&least, &greatest);
    printf("priority_range: %d %d\n", least, greatest);

    // ---- pointers
    unsigned type = 99;
    r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)pageable);
    printf("pointer_attribute_pageable: r=%d\n", r);
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    CUcontext ctx = (CUcontext)1;
    int ordinal = 99;
    void *data[] = {&type, &ctx, &ordinal};
    r = cuPointerGetAttributes(3, attrs, data, (CUdeviceptr)pageable);
    printf("pointer_attributes_pageable: r=%d type=%u ctx_null=%d ordinal=%d\n", r, type,
           ctx == nullptr, ordinal);
    cudaPointerAttributes pa;
    cudaError_t e = cudaPointerGetAttributes(&pa, pageable);
    printf("runtime_pointer_attributes_pageable: e=%d type=%d device=%d dev_null=%d host_is_ptr=%d\n",
           e, pa.type, pa.device, pa.devicePointer == nullptr, pa.hostPointer == pageable);
    void *ph;
    cudaMallocHost(&ph, 64);
    unsigned flags = 99;
    cuMemHostGetFlags(&flags, ph);
    printf("mallochost_flags: %u\n", flags);
    char *regd = (char *)aligned_alloc(4096, 1 << 16);
    cudaHostRegister(regd, 1 << 16, 0);
    cuMemHostGetFlags(&flags, regd);
    printf("hostregister0_flags: %u\n", flags);
    cudaHostUnregister(regd);
    free(regd);
    cudaFreeHost(ph);
    cudaHostAlloc(&ph, 64, 0);
    cuMemHostGetFlags(&flags, ph);
    printf("hostalloc0_flags: %u\n", flags);
    cudaFreeHost(ph);
    printf("cuMemFree_0: r=%d\n", cuMemFree(0));
    CUdeviceptr dp;
    printf("cuMemAlloc_0: r=%d\n", cuMemAlloc(&dp, 0));
    p = (void *)1;
    e = cudaMalloc(&p, 0);
    printf("cudaMalloc_0: e=%d null=%d\n", e, p == nullptr);
    p = (void *)1;
    e = cudaMallocHost(&p, 0);
    printf("cudaMallocHost_0: e=%d null=%d\n", e, p == nullptr);
    printf("cuStreamDestroy_null: r=%d\n", cuStreamDestroy(nullptr));

    // ---- events
    cudaEvent_t ea, eb;
    cudaEventCreate(&ea);
    cudaEventCreate(&eb);
    float ms;
    printf("elapsed_unrecorded: e=%d\n", cudaEventElapsedTime(&ms, ea, eb));
    printf("query_unrecorded: e=%d\n", cudaEventQuery(ea));

    // ---- host blocking (ms)
    float *d;
    cudaMalloc(&d, 1 << 20);
    cudaStream_t s, nb;
    cudaStreamCreate(&s);
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    double t0;
    sc_spin<<<1, 1, 0, s>>>(200000000ull);
    t0 = now_ms();
    cudaMemcpy(d, pageable, 256, cudaMemcpyHostToDevice);
    printf("blocked_ms sync_pageable_h2d_after_blocking_spin: %.0f\n", now_ms() - t0);
    cudaDeviceSynchronize();
    sc_spin<<<1, 1, 0, s>>>(200000000ull);
    t0 = now_ms();
    cudaMemcpy(d + 1024, d, 256, cudaMemcpyDeviceToDevice);
    printf("blocked_ms sync_d2d_after_blocking_spin: %.0f\n", now_ms() - t0);
    cudaDeviceSynchronize();
    sc_spin<<<1, 1, 0, nb>>>(200000000ull);
    t0 = now_ms();
    cudaMemcpy(pageable, d, 256, cudaMemcpyDeviceToHost);
    printf("blocked_ms sync_d2h_after_nonblocking_spin: %.0f\n", now_ms() - t0);
    cudaDeviceSynchronize();
    char *big = (char *)malloc(16 << 20);
    float *dbig;
    cudaMalloc(&dbig, 16 << 20);
    for (size_t z : {(size_t)256, (size_t)1 << 20, (size_t)16 << 20}) {
        sc_spin<<<1, 1, 0, nb>>>(200000000ull);
        t0 = now_ms();
        cudaMemcpyAsync(dbig, big, z, cudaMemcpyHostToDevice, nb);
        printf("blocked_ms async_pageable_h2d_%zu_after_spin_same_stream: %.0f\n", z,
               now_ms() - t0);
        cudaDeviceSynchronize();
        sc_spin<<<1, 1, 0, nb>>>(200000000ull);
        t0 = now_ms();
        cudaMemcpyAsync(big, dbig, z, cudaMemcpyDeviceToHost, nb);
        printf("blocked_ms async_pageable_d2h_%zu_after_spin_same_stream: %.0f\n", z,
               now_ms() - t0);
        cudaDeviceSynchronize();
    }
    sc_spin<<<1, 1, 0, nb>>>(200000000ull);
    t0 = now_ms();
    cudaMemsetAsync(d, 0, 256, nullptr);
    cudaMemset(d, 0, 256);
    printf("blocked_ms memset_legacy_after_nonblocking_spin: %.0f\n", now_ms() - t0);
    cudaDeviceSynchronize();
    struct {
        const char *what;
        int op;
    } allocs[] = {{"cudaMalloc", 0}, {"cudaFree", 1}, {"cudaMallocHost", 2},
                  {"cudaFreeHost", 3}, {"cudaHostRegister", 4}, {"cudaHostUnregister", 5},
                  {"cudaMallocAsync", 6}, {"cudaFreeAsync", 7}};
    void *pm = nullptr, *ph2 = nullptr, *pa2 = nullptr;
    char *reg = (char *)aligned_alloc(4096, 1 << 20);
    for (auto &a : allocs) {
        sc_spin<<<1, 1, 0, nb>>>(200000000ull);
        t0 = now_ms();
        switch (a.op) {
        case 0: cudaMalloc(&pm, 1 << 20); break;
        case 1: cudaFree(pm); break;
        case 2: cudaMallocHost(&ph2, 1 << 20); break;
        case 3: cudaFreeHost(ph2); break;
        case 4: cudaHostRegister(reg, 1 << 20, 0); break;
        case 5: cudaHostUnregister(reg); break;
        case 6: cudaMallocAsync(&pa2, 1 << 20, s); break;
        case 7: cudaFreeAsync(pa2, s); break;
        }
        printf("blocked_ms %s_after_nonblocking_spin: %.0f\n", a.what, now_ms() - t0);
        cudaDeviceSynchronize();
    }
    sc_spin<<<1, 1, 0, s>>>(200000000ull);
    e = cudaStreamQuery(nullptr);
    printf("legacy_query_while_blocking_busy: e=%d\n", e);
    cudaDeviceSynchronize();

    // ---- capture
    cudaGraph_t g;
    e = cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal);
    printf("capture_begin_legacy: e=%d\n", e);
    e = cudaStreamEndCapture(s, &g);
    printf("capture_end_not_capturing: e=%d\n", e);
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    printf("capture_begin_twice: e=%d\n", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus cs;
    printf("capture_is_capturing_legacy: e=%d\n", cudaStreamIsCapturing(nullptr, &cs));
    printf("capture_legacy_memset: e=%d\n", cudaMemsetAsync(d, 0, 256, nullptr));
    g = (cudaGraph_t)1;
    e = cudaStreamEndCapture(s, &g);
    printf("capture_end_after_legacy: e=%d graph_null=%d\n", e, g == nullptr);
    cudaGetLastError();

    cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal);
    printf("capture_nonblocking_legacy_memset: e=%d\n", cudaMemsetAsync(d, 0, 256, nullptr));
    e = cudaStreamEndCapture(nb, &g);
    printf("capture_nonblocking_end: e=%d\n", e);
    cudaGetLastError();
    cudaDeviceSynchronize();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    printf("capture_global_malloc_same_thread: e=%d\n", cudaMalloc(&p, 64));
    printf("capture_global_end_after_malloc: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    printf("capture_global_malloc_other_thread: e=%d\n", in_thread(malloc_other_thread));
    printf("capture_global_end_after_other_malloc: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    printf("capture_threadlocal_malloc_other_thread: e=%d\n", in_thread(malloc_other_thread));
    printf("capture_threadlocal_malloc_same_thread: e=%d\n", cudaMalloc(&p, 64));
    printf("capture_threadlocal_end: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    printf("capture_relaxed_malloc: e=%d\n", cudaMalloc(&p, 64));
    printf("capture_relaxed_end: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    printf("capture_sync_capturing: e=%d\n", cudaStreamSynchronize(s));
    printf("capture_end_after_sync: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    printf("capture_query_capturing: e=%d\n", cudaStreamQuery(s));
    printf("capture_end_after_query: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    printf("capture_device_sync: e=%d\n", cudaDeviceSynchronize());
    printf("capture_end_after_device_sync: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    printf("capture_pageable_h2d: e=%d\n",
           cudaMemcpyAsync(d, pageable, 256, cudaMemcpyHostToDevice, s));
    printf("capture_end_after_pageable: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    printf("capture_add_callback: e=%d\n", cudaStreamAddCallback(s, cb, nullptr, 0));
    printf("capture_end_after_callback: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaEventRecord(ea, s);
    printf("capture_event_query: e=%d\n", cudaEventQuery(ea));
    printf("capture_event_sync: e=%d\n", cudaEventSynchronize(ea));
    printf("capture_end_after_event_query: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();
    printf("event_query_after_capture_ended: e=%d\n", cudaEventQuery(ea));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaEventRecord(ea, s);
    printf("capture_event_sync_first: e=%d\n", cudaEventSynchronize(ea));
    printf("capture_end_after_event_sync: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaEventRecord(ea, s);
    printf("capture_end_with_event: e=%d\n", cudaStreamEndCapture(s, &g));
    printf("event_query_after_good_capture: e=%d\n", cudaEventQuery(ea));
    printf("event_sync_after_good_capture: e=%d\n", cudaEventSynchronize(ea));
    cudaGetLastError();

    cudaEventRecord(eb, nb);
    cudaStreamSynchronize(nb);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    printf("capture_wait_outside_event: e=%d\n", cudaStreamWaitEvent(s, eb, 0));
    printf("capture_end_after_outside_wait: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    g_stream = s;
    printf("capture_end_other_thread: e=%d\n", in_thread(end_capture_other_thread));
    printf("capture_end_same_thread: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();

    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaEventRecord(ea, s);
    cudaStreamWaitEvent(nb, ea, 0);
    cudaStreamIsCapturing(nb, &cs);
    printf("capture_fork_joined_status: %d\n", cs);
    printf("capture_end_on_joined: e=%d\n", cudaStreamEndCapture(nb, &g));
    printf("capture_end_origin_after_joined_end: e=%d\n", cudaStreamEndCapture(s, &g));
    cudaGetLastError();
    cudaDeviceSynchronize();
    printf("last_error: %d\n", cudaGetLastError());
    printf("done\n");
    return 0;
}
