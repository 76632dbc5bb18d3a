/* fixture.c: the fixed report behind the golden files (see fixture.h).
 * Changing anything here changes the golden files: run 'make update-golden'
 * and review the diff. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

void *fixture_check(void *p)
{
    if (!p) {
        fprintf(stderr, "fixture: out of memory\n");
        exit(99);
    }
    return p;
}

static void ok(int rc)
{
    if (rc != 0) {
        fprintf(stderr, "fixture: out of memory\n");
        exit(99);
    }
}

static sc_finding *finding(sc_report *r, sc_rule_id rule, sc_severity sev, const char *api,
                           const char *driver, const char *cs, uint64_t count, uint64_t blocked,
                           uint64_t pending, uint64_t bytes, uint64_t lost, const char *detail)
{
    sc_finding *f = fixture_check(sc_report_add_finding(r));
    f->rule = rule;
    f->severity = sev;
    f->api = fixture_check(strdup(api));
    f->driver_api = driver ? fixture_check(strdup(driver)) : NULL;
    snprintf(f->callsite, sizeof f->callsite, "%s", cs ? cs : "");
    f->count = count;
    f->blocked_ns = blocked;
    f->pending = pending;
    f->bytes = bytes;
    f->lost_ns = lost;
    /* Priced the way the shim prices each rule in detect mode. */
    switch (rule) {
    case SC_RULE_SC203: f->basis = SC_COST_COPY_BLOCKED; f->cost_ns = lost; break;
    case SC_RULE_SC402: f->basis = SC_COST_HOST_BLOCKED; f->cost_ns = blocked; break;
    case SC_RULE_SC201: case SC_RULE_SC301: case SC_RULE_SC401:
        f->basis = SC_COST_PENDING_BLOCKED; f->cost_ns = lost; break;
    default: f->basis = SC_COST_UNMEASURED; break;
    }
    f->detail = detail ? fixture_check(strdup(detail)) : NULL;
    f->process = 0;
    return f;
}

static void redirect(sc_report *r, const char *api, const char *cs, const char *outcome, uint64_t n)
{
    sc_redirect *rd = fixture_check(sc_report_add_redirect(r));
    rd->api = fixture_check(strdup(api));
    snprintf(rd->callsite, sizeof rd->callsite, "%s", cs ? cs : "");
    rd->outcome = fixture_check(strdup(outcome));
    rd->count = n;
}

static void process(sc_report *r, long pid, const char *host, double start, double end, uint64_t calls,
                    uint64_t shim_ns)
{
    sc_process *p = fixture_check(sc_report_add_process(r));
    p->exe = fixture_check(strdup("/home/ci/proj/.venv/bin/python3"));
    p->cmdline = fixture_check(strdup("python3 train.py --name \"run<1>\" --note 'a&b'"));
    p->pid = pid;
    p->host = fixture_check(strdup(host));
    p->device = fixture_check(strdup("NVIDIA H100 80GB HBM3"));
    p->driver_version = 13000;
    p->async_engines = 2;
    p->max_connections = 8;
    p->mode = fixture_check(strdup("redirect=per-thread"));
    p->simulated = 0;
    p->start_time = start;
    p->end_time = end;
    p->calls = calls;
    p->shim_ns = shim_ns;
    p->handoffs = calls % 7;
    p->handoff_waits = calls % 5;
}

/* The PyTorch copy both ranks hit: Python frames over libtorch and cudart. */
static void callsite_copy(sc_report *r)
{
    sc_callsite *cs = fixture_check(sc_report_add_callsite(r, "9f3c2e1a5b7d4c60"));
    ok(sc_callsite_add_pyframe(cs, "/home/ci/proj/train.py", 42, "step"));
    ok(sc_callsite_add_pyframe(cs, "/home/ci/proj/train.py", 88, "main"));
    ok(sc_callsite_add_frame(cs, "/usr/lib/python3/site-packages/torch/lib/libtorch_cuda.so", 0x1a2b3c,
                             "at::native::copy_impl", "aten/src/ATen/native/cuda/Copy.cu", 261));
    ok(sc_callsite_add_frame(cs, "/usr/lib/python3/site-packages/torch/lib/libcudart.so.13", 0x5f00,
                             "cudaMemcpyAsync", NULL, 0));
    ok(sc_callsite_add_frame(cs, "/usr/lib/python3/site-packages/torch/lib/libtorch_python.so", 0x88aa0,
                             NULL, NULL, 0));
    ok(sc_callsite_add_frame(cs, "/usr/bin/python3.11", 0x1f2e3d, "_PyEval_EvalFrameDefault", NULL, 0));
    ok(sc_callsite_add_frame(cs, "/usr/bin/python3.11", 0x2a0011, "PyEval_EvalCode", NULL, 0));
}

