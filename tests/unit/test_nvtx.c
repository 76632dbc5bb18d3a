/* test_nvtx: the shim as an NVTX injection library (src/shim/nvtx.c) and
 * the ranges it follows (src/shim/ranges.c), through an export table made
 * here as NVTX's headers make theirs (nvtxDetail/nvtxImpl.h): the slots
 * filled, the innermost named range of a thread, ranges started on one
 * thread and ended on another, --range's scope and its time (the union
 * over threads), a thread that ends inside a range, the name table full,
 * errno kept, the payload extension's ranges (NCCL's pop).  It prints what
 * a push and pop cost. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include "core.h"
#include "nvtx.h"
#include "ranges.h"

/* ------------------------------------------- a fake NVTX instance --- */
static NvtxFunctionPointer core_fn[NVTX_CBID_CORE_SIZE], core2_fn[NVTX_CBID_CORE2_SIZE];
static NvtxFunctionPointer *core_tab[NVTX_CBID_CORE_SIZE + 1], *core2_tab[NVTX_CBID_CORE2_SIZE + 1];
static uint32_t version_set;

static int get_module_table(NvtxCallbackModule m, NvtxFunctionTable *out, unsigned *size)
{
    if (m == NVTX_CB_MODULE_CORE) {
        *out = core_tab;
        *size = NVTX_CBID_CORE_SIZE;
    } else if (m == NVTX_CB_MODULE_CORE2) {
        *out = core2_tab;
        *size = NVTX_CBID_CORE2_SIZE;
    } else {
        return 0;
    }
    return 1;
}

static void set_version(uint32_t v) { version_set = v; }

static const NvtxExportTableCallbacks callbacks = {sizeof callbacks, get_module_table};
static const NvtxExportTableVersionInfo version_info = {sizeof version_info, NVTX_VERSION, 0, set_version};

static const void *get_export_table(uint32_t id)
{
    return id == NVTX_ETID_CALLBACKS ? (const void *)&callbacks
         : id == NVTX_ETID_VERSIONINFO ? (const void *)&version_info : NULL;
}

/* The instance's API, through its slots, as nvtxImplCore.h calls them. */
#define CORE(NAME) ((nvtx##NAME##_impl_fntype)core_fn[NVTX_CBID_CORE_##NAME])
#define CORE2(NAME) ((nvtx##NAME##_impl_fntype)core2_fn[NVTX_CBID_CORE2_##NAME])

static void attach(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    for (unsigned i = 1; i < NVTX_CBID_CORE_SIZE; i++)
        core_tab[i] = &core_fn[i];
    for (unsigned i = 1; i < NVTX_CBID_CORE2_SIZE; i++)
        core2_tab[i] = &core2_fn[i];
    /* --range step, read as the shim would at its initialization */
    setenv("STREAMCHECK_RANGE", "step", 1);
    snprintf(sc_opt.range, sizeof sc_opt.range, "step");
    ck_assert_int_eq(InitializeInjectionNvtx2(get_export_table), 1);
}

