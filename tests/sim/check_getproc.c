/* tests/sim/check_getproc.c: cuGetProcAddress, initialization, devices,
 * errors and unsupported-call stubs of the simulated libcuda. */
#include "config.h"

#include "simtest.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    ck_assert_msg(p != NULL, "libcuda.so.1 does not export %s", name);
    return p;
}

static void *lookup(const char *name, int version, int flags, CUresult want,
                    CUdriverProcAddressQueryResult want_status)
{
    void *p = (void *)1;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
    CUresult r = cuGetProcAddress(name, &p, version, (cuuint64_t)flags, &st);
    ck_assert_msg(r == want, "cuGetProcAddress(%s, %d, %d) = %d, expected %d",
                  name, version, flags, (int)r, (int)want);
    ck_assert_msg(st == want_status, "%s %d %d: status %d, expected %d", name,
                  version, flags, (int)st, (int)want_status);
    return p;
}

#define FOUND(name, ver, flags)                                               \
    lookup(name, ver, flags, CUDA_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS)

/* Flags 0 give the legacy-stream entry point, flags 2 the per-thread one
 * (_ptsz for stream-ordered calls, _ptds for synchronous copies). */
START_TEST(flags_select_per_thread_variant)
{
    ck_assert_ptr_eq(FOUND("cuMemcpyHtoDAsync", 13000, 0),
                     sym("cuMemcpyHtoDAsync_v2"));
    ck_assert_ptr_eq(FOUND("cuMemcpyHtoDAsync", 13000, 2),
                     sym("cuMemcpyHtoDAsync_v2_ptsz"));
    ck_assert_ptr_eq(FOUND("cuLaunchKernel", 12000, 0), sym("cuLaunchKernel"));
    ck_assert_ptr_eq(FOUND("cuLaunchKernel", 12000, 2), sym("cuLaunchKernel_ptsz"));
    ck_assert_ptr_eq(FOUND("cuMemcpy", 7000, 2), sym("cuMemcpy_ptds"));
    ck_assert_ptr_eq(FOUND("cuMemsetD8", 13000, 2), sym("cuMemsetD8_v2_ptds"));
    ck_assert_ptr_eq(FOUND("cuStreamSynchronize", 7000, 2),
                     sym("cuStreamSynchronize_ptsz"));
    /* CU_GET_PROC_ADDRESS_LEGACY_STREAM is flags 0's behaviour. */
    ck_assert_ptr_eq(FOUND("cuStreamSynchronize", 7000, 1),
                     sym("cuStreamSynchronize"));
    /* No per-thread variant: flags 2 give the legacy function. */
    ck_assert_ptr_eq(FOUND("cuMemAlloc", 13000, 2), sym("cuMemAlloc_v2"));
    /* The per-thread variant appeared in 7000: asked below that, the
     * legacy one. */
    ck_assert_ptr_eq(FOUND("cuMemcpyHtoDAsync", 3020, 2),
                     sym("cuMemcpyHtoDAsync_v2"));
}
END_TEST

/* Asked for itself, cuGetProcAddress returns the ABI of the version
 * asked: 11030 the four-argument one, 12000+ cuGetProcAddress_v2. */
START_TEST(self_lookup)
{
    ck_assert_ptr_eq(FOUND("cuGetProcAddress", 11030, 0), sym("cuGetProcAddress"));
    ck_assert_ptr_eq(FOUND("cuGetProcAddress", 12000, 0),
                     sym("cuGetProcAddress_v2"));
    void *p = FOUND("cuGetProcAddress", 13000, 0);
    ck_assert_ptr_eq(p, sym("cuGetProcAddress_v2"));
    PFN_cuGetProcAddress_v12000 gpa = (PFN_cuGetProcAddress_v12000)p;
    void *q = NULL;
    CUdriverProcAddressQueryResult st;
    ST_OK(gpa("cuInit", &q, 2000, 0, &st));
    ck_assert_ptr_eq(q, sym("cuInit"));
    PFN_cuGetProcAddress_v11030 gpa1 =
        (PFN_cuGetProcAddress_v11030)FOUND("cuGetProcAddress", 11030, 0);
    q = NULL;
    ST_OK(gpa1("cuInit", &q, 2000, 0));
    ck_assert_ptr_eq(q, sym("cuInit"));
    ck_assert_ptr_null(lookup("cuGetProcAddress", 11020, 0, CUDA_SUCCESS,
                              CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT));
}
END_TEST

