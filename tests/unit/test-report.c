/* test-report: the model (sort, merge, totals, helpers), the JSON reader's
 * errors, the round trip and sc_report_write_file. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "report.h"

static char *render(const sc_report *r, sc_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    sc_render_opts o = {.srcroot = "/home/ci/proj"};
    ck_assert_int_eq(sc_render(r, fmt, f, &o), 0);
    fclose(f);
    return buf;
}

static sc_finding *add(sc_report *r, sc_rule_id rule, sc_severity sev, uint64_t count, const char *cs)
{
    sc_finding *f = sc_report_add_finding(r);
    ck_assert_ptr_nonnull(f);
    f->rule = rule;
    f->severity = sev;
    f->count = count;
    f->api = strdup("cuLaunchKernel");
    snprintf(f->callsite, sizeof f->callsite, "%s", cs);
    return f;
}

START_TEST(empty_report)
{
    sc_report *r = sc_report_new();
    char line[128];
    uint64_t e = 9, w = 9, n = 9;
    ck_assert_ptr_nonnull(r);
    sc_report_totals(r, &e, &w, &n);
    ck_assert(e == 0 && w == 0 && n == 0);
    sc_summary_line(r, line, sizeof line);
    ck_assert_str_eq(line, "streamcheck: 0 findings (0 errors, 0 warnings, 0 notes)");
    sc_report_sort(r);
    ck_assert_ptr_null(sc_report_callsite(r, "0000000000000001"));
    free(render(r, SC_FMT_TEXT));
    free(render(r, SC_FMT_JSON));
    free(render(r, SC_FMT_SARIF));
    free(render(r, SC_FMT_JUNIT));
    sc_report_free(r);
    sc_report_free(NULL);
}
END_TEST

START_TEST(summary_and_totals)
{
    sc_report *r = fixture_merged();
    char line[128];
    uint64_t e, w, n;
    sc_report_totals(r, &e, &w, &n);
    ck_assert(e == 1 && w == 4 && n == 2);
    sc_summary_line(r, line, sizeof line);
    ck_assert_str_eq(line, "streamcheck: 7 findings (1 errors, 4 warnings, 2 notes)");
    sc_report_free(r);

    /* one finding: the words stay plural, so one pattern matches every line */
    r = sc_report_new();
    add(r, SC_RULE_SC101, SC_SEV_WARNING, 1, "");
    sc_summary_line(r, line, sizeof line);
    ck_assert_str_eq(line, "streamcheck: 1 findings (0 errors, 1 warnings, 0 notes)");
    sc_report_free(r);
}
END_TEST

/* The overhead line: an estimate, or a plain statement that no call was timed. */
START_TEST(overhead_estimate)
{
    sc_report *r = fixture_process_a();
    char *t = render(r, SC_FMT_TEXT);
    ck_assert_ptr_nonnull(strstr(t, "Time in streamcheck : 1.235 ms (estimate; "));
    free(t);
    r->procs[0].shim_ns = 0;
    t = render(r, SC_FMT_TEXT);
    ck_assert_ptr_nonnull(strstr(t, "Time in streamcheck : too few calls to estimate\n"));
    ck_assert_ptr_null(strstr(t, "(estimate"));
    free(t);
    r->procs[0].calls = 0;   /* nothing intercepted: 0 ns, as measured */
    t = render(r, SC_FMT_TEXT);
    ck_assert_ptr_nonnull(strstr(t, "Time in streamcheck : 0 ns (estimate"));
    free(t);
    sc_report_free(r);
}
END_TEST

START_TEST(sort_order)
{
    sc_report *r = sc_report_new();
    /* scrambled on purpose */
    add(r, SC_RULE_SC402, SC_SEV_NOTE, 500, "00000000000000aa")->cost_ns = 9000000;
    sc_finding *f = add(r, SC_RULE_SC203, SC_SEV_WARNING, 10, "00000000000000bb");
    f->cost_ns = 5000000;
    f->basis = SC_COST_COPY_BLOCKED;
    add(r, SC_RULE_SC101, SC_SEV_WARNING, 10, "00000000000000cc")->pending = 3;
    add(r, SC_RULE_SC101, SC_SEV_WARNING, 10, "00000000000000aa");
    add(r, SC_RULE_SC301, SC_SEV_ERROR, 1, "00000000000000bb");
    f = add(r, SC_RULE_SC201, SC_SEV_WARNING, 99, "");
    f->cost_ns = 1000000;
    f->basis = SC_COST_PENDING_BLOCKED;
    add(r, SC_RULE_SC202, SC_SEV_WARNING, 1, "00000000000000bb");
    ck_assert_ptr_nonnull(sc_report_add_callsite(r, "00000000000000cc"));
    ck_assert_ptr_nonnull(sc_report_add_callsite(r, "00000000000000dd"));
    ck_assert_ptr_nonnull(sc_report_add_callsite(r, "00000000000000bb"));
    ck_assert_ptr_nonnull(sc_report_add_callsite(r, "00000000000000aa"));
    sc_report_sort(r);

    /* Severity desc; then call sites ranked by their findings' summed cost,
       then summed pending events; within a site, cost desc. */
    ck_assert_int_eq(r->findings[0].rule, SC_RULE_SC301);
    ck_assert_int_eq(r->findings[1].rule, SC_RULE_SC203);   /* site bb: 5 ms */
    ck_assert_int_eq(r->findings[2].rule, SC_RULE_SC202);   /* site bb too, grouped */
    ck_assert_int_eq(r->findings[3].rule, SC_RULE_SC201);   /* no site: 1 ms */
    ck_assert_int_eq(r->findings[4].rule, SC_RULE_SC101);   /* cc: unpriced, 3 pending */
    ck_assert_str_eq(r->findings[4].callsite, "00000000000000cc");
    ck_assert_int_eq(r->findings[5].rule, SC_RULE_SC101);
    ck_assert_str_eq(r->findings[5].callsite, "00000000000000aa");
    ck_assert_int_eq(r->findings[6].rule, SC_RULE_SC402);   /* notes last, whatever their cost */
    /* call sites in order of first mention; unmentioned last */
    ck_assert_str_eq(r->callsites[0].id, "00000000000000bb");
    ck_assert_str_eq(r->callsites[1].id, "00000000000000cc");
    ck_assert_str_eq(r->callsites[2].id, "00000000000000aa");
    ck_assert_str_eq(r->callsites[3].id, "00000000000000dd");
    ck_assert_int_eq(sc_report_callsite_index(r, "00000000000000cc"), 1);

    /* The estimated cost counts warnings and errors, not notes. */
    ck_assert_uint_eq(sc_report_cost(r), 6000000);

    /* Sorting is idempotent and independent of the input order. */
    char *a = render(r, SC_FMT_JSON);
    sc_finding tmp = r->findings[0];
    r->findings[0] = r->findings[6];
    r->findings[6] = tmp;
    sc_report_sort(r);
    char *b = render(r, SC_FMT_JSON);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    sc_report_free(r);
}
END_TEST