static const char *current(void)
{
    const char *s = sc_range_name(sc_range_current());
    return s ? s : "-";
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* ----------------------------------------------------------- tests --- */
START_TEST(slots)
{
    attach();
    static const unsigned core[] = {NVTX_CBID_CORE_RangePushA, NVTX_CBID_CORE_RangePushW, NVTX_CBID_CORE_RangePushEx,
                                    NVTX_CBID_CORE_RangePop, NVTX_CBID_CORE_RangeStartA, NVTX_CBID_CORE_RangeStartW,
                                    NVTX_CBID_CORE_RangeStartEx, NVTX_CBID_CORE_RangeEnd};
    static const unsigned core2[] = {NVTX_CBID_CORE2_DomainRangePushEx, NVTX_CBID_CORE2_DomainRangePop,
                                     NVTX_CBID_CORE2_DomainRangeStartEx, NVTX_CBID_CORE2_DomainRangeEnd,
                                     NVTX_CBID_CORE2_DomainRegisterStringA, NVTX_CBID_CORE2_DomainRegisterStringW};
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
        ck_assert_ptr_nonnull(core_fn[core[i]]);
    for (size_t i = 0; i < sizeof core2 / sizeof core2[0]; i++)
        ck_assert_ptr_nonnull(core2_fn[core2[i]]);
    /* the rest stay NVTX's (no-ops) */
    ck_assert_ptr_null(core_fn[NVTX_CBID_CORE_MarkA]);
    ck_assert_ptr_null(core_fn[NVTX_CBID_CORE_NameOsThreadA]);
    ck_assert_ptr_null(core2_fn[NVTX_CBID_CORE2_DomainCreateA]);
    ck_assert_uint_eq(version_set, NVTX_VERSION);
}
END_TEST

START_TEST(innermost)
{
    attach();
    ck_assert_str_eq(current(), "-");
    ck_assert_int_eq(CORE(RangePop)(), -1);                 /* a pop without a push */
    ck_assert_int_eq(CORE(RangePushA)("outer"), 0);
    ck_assert_int_eq(CORE(RangePushW)(L"w\u00e9de"), 1);
    ck_assert_str_eq(current(), "w\xc3\xa9" "de");          /* UTF-8 */
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    ck_assert_int_eq(CORE(RangePushEx)(&a), 2);            /* unnamed: the enclosing name */
    ck_assert_str_eq(current(), "w\xc3\xa9" "de");
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = CORE2(DomainRegisterStringA)(NULL, "registered");
    ck_assert_ptr_nonnull(a.message.registered);
    ck_assert_int_eq(CORE2(DomainRangePushEx)(NULL, &a), 3);
    ck_assert_str_eq(current(), "registered");
    a.size = 8;                                             /* too small to hold a message: unnamed */
    ck_assert_int_eq(CORE(RangePushEx)(&a), 4);
    ck_assert_str_eq(current(), "registered");
    ck_assert_int_eq(CORE(RangePop)(), 4);
    ck_assert_int_eq(CORE2(DomainRangePop)(NULL), 3);
    ck_assert_int_eq(CORE(RangePop)(), 2);
    ck_assert_int_eq(CORE(RangePop)(), 1);
    ck_assert_str_eq(current(), "outer");
    /* a started range is innermost while it is the later one */
    nvtxRangeId_t id = CORE(RangeStartA)("load");
    ck_assert_uint_ne(id, 0);
    ck_assert_str_eq(current(), "load");
    ck_assert_int_eq(CORE(RangePushA)("inner"), 1);
    ck_assert_str_eq(current(), "inner");
    ck_assert_int_eq(CORE(RangePop)(), 1);
    ck_assert_str_eq(current(), "load");
    CORE(RangeEnd)(id);
    ck_assert_str_eq(current(), "outer");
    ck_assert_int_eq(CORE(RangePop)(), 0);
    ck_assert_str_eq(current(), "-");
    /* deeper than the stack keeps: counted, and the named levels stay right */
    for (int i = 0; i < 200; i++)
        ck_assert_int_eq(CORE(RangePushA)(i == 0 ? "bottom" : "deep"), i);
    ck_assert_str_eq(current(), "deep");
    for (int i = 199; i > 0; i--)
        ck_assert_int_eq(CORE(RangePop)(), i);
    ck_assert_str_eq(current(), "bottom");
    ck_assert_int_eq(CORE(RangePop)(), 0);
}
END_TEST

static void *start_load(void *arg)
{
    *(nvtxRangeId_t *)arg = CORE(RangeStartA)("step");
    return NULL;
}

START_TEST(started_elsewhere)
{
    attach();
    nvtxRangeId_t id = 0;
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, start_load, &id), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_uint_ne(id, 0);
    ck_assert_str_eq(current(), "-");                       /* the other thread's */
    ck_assert_int_eq(sc_range_in_scope(), 0);
    CORE(RangeEnd)(id);                                     /* ended here */
    CORE(RangeEnd)(id);                                     /* twice: nothing */
    CORE(RangeEnd)(12345678);                               /* unknown: nothing */
    nvtxRangeId_t mine = CORE(RangeStartA)("step");
    ck_assert_int_eq(sc_range_in_scope(), 1);
    CORE(RangeEnd)(mine);
    ck_assert_int_eq(sc_range_in_scope(), 0);
}
END_TEST

