// seed001_copies: seed 001 ("Swimming in streams"), first experiment, with
// pageable host memory: matrix products on stream s1, device-to-host copies
// on s2 and host-to-device copies on s3, the host buffers allocated with
// malloc.  An "asynchronous" copy from or to pageable memory is not
// asynchronous (CUDA Driver API, API synchronization behavior, Memcpy): a
// device-to-host copy returns only once it is done, and a host-to-device copy
// first waits for its stream and stages the data.  So the host is held at
// every download and the uploads on s3 cannot start beside them: SC203 at
// both copies.  In PyTorch this is tensor.to(device, non_blocking=True) on an
// unpinned tensor (the seed's blocking_streams()).
// Fixed twin: seed001_copies_fixed.cu (the same buffers pinned).
//
//   seed001_copies [COUNT [SIZE [CHUNK]]]     default 8 48 32768
// COUNT products of SIZE x SIZE matrices, COUNT copies of CHUNK floats each
// way.  Checksums on stdout (the fixed twin's); elapsed_ms= on stderr.
#include "seed_common.h"

#define USAGE "[COUNT(1-64) [SIZE(16-4096) [CHUNK(1024-67108864)]]]"

static int count, n;
static size_t chunk;
static cudaStream_t s1, s2, s3;
static float *dM, *dP, *dDown, *dUp; // device: matrices, products, copy sources and targets
static float *hDown, *hUp;            // host: the copies' other ends

static float pass(seed_timer *t, cudaEvent_t ev)
{
    size_t nn = (size_t)n * n;
    dim3 block(SC_MM_TILE, SC_MM_TILE), grid((n + SC_MM_TILE - 1) / SC_MM_TILE, (n + SC_MM_TILE - 1) / SC_MM_TILE);
    CHECK(cudaEventRecord(t->start, s1));
    CHECK(cudaStreamWaitEvent(s2, t->start, 0));
    CHECK(cudaStreamWaitEvent(s3, t->start, 0));
    // The seed's order: the products, then the downloads, then the uploads.
    for (int i = 0; i < count; i++)
        sc_matmul<<<grid, block, 0, s1>>>(n, dM + i * nn, dM + i * nn, dP + i * nn);
    LAUNCHED();
    for (int i = 0; i < count; i++)
        CHECK(cudaMemcpyAsync(hDown + i * chunk, dDown + i * chunk, chunk * sizeof(float), cudaMemcpyDeviceToHost, s2)); // expect: SC203 x16
    for (int i = 0; i < count; i++)
        CHECK(cudaMemcpyAsync(dUp + i * chunk, hUp + i * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, s3)); // expect: SC203 x16
    seed_join(s1, s2, ev);
    seed_join(s1, s3, ev);
    CHECK(cudaEventRecord(t->stop, s1));
    seed_settle(s1);
    return seed_timer_ms(t);
}

int main(int argc, char **argv)
{
    count = (int)seed_arg(argc, argv, 1, 8, 1, 64, USAGE);
    n = (int)seed_arg(argc, argv, 2, 48, 16, 4096, USAGE);
    chunk = (size_t)seed_arg(argc, argv, 3, 32768, 1024, 64l << 20, USAGE);
    size_t nn = (size_t)n * n, mats = count * nn, copies = count * chunk;

    // Everything allocated before any stream has work (SC301/SC302 otherwise).
    float *stage, *dev;
    size_t stage_n = 2 * mats > 2 * copies ? 2 * mats : 2 * copies;
    CHECK(cudaMallocHost(&stage, stage_n * sizeof(float)));
    CHECK(cudaMalloc(&dev, (2 * mats + 2 * copies) * sizeof(float)));
    dM = dev;
    dP = dM + mats;
    dDown = dP + mats;
    dUp = dDown + copies;
    hDown = (float *)malloc(copies * sizeof(float));
    hUp = (float *)malloc(copies * sizeof(float));
    if (!hDown || !hUp) {
        fprintf(stderr, "seed001_copies: out of memory\n");
        return 1;
    }
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    seed_timer t;
    seed_timer_init(&t);

    // The data: matrices and download sources on the device (through the
    // pinned staging buffer), upload sources on the host.
    seed_fill_random(stage, mats + copies, 1, 0.0f, 1.0f);
    CHECK(cudaMemcpyAsync(dM, stage, mats * sizeof(float), cudaMemcpyHostToDevice, s1));
    CHECK(cudaMemcpyAsync(dDown, stage + mats, copies * sizeof(float), cudaMemcpyHostToDevice, s1));
    seed_fill_random(hUp, copies, 2, -1.0f, 1.0f);
    seed_fill_random(hDown, copies, 3, 2.0f, 3.0f);
    seed_settle(s1);

    pass(&t, ev);
    seed_timed_begin();
    float ms = pass(&t, ev);
    seed_timed_end();

    CHECK(cudaMemcpyAsync(stage, dP, mats * sizeof(float), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaMemcpyAsync(stage + mats, dUp, copies * sizeof(float), cudaMemcpyDeviceToHost, s1));
    seed_settle(s1);
    printf("seed001_copies: checksum products %.6f downloads %.6f uploads %.6f\n",
           seed_checksum(stage, mats), seed_checksum(hDown, copies), seed_checksum(stage + mats, copies));
    fprintf(stderr, "seed001_copies: pageable host buffers\nelapsed_ms=%.3f\n", ms);

    seed_timer_free(&t);
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaStreamDestroy(s3));
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(stage));
    free(hDown);
    free(hUp);
    return 0;
}