START_TEST(building)
{
    sc_report *r = sc_report_new();
    sc_callsite *cs = sc_report_add_callsite(r, "0123456789abcdef");
    ck_assert_ptr_nonnull(cs);
    errno = 0;
    ck_assert_ptr_null(sc_report_add_callsite(r, "0123456789abcdef"));
    ck_assert_int_eq(errno, EEXIST);
    ck_assert_ptr_null(sc_report_add_callsite(r, "0123456789abcdef0"));
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_int_eq(sc_report_add_count(r, "libcudart.so.13", "cuLaunchKernel", 5, 0), 0);
    ck_assert_int_eq(sc_report_add_count(r, "libcudart.so.13", "cuLaunchKernel", 7, 0), 0);
    ck_assert_int_eq(sc_report_add_count(r, "libcublas.so.13", "cuLaunchKernel", 1, 0), 0);
    ck_assert_uint_eq(r->ncounts, 2);
    ck_assert(r->counts[0].calls == 12);
    size_t n;
    sc_api_total *t = sc_api_totals(r, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert(t[0].calls == 13);
    free(t);
    sc_report_free(r);
}
END_TEST

START_TEST(merge)
{
    sc_report *a = fixture_process_a(), *b = fixture_process_b();
    sc_report *m = sc_report_new();
    ck_assert_int_eq(sc_report_merge(m, a), 0);
    ck_assert_int_eq(sc_report_merge(m, b), 0);
    ck_assert_uint_eq(m->nprocs, 2);
    ck_assert_int_eq(m->procs[1].pid, 4243);
    ck_assert_str_eq(m->tool_version, "0.1.0-golden");
    ck_assert_uint_eq(m->nfindings, a->nfindings + b->nfindings);
    /* b's findings keep their process, renumbered */
    for (size_t i = a->nfindings; i < m->nfindings; i++)
        ck_assert_uint_eq(m->findings[i].process, 1);
    /* the shared call site is kept once */
    ck_assert_uint_eq(m->ncallsites, a->ncallsites + b->ncallsites - 1);
    size_t seen = 0;
    for (size_t i = 0; i < m->ncallsites; i++)
        seen += !strcmp(m->callsites[i].id, "9f3c2e1a5b7d4c60");
    ck_assert_uint_eq(seen, 1);
    /* api counts summed per (library, api) */
    uint64_t cudart_launch = 0, rows = 0;
    for (size_t i = 0; i < m->ncounts; i++)
        if (!strcmp(m->counts[i].library, "libcudart.so.13") && !strcmp(m->counts[i].api, "cuLaunchKernel")) {
            cudart_launch += m->counts[i].calls;
            rows++;
        }
    ck_assert(rows == 1 && cudart_launch == 1900);
    ck_assert_uint_eq(m->ncounts, 8);
    ck_assert_uint_eq(m->nredirects, a->nredirects);

    /* merging into itself is refused, and leaves it alone */
    errno = 0;
    ck_assert_int_eq(sc_report_merge(m, m), -1);
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_uint_eq(m->nprocs, 2);

    /* A merge of the same input in a different order gives the same
       sorted report apart from process numbering. */
    sc_report_sort(m);
    char *x = render(m, SC_FMT_JSON);
    sc_report *m2 = fixture_merged();
    char *y = render(m2, SC_FMT_JSON);
    ck_assert_str_eq(x, y);
    free(x);
    free(y);
    sc_report_free(m2);
    sc_report_free(a);
    sc_report_free(b);
    sc_report_free(m);
}
END_TEST

START_TEST(formatting)
{
    char b[64];
    static const struct {
        uint64_t ns;
        const char *want;
    } t[] = {
        {0, "0 ns"}, {999, "999 ns"}, {1000, "1.000 us"}, {1500, "1.500 us"}, {999999, "999.999 us"},
        {1000000, "1.000 ms"}, {1234567, "1.235 ms"}, {1000000000, "1.000 s"}, {12500000000, "12.500 s"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        sc_format_ns(t[i].ns, b, sizeof b);
        ck_assert_str_eq(b, t[i].want);
    }
    sc_format_bytes(0, b, sizeof b);
    ck_assert_str_eq(b, "0 B");
    sc_format_bytes(1023, b, sizeof b);
    ck_assert_str_eq(b, "1023 B");
    sc_format_bytes(1024, b, sizeof b);
    ck_assert_str_eq(b, "1.0 KiB");
    sc_format_bytes(1048575, b, sizeof b);
    ck_assert_str_eq(b, "1024.0 KiB");
    sc_format_bytes(536870912, b, sizeof b);
    ck_assert_str_eq(b, "512.0 MiB");
    sc_format_bytes(UINT64_MAX, b, sizeof b);
    ck_assert_str_eq(b, "16.0 EiB");

    sc_frame f = {.module = "/usr/lib/libfoo.so", .offset = 0x1a2b};
    sc_frame_format(&f, b, sizeof b);
    ck_assert_str_eq(b, "libfoo.so+0x1a2b");
    f.function = "foo";
    sc_frame_format(&f, b, sizeof b);
    ck_assert_str_eq(b, "foo (libfoo.so+0x1a2b)");
    f.file = "src/foo.c";
    f.line = 12;
    sc_frame_format(&f, b, sizeof b);
    ck_assert_str_eq(b, "foo (src/foo.c:12)");
    sc_pyframe p = {.file = "train.py", .line = 42, .function = "step"};
    sc_pyframe_format(&p, b, sizeof b);
    ck_assert_str_eq(b, "train.py:42 in step()");

    ck_assert_str_eq(sc_basename("/a/b/c.cu"), "c.cu");
    ck_assert_str_eq(sc_basename("c.cu"), "c.cu");
    sc_fail_level l;
    ck_assert_int_eq(sc_fail_level_parse("warning", &l), 0);
    ck_assert_int_eq(l, SC_FAIL_WARNING);
    ck_assert_int_eq(sc_fail_level_parse("bogus", &l), -1);
    ck_assert(sc_severity_fails(SC_SEV_ERROR, SC_FAIL_WARNING));
    ck_assert(!sc_severity_fails(SC_SEV_NOTE, SC_FAIL_WARNING));
    ck_assert(!sc_severity_fails(SC_SEV_ERROR, SC_FAIL_NEVER));
}
END_TEST

START_TEST(source_location)
{
    sc_report *r = fixture_merged();
    const char *file, *fn;
    unsigned line;
    /* Python first */
    ck_assert_int_eq(sc_callsite_source(sc_report_callsite(r, "9f3c2e1a5b7d4c60"), &file, &line, &fn), 0);
    ck_assert_str_eq(file, "/home/ci/proj/train.py");
    ck_assert_uint_eq(line, 42);
    ck_assert_str_eq(fn, "step");
    /* no debug info */
    ck_assert_int_eq(sc_callsite_source(sc_report_callsite(r, "1122334455667788"), &file, &line, &fn), -1);
    char w[256];
    sc_callsite_where(sc_report_callsite(r, "0a1b2c3d4e5f6071"), w, sizeof w);
    ck_assert_str_eq(w, "main (/home/ci/proj/app.cu:57)");
    sc_callsite_where(NULL, w, sizeof w);
    ck_assert_str_eq(w, "no call site");
    sc_report_free(r);
}
END_TEST

/* ------------------------------------------------ primary frames --- */

START_TEST(nvidia_libraries)
{
    static const char *const yes[] = {
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcudart.so.13", "libcudart.so.12.4.127",
        "/opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9",
        "libcudnn.so.9", "libcudnn_ops_infer.so.8", "libcudnn_graph.so.9", "libcublas.so.12",
        "libcublasLt.so.12", "libcufft.so.11", "libcufftw.so.11", "libcusparse.so.12", "libcusparseLt.so.0",
        "libcurand.so.10", "libcusolver.so.11", "libcusolverMg.so.11", "libnccl.so.2", "libnvrtc.so.12",
        "libnvrtc-builtins.so.12.4", "libnvJitLink.so.12", "libcupti.so.2024.1.0", "libcutensor.so.2",
        /* pip's wheels, whatever the library is called */
        "/usr/local/lib/python3.10/dist-packages/nvidia/nvtx/lib/libnvToolsExt.so.1",
    };
    static const char *const no[] = {
        "/usr/lib/libtorch_cuda.so", "libc10_cuda.so", "libcudaops.so", "libcudadebugger.so.1",
        "libcupy_backends.so", "/home/me/cudnn_bench/app", "libcaffe2_nvrtc.so", "", NULL,
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        ck_assert_msg(sc_nvidia_library(yes[i]), "%s is NVIDIA's", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        ck_assert_msg(!sc_nvidia_library(no[i]), "%s is not NVIDIA's", no[i] ? no[i] : "NULL");
    ck_assert(sc_system_library("/lib/x86_64-linux-gnu/libc.so.6"));
    ck_assert(sc_system_library("/lib64/ld-linux-x86-64.so.2"));
    ck_assert(sc_system_library("libstdc++.so.6"));
    ck_assert(!sc_system_library("libcustom.so"));
}
END_TEST

static sc_callsite *site(sc_report *r, const char *id)
{
    sc_callsite *cs = sc_report_add_callsite(r, id);
    ck_assert_ptr_nonnull(cs);
    return cs;
}

#define APP "/home/ci/proj/build/app"
#define CRT "/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/crt/device_functions.h"

START_TEST(primary_frame)
{
    sc_report *r = sc_report_new();
    ck_assert_ptr_nonnull(r);
    const char *file, *fn;
    unsigned line;
    char w[512];

    /* kernel<<<...>>>: nvcc's glue, then the launch line. */
    sc_callsite *cs = site(r, "0000000000000001");
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x1ca8, "__cudaLaunchKernel_helper", CRT, 2963), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x1ca8,
                                           "__device_stub__Z8sc_saxpyifPKfPf(int, float, float const*, float*)",
                                           "/tmp/tmpxft_00001c72_00000000-6_app.compute_90.cudafe1.stub.c", 1), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x1579, "sc_saxpy(int, float, float const*, float*)",
                                           "/home/ci/proj/kernels.cuh", 31), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x1579, "main", "/home/ci/proj/app.cu", 30), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, "/lib/x86_64-linux-gnu/libc.so.6", 0x27249,
                                           "__libc_start_call_main", "../sysdeps/nptl/libc_start_call_main.h", 58), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 3);
    ck_assert_int_eq(sc_callsite_source(cs, &file, &line, &fn), 0);
    ck_assert_str_eq(file, "/home/ci/proj/app.cu");
    ck_assert_uint_eq(line, 30);
    ck_assert(sc_frame_is_launch_glue(&cs->frames[0]));
    ck_assert(sc_frame_is_launch_glue(&cs->frames[1]));
    ck_assert(!sc_frame_is_launch_glue(&cs->frames[2]));   /* the wrapper: known by its stub only */

    /* A template kernel in a namespace; cuda_runtime.h's cudaLaunchKernel<>. */
    cs = site(r, "0000000000000002");
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "cudaError cudaLaunchKernel<char>(char const*, dim3)",
                                           "/usr/local/cuda/include/cuda_runtime.h", 216), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "__device_stub__ZN2ns5scaleIfEEvPT_i(float*, int)",
                                           "/tmp/tmpxft_0000abcd_00000000-6_app.cudafe1.stub.c", 4), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "void ns::scale<float>(float*, int)",
                                           "/home/ci/proj/scale.cuh", 8), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x20, "run(int)", "/home/ci/proj/app.cu", 77), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 3);

    /* Without inline frames the stub's caller is the launch line itself:
       only the kernel's own name is skipped after a stub. */
    cs = site(r, "0000000000000003");
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "__device_stub__Z6kernelPf(float*)", NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x20, "kernel_driver(float*)", "/home/ci/proj/app.cu", 12), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 1);
    /* extern "C" kernels have unmangled stubs */
    cs = site(r, "0000000000000004");
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "__device_stub__kern(float*)", NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "kern", "/home/ci/proj/k.cu", 3), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x20, "main", "/home/ci/proj/app.cu", 9), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 2);

    /* Without a demangler, raw names; a kernel in an anonymous namespace. */
    cs = site(r, "0000000000000009");
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "_Z31__device_stub__Z8sc_saxpyifPKfPfifPKfPf", NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "_Z8sc_saxpyifPKfPf", "/home/ci/proj/k.cuh", 31), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x20, "main", "/home/ci/proj/app.cu", 30), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 2);
    cs = site(r, "000000000000000a");
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10,
                                           "__device_stub__ZN12_GLOBAL__N_14kernEPf(float*)", NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "(anonymous namespace)::kern(float*)",
                                           "/home/ci/proj/k.cu", 5), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x20, "main", "/home/ci/proj/app.cu", 30), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 2);

    /* PyTorch's autograd thread: no Python frame, cuDNN's frames on top of
       libtorch_cuda without line numbers, libc with them. */
    cs = site(r, "0000000000000005");
    cs->thread_name = strdup("pt_autograd_0");
    ck_assert_int_eq(sc_callsite_add_frame(cs, "/venv/site-packages/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9",
                                           0x35cee13, NULL, NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, "/venv/site-packages/torch/lib/libtorch_cuda.so", 0x1000,
                                           "at::native::cudnn_convolution_forward", NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, "/venv/site-packages/torch/lib/libtorch_cpu.so", 0x2000,
                                           "torch::autograd::Engine::thread_main", NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, "/lib/x86_64-linux-gnu/libc.so.6", 0x94ac3, "start_thread",
                                           "./nptl/pthread_create.c", 442), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 1);
    ck_assert_int_eq(sc_callsite_source(cs, &file, &line, &fn), -1);
    sc_callsite_where(cs, w, sizeof w);
    ck_assert_str_eq(w, "at::native::cudnn_convolution_forward (libtorch_cuda.so+0x1000)");

    /* Nothing but NVIDIA's frames: the innermost. */
    cs = site(r, "0000000000000006");
    ck_assert_int_eq(sc_callsite_add_frame(cs, "libcudnn.so.9", 0x10, NULL, NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, "libcuda.so.1", 0x20, NULL, NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 0);
    /* A program without debug info: its frame, not libc's line. */
    cs = site(r, "0000000000000007");
    ck_assert_int_eq(sc_callsite_add_frame(cs, APP, 0x10, "main", NULL, 0), 0);
    ck_assert_int_eq(sc_callsite_add_frame(cs, "/lib/x86_64-linux-gnu/libc.so.6", 0x27249,
                                           "__libc_start_call_main", "../sysdeps/nptl/libc_start_call_main.h", 58), 0);
    ck_assert_int_eq(sc_callsite_primary(cs), 0);
    ck_assert_int_eq(sc_callsite_source(cs, &file, &line, &fn), -1);
    /* No native frames; Python ones are shown first. */
    cs = site(r, "0000000000000008");
    ck_assert_int_eq(sc_callsite_primary(cs), -1);
    int py = 0;
    ck_assert_int_eq(sc_callsite_shown(cs, &py), -1);
    ck_assert_int_eq(sc_callsite_add_pyframe(cs, "/home/ci/proj/train.py", 42, "step"), 0);
    ck_assert_int_eq(sc_callsite_shown(cs, &py), 0);
    ck_assert_int_eq(py, 1);

    /* Every format locates the launch at its line; the text report shows
       it first, below the source root relative to it. */
    sc_finding *f = add(r, SC_RULE_SC101, SC_SEV_WARNING, 10, "0000000000000001");
    f->driver_api = strdup("cuLaunchKernel");
    f = add(r, SC_RULE_SC103, SC_SEV_WARNING, 5, "0000000000000005");
    f->driver_api = strdup("cuLaunchKernel");
    sc_report_sort(r);
    char *text = render(r, SC_FMT_TEXT);
    ck_assert_ptr_nonnull(strstr(text, "  Call site      : #1 (0000000000000001)\n"
                                       "                   main (app.cu:30)\n"
                                       "                   __libc_start_call_main (../sysdeps/nptl/libc_start_call_main.h:58)\n"
                                       "                   ... 3 more (call site #1)\n"));
    ck_assert_ptr_nonnull(strstr(text, "    >   3  main (app.cu:30)\n"));
    ck_assert_ptr_nonnull(strstr(text, "  Thread         : pt_autograd_0\n"
                                       "  Call site      : #2 (0000000000000005)\n"
                                       "                   at::native::cudnn_convolution_forward (libtorch_cuda.so+0x1000)\n"));
    ck_assert_ptr_nonnull(strstr(text, "  2  0000000000000005  thread: pt_autograd_0\n"));
    free(text);
    char *sarif = render(r, SC_FMT_SARIF);
    ck_assert_ptr_nonnull(strstr(sarif, "\"originalUriBaseIds\": {\n"
                                        "        \"SRCROOT\": {\n"
                                        "          \"uri\": \"file:///home/ci/proj/\""));
    ck_assert_ptr_nonnull(strstr(sarif, "\"locations\": [\n"
                                        "            {\n"
                                        "              \"physicalLocation\": {\n"
                                        "                \"artifactLocation\": {\n"
                                        "                  \"uri\": \"app.cu\",\n"
                                        "                  \"uriBaseId\": \"SRCROOT\"\n"
                                        "                },\n"
                                        "                \"region\": {\n"
                                        "                  \"startLine\": 30\n"));
    ck_assert_ptr_nonnull(strstr(sarif, "\"relatedLocations\": ["));
    ck_assert_ptr_nonnull(strstr(sarif, "\"uri\": \"file:///usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/crt/device_functions.h\""));
    ck_assert_ptr_nonnull(strstr(sarif, "\"threadName\": \"pt_autograd_0\""));
    free(sarif);
    char *json = render(r, SC_FMT_JSON);
    ck_assert_ptr_nonnull(strstr(json, "\"id\": \"0000000000000001\",\n      \"primary\": 3,"));
    ck_assert_ptr_nonnull(strstr(json, "\"id\": \"0000000000000005\",\n      \"thread_name\": \"pt_autograd_0\",\n      \"primary\": 1,"));
    free(json);
    sc_report_free(r);
}
END_TEST