START_TEST(scope)
{
    attach();
    ck_assert_str_eq(sc_range_scope(), "step");
    ck_assert_int_eq(sc_range_in_scope(), 0);
    CORE(RangePushA)("step");
    CORE(RangePushA)("forward");
    ck_assert_int_eq(sc_range_in_scope(), 1);                 /* enclosing */
    ck_assert_str_eq(current(), "forward");
    CORE(RangePop)();
    CORE(RangePop)();
    ck_assert_int_eq(sc_range_in_scope(), 0);
    CORE(RangePushA)("eval");
    ck_assert_int_eq(sc_range_in_scope(), 0);
    CORE(RangePop)();
}
END_TEST

/* Two threads inside step at once: the time is their union. */
typedef struct span { uint64_t t0, t1; pthread_barrier_t *b; } span;

static void *in_step(void *arg)
{
    span *s = arg;
    pthread_barrier_wait(s->b);        /* the main thread is inside step */
    s->t0 = now_ns();
    CORE(RangePushA)("step");
    sleep_ms(30);
    CORE(RangePop)();
    s->t1 = now_ns();
    return NULL;
}

static void *dies_in_step(void *arg)
{
    (void)arg;
    CORE(RangePushA)("step");
    CORE(RangePushA)("step");
    return NULL;                       /* two open ranges left behind */
}

START_TEST(scope_time)
{
    attach();
    pthread_barrier_t b;
    pthread_barrier_init(&b, NULL, 2);
    span other = {0, 0, &b};
    pthread_t t;
    uint64_t before = sc_range_scope_ns();
    uint64_t t0 = now_ns();
    CORE(RangePushA)("step");
    uint64_t t0b = now_ns();
    ck_assert_int_eq(pthread_create(&t, NULL, in_step, &other), 0);
    pthread_barrier_wait(&b);
    sleep_ms(15);
    uint64_t t1a = now_ns();
    CORE(RangePop)();
    uint64_t t1 = now_ns();
    pthread_join(t, NULL);
    uint64_t got = sc_range_scope_ns() - before;
    /* From the main thread's push to the later of the two pops, once. */
    uint64_t end = other.t1 > t1 ? other.t1 : t1, end_lo = other.t1 > t1a ? other.t1 - 2000000 : t1a;
    ck_assert_msg(got >= end_lo - t0b && got <= end - t0, "union %llu ns, want %llu-%llu",
                  (unsigned long long)got, (unsigned long long)(end_lo - t0b), (unsigned long long)(end - t0));
    ck_assert_msg(got < (t1 - t0) + (other.t1 - other.t0), "the overlap counted twice");
    pthread_barrier_destroy(&b);

    /* A thread that ends inside step leaves it. */
    ck_assert_int_eq(pthread_create(&t, NULL, dies_in_step, NULL), 0);
    pthread_join(t, NULL);
    uint64_t a = sc_range_scope_ns();
    sleep_ms(20);
    ck_assert_uint_eq(sc_range_scope_ns(), a);
}
END_TEST

START_TEST(keeps_errno)
{
    attach();
    errno = 4242;
    CORE(RangePushA)("a brand new name");
    CORE(RangePop)();
    CORE(RangeEnd)(CORE(RangeStartA)("another new one"));
    ck_assert_int_eq(errno, 4242);
}
END_TEST

/* A push and a pop, through the slots, as a program pays for them. */
START_TEST(cost)
{
    attach();
    enum { N = 1000000 };
    CORE(RangePushA)("step");
    CORE(RangePop)();
    uint64_t t0 = now_ns();
    for (int i = 0; i < N; i++) {
        CORE(RangePushA)("forward");
        CORE(RangePop)();
    }
    uint64_t dt = now_ns() - t0;
    printf("# a push (a known name) and a pop: %.1f ns\n", (double)dt / N);
    t0 = now_ns();
    for (int i = 0; i < N / 10; i++) {
        CORE(RangePushA)("step");   /* --range's: the scope's lock, twice */
        CORE(RangePop)();
    }
    dt = now_ns() - t0;
    printf("# a push and a pop of --range's name: %.1f ns\n", (double)dt / (N / 10));
}
END_TEST