sc_report *fixture_process_a(void)
{
    sc_report *r = fixture_check(sc_report_new());
    r->tool_version = fixture_check(strdup("0.1.0-golden"));
    process(r, 4242, "node01", 1717243200.25, 1717243212.75, 123456, 1234567);
    /* Rank 0 of a job, on one device. */
    r->procs[0].rank = 0;
    ok(sc_process_add_device(&r->procs[0], 0, "NVIDIA H100 80GB HBM3"));

    callsite_copy(r);
    sc_callsite *cs = fixture_check(sc_report_add_callsite(r, "0a1b2c3d4e5f6071"));
    ok(sc_callsite_add_frame(cs, "/home/ci/proj/build/app", 0x1234, "main", "/home/ci/proj/app.cu", 57));
    ok(sc_callsite_add_frame(cs, "/lib/x86_64-linux-gnu/libc.so.6", 0x271ca, "__libc_start_call_main", NULL, 0));
    cs = fixture_check(sc_report_add_callsite(r, "1122334455667788"));
    ok(sc_callsite_add_frame(cs, "/opt/vendor/lib/libfoo.so", 0x4000, "foo_launch", NULL, 0));
    ok(sc_callsite_add_frame(cs, "/opt/vendor/lib/libfoo.so", 0x4100, NULL, NULL, 0));
    /* A kernel<<<...>>> launch from a named thread: nvcc's glue (crt/
       header, device stub, the kernel's host-side wrapper) comes before the
       launch line, which is the primary frame. */
    cs = fixture_check(sc_report_add_callsite(r, "deadbeefcafef00d"));
    cs->thread_name = fixture_check(strdup("app_worker"));
    ok(sc_callsite_add_frame(cs, "/home/ci/proj/build/app", 0x2040, "__cudaLaunchKernel_helper",
                             "/usr/local/cuda/targets/x86_64-linux/include/crt/device_functions.h", 2963));
    ok(sc_callsite_add_frame(cs, "/home/ci/proj/build/app", 0x2040, "__device_stub__Z5scalePfi(float*, int)",
                             "/tmp/tmpxft_0000a1b2_00000000-6_app.cudafe1.stub.c", 7));
    ok(sc_callsite_add_frame(cs, "/home/ci/proj/build/app", 0x2040, "scale(float*, int)",
                             "/home/ci/proj/kernels.cuh", 12));
    ok(sc_callsite_add_frame(cs, "/home/ci/proj/build/app", 0x2040, "worker(void*)", "/home/ci/proj/app.cu", 31));
    ok(sc_callsite_add_frame(cs, "/lib/x86_64-linux-gnu/libc.so.6", 0x8fa10, "start_thread", NULL, 0));
    /* Named by nothing: must still print, after the others. */
    cs = fixture_check(sc_report_add_callsite(r, "00000000000000ff"));
    ok(sc_callsite_add_frame(cs, NULL, 0x10, NULL, NULL, 0));

    finding(r, SC_RULE_SC203, SC_SEV_WARNING, "cudaMemcpyAsync", "cuMemcpyDtoHAsync_v2", "9f3c2e1a5b7d4c60",
            128, 45210000, 96, 536870912, 33900000,
            "device-to-host into pageable memory: tensor.to(\"cpu\", non_blocking=True)")->also =
        1u << SC_RULE_SC101;
    finding(r, SC_RULE_SC301, SC_SEV_ERROR, "cudaMalloc", "cuMemAlloc_v2", "0a1b2c3d4e5f6071", 12, 3200000, 10,
            50331648, 2900000, "waited for 3 busy streams");
    finding(r, SC_RULE_SC101, SC_SEV_WARNING, "cuLaunchKernel", "cuLaunchKernel", "1122334455667788", 2000,
            1500000, 1999, 0, 1499000, NULL);
    finding(r, SC_RULE_SC402, SC_SEV_NOTE, "cudaDeviceSynchronize", "cuCtxSynchronize", "0a1b2c3d4e5f6071", 3,
            9000, 0, 0, 0, NULL);
    finding(r, SC_RULE_SC401, SC_SEV_NOTE, "cudaDeviceSynchronize", "cuCtxSynchronize", NULL, 1, 800, 1, 0,
            800, "control characters\tand\x01 bytes that are not UTF-8: \xff");

    for (size_t i = 0; i < r->nfindings; i++)
        r->findings[i].device = 0;

    ok(sc_report_add_count(r, "libcudart.so.13", "cuLaunchKernel", 1000, 0));
    ok(sc_report_add_count(r, "libcudart.so.13", "cuMemcpyDtoHAsync_v2", 128, 0));
    ok(sc_report_add_count(r, "libcudart.so.13", "cuCtxSynchronize", 4, 0));
    ok(sc_report_add_count(r, "libcudart.so.13", "cuMemAlloc_v2", 12, 0));
    ok(sc_report_add_count(r, "libcublas.so.13", "cuLaunchKernel", 500, 0));
    ok(sc_report_add_count(r, "libfoo.so", "cuLaunchKernel", 2000, 0));

    redirect(r, "cuLaunchKernel", "deadbeefcafef00d", "redirected", 1000);
    redirect(r, "cuLaunchKernel", "deadbeefcafef00d", "capture-active", 4);
    redirect(r, "cuMemcpyHtoDAsync_v2", "0a1b2c3d4e5f6071", "capture-active", 2);
    redirect(r, "cuStreamSynchronize", NULL, "redirected", 10);
    redirect(r, "cuLaunchKernel", "1122334455667788", "stream-not-legacy", 7);
    sc_report_sort(r);
    return r;
}

