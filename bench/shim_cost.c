/* shim_cost.c: the shim's own cost per intercepted call, measured against
 * the fake driver of the unit tests (whose launch does nothing), so what is
 * timed is streamcheck alone.  Not a test: a benchmark (make bench).
 *   shim_cost [CALLS]
 * Each case is the best of three runs of CALLS launches (thread CPU time).
 * The PyTorch case: every launch goes to the legacy stream while the
 * program's 128 pool streams (non-blocking, idle) exist.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tests/unit/fake_driver.h"
#include "shim.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double per_call(CUstream s, long n)
{
    double best = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (long i = 0; i < n; i++)
            cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
        double d = (now() - t0) / n * 1e9;
        if (d < best)
            best = d;
    }
    return best;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    setenv("STREAMCHECK_FORMAT", "json", 1);
    fake_install();
    cuInit(0);
    per_call(NULL, 1000);   /* warm: call site registered, caches filled */
    double legacy_alone = per_call(NULL, n);
    CUstream s = NULL;
    for (int i = 0; i < 128; i++) {   /* PyTorch's pool streams */
        CUstream p;
        cuStreamCreate(&p, CU_STREAM_NON_BLOCKING);
        if (!s)
            s = p;
    }
    double created = per_call(s, n);
    int q0 = fake.queries, c0 = fake.ctx_queries;
    double legacy_pytorch = per_call(NULL, n);
    int q1 = fake.queries, c1 = fake.ctx_queries;
    CUstream b;
    cuStreamCreate(&b, 0);
    double legacy_blocking = per_call(NULL, n / 100 + 1);   /* every call walks its stack */
    atomic_store(&sc_g.mode, SC_MODE_DISABLED);
    double disabled = per_call(s, n);
    printf("ns per cuLaunchKernel through the shim (fake driver, best of 3 x %ld calls, thread CPU time):\n", n);
    printf("  created stream (fast path)                          %7.1f\n", created);
    printf("  legacy stream, no other stream                      %7.1f  (SC101 note)\n", legacy_alone);
    printf("  legacy stream, 128 non-blocking streams (PyTorch)   %7.1f  (SC101 note; %.4f stream queries, "
           "%.4f context lookups per call)\n", legacy_pytorch, (double)(q1 - q0) / (3.0 * n),
           (double)(c1 - c0) / (3.0 * n));
    printf("  legacy stream, a blocking stream                    %7.1f  (SC101 warning)\n", legacy_blocking);
    printf("  disabled (pass-through)                             %7.1f\n", disabled);
    return 0;
}
