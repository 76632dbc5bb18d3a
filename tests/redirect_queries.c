/* redirect_queries.c: what a program asks after its work has completed.
 *   redirect_queries [ROUNDS [PATTERN]]
 * Each pattern puts work on a stream (a host function that sleeps, so the
 * stream is busy when the next call comes), lets it complete (a
 * synchronous copy from device to host or from pinned memory, a stream,
 * event or device synchronization), then queries: cudaStreamQuery of the
 * legacy and the per-thread stream, cudaEventQuery, cudaGetLastError.
 * After completed work every answer is cudaSuccess; one pattern instead
 * takes the error code of a copy the runtime refuses.  One line per
 * pattern: how many of ROUNDS answered otherwise, and the first
 * such answer.  Run without streamcheck and under each --redirect-method,
 * the output must be the same, and zero but for the refused copy
 * (tests/redirect.sh). */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N (256 * 1024)

static void CUDART_CB slow(void *arg)
{
    (void)arg;
    usleep(1000);
}

typedef struct ctx {
    float *pageable, *pinned, *dev;
    cudaEvent_t ev;
} ctx;

typedef struct tally {
    unsigned bad;
    cudaError_t first;
} tally;

static void count(tally *t, cudaError_t e)
{
    if (e != cudaSuccess && !t->bad++)
        t->first = e;
}

/* Each pattern returns the answer of its last query (or the first that
   was not cudaSuccess). */
static cudaError_t either(cudaError_t a, cudaError_t b)
{
    return a != cudaSuccess ? a : b;
}

static cudaError_t d2h_then_legacy(ctx *c)
{
    cudaLaunchHostFunc(0, slow, NULL);
    cudaMemcpy(c->pageable, c->dev, N * sizeof(float), cudaMemcpyDeviceToHost);
    return cudaStreamQuery(0);
}

static cudaError_t d2h_then_per_thread(ctx *c)
{
    cudaLaunchHostFunc(0, slow, NULL);
    cudaMemcpy(c->pageable, c->dev, N * sizeof(float), cudaMemcpyDeviceToHost);
    return either(cudaStreamQuery(cudaStreamPerThread), cudaStreamQuery(0));
}

static cudaError_t pinned_h2d_then_legacy(ctx *c)
{
    cudaLaunchHostFunc(0, slow, NULL);
    cudaMemcpy(c->dev, c->pinned, N * sizeof(float), cudaMemcpyHostToDevice);
    return either(cudaStreamQuery(0), cudaStreamQuery(cudaStreamPerThread));
}

static cudaError_t sync_then_legacy(ctx *c)
{
    (void)c;
    cudaLaunchHostFunc(0, slow, NULL);
    cudaStreamSynchronize(0);
    return either(cudaStreamQuery(0), cudaStreamQuery(cudaStreamPerThread));
}

static cudaError_t event_sync_then_queries(ctx *c)
{
    cudaLaunchHostFunc(0, slow, NULL);
    cudaEventRecord(c->ev, 0);
    cudaEventSynchronize(c->ev);
    return either(cudaEventQuery(c->ev), cudaStreamQuery(0));
}

static cudaError_t memset_device_sync(ctx *c)
{
    cudaMemsetAsync(c->dev, 0, N * sizeof(float), 0);
    cudaLaunchHostFunc(0, slow, NULL);
    cudaDeviceSynchronize();
    return either(cudaStreamQuery(0), cudaStreamQuery(cudaStreamPerThread));
}

/* Work on the per-thread stream, then a synchronous copy on the legacy
   stream, which waits for it (the per-thread stream is blocking). */
static cudaError_t per_thread_then_d2h(ctx *c)
{
    cudaLaunchHostFunc(cudaStreamPerThread, slow, NULL);
    cudaMemcpy(c->pageable, c->dev, N * sizeof(float), cudaMemcpyDeviceToHost);
    return either(cudaStreamQuery(0), cudaStreamQuery(cudaStreamPerThread));
}

static cudaError_t async_copy_sync(ctx *c)
{
    cudaMemcpyAsync(c->dev, c->pinned, N * sizeof(float), cudaMemcpyHostToDevice, 0);
    cudaLaunchHostFunc(0, slow, NULL);
    cudaStreamSynchronize(0);
    cudaEventRecord(c->ev, cudaStreamPerThread);
    cudaEventSynchronize(c->ev);
    return either(cudaStreamQuery(0), cudaEventQuery(c->ev));
}

/* The error a refused call returns (never cudaSuccess: this pattern is
   compared with the run without streamcheck, not with zero), which is
   also the last error. */
static cudaError_t refused_copy(ctx *c)
{
    cudaError_t e = cudaMemcpy(c->dev, NULL, N * sizeof(float), cudaMemcpyHostToDevice);
    return e == cudaGetLastError() ? e : cudaErrorUnknown;
}

static cudaError_t last_error(ctx *c)
{
    cudaMemcpy(c->pageable, c->dev, N * sizeof(float), cudaMemcpyDeviceToHost);
    return either(cudaGetLastError(), cudaPeekAtLastError());
}

static const struct {
    const char *name;
    cudaError_t (*run)(ctx *);
} patterns[] = {
    {"d2h_then_legacy", d2h_then_legacy},
    {"d2h_then_per_thread", d2h_then_per_thread},
    {"pinned_h2d_then_legacy", pinned_h2d_then_legacy},
    {"sync_then_legacy", sync_then_legacy},
    {"event_sync_then_queries", event_sync_then_queries},
    {"memset_device_sync", memset_device_sync},
    {"per_thread_then_d2h", per_thread_then_d2h},
    {"async_copy_sync", async_copy_sync},
    {"refused_copy", refused_copy},
    {"last_error", last_error},
};
#define NPAT (sizeof patterns / sizeof patterns[0])

static int run_all(int rounds, const char *only, tally *t)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.pageable = calloc(N, sizeof(float));
    if (!c.pageable || cudaMallocHost((void **)&c.pinned, N * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&c.dev, N * sizeof(float)) != cudaSuccess ||
        cudaEventCreateWithFlags(&c.ev, cudaEventDisableTiming) != cudaSuccess)
        return -1;
    for (int r = 0; r < rounds; r++)
        for (unsigned p = 0; p < NPAT; p++)
            if (!only || !strcmp(only, patterns[p].name))
                count(&t[p], patterns[p].run(&c));
    cudaDeviceSynchronize();
    cudaEventDestroy(c.ev);
    cudaFree(c.dev);
    cudaFreeHost(c.pinned);
    free(c.pageable);
    return 0;
}

int main(int argc, char **argv)
{
    /* One thread: the legacy stream is the process's, so another thread's
       work on it would be in the native answers (and, redirected, not). */
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    tally t[NPAT];
    memset(t, 0, sizeof t);
    if (run_all(rounds, argc > 2 ? argv[2] : NULL, t)) {
        fprintf(stderr, "redirect_queries: cannot allocate\n");
        return 2;
    }
    for (unsigned p = 0; p < NPAT; p++)
        printf("%s: %u of %d not cudaSuccess%s%s\n", patterns[p].name, t[p].bad, rounds,
               t[p].bad ? ", first " : "", t[p].bad ? cudaGetErrorName(t[p].first) : "");
    return 0;
}
