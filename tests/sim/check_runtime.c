/* tests/sim/check_runtime.c: the simulated libcudart.so.13: how it reaches
 * the driver, which driver call each runtime call makes, nvcc's
 * registration and launch sequence, errors. */
#include "config.h"

#include "interpose.h"
#include "simtest.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The per-thread entry points nvcc --default-stream per-thread binds. */
extern __typeof__(cudaMemcpyAsync) cudaMemcpyAsync_ptsz;
extern __typeof__(cudaMemcpy) cudaMemcpy_ptds;
extern __typeof__(cudaStreamSynchronize) cudaStreamSynchronize_ptsz;

/* nvcc's registration and launch entry points (C++-only prototypes). */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **h);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit,
                            uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                            int *wSize);
unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, size_t sh,
                                     struct CUstream_st *s);
cudaError_t __cudaPopCallConfiguration(dim3 *g, dim3 *b, size_t *sh, void *s);
cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args,
                               size_t sh, cudaStream_t s);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b,
                                    void **args, size_t sh, cudaStream_t s);

#define RT_OK(call)                                                           \
    do {                                                                      \
        cudaError_t rt_e_ = (call);                                           \
        ck_assert_msg(rt_e_ == cudaSuccess, "%s returned %d (%s)", #call,     \
                      (int)rt_e_, cudaGetErrorName(rt_e_));                   \
    } while (0)

/* NVIDIA's CUDA 13 runtime: one dlsym of cuGetProcAddress_v2, asked for
 * "cuGetProcAddress" at 12000, then everything through the pointer it
 * returned, per-thread variants with flags 2. */
START_TEST(binds_driver_like_cuda13_runtime)
{
    ck_assert_int_eq(atomic_load(&ip_nlookups), 0);
    RT_OK(cudaFree(NULL));
    ck_assert_int_eq(atomic_load(&ip_dlsym_count), 1);
    int n = atomic_load(&ip_nlookups);
    ck_assert_int_gt(n, 50);
    ck_assert_str_eq(ip_lookups[0].name, "cuGetProcAddress");
    ck_assert_int_eq(ip_lookups[0].version, 12000);
    ck_assert_uint_eq(ip_lookups[0].flags, 0);
    ck_assert_int_eq(ip_lookups[0].via_dlsym, 1);
    for (int i = 1; i < n; i++)
        ck_assert_msg(!ip_lookups[i].via_dlsym,
                      "%s was looked up through the dlsym'd pointer",
                      ip_lookups[i].name);
    ck_assert_int_ge(ip_find_lookup("cuInit", 2000, 0), 1);
    ck_assert_int_ge(ip_find_lookup("cuMemcpyHtoDAsync", 3020, 0), 1);
    ck_assert_int_ge(ip_find_lookup("cuMemcpyHtoDAsync", 7000, 2), 1);
    ck_assert_int_ge(ip_find_lookup("cuLaunchKernel", 4000, 0), 1);
    ck_assert_int_ge(ip_find_lookup("cuLaunchKernel", 7000, 2), 1);
    ck_assert_int_ge(ip_find_lookup("cuMemcpy", 7000, 2), 1);
    ck_assert_int_eq(ip_find_lookup("cuMemcpyHtoDAsync_v2", 3020, 0), -1);
}
END_TEST

/* Each runtime call reaches the driver entry point the real runtime
 * uses, with the stream handle passed through. */
