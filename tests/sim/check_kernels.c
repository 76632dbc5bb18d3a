/* tests/sim/check_kernels.c: kernel launches and CPU twins of the
 * simulated driver. */
#include "config.h"

#include "simtest.h"
#include "twins.h"

#include <cudaTypedefs.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { n = 1000 };

static float *dev_floats(CUdeviceptr *d)
{
    ST_OK(cuMemAlloc(d, n * sizeof(float)));
    return (float *)(uintptr_t)*d;
}

/* The saxpy twin gives the bits of the kernel's fused multiply-add. */
START_TEST(saxpy_twin)
{
    st_init();
    CUdeviceptr x, y;
    float *hx = dev_floats(&x), *hy = dev_floats(&y);
    float want[n];
    for (int i = 0; i < n; i++) {
        hx[i] = (float)i * 0.37f;
        hy[i] = 1.0f / (float)(i + 1);
        want[i] = fmaf(1.7f, hx[i], hy[i]);
    }
    int nn = n;
    float a = 1.7f;
    void *args[] = {&nn, &a, &x, &y};
    ST_OK(cuLaunchKernel(st_func(ST_SAXPY), 4, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    ST_OK(cuCtxSynchronize());
    ck_assert(memcmp(hy, want, sizeof want) == 0);
}
END_TEST

START_TEST(fill_twin)
{
    st_init();
    CUdeviceptr p;
    float *hp = dev_floats(&p);
    memset(hp, 0, n * sizeof(float));
    int nn = n - 1;
    float v = 3.5f;
    void *args[] = {&p, &nn, &v};
    ST_OK(cuLaunchKernel(st_func(ST_FILL), 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    ST_OK(cuCtxSynchronize());
    ck_assert(hp[0] == 3.5f && hp[n - 2] == 3.5f && hp[n - 1] == 0.0f);
}
END_TEST

/* The spin twin keeps its stream busy for its argument. */
START_TEST(spin_twin_takes_its_time)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    double t0 = st_now_ms();
    st_spin(s, 100000000ull);
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(s));
    ST_OK(cuStreamSynchronize(s));
    double t = st_now_ms() - t0;
    ck_assert_msg(t >= 95.0, "a 100 ms spin took %.1f ms", t);
}
END_TEST

/* Arguments are copied at launch time, not when the kernel runs. */
START_TEST(arguments_copied_at_launch)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr x, y;
    float *hx = dev_floats(&x), *hy = dev_floats(&y);
    for (int i = 0; i < n; i++)
        hx[i] = 1.0f, hy[i] = 0.0f;
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    int nn = n;
    float a = 2.0f;
    void *args[] = {&nn, &a, &x, &y};
    ST_OK(cuLaunchKernel(st_func(ST_SAXPY), 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
    a = 100.0f;
    nn = 1;
    ck_assert(hy[0] == 0.0f);
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s));
    ck_assert(hy[0] == 2.0f && hy[n - 1] == 2.0f);
}
END_TEST

/* The CU_LAUNCH_PARAM_BUFFER_POINTER form, packed at natural alignment. */
START_TEST(extra_parameter_buffer)
{
    st_init();
    CUdeviceptr x, y;
    float *hx = dev_floats(&x), *hy = dev_floats(&y);
    for (int i = 0; i < n; i++)
        hx[i] = 2.0f, hy[i] = 1.0f;
    struct {
        int n;
        float a;
        CUdeviceptr x, y;
    } buf = {n, 3.0f, x, y};
    size_t size = sizeof buf;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf,
                     CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    ST_OK(cuLaunchKernel(st_func(ST_SAXPY), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
    ST_OK(cuCtxSynchronize());
    ck_assert(hy[0] == 7.0f && hy[n - 1] == 7.0f);
    void *args[] = {&buf.n, &buf.a, &x, &y};
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuLaunchKernel(st_func(ST_SAXPY), 1, 1, 1, 1, 1, 1, 0, NULL, args,
                             extra));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuLaunchKernel(st_func(ST_SAXPY), 1, 1, 1, 1, 1, 1, 0, NULL, NULL,
                             NULL));
}
END_TEST

/* cuLaunchKernelEx, cuLaunchCooperativeKernel and the per-thread launch
 * run the same twin. */
START_TEST(other_launch_forms)
{
    st_init();
    CUdeviceptr x, y;
    float *hx = dev_floats(&x), *hy = dev_floats(&y);
    for (int i = 0; i < n; i++)
        hx[i] = 1.0f, hy[i] = 0.0f;
    int nn = n;
    float a = 1.0f;
    void *args[] = {&nn, &a, &x, &y};
    CUfunction f = st_func(ST_SAXPY);
    CUlaunchConfig cfg = {1, 1, 1, 32, 1, 1, 0, NULL, NULL, 0};
    ST_OK(cuLaunchKernelEx(&cfg, f, args, NULL));
    ST_OK(cuLaunchCooperativeKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args));
    PFN_cuLaunchKernel_v7000_ptsz pt =
        (PFN_cuLaunchKernel_v7000_ptsz)st_proc("cuLaunchKernel", 7000, 2);
    ST_OK(pt(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    ST_OK(cuCtxSynchronize());
    ST_OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    ck_assert(hy[5] == 3.0f);
}
END_TEST

START_TEST(launch_errors)
{
    st_init();
    CUfunction f = st_func(ST_SPIN);
    unsigned long long ns = 0;
    void *args[] = {&ns};
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 1 << 20, NULL, args, NULL));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE,
              cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    int x;
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE,
              cuLaunchKernel((CUfunction)&x, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CUmodule m;
    ST_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&m, "\x01\x02\x03\x04"));
    ST_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&m, ""));
}
END_TEST