/* Last: it fills the name table. */
START_TEST(names_full)
{
    attach();
    char b[32];
    unsigned full = 0;
    for (int i = 0; i < 3000; i++) {
        snprintf(b, sizeof b, "aten::op, seq = %d", i);
        full += sc_range_intern(b) == SC_RANGE_FULL;
    }
    ck_assert_uint_gt(full, 900);
    CORE(RangePushA)("aten::op, seq = 2999");
    ck_assert_str_eq(current(), "?");
    CORE(RangePop)();
    ck_assert_uint_ne(sc_range_intern("step"), SC_RANGE_FULL);    /* known names still are */
    ck_assert_uint_eq(sc_range_intern(""), SC_RANGE_NONE);
    ck_assert_uint_eq(sc_range_intern(NULL), SC_RANGE_NONE);
}
END_TEST

/* The payload extension's module, as nvtxExtImplPayload_v1.h hands it to
   a tool: the range slots filled, the others left to NVTX; another module
   attached with nothing filled.  NCCL's pattern: a range pushed by name
   (nvtxDomainRangePushEx), popped with nvtxRangePopPayload. */
START_TEST(payload_ranges)
{
    attach();
    intptr_t fn[64] = {0};
    nvtxExtModuleSegment_t seg = {0, 63, fn};
    nvtxExtModuleInfo_t info = {NVTX_VERSION, sizeof info, NVTX_EXT_PAYLOAD_MODULEID, NVTX_EXT_PAYLOAD_COMPATID,
                                1, &seg, NULL, NULL};
    ck_assert_int_eq(InitializeInjectionNvtxExtension(&info), 1);
    for (unsigned i = 0; i < 64; i++)
        if (i < NVTX3EXT_CBID_nvtxRangePushPayload || i > NVTX3EXT_CBID_nvtxRangeEndPayload)
            ck_assert_int_eq(fn[i], 0);
        else
            ck_assert_int_ne(fn[i], 0);
    typedef int (*push_fn)(nvtxDomainHandle_t, const nvtxPayloadData_t *, size_t);
    typedef nvtxRangeId_t (*start_fn)(nvtxDomainHandle_t, const nvtxPayloadData_t *, size_t);
    typedef void (*end_fn)(nvtxDomainHandle_t, nvtxRangeId_t, const nvtxPayloadData_t *, size_t);
    push_fn push = (push_fn)fn[NVTX3EXT_CBID_nvtxRangePushPayload];
    push_fn pop = (push_fn)fn[NVTX3EXT_CBID_nvtxRangePopPayload];
    int v = 1;
    nvtxPayloadData_t pd = {NVTX_PAYLOAD_SCHEMA_ID_STATIC_START, sizeof v, &v};
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = CORE2(DomainRegisterStringA)(NULL, "ncclCommInitRankConfig");
    ck_assert_str_eq(current(), "-");
    ck_assert_int_eq(CORE2(DomainRangePushEx)(NULL, &a), 0);
    ck_assert_int_eq(push(NULL, &pd, 1), 1);                  /* unnamed: the enclosing name */
    ck_assert_str_eq(current(), "ncclCommInitRankConfig");
    ck_assert_int_eq(pop(NULL, &pd, 1), 1);
    ck_assert_int_eq(pop(NULL, &pd, 1), 0);                   /* NCCL's pop of its named range */
    ck_assert_str_eq(current(), "-");
    nvtxRangeId_t id = ((start_fn)fn[NVTX3EXT_CBID_nvtxRangeStartPayload])(NULL, &pd, 1);
    ck_assert_uint_ne(id, 0);
    ((end_fn)fn[NVTX3EXT_CBID_nvtxRangeEndPayload])(NULL, id, &pd, 1);
    ck_assert_str_eq(current(), "-");
    /* another module (the counters', 3): attached, nothing of ours in it */
    memset(fn, 0, sizeof fn);
    info.moduleId = 3;
    ck_assert_int_eq(InitializeInjectionNvtxExtension(&info), 1);
    for (unsigned i = 0; i < 64; i++)
        ck_assert_int_eq(fn[i], 0);
    ck_assert_int_eq(InitializeInjectionNvtxExtension(NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvtx");
    TCase *tc = tcase_create("nvtx");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, slots);
    tcase_add_test(tc, innermost);
    tcase_add_test(tc, started_elsewhere);
    tcase_add_test(tc, scope);
    tcase_add_test(tc, scope_time);
    tcase_add_test(tc, keeps_errno);
    tcase_add_test(tc, cost);
    tcase_add_test(tc, names_full);
    tcase_add_test(tc, payload_ranges);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