/* The greatest ABI version <= the requested one. */
START_TEST(version_selection)
{
    ck_assert_ptr_eq(FOUND("cuCtxSynchronize", 2000, 0), sym("cuCtxSynchronize"));
    ck_assert_ptr_eq(FOUND("cuCtxSynchronize", 12090, 0), sym("cuCtxSynchronize"));
    ck_assert_ptr_eq(FOUND("cuCtxSynchronize", 13000, 0),
                     sym("cuCtxSynchronize_v2"));
    ck_assert_ptr_eq(FOUND("cuMemAlloc", 3019, 0), sym("cuMemAlloc"));
    ck_assert_ptr_eq(FOUND("cuMemAlloc", 3020, 0), sym("cuMemAlloc_v2"));
    ck_assert_ptr_eq(FOUND("cuEventElapsedTime", 12080, 0),
                     sym("cuEventElapsedTime_v2"));
    /* An older ABI the simulator does not implement is its stub, never
     * the newer implementation with a different signature. */
    void *old = FOUND("cuStreamBeginCapture", 10000, 0);
    ck_assert_ptr_eq(old, sym("cuStreamBeginCapture"));
    ck_assert_ptr_ne(old, sym("cuStreamBeginCapture_v2"));
    int saved = st_stderr_begin();
    CUresult r = ((CUresult(*)(void))old)();
    free(st_stderr_end(saved));
    ck_assert_int_eq(r, CUDA_ERROR_NOT_SUPPORTED);
}
END_TEST

/* Every implemented entry point (drv_api.def) is what cuGetProcAddress
 * answers for its (name, version, variant), and not one version below. */
START_TEST(table_consistent)
{
    static const struct {
        const char *base, *sym;
        int ver, pt;
    } impl[] = {
#define SC_DRV(base, ver, variant, sym) {#base, #sym, ver, sizeof(#variant) > 1},
#include "sim/drv_api.def"
#undef SC_DRV
    };
    for (size_t i = 0; i < sizeof impl / sizeof impl[0]; i++) {
        int flags = impl[i].pt ? 2 : 0;
        void *p = FOUND(impl[i].base, impl[i].ver, flags);
        ck_assert_msg(p == sym(impl[i].sym), "%s %d flags %d is not %s",
                      impl[i].base, impl[i].ver, flags, impl[i].sym);
        void *below = NULL;
        CUdriverProcAddressQueryResult st;
        cuGetProcAddress(impl[i].base, &below, impl[i].ver - 1,
                         (cuuint64_t)flags, &st);
        ck_assert_msg(below != p, "%s at %d also answered below", impl[i].sym,
                      impl[i].ver);
    }
}
END_TEST

/* Not found is not an error: CUDA_SUCCESS, a NULL pointer and the
 * status say so ("The API will return CUDA_SUCCESS and set the returned
 * pfn to NULL if ... the driver symbol is invalid"; the CUDA 13.0 driver
 * on an H100 answers so). */
