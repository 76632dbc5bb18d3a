/* golden-report: renders the fixture report (fixture.c) to standard output,
 * for the golden tests and 'make update-golden'.
 *
 *     golden-report CASE FORMAT
 *     CASE    single (process A) | b (process B) | merged | empty |
 *             timeline (B with a synthetic GPU timeline the size of a training
 *             run's: 200000 operations, 200000 host calls, 50000 finding marks) |
 *             priced (A as the pricing model saw it, with many notes)
 *     FORMAT  text-verbose | junit-never, or a format of formats.def (text,
 *             json, sarif, junit, html, md, ...) with default options (SARIF
 *             and Markdown: the source root /home/ci/proj/)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fixture.h"
#include "report.h"

static uint32_t name(sc_report *r, const char *s)
{
    r->names = fixture_check(realloc(r->names, (r->nnames + 1) * sizeof *r->names));
    r->names[r->nnames] = fixture_check(strdup(s));
    return (uint32_t)r->nnames++;
}

/* Process B's 12 s as a training loop: iterations of 2000 kernels (20 to
   60 us, 1 to 5 us apart) on stream 7 with a copy on stream 13 each, a
   2 ms gap between iterations; the main thread's launches (runtime and
   driver records) and a synchronization per iteration; a second thread's
   calls; a finding event (the SC203 of B) per copy. */
static void timeline(sc_report *r)
{
    static const char *const kernels[] = {
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
        "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off",
        "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*)",
        "void at::native::(anonymous namespace)::max_pool_forward_nchw<float>(int, float const*, long, long)",
        "<b>kernel & \"name\"</b>",
    };
    uint32_t kn[5], rt_launch, drv_launch, sync, copy;
    (void)name(r, "");
    for (int i = 0; i < 5; i++)
        kn[i] = name(r, kernels[i]);
    rt_launch = name(r, "cudaLaunchKernel");
    drv_launch = name(r, "cuLaunchKernel");
    sync = name(r, "cudaStreamSynchronize");
    copy = name(r, "cudaMemcpyAsync");
    size_t cap = 200000;
    r->gpu_ops = fixture_check(calloc(cap, sizeof *r->gpu_ops));
    r->host_spans = fixture_check(calloc(cap, sizeof *r->host_spans));
    r->marks = fixture_check(calloc(50000, sizeof *r->marks));
    uint32_t seed = 12345;
#define RND(n) ((seed = seed * 1103515245u + 12345u) >> 8) % (n)
    int64_t t = 50000000, host = t;
    uint32_t corr = 1;
    while (r->ngpu_ops < cap - 2 && t < 11900000000) {
        for (int k = 0; k < 2000 && r->ngpu_ops < cap - 2; k++) {
            int64_t d = 20000 + RND(40000);
            r->gpu_ops[r->ngpu_ops++] = (sc_gpu_op){0, 0, 7, SC_GPU_KERNEL, 0, 0, 0, kn[RND(5)], t, t + d, 0, corr};
            if (r->nhost_spans + 2 <= cap) {
                r->host_spans[r->nhost_spans++] = (sc_host_span){0, 101, 1, rt_launch, host, host + 4000 + RND(4000),
                                                                 corr};
                r->host_spans[r->nhost_spans++] = (sc_host_span){0, 101, 0, drv_launch, host + 500, host + 3500,
                                                                 corr};
            }
            host += 5000;
            corr++;
            t += d + 1000 + RND(4000);
        }
        /* the copy, blocked by pageable memory, and its finding event */
        size_t op = r->ngpu_ops;
        r->gpu_ops[r->ngpu_ops++] = (sc_gpu_op){0, 0, 13, SC_GPU_MEMCPY, SC_GPU_DTOH, SC_GPU_MEM_DEVICE,
                                                SC_GPU_MEM_PAGEABLE, 0, t, t + 800000, 67108864, corr};
        if (r->nhost_spans < cap)
            r->host_spans[r->nhost_spans++] = (sc_host_span){0, 101, 1, copy, host, t + 900000, corr};
        if (r->nmarks < 50000) {
            sc_finding_mark *m = &r->marks[r->nmarks++];
            *m = (sc_finding_mark){.process = 0, .rule = SC_RULE_SC203, .api = copy, .thread = 101,
                                   .start_ns = host, .end_ns = t + 900000, .correlation = corr, .op = (long)op,
                                   .lost_ns = 300000};
            snprintf(m->callsite, sizeof m->callsite, "9f3c2e1a5b7d4c60");
        }
        if (r->nhost_spans < cap)
            r->host_spans[r->nhost_spans++] = (sc_host_span){0, 102, 1, sync, t, t + 2000000, 0};
        corr++;
        t += 2000000;
        host = t;
    }
    /* many more finding events than can be drawn: one per launch of the
       last iterations, as SC203 events of the same call site */
    for (size_t i = 0; r->nmarks < 50000 && i < r->ngpu_ops; i++) {
        sc_finding_mark *m = &r->marks[r->nmarks++];
        const sc_gpu_op *op = &r->gpu_ops[r->ngpu_ops - 1 - i];
        *m = (sc_finding_mark){.process = 0, .rule = SC_RULE_SC203, .api = copy, .thread = 101,
                               .start_ns = op->start_ns - 3000, .end_ns = op->start_ns, .op = -1};
        snprintf(m->callsite, sizeof m->callsite, "9f3c2e1a5b7d4c60");
    }
#undef RND
    r->procs[0].gpu->ops_kept = r->ngpu_ops;
}

