/* tests/sim/check_cublas.c: the simulated libcublas.so.13: SGEMM results,
 * stream order, how it reaches the driver. */
#include "config.h"

#include "interpose.h"
#include "simtest.h"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CB_OK(call)                                                           \
    do {                                                                      \
        cublasStatus_t cb_s_ = (call);                                        \
        ck_assert_msg(cb_s_ == CUBLAS_STATUS_SUCCESS, "%s returned %d", #call, \
                      (int)cb_s_);                                            \
    } while (0)

static float *dev(size_t n)
{
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, n * sizeof(float)));
    return (float *)(uintptr_t)d;
}

/* Column-major reference in double precision. */
static void reference(int ta, int tb, int m, int n, int k, float alpha,
                      const float *A, int lda, const float *B, int ldb,
                      float beta, float *C, int ldc)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double acc = 0;
            for (int p = 0; p < k; p++) {
                double a = ta ? A[p + i * lda] : A[i + p * lda];
                double b = tb ? B[j + p * ldb] : B[p + j * ldb];
                acc += a * b;
            }
            double c = alpha * acc;
            if (beta != 0.0f)
                c += beta * (double)C[i + j * ldc];
            C[i + j * ldc] = (float)c;
        }
}

START_TEST(sgemm_matches_reference)
{
    st_init();
    cublasHandle_t h;
    CB_OK(cublasCreate_v2(&h));
    const int m = 37, n = 29, k = 41, pad = 3;
    for (int ta = 0; ta < 2; ta++) {
        for (int tb = 0; tb < 2; tb++) {
            int lda = (ta ? k : m) + pad, ldb = (tb ? n : k) + pad, ldc = m + pad;
            size_t sa = (size_t)lda * (ta ? m : k), sb = (size_t)ldb * (tb ? k : n),
                   sc = (size_t)ldc * n;
            float *A = dev(sa), *B = dev(sb), *C = dev(sc);
            float *want = malloc(sc * sizeof(float));
            for (size_t i = 0; i < sa; i++)
                A[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
            for (size_t i = 0; i < sb; i++)
                B[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
            for (size_t i = 0; i < sc; i++)
                C[i] = want[i] = (float)(i % 17) / 17.0f;
            float alpha = 1.25f, beta = -0.5f;
            CB_OK(cublasSgemm_v2(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 tb ? CUBLAS_OP_C : CUBLAS_OP_N, m, n, k, &alpha,
                                 A, lda, B, ldb, &beta, C, ldc));
            reference(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, want, ldc);
            ST_OK(cuCtxSynchronize());
            for (int j = 0; j < n; j++)
                for (int i = 0; i < ldc; i++) {
                    float got = C[i + j * ldc], w = want[i + j * ldc];
                    ck_assert_msg(fabsf(got - w) <= 1e-4f * (1.0f + fabsf(w)),
                                  "op %d%d C[%d,%d] = %g, expected %g", ta, tb,
                                  i, j, got, w);
                }
            free(want);
        }
    }
    CB_OK(cublasDestroy_v2(h));
}
END_TEST

/* beta == 0: C is output only, its old contents (NaN here) are ignored. */
START_TEST(sgemm_beta_zero_ignores_c)
{
    st_init();
    cublasHandle_t h;
    CB_OK(cublasCreate_v2(&h));
    float *A = dev(4), *B = dev(4), *C = dev(4);
    for (int i = 0; i < 4; i++)
        A[i] = 1.0f, B[i] = 2.0f, C[i] = NAN;
    float alpha = 1.0f, beta = 0.0f;
    CB_OK(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, A, 2, B, 2,
                         &beta, C, 2));
    ST_OK(cuCtxSynchronize());
    for (int i = 0; i < 4; i++)
        ck_assert(C[i] == 4.0f);
}
END_TEST

/* SGEMM runs in the handle's stream, after what was queued there, and
 * returns to the host at once. */
START_TEST(sgemm_stream_order)
{
    st_init();
    cublasHandle_t h;
    CB_OK(cublasCreate_v2(&h));
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CB_OK(cublasSetStream_v2(h, s));
    cudaStream_t got;
    CB_OK(cublasGetStream_v2(h, &got));
    ck_assert_ptr_eq(got, s);
    float *A = dev(4), *B = dev(4), *C = dev(4);
    for (int i = 0; i < 4; i++)
        A[i] = 1.0f, B[i] = 1.0f, C[i] = 0.0f;
    float alpha = 1.0f, beta = 0.0f;
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    CB_OK(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, A, 2, B, 2,
                         &beta, C, 2));
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert(C[0] == 0.0f);
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s));
    ck_assert(C[0] == 2.0f);

    /* On stream 0 (the legacy stream) it waits for blocking streams. */
    CUstream b;
    ST_OK(cuStreamCreate(&b, CU_STREAM_DEFAULT));
    CB_OK(cublasSetStream_v2(h, NULL));
    st_gate g2;
    st_gate_init(&g2);
    st_gate_on(&g2, b);
    alpha = 3.0f;
    CB_OK(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, A, 2, B, 2,
                         &beta, C, 2));
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert(C[0] == 2.0f);
    st_gate_open(&g2);
    ST_OK(cuCtxSynchronize());
    ck_assert(C[0] == 6.0f);
}
END_TEST