START_TEST(paths_and_source_root)
{
    static const struct { const char *in, *out; } norm[] = {
        {"/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_functions.h",
         "/usr/local/cuda/targets/x86_64-linux/include/crt/device_functions.h"},
        {"/work/proj/./kernels/k.cuh", "/work/proj/kernels/k.cuh"},
        {"/a//b///c/", "/a/b/c"},
        {"/../a", "/a"},
        {"/a/b/../../..", "/"},
        {"../sysdeps/x.h", "../sysdeps/x.h"},
        {"./nptl/../a/./b", "a/b"},
        {"a/../..", ".."},
        {"./", "."},
    };
    char b[256];
    for (size_t i = 0; i < sizeof norm / sizeof norm[0]; i++) {
        snprintf(b, sizeof b, "%s", norm[i].in);
        sc_path_normalize(b);
        ck_assert_str_eq(b, norm[i].out);
    }
    sc_srcroot root;
    char buf[256];
    ck_assert_int_eq(sc_srcroot_init(&root, "/home/ci/proj/"), 0);
    ck_assert_str_eq(root.lex, "/home/ci/proj");
    ck_assert_str_eq(sc_srcroot_rel(&root, "/home/ci/proj/src/app.cu", buf, sizeof buf), "src/app.cu");
    ck_assert_ptr_null(sc_srcroot_rel(&root, "/home/ci/project/app.cu", buf, sizeof buf));
    ck_assert_ptr_null(sc_srcroot_rel(&root, "/home/ci/proj", buf, sizeof buf));
    ck_assert_ptr_null(sc_srcroot_rel(&root, "src/app.cu", buf, sizeof buf));
    ck_assert_str_eq(sc_srcroot_show(&root, "/usr/include/x.h", buf, sizeof buf), "/usr/include/x.h");
    sc_srcroot_free(&root);
    ck_assert_int_eq(sc_srcroot_init(&root, "/"), 0);
    ck_assert_str_eq(sc_srcroot_rel(&root, "/home/x.cu", buf, sizeof buf), "home/x.cu");
    sc_srcroot_free(&root);
    ck_assert_int_eq(sc_srcroot_init(&root, NULL), 0);
    ck_assert_ptr_null(sc_srcroot_rel(&root, "/home/x.cu", buf, sizeof buf));
    sc_srcroot_free(&root);
    /* A relative root is the current directory's. */
    char *cwd = getcwd(NULL, 0);
    ck_assert_ptr_nonnull(cwd);
    ck_assert_int_eq(sc_srcroot_init(&root, "."), 0);
    snprintf(b, sizeof b, "%s/sub/f.c", cwd);
    ck_assert_str_eq(sc_srcroot_rel(&root, b, buf, sizeof buf), "sub/f.c");
    sc_srcroot_free(&root);
    free(cwd);
}
END_TEST