/* Process A as the pricing model saw it: an active window, the copy's fix
   priced by replaying the run, and more notes than the Markdown table
   lists, at a call site in a file whose name needs escaping, called
   through a library. */
static void priced(sc_report *r)
{
    sc_process *p = &r->procs[0];
    p->window_ns = 800000000;
    p->model_ns = 820000000;
    p->fixed_ns = 760000000;
    p->busy_source = fixture_check(strdup("sampled"));
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].rule == SC_RULE_SC203) {
            r->findings[i].basis = SC_COST_REPLAY;
            r->findings[i].cost_ns = 30000000;
        }
    sc_callsite *cs = fixture_check(sc_report_add_callsite(r, "7777bbbb7777bbbb"));
    if (sc_callsite_add_pyframe(cs, "/usr/lib/python3/site-packages/lightning/fabric/utilities/apply_func.py",
                                103, "batch_to") ||
        sc_callsite_add_pyframe(cs, "/home/ci/proj/odd|name`x`.py", 5, "load_*_data"))
        fixture_check(NULL);
    for (unsigned i = 0; i < 24; i++) {
        sc_finding *f = fixture_check(sc_report_add_finding(r));
        f->rule = SC_RULE_SC402;
        f->severity = SC_SEV_NOTE;
        f->api = fixture_check(strdup("cudaStreamSynchronize"));
        f->driver_api = fixture_check(strdup("cuStreamSynchronize"));
        snprintf(f->callsite, sizeof f->callsite, "%s", "7777bbbb7777bbbb");
        f->count = i + 1;
        f->blocked_ns = f->cost_ns = 1000 * (i + 1);
        f->basis = SC_COST_HOST_BLOCKED;
    }
    sc_report_sort(r);
}

/* FORMAT as a row of formats.def, rendered with default options. */
static int render_row(const sc_report *r, const char *name, const sc_render_opts *o)
{
    unsigned bits;
    char err[256];
    if (sc_formats_parse(name, &bits, err, sizeof err) < 0 || sc_format_index((sc_format)bits) < 0) {
        fprintf(stderr, "golden-report: unknown format '%s'\n", name);
        return 2;
    }
    return sc_render(r, (sc_format)bits, stdout, o);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: golden-report single|b|merged|empty|timeline|priced FORMAT\n");
        return 2;
    }
    sc_report *r;
    if (!strcmp(argv[1], "single"))
        r = fixture_process_a();
    else if (!strcmp(argv[1], "b"))
        r = fixture_process_b();
    else if (!strcmp(argv[1], "merged"))
        r = fixture_merged();
    else if (!strcmp(argv[1], "priced")) {
        r = fixture_process_a();
        priced(r);
    } else if (!strcmp(argv[1], "timeline")) {
        r = fixture_process_b();
        timeline(r);
    }
    else if (!strcmp(argv[1], "empty")) {
        r = fixture_check(sc_report_new());
        r->tool_version = fixture_check(strdup("0.1.0-golden"));
        sc_process *p = fixture_check(sc_report_add_process(r));
        p->pid = 1;
        p->async_engines = -1;
        p->simulated = 1;
    } else {
        fprintf(stderr, "golden-report: unknown case '%s'\n", argv[1]);
        return 2;
    }

    sc_render_opts o = {0};
    const char *f = argv[2];
    int rc;
    if (!strcmp(f, "text-verbose")) {
        o.verbose = 1;
        o.max_frames = 8;
        rc = sc_render_text(r, stdout, &o);
    } else if (!strcmp(f, "junit-never")) {
        o.fail_on = SC_FAIL_NEVER;
        rc = sc_render(r, SC_FMT_JUNIT, stdout, &o);
    } else {
        /* Paths below the source root are shown relative to it. */
        if (!strcasecmp(f, "sarif") || !strcasecmp(f, "md"))
            o.srcroot = "/home/ci/proj/";
        rc = render_row(r, f, &o);
    }
    sc_report_free(r);
    if (rc == -1)
        perror("golden-report");
    return rc ? 1 : 0;
}
