/* kernels/twins.c: the twin table and the twins of kernels/sc_kernels.cuh
 * and kernels/sc_sim_kernels.cuh. */
#include "config.h"

#include "twins.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

/* Parameter layouts, one array per table line, ended by a zero entry. */
#define SC_TWIN_P(type) {sizeof(type), _Alignof(type)},
#define SC_TWIN(name, fn, params)                                             \
    static const sc_twin_param sc_twin_params_##name[] = {params{0, 0}};
#include "twins.def"
#undef SC_TWIN

#define SC_TWIN(name, fn, params)                                             \
    {#name, fn,                                                               \
     (unsigned)(sizeof sc_twin_params_##name / sizeof(sc_twin_param) - 1),    \
     sc_twin_params_##name},
static const sc_twin sc_twin_table[] = {
#include "twins.def"
};
#undef SC_TWIN
#undef SC_TWIN_P

#define SC_NTWINS (sizeof sc_twin_table / sizeof sc_twin_table[0])

const sc_twin *sc_twin_find(const char *name)
{
    /* A handful of entries, searched once per kernel name (the simulator
     * caches the result in its function object). */
    for (size_t i = 0; i < SC_NTWINS; i++)
        if (strcmp(sc_twin_table[i].name, name) == 0)
            return &sc_twin_table[i];
    return NULL;
}

const sc_twin *sc_twin_at(size_t i)
{
    return i < SC_NTWINS ? &sc_twin_table[i] : NULL;
}

/* sc_spin(ns): the kernel waits ns of GPU time; the twin sleeps as long,
 * so the stream's worker is busy for that time without using a CPU. */
void sc_twin_spin(const sc_twin_launch *l)
{
    unsigned long long ns = SC_TWIN_ARG(l, 0, unsigned long long);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    unsigned long long end = (unsigned long long)now.tv_sec * 1000000000ull +
                             (unsigned long long)now.tv_nsec + ns;
    struct timespec ts = {.tv_sec = (time_t)(end / 1000000000ull),
                          .tv_nsec = (long)(end % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* sc_saxpy(n, a, x, y): nvcc contracts a * x[i] + y[i] to one fused
 * multiply-add, so fmaf gives the GPU's bits. */
void sc_twin_saxpy(const sc_twin_launch *l)
{
    int n = SC_TWIN_ARG(l, 0, int);
    float a = SC_TWIN_ARG(l, 1, float);
    const float *x = SC_TWIN_ARG(l, 2, const float *);
    float *y = SC_TWIN_ARG(l, 3, float *);
    for (int i = 0; i < n; i++)
        y[i] = fmaf(a, x[i], y[i]);
}

/* sc_fill(p, n, v). */
void sc_twin_fill(const sc_twin_launch *l)
{
    float *p = SC_TWIN_ARG(l, 0, float *);
    int n = SC_TWIN_ARG(l, 1, int);
    float v = SC_TWIN_ARG(l, 2, float);
    for (int i = 0; i < n; i++)
        p[i] = v;
}

/* sc_sim_sgemm: column-major C = alpha op(A) op(B) + beta C over the
 * elements the launch covers (the simulated cuBLAS covers all of C).
 * C is not read when beta is 0, as cuBLAS documents. */
void sc_twin_sim_sgemm(const sc_twin_launch *l)
{
    int transa = SC_TWIN_ARG(l, 0, int), transb = SC_TWIN_ARG(l, 1, int);
    int m = SC_TWIN_ARG(l, 2, int), n = SC_TWIN_ARG(l, 3, int);
    int k = SC_TWIN_ARG(l, 4, int);
    float alpha = SC_TWIN_ARG(l, 5, float);
    const float *A = SC_TWIN_ARG(l, 6, const float *);
    int lda = SC_TWIN_ARG(l, 7, int);
    const float *B = SC_TWIN_ARG(l, 8, const float *);
    int ldb = SC_TWIN_ARG(l, 9, int);
    float beta = SC_TWIN_ARG(l, 10, float);
    float *C = SC_TWIN_ARG(l, 11, float *);
    int ldc = SC_TWIN_ARG(l, 12, int);

    unsigned long long mi = (unsigned long long)l->grid[0] * l->block[0];
    unsigned long long nj = (unsigned long long)l->grid[1] * l->block[1];
    int mm = mi < (unsigned long long)m ? (int)mi : m;
    int nn = nj < (unsigned long long)n ? (int)nj : n;
    for (int j = 0; j < nn; j++) {
        for (int i = 0; i < mm; i++) {
            float acc = 0.0f;
            for (int p = 0; p < k; p++) {
                float a = transa ? A[p + (size_t)i * (size_t)lda]
                                 : A[i + (size_t)p * (size_t)lda];
                float b = transb ? B[j + (size_t)p * (size_t)ldb]
                                 : B[p + (size_t)j * (size_t)ldb];
                acc = fmaf(a, b, acc);
            }
            float *c = &C[i + (size_t)j * (size_t)ldc];
            *c = beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * *c);
        }
    }
}

/* ---- the seed-exercise kernels (kernels/sc_seed_kernels.cuh) ---- */

/* sc_sin(n, x, y): glibc's sinf, which may differ from the GPU's in the last
 * bit; the apps compare outputs of one platform only (plain and under the
 * shim), never the simulator with a GPU. */
void sc_twin_sin(const sc_twin_launch *l)
{
    int n = SC_TWIN_ARG(l, 0, int);
    const float *x = SC_TWIN_ARG(l, 1, const float *);
    float *y = SC_TWIN_ARG(l, 2, float *);
    for (int i = 0; i < n; i++)
        y[i] = sinf(x[i]);
}

/* sc_pow(n, x, y, e). */
void sc_twin_pow(const sc_twin_launch *l)
{
    int n = SC_TWIN_ARG(l, 0, int);
    const float *x = SC_TWIN_ARG(l, 1, const float *);
    float *y = SC_TWIN_ARG(l, 2, float *);
    float e = SC_TWIN_ARG(l, 3, float);
    for (int i = 0; i < n; i++)
        y[i] = powf(x[i], e);
}

/* sc_matmul(n, a, b, c): row-major c = a * b.  The kernel sums each
 * output's products in increasing k with fused multiply-adds; so does
 * this, for the same bits.  The loop order (i, k, j) keeps the rows of b
 * and c in cache; every c[i][j] still sees its k in increasing order. */
void sc_twin_matmul(const sc_twin_launch *l)
{
    int n = SC_TWIN_ARG(l, 0, int);
    const float *a = SC_TWIN_ARG(l, 1, const float *);
    const float *b = SC_TWIN_ARG(l, 2, const float *);
    float *c = SC_TWIN_ARG(l, 3, float *);
    size_t nn = (size_t)(n > 0 ? n : 0);
    for (size_t i = 0; i < nn; i++) {
        float *ci = c + i * nn;
        for (size_t j = 0; j < nn; j++)
            ci[j] = 0.0f;
        for (size_t k = 0; k < nn; k++) {
            float aik = a[i * nn + k];
            const float *bk = b + k * nn;
            for (size_t j = 0; j < nn; j++)
                ci[j] = fmaf(aik, bk[j], ci[j]);
        }
    }
}

/* sc_spin_blocks(ns): on a GPU each wave of blocks holds the SMs for ns;
 * the simulator has no SMs, so the twin is one wave (sc_spin's sleep). */
void sc_twin_spin_blocks(const sc_twin_launch *l)
{
    sc_twin_spin(l);
}