/* render -> read -> render gives the same bytes, in every format. */
static void roundtrip(sc_report *r)
{
    char *json = render(r, SC_FMT_JSON), err[512];
    sc_report *back = sc_report_new();
    ck_assert_msg(sc_report_parse_json(back, json, strlen(json), "rt.json", err, sizeof err) == 0, "%s", err);
    for (sc_format f = SC_FMT_TEXT; f <= SC_FMT_JUNIT; f <<= 1) {
        char *x = render(r, f), *y = render(back, f);
        ck_assert_msg(!strcmp(x, y), "format %d differs after the round trip", f);
        free(x);
        free(y);
    }
    free(json);
    sc_report_free(back);
    sc_report_free(r);
}

/* ------------------------------------------ NVTX ranges, via frames --- */

/* A process of 1 s under --range step, 5 ms inside it, and a warning of
   1 ms inside step: worth fixing against the range's time, not the run's. */
static sc_report *ranged(int range)
{
    sc_report *r = sc_report_new();
    sc_process *p = sc_report_add_process(r);
    ck_assert_ptr_nonnull(p);
    p->start_time = 1000.0;
    p->end_time = 1001.0;
    if (range) {
        p->range = strdup("step");
        p->range_ns = 5000000;
    }
    sc_finding *f = add(r, SC_RULE_SC203, SC_SEV_WARNING, 2, "");
    f->basis = SC_COST_COPY_BLOCKED;
    f->cost_ns = 1000000;
    f->nvtx_range = strdup("step");
    return r;
}

START_TEST(range_shares)
{
    sc_report *r = ranged(1);
    ck_assert_uint_eq(sc_process_run_ns(&r->procs[0]), 5000000);
    ck_assert_uint_eq(sc_process_span_ns(&r->procs[0]), 1000000000);
    sc_report_judge(r, NULL);
    ck_assert_int_eq(r->findings[0].severity, SC_SEV_WARNING);   /* 1 ms of 5 ms */
    char *t = render(r, SC_FMT_TEXT);
    ck_assert_ptr_nonnull(strstr(t, "\n@ NVTX range           : step: findings inside it only; 5.000 ms inside it "
                                    "(what shares are of)\n"));
    ck_assert_ptr_nonnull(strstr(t, "\n  NVTX range     : step\n  Call site      : none recorded\n"));
    free(t);
    char *j = render(r, SC_FMT_JSON);
    ck_assert_ptr_nonnull(strstr(j, "\"nvtx_range\": \"step\",\n"));
    ck_assert_ptr_nonnull(strstr(j, "\"nvtx_range_ns\": 5000000"));
    free(j);
    roundtrip(r);

    r = ranged(0);
    ck_assert_uint_eq(sc_process_run_ns(&r->procs[0]), 1000000000);
    sc_report_judge(r, NULL);
    ck_assert_int_eq(r->findings[0].severity, SC_SEV_NOTE);      /* 1 ms of 1 s: under 0.5% */
    free(r->findings[0].nvtx_range);
    r->findings[0].nvtx_range = NULL;
    j = render(r, SC_FMT_JSON);
    ck_assert_ptr_nonnull(strstr(j, "\"nvtx_range\": null,"));
    ck_assert_ptr_null(strstr(j, "nvtx_range_ns"));
    free(j);
    t = render(r, SC_FMT_TEXT);
    ck_assert_ptr_null(strstr(t, "NVTX range"));
    free(t);
    roundtrip(r);
}
END_TEST

