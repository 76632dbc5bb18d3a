// framework_step: a training loop the way PyTorch runs one, for precision.
//
// What a framework does that is not a hazard, and must stay a note or say
// nothing:
// - a pool of streams created cudaStreamNonBlocking at start and left idle:
//   the legacy stream does not synchronize with non-blocking streams
//   (CUDA Driver API, Stream synchronization behavior), so legacy-stream
//   launches and memsets serialize nothing (SC101 notes, no SC202);
// - a loss read back with an asynchronous device-to-host copy into pageable
//   memory followed at once by a synchronization of the same stream
//   (PyTorch's loss.item()): a deliberate synchronous read, not an "async"
//   copy that blocks by surprise (no SC203).
// And the one hazard worth fixing, a warning:
// - the batch copied host to device from pageable memory with
//   cudaMemcpyAsync (x.cuda(non_blocking=True) without pin_memory): SC203,
//   one finding for the call, with SC101 (it is on the legacy stream)
//   listed under it.
// Plus a device-to-host copy into pageable memory that nothing synchronizes
// right after: an SC203 like any other.  The loss read each step is an
// SC403 only where the host is slow after it (a loaded machine's
// simulator): the next step's pageable copy waits for the stream anyway.
#include "common.h"

#define POOL 8
#define BATCH (4 << 20)      /* floats: 16 MiB a batch, so the copy costs ms */
#define STEPS 4

int main(void)
{
    cudaStream_t pool[POOL];
    float *batch, *d, *dloss, loss, *logits;
    for (int i = 0; i < POOL; i++)
        CHECK(cudaStreamCreateWithFlags(&pool[i], cudaStreamNonBlocking));
    batch = (float *)malloc(BATCH * sizeof(float));
    logits = (float *)malloc(1024 * sizeof(float));
    fill_host(batch, BATCH);
    CHECK(cudaMalloc(&d, BATCH * sizeof(float)));
    CHECK(cudaMalloc(&dloss, sizeof(float)));

    double sum = 0;
    for (int step = 0; step < STEPS; step++) {
        CHECK(cudaMemcpyAsync(d, batch, BATCH * sizeof(float), cudaMemcpyHostToDevice, 0)); // expect: SC203 x4 warning
        CHECK(cudaMemsetAsync(dloss, 0, sizeof(float), 0));
        sc_spin<<<1, 1>>>(SPIN); // expect: SC101 x4 note
        LAUNCHED();
        sc_saxpy<<<256, 256>>>(BATCH, 0.5f, d, d); // expect: SC101 x4 note
        LAUNCHED();
        sc_saxpy<<<1, 1>>>(1, 1.0f, d, dloss); // expect: SC101 x4 note
        LAUNCHED();
        CHECK(cudaMemcpyAsync(&loss, dloss, sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC403 x0+
        CHECK(cudaStreamSynchronize(0));
        sum += loss;
    }
    /* Logits read back, then more work queued before anyone waits: the
       copy blocked the host for nothing it asked for. */
    CHECK(cudaMemcpyAsync(logits, d, 1024 * sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC203 x1 note
    sc_spin<<<1, 1>>>(SPIN); // expect: SC101 x1 note
    LAUNCHED();
    CHECK(cudaStreamSynchronize(0));
    printf("framework_step: loss sum %.6f, logits checksum %.6f\n", sum, checksum(logits, 1024));

    for (int i = 0; i < POOL; i++)
        CHECK(cudaStreamDestroy(pool[i]));
    CHECK(cudaFree(dloss));
    CHECK(cudaFree(d));
    free(batch);
    free(logits);
    return 0;
}
