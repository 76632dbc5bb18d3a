// seed001_priority: seed 001 ("Swimming in streams"), Explore More: stream
// priorities.  A low-priority stream keeps every SM busy with a backlog of
// long kernels (many blocks, each spinning SPIN_US); a high-priority stream
// then issues a chain of short kernels.  "Work in a higher priority stream
// may preempt work already executing in a low priority stream" at block
// granularity: pending blocks of the high-priority stream are scheduled
// before pending blocks of the low-priority one (CUDA Runtime API,
// cudaStreamCreateWithPriority; PG, Stream Priorities).  The measured time
// is the short chain's, from its first kernel's start to its last one's end;
// mode "equal" gives both streams the same (lowest) priority for the
// comparison.  Priorities are taken from cudaDeviceGetStreamPriorityRange,
// as PyTorch's Stream(priority=...) does.  No hazard, no finding.
//
//   seed001_priority [priority|equal [SHORT [WAVES [SPIN_US]]]]    default priority 6 2 200
// SHORT short kernels; each low-priority kernel is WAVES waves of blocks that
// spin SPIN_US each.  Checksum on stdout (the same in both modes);
// elapsed_ms= (the short chain) and backlog_ms= on stderr.
#include "seed_common.h"

#define USAGE "[priority|equal [SHORT(1-1000) [WAVES(1-1000) [SPIN_US(1-100000)]]]]"
#define VEC (1 << 14)

static const char *const modes[] = {"priority", "equal", NULL};

int main(int argc, char **argv)
{
    int equal = seed_mode(argc, argv, 1, modes, USAGE);
    int nshort = (int)seed_arg(argc, argv, 2, 6, 1, 1000, USAGE);
    int waves = (int)seed_arg(argc, argv, 3, 2, 1, 1000, USAGE);
    unsigned long long spin_ns = 1000ull * (unsigned long long)seed_arg(argc, argv, 4, 200, 1, 100000, USAGE);
    int nlong = nshort + 2; // the backlog outlasts the short chain

    int least, greatest, sms, per_sm;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, 0));
    if (sms < 1)
        sms = 1;
    if (per_sm < 1)
        per_sm = 16;
    // One wave fills every block slot of every SM (32-thread blocks, so
    // blocks, not threads, are the limit).
    unsigned grid = (unsigned)(sms * per_sm * waves);

    float *h, *d;
    CHECK(cudaMallocHost(&h, VEC * sizeof(float)));
    CHECK(cudaMalloc(&d, 2 * VEC * sizeof(float)));
    cudaStream_t lo, hi;
    CHECK(cudaStreamCreateWithPriority(&lo, cudaStreamNonBlocking, least));
    CHECK(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, equal ? least : greatest));
    cudaEvent_t ev, backlog_started;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&backlog_started, cudaEventDisableTiming));
    seed_timer all, chain;
    seed_timer_init(&all);
    seed_timer_init(&chain);

    seed_fill_random(h, VEC, 7, 0.5f, 1.5f);
    CHECK(cudaMemcpyAsync(d, h, VEC * sizeof(float), cudaMemcpyHostToDevice, lo));
    CHECK(cudaMemcpyAsync(d + VEC, h, VEC * sizeof(float), cudaMemcpyHostToDevice, lo));
    // Warm up both kernels, so the measurement does not load them.
    sc_spin_blocks<<<1, 32, 0, lo>>>(1000);
    sc_saxpy<<<16, 256, 0, lo>>>(VEC, 0.5f, d, d + VEC);
    LAUNCHED();
    seed_settle(lo);

    seed_timed_begin();
    CHECK(cudaEventRecord(all.start, lo));
    sc_spin_blocks<<<grid, 32, 0, lo>>>(spin_ns);
    LAUNCHED();
    // The chain starts once the backlog holds the SMs: after the first long
    // kernel, while the second is being scheduled.
    CHECK(cudaEventRecord(backlog_started, lo));
    for (int i = 1; i < nlong; i++)
        sc_spin_blocks<<<grid, 32, 0, lo>>>(spin_ns);
    LAUNCHED();
    CHECK(cudaStreamWaitEvent(hi, backlog_started, 0));
    CHECK(cudaEventRecord(chain.start, hi));
    for (int i = 0; i < nshort; i++)
        sc_saxpy<<<16, 256, 0, hi>>>(VEC, 0.5f, d, d + VEC);
    LAUNCHED();
    CHECK(cudaEventRecord(chain.stop, hi));
    seed_join(lo, hi, ev);
    CHECK(cudaEventRecord(all.stop, lo));
    CHECK(cudaMemcpyAsync(h, d + VEC, VEC * sizeof(float), cudaMemcpyDeviceToHost, lo));
    seed_settle(lo);
    seed_timed_end();

    printf("seed001_priority: %d short kernels, checksum %.6f\n", nshort, checksum(h, VEC));
    fprintf(stderr, "seed001_priority: %s (range %d..%d), %d long kernels of %u blocks\n", modes[equal],
            least, greatest, nlong, grid);
    fprintf(stderr, "elapsed_ms=%.3f\nbacklog_ms=%.3f\n", seed_timer_ms(&chain), seed_timer_ms(&all));

    seed_timer_free(&all);
    seed_timer_free(&chain);
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaEventDestroy(backlog_started));
    CHECK(cudaStreamDestroy(lo));
    CHECK(cudaStreamDestroy(hi));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