/* Shares of the steady loop: a replay-priced finding of 1 ms is a warning
   against a 100 ms loop, a note against the 1 s window it keeps as a
   finding of the set-up (finding.window_ns); the text says of which, the
   JSON carries both, and both read back. */
/* Two rules of one call whose fixes each remove the same wait (cudaFree in
   a loop: SC301 and SC303) count their predicted saving once: the larger;
   a third finding at another site, and a measured cost at the same site,
   count apart. */
START_TEST(one_saving_per_site)
{
    sc_report *r = sc_report_new();
    sc_finding *f = add(r, SC_RULE_SC301, SC_SEV_WARNING, 10, "00000000000000aa");
    f->cost_ns = 83000000;
    f->basis = SC_COST_REPLAY;
    f = add(r, SC_RULE_SC303, SC_SEV_WARNING, 10, "00000000000000aa");
    f->cost_ns = 83000000;
    f->basis = SC_COST_REPLAY;
    ck_assert_uint_eq(sc_report_cost(r), 83000000);
    r->findings[1].cost_ns = 90000000;
    ck_assert_uint_eq(sc_report_cost(r), 90000000);
    f = add(r, SC_RULE_SC403, SC_SEV_WARNING, 10, "00000000000000bb");
    f->cost_ns = 5000000;
    f->basis = SC_COST_REPLAY_MEASURED;
    ck_assert_uint_eq(sc_report_cost(r), 95000000);
    f = add(r, SC_RULE_SC101, SC_SEV_WARNING, 10, "00000000000000aa");
    f->cost_ns = 1000000;
    f->basis = SC_COST_GPU;
    ck_assert_uint_eq(sc_report_cost(r), 96000000);
    /* per process (the HTML page's rows): the same rule within each */
    f = add(r, SC_RULE_SC301, SC_SEV_WARNING, 10, "00000000000000aa");
    f->cost_ns = 70000000;
    f->basis = SC_COST_REPLAY;
    f->process = 1;
    ck_assert_uint_eq(sc_report_cost_of(r, 0), 96000000);
    ck_assert_uint_eq(sc_report_cost_of(r, 1), 70000000);
    ck_assert_uint_eq(sc_report_cost(r), 166000000);
    sc_report_free(r);
}
END_TEST

/* Three host syncs of one loop, each saving 0.5 ms of a 100 ms loop (under
   the 1 ms bar), 1.2 ms fixed at once: each is a warning (_i 0); notes where
   they save 0.9 ms at once (1), where that figure is no predicted saving
   (2), and for a crumb of the group (4: 0.1 ms of 1.2 against a sixth).
   One of them worth fixing alone (3: 1.1 ms) lifts the others with it, as
   seed 003's three syncs on an H200 (1.06, 0.73 and 0.30 ms alone, 1.46 at
   once), but not a crumb (5: 0.1 ms of 1.6). */
START_TEST(group_warning)
{
    static const struct { uint64_t cost[3], together; uint8_t basis; int warn[3]; } c[] = {
        {{500000, 500000, 500000}, 1200000, SC_COST_REPLAY, {1, 1, 1}},
        {{500000, 500000, 500000}, 900000, SC_COST_REPLAY, {0, 0, 0}},
        {{500000, 500000, 500000}, 1200000, SC_COST_GPU, {0, 0, 0}},
        {{1100000, 500000, 500000}, 1200000, SC_COST_REPLAY_MEASURED, {1, 1, 1}},
        {{600000, 600000, 100000}, 1200000, SC_COST_REPLAY, {1, 1, 0}},
        {{1100000, 500000, 100000}, 1600000, SC_COST_REPLAY, {1, 1, 0}},
    };
    sc_report *r = sc_report_new();
    sc_process *p = sc_report_add_process(r);
    ck_assert_ptr_nonnull(p);
    p->start_time = 1000.0;
    p->end_time = 1000.1;
    for (int i = 0; i < 3; i++) {
        sc_finding *f = add(r, SC_RULE_SC403, SC_SEV_WARNING, 3, "");
        f->basis = c[_i].basis;
        f->cost_ns = c[_i].cost[i];
        f->together_ns = c[_i].together;
        f->together_n = 3;
    }
    sc_report_judge(r, NULL);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(r->findings[i].severity, c[_i].warn[i] ? SC_SEV_WARNING : SC_SEV_NOTE);
    sc_report_free(r);
}
END_TEST

/* Findings one fix changes together count once, at what they save at once:
   seed 004's two copy lines pinned, 17.0 and 29.3 ms alone and 32.3 at
   once, add 32.3 (_i 0); with one of them a note, the other its own 29.3
   (_i 1); three host syncs of 0.5 ms, 1.2 at once, beside a finding of its
   own (2 ms): 3.2 (_i 2). */
START_TEST(together_counted_once)
{
    static const struct { int n; uint64_t cost[3], together, want; int note; } c[] = {
        {2, {17000000, 29300000}, 32300000, 32300000, 0},
        {2, {17000000, 29300000}, 32300000, 29300000, 1},
        {3, {500000, 500000, 500000}, 1200000, 3200000, 0},
    };
    sc_report *r = sc_report_new();
    for (int i = 0; i < c[_i].n; i++) {
        char cs[17];
        snprintf(cs, sizeof cs, "%016x", i + 1);
        sc_finding *f = add(r, c[_i].n == 2 ? SC_RULE_SC203 : SC_RULE_SC403,
                            c[_i].note && i == 0 ? SC_SEV_NOTE : SC_SEV_WARNING, 10, cs);
        f->basis = SC_COST_REPLAY;
        f->cost_ns = c[_i].cost[i];
        f->together_ns = c[_i].together;
        f->together_n = (uint64_t)c[_i].n;
    }
    if (_i == 2) {
        sc_finding *f = add(r, SC_RULE_SC203, SC_SEV_WARNING, 10, "00000000000000ff");
        f->basis = SC_COST_REPLAY;
        f->cost_ns = 2000000;
    }
    ck_assert_uint_eq(sc_report_cost(r), c[_i].want);
    sc_report_free(r);
}
END_TEST