START_TEST(unknown_name)
{
    void *p = lookup("cuNoSuchFunction", 13000, 0, CUDA_SUCCESS,
                     CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    ck_assert_ptr_null(p);
    p = lookup("", 0, 0, CUDA_SUCCESS, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    ck_assert_ptr_null(p);
    /* Names are base names: an exported versioned name is not one. */
    p = lookup("cuMemAlloc_v2", 13000, 0, CUDA_SUCCESS,
               CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    ck_assert_ptr_null(p);
}
END_TEST

/* Asked below the version that introduced it. */
START_TEST(version_not_sufficient)
{
    void *p = lookup("cuMemAllocAsync", 11000, 0, CUDA_SUCCESS,
                     CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    ck_assert_ptr_null(p);
    p = lookup("cuMemAllocAsync", 11000, 2, CUDA_SUCCESS,
               CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    ck_assert_ptr_null(p);
}
END_TEST

START_TEST(bad_arguments)
{
    void *p;
    CUdriverProcAddressQueryResult st;
    /* "If the specified CUDA version is greater than the driver version,
     * the API will return CUDA_ERROR_INVALID_VALUE." */
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", &p, 13010, 0, &st));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", &p, 2000, 4, &st));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress(NULL, &p, 2000, 0, &st));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", NULL, 2000, 0, &st));
    /* The status is optional. */
    ST_OK(cuGetProcAddress("cuInit", &p, 2000, 0, NULL));
}
END_TEST

/* A name the real driver has and the simulator does not implement: a stub
 * that reports once and returns CUDA_ERROR_NOT_SUPPORTED, reached by
 * cuGetProcAddress and by its exported name alike. */
START_TEST(unimplemented_stub)
{
    void *p = FOUND("cuArrayCreate", 3020, 0);
    ck_assert_ptr_eq(p, sym("cuArrayCreate_v2"));
    int saved = st_stderr_begin();
    CUresult r1 = ((CUresult(*)(void))p)();
    CUresult r2 = ((CUresult(*)(void))p)();
    CUresult r3 = ((CUresult(*)(void))sym("cuGraphCreate"))();
    char *err = st_stderr_end(saved);
    ck_assert_int_eq(r1, CUDA_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(r2, CUDA_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(r3, CUDA_ERROR_NOT_SUPPORTED);
    char line[128];
    snprintf(line, sizeof line,
             "streamcheck-sim[%ld]: cuArrayCreate_v2 is not supported by the "
             "simulator\n",
             (long)getpid());
    ck_assert_int_eq(st_count(err, line), 1);
    ck_assert_int_eq(st_count(err, "cuGraphCreate is not supported by the "
                                   "simulator"),
                     1);
    ck_assert_int_eq(st_count(err, "\n"), 2);
    free(err);
}
END_TEST

START_TEST(not_initialized_and_no_context)
{
    int v = 0;
    /* cuGetProcAddress and cuDriverGetVersion work before cuInit. */
    ST_OK(cuDriverGetVersion(&v));
    ck_assert_int_eq(v, 13000);
    CUdeviceptr d;
    ST_EXPECT(CUDA_ERROR_NOT_INITIALIZED, cuMemAlloc(&d, 16));
    ST_EXPECT(CUDA_ERROR_NOT_INITIALIZED, cuCtxSynchronize());
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuInit(1));
    ST_OK(cuInit(0));
    ST_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuMemAlloc(&d, 16));
    ST_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxSynchronize());
    ST_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuStreamSynchronize(NULL));
    st_init();
    ST_OK(cuMemAlloc(&d, 16));
    ST_OK(cuCtxSynchronize());
    ST_OK(cuMemFree(d));
}
END_TEST

/* After fork the child has no stream workers: calls fail instead of
 * hanging. */
START_TEST(unusable_after_fork)
{
    st_init();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        CUdeviceptr d;
        int ok = cuInit(0) == CUDA_ERROR_NOT_INITIALIZED &&
                 cuMemAlloc(&d, 16) == CUDA_ERROR_NOT_INITIALIZED &&
                 cuStreamSynchronize(NULL) == CUDA_ERROR_NOT_INITIALIZED;
        _exit(ok ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ST_OK(cuStreamSynchronize(NULL)); /* the parent is unaffected */
}
END_TEST

START_TEST(context_stack)
{
    CUcontext c = st_init(), cur, popped;
    ST_OK(cuCtxGetCurrent(&cur));
    ck_assert_ptr_eq(cur, c);
    ST_OK(cuCtxPopCurrent(&popped));
    ck_assert_ptr_eq(popped, c);
    ST_OK(cuCtxGetCurrent(&cur));
    ck_assert_ptr_null(cur);
    ST_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxPopCurrent(&popped));
    ST_OK(cuCtxPushCurrent(c));
    ST_OK(cuCtxGetCurrent(&cur));
    ck_assert_ptr_eq(cur, c);
    ST_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxPushCurrent((CUcontext)&cur));
    unsigned flags = 1;
    int active = 0;
    ST_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    ck_assert_int_eq(active, 1);
    ST_OK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
    ST_OK(cuCtxGetFlags(&flags));
    ck_assert_uint_eq(flags, CU_CTX_SCHED_BLOCKING_SYNC);
    int least, greatest;
    ST_OK(cuCtxGetStreamPriorityRange(&least, &greatest));
    ck_assert_int_eq(least, 0);
    ck_assert_int_eq(greatest, -5);
    CUdevice dev = -1;
    ST_OK(cuCtxGetDevice(&dev));
    ck_assert_int_eq(dev, 0);
}
END_TEST