START_TEST(runtime_to_driver_mapping)
{
    char *d, *d2, *pinned;
    RT_OK(cudaMalloc((void **)&d, 256));
    RT_OK(cudaMalloc((void **)&d2, 256));
    RT_OK(cudaMallocHost((void **)&pinned, 256));
    cudaStream_t s;
    RT_OK(cudaStreamCreate(&s));
    struct {
        const char *what;
        const char *symbol;
        cudaStream_t stream;
    } want[] = {
        {"cudaMemcpyAsync H2D", "cuMemcpyHtoDAsync_v2", s},
        {"cudaMemcpyAsync_ptsz H2D", "cuMemcpyHtoDAsync_v2_ptsz", s},
        {"cudaMemcpyAsync D2H", "cuMemcpyDtoHAsync_v2", s},
        {"cudaMemcpyAsync D2D", "cuMemcpyDtoDAsync_v2", s},
        {"cudaMemcpyAsync default", "cuMemcpyAsync", s},
        {"cudaMemcpyAsync per-thread handle", "cuMemcpyHtoDAsync_v2",
         cudaStreamPerThread},
        {"cudaMemcpy H2D", "cuMemcpyHtoD_v2", NULL},
        {"cudaMemcpy_ptds H2D", "cuMemcpyHtoD_v2_ptds", NULL},
        {"cudaMemcpy default", "cuMemcpy", NULL},
        {"cudaMemsetAsync", "cuMemsetD8Async", s},
        {"cudaStreamSynchronize", "cuStreamSynchronize", s},
        {"cudaStreamSynchronize_ptsz", "cuStreamSynchronize_ptsz", NULL},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ip_reset_calls();
        switch (i) {
        case 0: RT_OK(cudaMemcpyAsync(d, pinned, 256, cudaMemcpyHostToDevice, s)); break;
        case 1: RT_OK(cudaMemcpyAsync_ptsz(d, pinned, 256, cudaMemcpyHostToDevice, s)); break;
        case 2: RT_OK(cudaMemcpyAsync(pinned, d, 256, cudaMemcpyDeviceToHost, s)); break;
        case 3: RT_OK(cudaMemcpyAsync(d2, d, 256, cudaMemcpyDeviceToDevice, s)); break;
        case 4: RT_OK(cudaMemcpyAsync(d, pinned, 256, cudaMemcpyDefault, s)); break;
        case 5: RT_OK(cudaMemcpyAsync(d, pinned, 256, cudaMemcpyHostToDevice,
                                      cudaStreamPerThread)); break;
        case 6: RT_OK(cudaMemcpy(d, pinned, 256, cudaMemcpyHostToDevice)); break;
        case 7: RT_OK(cudaMemcpy_ptds(d, pinned, 256, cudaMemcpyHostToDevice)); break;
        case 8: RT_OK(cudaMemcpy(d, pinned, 256, cudaMemcpyDefault)); break;
        case 9: RT_OK(cudaMemsetAsync(d, 0, 256, s)); break;
        case 10: RT_OK(cudaStreamSynchronize(s)); break;
        case 11: RT_OK(cudaStreamSynchronize_ptsz(NULL)); break;
        }
        ck_assert_int_eq(atomic_load(&ip_ncalls), 1);
        const ip_call *c = ip_last_call();
        ck_assert_msg(strcmp(c->symbol, want[i].symbol) == 0, "%s reached %s",
                      want[i].what, c->symbol);
        ck_assert_msg(c->stream == want[i].stream, "%s: stream %p", want[i].what,
                      (void *)c->stream);
        /* The copies target the same buffers from different streams. */
        RT_OK(cudaDeviceSynchronize());
    }
    RT_OK(cudaDeviceSynchronize());
}
END_TEST

static void fake_stub(void)
{
}

static void unregistered_stub(void)
{
}

/* What nvcc emits for kernel<<<g, b, 0, s>>>(args): registration at load
 * time, then push/pop of the configuration, __cudaGetKernel once and
 * __cudaLaunchKernel, which reaches cuLaunchKernel. */