START_TEST(loop_shares)
{
    sc_report *r = sc_report_new();
    sc_process *p = sc_report_add_process(r);
    ck_assert_ptr_nonnull(p);
    p->start_time = 1000.0;
    p->end_time = 1001.0;
    p->window_ns = 1000000000;
    p->model_ns = 1000000000;
    p->fixed_ns = 960000000;
    p->loop_ns = 100000000;
    for (int i = 0; i < 2; i++) {
        sc_finding *f = add(r, SC_RULE_SC403, SC_SEV_WARNING, 3, "");
        f->basis = SC_COST_REPLAY;
        f->cost_ns = 1000000;
    }
    r->findings[1].window_ns = 1000000000;
    ck_assert_uint_eq(sc_process_window_ns(p), 100000000);
    ck_assert_str_eq(sc_process_window_name(p), "the steady loop");
    ck_assert_uint_eq(sc_finding_window_ns(r, &r->findings[0]), 100000000);
    ck_assert_uint_eq(sc_finding_window_ns(r, &r->findings[1]), 1000000000);
    sc_report_judge(r, NULL);
    ck_assert_int_eq(r->findings[0].severity, SC_SEV_WARNING);   /* 1 ms of 100 ms */
    ck_assert_int_eq(r->findings[1].severity, SC_SEV_NOTE);      /* 1 ms of 1 s: under 0.5% */
    /* with --range, the range's time: neither the loop nor a finding's window */
    p->range = strdup("step");
    p->range_ns = 5000000;
    ck_assert_uint_eq(sc_finding_window_ns(r, &r->findings[1]), 5000000);
    ck_assert_str_eq(sc_finding_window_name(r, &r->findings[1]), "the time in the range");
    free(p->range);
    p->range = NULL;
    p->range_ns = 0;
    char *t = render(r, SC_FMT_TEXT);
    ck_assert_ptr_nonnull(strstr(t, "\n@ Steady loop          : 100.000 ms, from a step before a hazard of every "));
    ck_assert_ptr_nonnull(strstr(t, "(1.00% of the steady loop)"));
    ck_assert_ptr_nonnull(strstr(t, "(0.10% of the active window)"));
    /* all fixed: 4% of the window, and what that is of the loop */
    ck_assert_ptr_nonnull(strstr(t, "960.000 ms predicted (4.00% less; 40.000 ms, 40.00% of the steady loop) "));
    free(t);
    char *j = render(r, SC_FMT_JSON);
    ck_assert_ptr_nonnull(strstr(j, "\"loop_ns\": 100000000,"));
    int nw = 0;   /* the process's (as "process" and in "processes"), and one finding's */
    for (const char *w = j; (w = strstr(w, "\"window_ns\"")); w++)
        nw++;
    ck_assert_int_eq(nw, 3);
    free(j);
    roundtrip(r);   /* frees r */
}
END_TEST

static sc_callsite *with_py(sc_report *r, const char *id, const char *const *files, size_t n)
{
    sc_callsite *cs = sc_report_add_callsite(r, id);
    ck_assert_ptr_nonnull(cs);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(sc_callsite_add_pyframe(cs, files[i], (unsigned)(10 + i), i ? "<module>" : "batch_to"), 0);
    return cs;
}

START_TEST(via_frames)
{
    static const char *const lightning[] = {
        "/venv/lib/python3.12/site-packages/lightning/fabric/utilities/apply_func.py",
        "/venv/lib/python3.12/site-packages/lightning/pytorch/trainer/trainer.py", "/home/u/train.py"};
    static const char *const only_lib[] = {"/usr/lib/python3/dist-packages/torch/nn/modules/module.py",
                                           "/usr/lib/python3.12/threading.py"};
    static const char *const frozen[] = {"<frozen importlib._bootstrap>", "/home/u/train.py"};
    static const char *const user_first[] = {"/home/u/train.py", "/usr/lib/python3.12/runpy.py"};
    sc_report *r = sc_report_new();
    int py;
    char b[512];
    const sc_callsite *cs = with_py(r, "00000000000000a1", lightning, 3);
    ck_assert_int_eq(sc_callsite_shown(cs, &py), 2);
    ck_assert_int_eq(py, 1);
    ck_assert_int_eq(sc_callsite_via(cs), 0);
    sc_callsite_via_format(cs, b, sizeof b);
    ck_assert_str_eq(b, "via lightning/fabric/utilities/apply_func.py:10 in batch_to()");
    sc_callsite_where(cs, b, sizeof b);
    ck_assert_str_eq(b, "/home/u/train.py:12 in <module>() via lightning/fabric/utilities/apply_func.py:10 "
                        "in batch_to()");
    cs = with_py(r, "00000000000000a2", only_lib, 2);   /* nothing of the program's: as before */
    ck_assert_int_eq(sc_callsite_shown(cs, &py), 0);
    ck_assert_int_eq(sc_callsite_via(cs), -1);
    sc_callsite_via_format(cs, b, sizeof b);
    ck_assert_str_eq(b, "");
    cs = with_py(r, "00000000000000a3", frozen, 2);     /* import machinery is no via */
    ck_assert_int_eq(sc_callsite_shown(cs, &py), 1);
    ck_assert_int_eq(sc_callsite_via(cs), -1);
    cs = with_py(r, "00000000000000a4", user_first, 2);
    ck_assert_int_eq(sc_callsite_shown(cs, &py), 0);
    ck_assert_int_eq(sc_callsite_via(cs), -1);
    ck_assert_str_eq(sc_pyframe_libpath("/usr/lib/python3.12/contextlib.py"), "contextlib.py");
    ck_assert_str_eq(sc_pyframe_libpath("/x/dist-packages/torch/_tensor.py"), "torch/_tensor.py");
    ck_assert_str_eq(sc_pyframe_libpath("/home/u/train.py"), "/home/u/train.py");
    ck_assert_str_eq(sc_pyframe_libpath("/usr/lib64/python3.12/contextlib.py"), "contextlib.py");
    ck_assert_str_eq(sc_pyframe_libpath("/usr/lib64/python3.12/site-packages/numpy/core.py"), "numpy/core.py");
    ck_assert_int_eq(sc_pyframe_is_library("/home/u/train.py"), 0);
    ck_assert_int_eq(sc_pyframe_is_library("<string>"), 1);
    /* what strstr of "/site-packages/", "/dist-packages/", "/lib/python3" or "/lib64/python3" answers: a
       slash before, the whole name after, anywhere in the path */
    static const struct { const char *path; int lib; } paths[] = {
        {"/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py", 1},
        {"/home/u/venv/lib64/site-packages/torch/optim/adam.py", 1},
        {"/usr/lib64/python3.12/contextlib.py", 1}, {"/usr/lib32/python3.12/x.py", 0},
        {"/opt/x/lib/python3", 1}, {"x/lib/python3.9/y.py", 1}, {"/lib/python2.7/y.py", 0},
        {"site-packages/a.py", 0}, {"/a/site-packages", 0}, {"/a/site-packagesX/b.py", 0},
        {"/x//dist-packages/y.py", 1}, {"/x/my-site-packages/y.py", 0}, {"/", 0}, {"", 0}, {"train.py", 0},
        {"/work/site/packages/dist/x.py", 0}, {"/dist-packages/", 1},
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        ck_assert_msg(sc_pyframe_is_library(paths[i].path) == paths[i].lib, "%s: expected %d", paths[i].path,
                      paths[i].lib);
    /* JSON: via is the index in python, null without one */
    char *j = render(r, SC_FMT_JSON);
    ck_assert_ptr_nonnull(strstr(j, "\"id\": \"00000000000000a1\",\n      \"primary\": null,\n      \"via\": 0,"));
    ck_assert_ptr_nonnull(strstr(j, "\"id\": \"00000000000000a2\",\n      \"primary\": null,\n      \"via\": null,"));
    free(j);
    roundtrip(r);
}
END_TEST

START_TEST(roundtrip_all)
{
    roundtrip(fixture_process_a());
    roundtrip(fixture_process_b());
    roundtrip(fixture_merged());
    roundtrip(sc_report_new());
}
END_TEST

/* A valid report with one member replaced by text. */
static const char *const base_json =
    "{\"schema_version\": 1, \"tool\": {\"name\": \"streamcheck\", \"version\": \"1\"},\n"
    " \"processes\": [{\"exe\": \"a\", \"cmdline\": null, \"pid\": 1, \"host\": \"h\", \"device\": null,\n"
    "   \"driver_version\": 13000, \"async_engines\": 2, \"max_connections\": 8, \"mode\": \"detect\",\n"
    "   \"simulated\": true, \"start_time\": 1.5, \"end_time\": 2, \"calls\": 3, \"shim_ns\": 4,\n"
    "   \"suppressed\": 0}],\n"
    " \"findings\": [{\"rule\": \"SC101\", \"name\": \"legacy-default-stream\", \"severity\": \"warning\",\n"
    "   \"api\": \"x\", \"driver_api\": null, \"count\": COUNT, \"blocked_ns\": 0, \"pending\": 0, \"bytes\": 0,\n"
    "   \"lost_ns\": 0, \"callsite\": CALLSITE, \"detail\": null, \"process\": PROCESS}],\n"
    " \"callsites\": [{\"id\": \"00000000000000aa\", \"frames\": [{\"module\": \"m\", \"offset\": OFFSET,\n"
    "   \"function\": null, \"file\": null, \"line\": 0}], \"python\": []}],\n"
    " \"redirects\": [], \"api_counts\": {}, \"api_counts_by_library\": {\"libx.so\": {\"cuA\": 2}}}\n";

static char *with(const char *count, const char *callsite, const char *process, const char *offset)
{
    static char buf[4096];
    const char *keys[] = {"COUNT", "CALLSITE", "PROCESS", "OFFSET"};
    const char *vals[] = {count, callsite, process, offset};
    char *o = buf;
    for (const char *p = base_json; *p;) {
        int hit = 0;
        for (int k = 0; k < 4 && !hit; k++)
            if (!strncmp(p, keys[k], strlen(keys[k]))) {
                o += sprintf(o, "%s", vals[k]);
                p += strlen(keys[k]);
                hit = 1;
            }
        if (!hit)
            *o++ = *p++;
    }
    *o = '\0';
    return buf;
}

/* text with the first occurrence of old replaced by new. */
static const char *subst(const char *text, const char *old, const char *new)
{
    static char buf[8192];
    const char *at = strstr(text, old);
    ck_assert_msg(at != NULL, "'%s' not in the text", old);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - text), text, new, at + strlen(old));
    return buf;
}