sc_report *fixture_process_b(void)
{
    sc_report *r = fixture_check(sc_report_new());
    r->tool_version = fixture_check(strdup("0.1.0-golden"));
    process(r, 4243, "node02", 1717243200.5, 1717243213.125, 100000, 1000000);
    /* Rank 1, driving two devices. */
    r->procs[0].rank = 1;
    ok(sc_process_add_device(&r->procs[0], 1, "NVIDIA H100 80GB HBM3"));
    ok(sc_process_add_device(&r->procs[0], 0, "NVIDIA H100 80GB HBM3"));

    callsite_copy(r);
    sc_callsite *cs = fixture_check(sc_report_add_callsite(r, "5555aaaa5555aaaa"));
    ok(sc_callsite_add_pyframe(cs, "/home/ci/proj/data.py", 17, "load"));
    ok(sc_callsite_add_pyframe(cs, "<frozen runpy>", 88, NULL));
    ok(sc_callsite_add_frame(cs, "/usr/lib/python3/site-packages/torch/lib/libcudart.so.13", 0x6100, "cudaMemcpy",
                             NULL, 0));

    /* Measured (--measure): a GPU block, and the copy priced on the GPU. */
    sc_gpu *g = fixture_check(calloc(1, sizeof *g));
    g->devices = fixture_check(calloc(1, sizeof *g->devices));
    g->streams = fixture_check(calloc(2, sizeof *g->streams));
    g->devices[0] = (sc_gpu_device){0, 12000000000, 9000000000, 3000000000, 1500000000, 1000000000, 500000000,
                                    250000};
    g->ndevices = 1;
    g->streams[0] = (sc_gpu_stream){0, 7, 8000000000, 200000};
    g->streams[1] = (sc_gpu_stream){0, 13, 2500000000, 50000};
    g->nstreams = 2;
    g->span_ns = 12000000000;
    g->busy_ns = 9000000000;
    g->idle_ns = 3000000000;
    g->overlap_ns = 1500000000;
    g->overlap_compute_copy_ns = 1000000000;
    g->overlap_compute_compute_ns = 500000000;
    g->ops = 250000;
    g->ops_kept = 200000;
    g->dropped = 12;
    g->handed_over = 1;           /* the program's own profiler took CUPTI at 9 s */
    g->handed_over_ns = 9000000000u;
    r->procs[0].gpu = g;
    sc_finding *f = finding(r, SC_RULE_SC203, SC_SEV_WARNING, "cudaMemcpyAsync", "cuMemcpyDtoHAsync_v2",
                            "9f3c2e1a5b7d4c60", 64, 20000000, 60, 268435456, 18000000,
                            "pageable buffer \xe2\x80\x9ch_out\xe2\x80\x9d");
    f->device = 0;
    f->measured = 1;
    f->gpu_lost_ns = 25000000;
    f->basis = SC_COST_GPU;
    f->cost_ns = f->gpu_lost_ns;
    finding(r, SC_RULE_SC201, SC_SEV_WARNING, "cudaMemcpy", "cuMemcpyDtoH_v2", "5555aaaa5555aaaa", 10, 700000, 0,
            40960, 0, NULL)->device = 1;

    ok(sc_report_add_count(r, "libcudart.so.13", "cuLaunchKernel", 900, 0));
    ok(sc_report_add_count(r, "libcudart.so.13", "cuMemcpyDtoHAsync_v2", 64, 0));
    ok(sc_report_add_count(r, "libcudart.so.13", "cuMemcpyDtoH_v2", 10, 0));
    ok(sc_report_add_count(r, "libcufft.so.12", "cuLaunchKernel", 50, 0));
    sc_report_sort(r);
    return r;
}

sc_report *fixture_merged(void)
{
    sc_report *r = fixture_check(sc_report_new());
    sc_report *a = fixture_process_a(), *b = fixture_process_b();
    ok(sc_report_merge(r, a));
    ok(sc_report_merge(r, b));
    sc_report_free(a);
    sc_report_free(b);
    sc_report_sort(r);
    return r;
}