START_TEST(nvcc_launch_sequence)
{
    static const unsigned int fatbin[] = {0xba55ed50u, 0x00100001u, 0, 0};
    static const struct {
        int magic, version;
        const void *data;
        void *unused;
    } wrapper = {0x466243b1, 1, fatbin, NULL};
    void **h = __cudaRegisterFatBinary((void *)&wrapper);
    ck_assert_ptr_nonnull(h);
    __cudaRegisterFunction(h, (const char *)fake_stub, (char *)fake_stub,
                           "_Z8sc_saxpyifPKfPf", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    /* Registration alone does not touch the driver. */
    ck_assert_int_eq(atomic_load(&ip_nlookups), 0);

    int n = 100;
    float *x, *y;
    RT_OK(cudaMalloc((void **)&x, n * sizeof(float)));
    RT_OK(cudaMalloc((void **)&y, n * sizeof(float)));
    for (int i = 0; i < n; i++)
        x[i] = (float)i, y[i] = 1.0f;
    cudaStream_t s;
    RT_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ip_reset_calls();
    dim3 g = {2, 1, 1}, b = {64, 1, 1}, gg, bb;
    ck_assert_uint_eq(__cudaPushCallConfiguration(g, b, 0, s), 0);
    size_t sh;
    cudaStream_t st;
    RT_OK(__cudaPopCallConfiguration(&gg, &bb, &sh, &st));
    ck_assert_ptr_eq(st, s);
    ck_assert_uint_eq(gg.x, 2);
    ck_assert_uint_eq(bb.x, 64);
    cudaKernel_t k = NULL;
    RT_OK(__cudaGetKernel(&k, (const void *)fake_stub));
    ck_assert_ptr_nonnull(k);
    float a = 3.0f;
    void *args[] = {&n, &a, &x, &y};
    RT_OK(__cudaLaunchKernel(k, gg, bb, args, sh, st));
    /* The library was loaded on first use, then the kernel launched. */
    ck_assert_int_eq(atomic_load(&ip_ncalls), 2);
    ck_assert_str_eq(ip_calls[0].symbol, "cuLibraryLoadData");
    ck_assert_str_eq(ip_calls[1].symbol, "cuLaunchKernel");
    ck_assert_ptr_eq(ip_calls[1].stream, s);
    RT_OK(cudaStreamSynchronize(s));
    ck_assert(y[10] == 31.0f);

    ip_reset_calls();
    RT_OK(__cudaLaunchKernel_ptsz(k, gg, bb, args, sh, NULL));
    ck_assert_str_eq(ip_last_call()->symbol, "cuLaunchKernel_ptsz");
    RT_OK(cudaStreamSynchronize(cudaStreamPerThread)); /* s does not wait */
    ip_reset_calls();
    RT_OK(cudaLaunchKernel((const void *)fake_stub, g, b, args, 0, s));
    ck_assert_str_eq(ip_last_call()->symbol, "cuLaunchKernel");
    RT_OK(cudaDeviceSynchronize());
    ck_assert(y[10] == 91.0f);

    /* Errors are recorded for cudaGetLastError (nvcc ignores the
     * launch's return value). */
    dim3 big = {2048, 1, 1};
    ck_assert_int_eq(__cudaLaunchKernel(k, g, big, args, 0, s),
                     cudaErrorInvalidConfiguration);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    ck_assert_int_eq(cudaLaunchKernel((const void *)unregistered_stub, g, b,
                                      args, 0, s),
                     cudaErrorInvalidDeviceFunction);
    ck_assert_int_eq(__cudaPopCallConfiguration(&gg, &bb, &sh, &st),
                     cudaErrorMissingConfiguration);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorMissingConfiguration);
}
END_TEST

static void other_thread_last_error(void *p)
{
    *(cudaError_t *)p = cudaGetLastError();
}

/* The last error is per host thread; cudaGetLastError resets it,
 * cudaPeekAtLastError does not; "not ready" is not an error. */