START_TEST(device_properties)
{
    st_init();
    int n = 0, v = -1;
    ST_OK(cuDeviceGetCount(&n));
    ck_assert_int_eq(n, 1);
    CUdevice d;
    ST_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, 1));
    char name[64];
    ST_OK(cuDeviceGetName(name, sizeof name, 0));
    ck_assert_str_eq(name, "streamcheck simulated GPU");
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    ck_assert_int_eq(v, 132);
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    ck_assert_int_eq(v, 9);
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
    ck_assert_int_eq(v, 0);
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    ck_assert_int_eq(v, 32);
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 0));
    ck_assert_int_eq(v, 1);
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0));
    ck_assert_int_eq(v, 1);
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 0));
    ck_assert_int_eq(v, 2);
    /* Attributes the simulator does not model read as 0 and succeed;
     * values outside the enum are invalid, as for the driver. */
    v = -1;
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 0));
    ck_assert_int_eq(v, 0);
    ST_OK(cuDeviceGetAttribute(&v, (CUdevice_attribute)(CU_DEVICE_ATTRIBUTE_MAX - 1), 0));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuDeviceGetAttribute(&v, (CUdevice_attribute)9999, 0));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuDeviceGetAttribute(&v, (CUdevice_attribute)0, 0));
    ST_EXPECT(CUDA_ERROR_INVALID_DEVICE,
              cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1));
    size_t total = 0;
    ST_OK(cuDeviceTotalMem(&total, 0));
    ck_assert_uint_eq(total, 80ull << 30);
    CUuuid u;
    ST_OK(cuDeviceGetUuid(&u, 0));
}
END_TEST

/* STREAMCHECK_SIM_ASYNC_ENGINES sets the copy engine count. */
START_TEST(async_engines_from_environment)
{
    setenv("STREAMCHECK_SIM_ASYNC_ENGINES", "1", 1);
    st_init();
    int v = -1;
    ST_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 0));
    ck_assert_int_eq(v, 1);
}
END_TEST

START_TEST(error_strings)
{
    const char *s = NULL;
    ST_OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    ck_assert_str_eq(s, "CUDA_ERROR_INVALID_VALUE");
    ST_OK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s));
    ck_assert_str_eq(s, "invalid argument");
    ST_OK(cuGetErrorName(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, &s));
    ck_assert_str_eq(s, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetErrorName((CUresult)12345, &s));
    ck_assert_ptr_null(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim-getproc");
    TCase *t = tcase_create("getproc");
    tcase_add_test(t, flags_select_per_thread_variant);
    tcase_add_test(t, self_lookup);
    tcase_add_test(t, version_selection);
    tcase_add_test(t, table_consistent);
    tcase_add_test(t, unknown_name);
    tcase_add_test(t, version_not_sufficient);
    tcase_add_test(t, bad_arguments);
    tcase_add_test(t, unimplemented_stub);
    suite_add_tcase(s, t);
    t = tcase_create("init");
    tcase_add_test(t, not_initialized_and_no_context);
    tcase_add_test(t, unusable_after_fork);
    tcase_add_test(t, context_stack);
    tcase_add_test(t, device_properties);
    tcase_add_test(t, async_engines_from_environment);
    tcase_add_test(t, error_strings);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return st_run(suite());
}