static void read_fails(const char *text, const char *want)
{
    char err[512];
    sc_report *r = fixture_process_a();
    size_t nf = r->nfindings, np = r->nprocs, nc = r->ncallsites;
    int rc = sc_report_parse_json(r, text, strlen(text), "in.json", err, sizeof err);
    ck_assert_msg(rc == -1, "accepted: %s", text);
    ck_assert_msg(!strcmp(err, want), "message '%s', want '%s'", err, want);
    /* the report is unchanged */
    ck_assert_uint_eq(r->nfindings, nf);
    ck_assert_uint_eq(r->nprocs, np);
    ck_assert_uint_eq(r->ncallsites, nc);
    sc_report_free(r);
}

START_TEST(reader_accepts_base)
{
    char err[512];
    sc_report *r = sc_report_new();
    const char *t = with("5", "\"00000000000000aa\"", "0", "\"0x1A\"");
    ck_assert_msg(sc_report_parse_json(r, t, strlen(t), "in.json", err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(r->nfindings, 1);
    ck_assert(r->findings[0].count == 5);
    ck_assert(r->callsites[0].frames[0].offset == 0x1a);
    ck_assert(r->procs[0].start_time == 1.5);
    ck_assert(r->procs[0].simulated == 1);
    ck_assert_uint_eq(r->ncounts, 1);
    ck_assert_ptr_null(r->findings[0].nvtx_range);   /* older reports have none */
    ck_assert_ptr_null(r->procs[0].range);
    sc_report_free(r);
}
END_TEST

START_TEST(reader_errors)
{
    read_fails("", "in.json: empty file: not a streamcheck report");
    read_fails("{\"schema_version\": 1,}", "in.json: not valid JSON: 1:22: expected a string key in object, found '}'");
    read_fails("[1]", "in.json: not a streamcheck report: the JSON value is an array, not an object");
    read_fails("{\"a\": 1}", "in.json: no schema_version member: not a streamcheck JSON report");
    read_fails("{\"schema_version\": \"1\"}", "in.json: schema_version: expected an integer, found a string");
    read_fails("{\"schema_version\": 5}",
               "in.json: schema_version 5 is not supported (this streamcheck reads version 4); use a newer streamcheck");
    read_fails("{\"schema_version\": 0}", "in.json: schema_version 0 is not supported (this streamcheck reads version 4)");
    read_fails("{\"schema_version\": 2}", "in.json: tool: missing");
    read_fails("{\"schema_version\": 1}", "in.json: tool: missing");
    read_fails(with("\"5\"", "\"00000000000000aa\"", "0", "\"0x1\""),
               "in.json: findings[0].count: expected a non-negative integer below 2^64, found a string");
    read_fails(with("-5", "\"00000000000000aa\"", "0", "\"0x1\""),
               "in.json: findings[0].count: expected a non-negative integer below 2^64, found -5");
    read_fails(with("1.5", "\"00000000000000aa\"", "0", "\"0x1\""),
               "in.json: findings[0].count: expected a non-negative integer below 2^64, found 1.5");
    read_fails(with("5", "\"00000000000000ab\"", "0", "\"0x1\""),
               "in.json: findings[0].callsite: call site 00000000000000ab is not in callsites");
    read_fails(with("5", "\"xyz\"", "0", "\"0x1\""),
               "in.json: findings[0].callsite: \"xyz\" is not a call-site id (16 lowercase hex digits)");
    read_fails(with("5", "17", "0", "\"0x1\""),
               "in.json: findings[0].callsite: expected a string or null, found 17");
    read_fails(with("5", "null", "1", "\"0x1\""),
               "in.json: findings[0].process: process 1 does not exist (the report has 1)");
    read_fails(with("5", "null", "0", "\"12\""),
               "in.json: callsites[0].frames[0].offset: \"12\" is not a hex offset such as \"0x1a2b\"");
    read_fails(with("5", "null", "0", "\"0x11112222333344445\""),
               "in.json: callsites[0].frames[0].offset: \"0x11112222333344445\" is not a hex offset such as \"0x1a2b\"");
    read_fails(with("5", "null", "0", "4660"),
               "in.json: callsites[0].frames[0].offset: expected a string, found 4660");

    /* unknown rule, wrong name, bad severity, wrong types */
    const char *t = with("5", "null", "0", "\"0x1\"");
    read_fails(subst(t, "SC101", "SC999"),
               "in.json: findings[0].rule: unknown rule \"SC999\" (this streamcheck knows SC101 to SC703)");
    read_fails(subst(t, "SC101", "sc101"),
               "in.json: findings[0].rule: unknown rule \"sc101\" (this streamcheck knows SC101 to SC703)");
    read_fails(subst(t, "legacy-default-stream", "legacy-default-strean"),
               "in.json: findings[0].name: \"legacy-default-strean\" is not the name of SC101 (legacy-default-stream)");
    read_fails(subst(t, "\"warning\"", "\"warnin_\""),
               "in.json: findings[0].severity: \"warnin_\" is not error, warning or note");
    read_fails(subst(t, "\"simulated\": true", "\"simulated\": 1"),
               "in.json: processes[0].simulated: expected a boolean, found 1");
    read_fails(subst(t, "\"start_time\": 1.5", "\"start_time\": 1e5"),
               "in.json: processes[0].start_time: expected seconds as a decimal number, found 1e5");
    read_fails(subst(t, "\"pid\": 1", "\"pid\": 99999999999999999999"),
               "in.json: processes[0].pid: expected an integer from -9223372036854775808 to 9223372036854775807, "
               "found 99999999999999999999");
    read_fails(subst(t, "\"cuA\": 2", "\"cuA\": -2"),
               "in.json: api_counts_by_library.libx.so.cuA: expected a non-negative integer, found -2");
    read_fails(subst(t, "{\"cuA\": 2}", "[2]"),
               "in.json: api_counts_by_library.libx.so: expected an object, found an array");
    read_fails(subst(t, "\"api\": \"x\"", "\"api\": \"a\\u0000b\""),
               "in.json: findings[0].api: string contains a NUL character");
    read_fails(subst(t, "\"redirects\": []", "\"redirects\": {}"),
               "in.json: redirects: expected an array, found an object");
    read_fails(subst(t, "\"api_counts\": {}", "\"api_counts\": {\"a\": \"b\"}"),
               "in.json: api_counts.a: expected a non-negative integer, found a string");
    read_fails(subst(t, "\"process\": 0}", "\"process\": 0, \"process\": 0}"),
               "in.json: not valid JSON: 8:66: duplicate key \"process\" in object");
    /* unknown members are ignored: adding fields does not bump the version */
    char err[512];
    sc_report *r = sc_report_new();
    const char *u = subst(t, "\"redirects\": []", "\"redirects\": [], \"future\": {\"x\": [1, 2]}");
    ck_assert_msg(sc_report_parse_json(r, u, strlen(u), "in.json", err, sizeof err) == 0, "%s", err);
    sc_report_free(r);
}
END_TEST

START_TEST(reader_duplicate_callsite)
{
    const char *t = "{\"schema_version\": 1, \"tool\": {\"name\": \"streamcheck\", \"version\": null},"
                    " \"processes\": [], \"findings\": [], \"redirects\": [], \"api_counts_by_library\": {},"
                    " \"callsites\": [{\"id\": \"00000000000000aa\", \"frames\": [], \"python\": []},"
                    "                {\"id\": \"00000000000000aa\", \"frames\": [], \"python\": []}]}";
    read_fails(t, "in.json: callsites[1].id: call site 00000000000000aa appears twice");
}
END_TEST

START_TEST(reader_file)
{
    char err[512], dir[] = "/tmp/sc-test-XXXXXX", path[600];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sc_report *r = sc_report_new();
    snprintf(path, sizeof path, "%s/missing.json", dir);
    ck_assert_int_eq(sc_report_read_json(r, path, err, sizeof err), -1);
    ck_assert(strstr(err, "missing.json: No such file or directory") != NULL);
    ck_assert_int_eq(sc_report_read_json(r, dir, err, sizeof err), -1);
    ck_assert(strstr(err, ": is a directory") != NULL);

    /* sc_report_write_file -> sc_report_read_json */
    sc_report *a = fixture_process_a();
    char written[700];
    ck_assert_int_eq(sc_report_write_file(a, SC_FMT_JSON, dir, "/usr/bin/my app", 4242, written, sizeof written), 0);
    snprintf(path, sizeof path, "%s/my app.4242.streamcheck.json", dir);
    ck_assert_str_eq(written, path);
    ck_assert_msg(sc_report_read_json(r, path, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(r->nfindings, a->nfindings);
    unlink(path);

    /* every format; no temporary file is left behind */
    for (sc_format f = SC_FMT_TEXT; f <= SC_FMT_JUNIT; f <<= 1)
        ck_assert_int_eq(sc_report_write_file(a, f, dir, "app", 7, NULL, 0), 0);
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            ck_assert_msg(!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."), "left %s", e->d_name);
        else {
            files++;
            ck_assert_msg(!strncmp(e->d_name, "app.7.streamcheck.", 18), "%s", e->d_name);
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    ck_assert_int_eq(files, 4);

    /* a directory that does not exist: an error, errno set, nothing written */
    snprintf(path, sizeof path, "%s/nope", dir);
    errno = 0;
    ck_assert_int_eq(sc_report_write_file(a, SC_FMT_JSON, path, "app", 7, NULL, 0), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(sc_report_write_named(a, SC_FMT_JSON, NULL, dir, "a/b", NULL, 0), -1);
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_int_eq(rmdir(dir), 0);
    sc_report_free(a);
    sc_report_free(r);
}
END_TEST

START_TEST(file_names)
{
    sc_process p = {.exe = "/usr/bin/my app", .host = "gpu01.cluster", .pid = 4242, .rank = 3,
                    .start_time = 1717243200.75};
    char b[256];
    sc_report_file_base(&p, b, sizeof b);
    ck_assert_str_eq(b, "my app.gpu01.cluster.4242.r3.20240601-120000");
    p = (sc_process){.exe = NULL, .host = NULL, .pid = 7, .rank = -1, .start_time = 0};
    sc_report_file_base(&p, b, sizeof b);
    ck_assert_str_eq(b, "program.7");
    p = (sc_process){.exe = "/x/.hidden", .host = "a/b", .pid = 1, .rank = -1, .start_time = 0};
    sc_report_file_base(&p, b, sizeof b);
    ck_assert_str_eq(b, "program.a_b.1");
}
END_TEST

/* A process's report never replaces a file that is there (ranks in PID
   namespaces of their own, a rerun): NAME-2, NAME-3, ... */
START_TEST(write_never_replaces)
{
    char dir[] = "/tmp/sc-test-XXXXXX", path[600], want[600];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sc_report *a = fixture_process_a();
    for (int k = 1; k <= 3; k++) {
        ck_assert_int_eq(sc_report_write_new(a, SC_FMT_JSON, NULL, dir, "app.h.7", path, sizeof path), 0);
        if (k == 1)
            snprintf(want, sizeof want, "%s/app.h.7.streamcheck.json", dir);
        else
            snprintf(want, sizeof want, "%s/app.h.7-%d.streamcheck.json", dir, k);
        ck_assert_str_eq(path, want);
    }
    /* sc_report_write_named replaces, as the report tool's merges do */
    ck_assert_int_eq(sc_report_write_named(a, SC_FMT_JSON, NULL, dir, "app.h.7", path, sizeof path), 0);
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        files++;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char err[256];
        sc_report *r = sc_report_new();
        ck_assert_msg(sc_report_read_json(r, path, err, sizeof err) == 0, "%s", err);
        sc_report_free(r);
        unlink(path);
    }
    closedir(d);
    ck_assert_int_eq(files, 3);
    ck_assert_int_eq(rmdir(dir), 0);
    sc_report_free(a);
}
END_TEST

START_TEST(write_error_leaves_nothing)
{
    /* /dev/full makes every write fail: the renderer must report it. */
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        return;
    setvbuf(f, NULL, _IONBF, 0);
    sc_report *a = fixture_process_a();
    ck_assert_int_eq(sc_render_json(a, f, NULL), -1);
    ck_assert_int_eq(sc_render_text(a, f, NULL), -1);
    fclose(f);
    sc_report_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, empty_report);
    tcase_add_test(tc, summary_and_totals);
    tcase_add_test(tc, overhead_estimate);
    tcase_add_test(tc, sort_order);
    tcase_add_test(tc, building);
    tcase_add_test(tc, merge);
    tcase_add_test(tc, formatting);
    tcase_add_test(tc, source_location);
    tcase_add_test(tc, nvidia_libraries);
    tcase_add_test(tc, primary_frame);
    tcase_add_test(tc, paths_and_source_root);
    tcase_add_test(tc, range_shares);
    tcase_add_loop_test(tc, group_warning, 0, 6);
    tcase_add_loop_test(tc, together_counted_once, 0, 3);
    tcase_add_test(tc, via_frames);
    tcase_add_test(tc, roundtrip_all);
    tcase_add_test(tc, reader_accepts_base);
    tcase_add_test(tc, reader_errors);
    tcase_add_test(tc, reader_duplicate_callsite);
    tcase_add_test(tc, reader_file);
    tcase_add_test(tc, write_error_leaves_nothing);
    tcase_add_test(tc, file_names);
    tcase_add_test(tc, write_never_replaces);
    tcase_add_test(tc, loop_shares);
    tcase_add_test(tc, one_saving_per_site);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