/* cuBLAS binds the driver by itself and launches with the legacy
 * cuLaunchKernel on the handle's stream, passed through as given. */
START_TEST(sgemm_is_a_driver_launch)
{
    st_init();
    cublasHandle_t h;
    CB_OK(cublasCreate_v2(&h));
    ck_assert_int_eq(atomic_load(&ip_dlsym_count), 1);
    ck_assert_int_ge(ip_find_lookup("cuLaunchKernel", 4000, 0), 1);
    CB_OK(cublasSetStream_v2(h, CU_STREAM_PER_THREAD));
    float *A = dev(1), *B = dev(1), *C = dev(1);
    A[0] = 2.0f, B[0] = 3.0f, C[0] = 1.0f;
    float alpha = 1.0f, beta = 1.0f;
    ip_reset_calls();
    CB_OK(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, A, 1, B, 1,
                         &beta, C, 1));
    ck_assert_int_eq(atomic_load(&ip_ncalls), 1);
    ck_assert_str_eq(ip_calls[0].symbol, "cuLaunchKernel");
    ck_assert_ptr_eq(ip_calls[0].stream, CU_STREAM_PER_THREAD);
    ST_OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    ck_assert(C[0] == 7.0f);
}
END_TEST

static void destroy_handle(void *h)
{
    ck_assert_int_eq(cublasDestroy_v2((cublasHandle_t)h), CUBLAS_STATUS_SUCCESS);
}

/* cublasDestroy implicitly synchronizes the device. */
START_TEST(destroy_synchronizes)
{
    st_init();
    cublasHandle_t h;
    CB_OK(cublasCreate_v2(&h));
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    st_call c;
    st_call_start(&c, destroy_handle, h);
    ck_assert(!st_call_done_within(&c, ST_BLOCK_MS));
    st_gate_open(&g);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
}
END_TEST

START_TEST(handle_and_errors)
{
    st_init();
    cublasHandle_t h;
    CB_OK(cublasCreate_v2(&h));
    int v = 0;
    CB_OK(cublasGetVersion_v2(h, &v));
    ck_assert_int_eq(v, CUBLAS_VERSION);
    cublasMath_t mode;
    CB_OK(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    CB_OK(cublasGetMathMode(h, &mode));
    ck_assert_int_eq(mode, CUBLAS_TF32_TENSOR_OP_MATH);
    float *A = dev(4), one = 1.0f;
    ck_assert_int_eq(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, A,
                                    1, A, 2, &one, A, 2),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 2, 2, &one,
                                    A, 2, A, 2, &one, A, 2),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasSgemm_v2(h, (cublasOperation_t)9, CUBLAS_OP_N, 2, 2, 2,
                                    &one, A, 2, A, 2, &one, A, 2),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_str_eq(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE),
                     "CUBLAS_STATUS_INVALID_VALUE");
    ck_assert_str_ne(cublasGetStatusString(CUBLAS_STATUS_SUCCESS), "");
    CB_OK(cublasDestroy_v2(h));
    ck_assert_int_eq(cublasSetStream_v2(h, NULL), CUBLAS_STATUS_NOT_INITIALIZED);
    ck_assert_int_eq(cublasSgemm_v2(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one,
                                    A, 1, A, 1, &one, A, 1),
                     CUBLAS_STATUS_NOT_INITIALIZED);
}
END_TEST

START_TEST(unsupported_cublas_call)
{
    int saved = st_stderr_begin();
    cublasStatus_t r = cublasDgemm_v2(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1,
                                      NULL, NULL, 1, NULL, 1, NULL, NULL, 1);
    cublasStatus_t r2 = cublasDgemm_v2(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1,
                                       NULL, NULL, 1, NULL, 1, NULL, NULL, 1);
    char *err = st_stderr_end(saved);
    ck_assert_int_eq(r, CUBLAS_STATUS_NOT_SUPPORTED);
    ck_assert_int_eq(r2, CUBLAS_STATUS_NOT_SUPPORTED);
    char line[128];
    snprintf(line, sizeof line,
             "streamcheck-sim[%ld]: cublasDgemm_v2 is not supported by the "
             "simulator\n",
             (long)getpid());
    ck_assert_int_eq(st_count(err, line), 1);
    free(err);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim-cublas");
    TCase *t = tcase_create("cublas");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, sgemm_matches_reference);
    tcase_add_test(t, sgemm_beta_zero_ignores_c);
    tcase_add_test(t, sgemm_stream_order);
    tcase_add_test(t, sgemm_is_a_driver_launch);
    tcase_add_test(t, destroy_synchronizes);
    tcase_add_test(t, handle_and_errors);
    tcase_add_test(t, unsupported_cublas_call);
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
