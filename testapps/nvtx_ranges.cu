// nvtx_ranges: findings name the NVTX range they happened in (issue 28,
// item 5).
//
// The same hazard, a cudaMemcpyAsync from malloc'd (pageable) memory
// (SC203: the copy waits for its stream first, CUDA Driver API, API
// synchronization behavior), outside any range and inside ranges opened
// every way NVTX offers: nvtxRangePushA ("step" and "eval" from one line,
// so one call site in two ranges; "forward" nested inside them),
// nvtxRangeStartA/End ("load"), nvtxRangePushW ("wide"), a domain's
// nvtxDomainRangePushEx with a registered string ("registered"), and
// nvtxRangePushEx with an unnamed range inside ("ex": the innermost range
// with a name), and last, outside any range, after NCCL's pattern: a range
// pushed by name and popped through the payload extension
// (nvtxRangePopPayload), an unnamed payload range inside it.  NVTX reaches
// streamcheck through NVTX_INJECTION64_PATH,
// which the launcher sets; tests/nvtx.sh checks the range of each finding
// and what --range keeps.  Without streamcheck NVTX's calls do nothing.
#include "common.h"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#define N (1 << 16)
#define STEPS 4

static float *host, *dev;
static cudaStream_t s;

// Work on s, then a copy from pageable memory that has to wait for it.
static void copy_after_work(void)
{
    sc_spin<<<1, 1, 0, s>>>(SPIN);
    LAUNCHED();
}

int main(void)
{
    host = (float *)malloc(N * sizeof(float));
    fill_host(host, N);
    CHECK(cudaMalloc(&dev, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t bytes = N * sizeof(float);

    copy_after_work();
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); // expect: SC203 x1

    for (int i = 0; i < STEPS; i++) {
        nvtxRangePushA(i % 2 ? "eval" : "step");
        copy_after_work();
        CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); // expect: SC203 x4
        nvtxRangePushA("forward");
        copy_after_work();
        CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); // expect: SC203 x4
        nvtxRangePop();
        nvtxRangePop();
    }

    nvtxRangeId_t load = nvtxRangeStartA("load");
    copy_after_work();
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); // expect: SC203 x1
    nvtxRangeEnd(load);

    nvtxRangePushW(L"wide");
    copy_after_work();
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); // expect: SC203 x1
    nvtxRangePop();

    nvtxDomainHandle_t domain = nvtxDomainCreateA("nvtx_ranges");
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = nvtxDomainRegisterStringA(domain, "registered");
    nvtxDomainRangePushEx(domain, &a);
    copy_after_work();
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); // expect: SC203 x1
    nvtxDomainRangePop(domain);

    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "ex";
    nvtxRangePushEx(&a);
    a.messageType = NVTX_MESSAGE_UNKNOWN;
    nvtxRangePushEx(&a);
    copy_after_work();
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); // expect: SC203 x1
    nvtxRangePop();
    nvtxRangePop();

    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = nvtxDomainRegisterStringA(domain, "nccl");
    int v = 1;
    nvtxPayloadData_t pd = {NVTX_PAYLOAD_SCHEMA_ID_STATIC_START, sizeof v, &v};
    nvtxDomainRangePushEx(domain, &a);
    nvtxRangePushPayload(domain, &pd, 1);
    nvtxRangePopPayload(domain, &pd, 1);
    nvtxRangePopPayload(domain, &pd, 1);
    copy_after_work();
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); // expect: SC203 x1

    printf("nvtx_ranges: checksum %.6f\n", checksum(host, N));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(dev));
    free(host);
    return 0;
}