/* Libraries and kernels (what the CUDA 13 runtime uses): a CUkernel is
 * accepted by cuLaunchKernel, and is its function. */
START_TEST(library_kernels)
{
    st_init();
    static const unsigned int fatbin[] = {0xba55ed50u, 0x00100001u, 0, 0};
    CUlibrary lib;
    ST_OK(cuLibraryLoadData(&lib, fatbin, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel k;
    ST_OK(cuLibraryGetKernel(&k, lib, ST_FILL));
    CUfunction f;
    ST_OK(cuKernelGetFunction(&f, k));
    ck_assert_ptr_eq((void *)f, (void *)k);
    ck_assert_ptr_eq(f, st_func(ST_FILL));
    const char *name;
    ST_OK(cuFuncGetName(&name, f));
    ck_assert_str_eq(name, ST_FILL);
    CUdeviceptr p;
    float *hp = dev_floats(&p);
    int nn = n;
    float v = -1.0f;
    void *args[] = {&p, &nn, &v};
    ST_OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    ST_OK(cuCtxSynchronize());
    ck_assert(hp[n - 1] == -1.0f);
    int attr;
    ST_OK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    ck_assert_int_eq(attr, 1024);
    ST_OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             100000));
    ST_OK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             f));
    ck_assert_int_eq(attr, 100000);
    ST_OK(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_SHARED));
    ST_OK(cuLibraryUnload(lib));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuLibraryGetKernel(&k, lib, ST_FILL));
}
END_TEST

/* A kernel without a twin runs as a no-op (still in stream order), with
 * one note on stderr. */
START_TEST(unknown_kernel_note_once)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUfunction f = st_func("_Z9no_twin_kv");
    int saved = st_stderr_begin();
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    ST_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    ST_OK(cuLaunchKernel(f, 8, 1, 1, 64, 1, 1, 0, s, NULL, NULL));
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(s));
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s));
    char *err = st_stderr_end(saved);
    char line[160];
    snprintf(line, sizeof line,
             "streamcheck-sim[%ld]: note: kernel _Z9no_twin_kv has no CPU "
             "twin; it runs as a no-op\n",
             (long)getpid());
    ck_assert_int_eq(st_count(err, line), 1);
    ck_assert_int_eq(st_count(err, "\n"), 1);
    free(err);
}
END_TEST

START_TEST(twin_table)
{
    const sc_twin *t = sc_twin_find(ST_SAXPY);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(t->nparams, 4);
    ck_assert_uint_eq(t->params[0].size, sizeof(int));
    ck_assert_uint_eq(t->params[2].size, sizeof(void *));
    ck_assert_ptr_null(sc_twin_find("_Z9no_twin_kv"));
    size_t count = 0;
    while (sc_twin_at(count))
        count++;
    ck_assert_uint_ge(count, 4);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim-kernels");
    TCase *t = tcase_create("kernels");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, saxpy_twin);
    tcase_add_test(t, fill_twin);
    tcase_add_test(t, spin_twin_takes_its_time);
    tcase_add_test(t, arguments_copied_at_launch);
    tcase_add_test(t, extra_parameter_buffer);
    tcase_add_test(t, other_launch_forms);
    tcase_add_test(t, launch_errors);
    tcase_add_test(t, library_kernels);
    tcase_add_test(t, unknown_kernel_note_once);
    tcase_add_test(t, twin_table);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return st_run(suite());
}