START_TEST(last_error_per_thread)
{
    RT_OK(cudaFree(NULL));
    ck_assert_int_eq(cudaMalloc(NULL, 16), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaPeekAtLastError(), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaPeekAtLastError(), cudaErrorInvalidValue);
    cudaError_t other = cudaErrorUnknown;
    st_call c;
    st_call_start(&c, other_thread_last_error, &other);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    ck_assert_int_eq(other, cudaSuccess);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);

    cudaStream_t s;
    RT_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    ck_assert_int_eq(cudaStreamQuery(s), cudaErrorNotReady);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    st_gate_open(&g);
    RT_OK(cudaStreamSynchronize(s));
    RT_OK(cudaStreamQuery(s));
    ck_assert_int_eq(cudaMemcpy(NULL, NULL, 4, (enum cudaMemcpyKind)7),
                     cudaErrorInvalidMemcpyDirection);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    ck_assert_int_eq(cudaSetDevice(1), cudaErrorInvalidDevice);
}
END_TEST

START_TEST(error_strings)
{
    ck_assert_str_eq(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
    ck_assert_str_eq(cudaGetErrorName(cudaSuccess), "cudaSuccess");
    ck_assert_str_eq(cudaGetErrorString(cudaSuccess), "no error");
    ck_assert_str_eq(cudaGetErrorName(cudaErrorStreamCaptureImplicit),
                     "cudaErrorStreamCaptureImplicit");
    ck_assert_str_eq(cudaGetErrorName((cudaError_t)4242), "unrecognized error code");
}
END_TEST

START_TEST(device_management)
{
    int n = 0, dev = -1, v = 0;
    RT_OK(cudaGetDeviceCount(&n));
    ck_assert_int_eq(n, 1);
    RT_OK(cudaGetDevice(&dev));
    ck_assert_int_eq(dev, 0);
    RT_OK(cudaSetDevice(0));
    struct cudaDeviceProp p;
    RT_OK(cudaGetDeviceProperties(&p, 0));
    ck_assert_str_eq(p.name, "streamcheck simulated GPU");
    ck_assert_int_eq(p.multiProcessorCount, 132);
    ck_assert_int_eq(p.major, 9);
    ck_assert_int_eq(p.minor, 0);
    ck_assert_int_eq(p.warpSize, 32);
    ck_assert_int_eq(p.asyncEngineCount, 2);
    ck_assert_uint_eq(p.totalGlobalMem, 80ull << 30);
    RT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentKernels, 0));
    ck_assert_int_eq(v, 1);
    int least, greatest;
    RT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    ck_assert_int_eq(greatest, -5);
    RT_OK(cudaRuntimeGetVersion(&v));
    ck_assert_int_eq(v, 13000);
    RT_OK(cudaDriverGetVersion(&v));
    ck_assert_int_eq(v, 13000);
    RT_OK(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
    enum cudaFuncCache cc;
    RT_OK(cudaDeviceGetCacheConfig(&cc));
    ck_assert_int_eq(cc, cudaFuncCachePreferL1);
    size_t fr, total;
    RT_OK(cudaMemGetInfo(&fr, &total));
    ck_assert_uint_eq(total, 80ull << 30);
    void *p1 = NULL;
    enum cudaDriverEntryPointQueryResult q;
    RT_OK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &p1, 13000, cudaEnableDefault, &q));
    ck_assert_ptr_nonnull(p1);
    ck_assert_int_eq(q, cudaDriverEntryPointSuccess);
}
END_TEST

START_TEST(pointer_attributes)
{
    void *d, *h;
    char pageable[16];
    RT_OK(cudaMalloc(&d, 64));
    RT_OK(cudaHostAlloc(&h, 64, cudaHostAllocMapped));
    struct cudaPointerAttributes a;
    RT_OK(cudaPointerGetAttributes(&a, d));
    ck_assert_int_eq(a.type, cudaMemoryTypeDevice);
    ck_assert_ptr_eq(a.devicePointer, d);
    ck_assert_int_eq(a.device, 0);
    RT_OK(cudaPointerGetAttributes(&a, h));
    ck_assert_int_eq(a.type, cudaMemoryTypeHost);
    ck_assert_ptr_eq(a.hostPointer, h);
    RT_OK(cudaPointerGetAttributes(&a, pageable));
    ck_assert_int_eq(a.type, cudaMemoryTypeUnregistered);
    ck_assert_int_eq(a.device, -2);
    ck_assert_ptr_null(a.devicePointer);
    ck_assert_ptr_eq(a.hostPointer, pageable);
    void *dp;
    RT_OK(cudaHostGetDevicePointer(&dp, h, 0));
    ck_assert_ptr_eq(dp, h);
    RT_OK(cudaFreeHost(h));
    RT_OK(cudaFree(d));
    /* cudaMalloc(0) succeeds with a null pointer. */
    d = (void *)1;
    RT_OK(cudaMalloc(&d, 0));
    ck_assert_ptr_null(d);
}
END_TEST

static void CUDART_CB rt_callback(cudaStream_t s, cudaError_t status, void *p)
{
    cudaStream_t *seen = p;
    seen[0] = s;
    seen[1] = (cudaStream_t)(uintptr_t)(status + 1);
}

START_TEST(streams_events_callbacks)
{
    cudaStream_t s, seen[2] = {NULL, NULL};
    RT_OK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -3));
    int prio;
    unsigned flags;
    RT_OK(cudaStreamGetPriority(s, &prio));
    ck_assert_int_eq(prio, -3);
    RT_OK(cudaStreamGetFlags(s, &flags));
    ck_assert_uint_eq(flags, cudaStreamNonBlocking);
    cudaEvent_t e;
    RT_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    RT_OK(cudaEventRecord(e, s));
    RT_OK(cudaStreamAddCallback(s, rt_callback, seen, 0));
    ck_assert_int_eq(cudaEventQuery(e), cudaErrorNotReady);
    st_gate_open(&g);
    RT_OK(cudaEventSynchronize(e));
    RT_OK(cudaStreamSynchronize(s));
    ck_assert_ptr_eq(seen[0], s);
    ck_assert_ptr_eq(seen[1], (cudaStream_t)(uintptr_t)(cudaSuccess + 1));
    float ms;
    ck_assert_int_eq(cudaEventElapsedTime(&ms, e, e), cudaErrorInvalidResourceHandle);
    RT_OK(cudaEventDestroy(e));
    RT_OK(cudaStreamDestroy(s));
    ck_assert_int_eq(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
}
END_TEST

/* Calls the simulator does not implement report once and fail with
 * cudaErrorNotSupported, which becomes the last error. */
START_TEST(unsupported_runtime_call)
{
    int saved = st_stderr_begin();
    cudaError_t r1 = cudaArrayGetInfo(NULL, NULL, NULL, NULL);
    cudaError_t r2 = cudaArrayGetInfo(NULL, NULL, NULL, NULL);
    char *err = st_stderr_end(saved);
    ck_assert_int_eq(r1, cudaErrorNotSupported);
    ck_assert_int_eq(r2, cudaErrorNotSupported);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorNotSupported);
    char line[128];
    snprintf(line, sizeof line,
             "streamcheck-sim[%ld]: cudaArrayGetInfo is not supported by the "
             "simulator\n",
             (long)getpid());
    ck_assert_int_eq(st_count(err, line), 1);
    ck_assert_int_eq(st_count(err, "\n"), 1);
    free(err);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim-runtime");
    TCase *t = tcase_create("runtime");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, binds_driver_like_cuda13_runtime);
    tcase_add_test(t, runtime_to_driver_mapping);
    tcase_add_test(t, nvcc_launch_sequence);
    tcase_add_test(t, last_error_per_thread);
    tcase_add_test(t, error_strings);
    tcase_add_test(t, device_management);
    tcase_add_test(t, pointer_attributes);
    tcase_add_test(t, streams_events_callbacks);
    tcase_add_test(t, unsupported_runtime_call);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    if (ip_install() < 1) {
        fprintf(stderr, "cannot redirect the library's dlsym\n");
        return EXIT_FAILURE;
    }
    return st_run(suite());
}
