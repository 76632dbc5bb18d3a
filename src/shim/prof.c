/* prof.c: STREAMCHECK_PROFILE=1, where the shim's time goes.
 *
 * The shim's phases (shim.h, sc_phase) are timed with the time-stamp
 * counter and counted in each thread's own cells (no lock, no shared
 * line); the process-wide ones (initialization, fork, exit) in core.c's.
 * At exit, after the report is written, this part adds them up and prints
 * one table on stderr, beside the report's own estimate of the time in
 * streamcheck.  Times are inclusive: a phase's time contains the phases
 * indented under it.  Off, the phases cost one predictable branch each, on
 * the slow path only; the fast path is timed through its existing sample
 * (sc_fast_timed), which profile mode makes every call.
 */
#include "config.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "hb.h"
#include "modules.h"
#include "thread.h"

typedef struct prof_acc {
    sc_prof_cell c[SC_PH_N];
    uint64_t own_ticks, notes, calls;
} prof_acc;

static void add_thread(sc_thread *t, void *arg)
{
    prof_acc *a = arg;
    for (unsigned i = 0; i < SC_PH_N; i++) {
        a->c[i].ticks += t->prof[i].ticks;
        a->c[i].calls += t->prof[i].calls;
        a->c[i].items += t->prof[i].items;
    }
    a->own_ticks += atomic_load(&t->own_ticks);
    a->notes += t->nnotes;
    for (unsigned s = 0; s < SC_MAX_MODS; s++)
        for (unsigned i = 0; i < SC_NAPI; i++)
            a->calls += atomic_load_explicit(&t->counts[s][i], memory_order_relaxed);
}

/* The rows, in order, with their indentation and what their items count. */
static const struct {
    unsigned ph, depth;
    const char *name, *items;
} rows[] = {
    {SC_PH_FAST, 0, "fast path (every intercepted call)", ""},
    {SC_PH_SLOW, 0, "slow path (less the real call)", ""},
    {SC_PH_PRE, 1, "before the call (sc_pre)", ""},
    {SC_PH_HELD, 2, "held finding settled", ""},
    {SC_PH_LEGACY, 2, "legacy stream: SC101 SC601 SC103", ""},
    {SC_PH_REDIRECT, 2, "redirect (queries, syncs)", ""},
    {SC_PH_COPY, 2, "copies, memsets: SC20x SC702", ""},
    {SC_PH_ALLOC, 2, "allocation: SC30x", ""},
    {SC_PH_SYNC, 2, "synchronization: SC40x", ""},
    {SC_PH_QUEUE, 2, "queues, cache config: SC701 SC501", ""},
    {SC_PH_SC102, 2, "SC102 per blocking stream", ""},
    {SC_PH_BUSY, 2, "busy-stream queries", "cuStreamQuery"},
    {SC_PH_COUNT, 2, "stream-table walks", "streams"},
    {SC_PH_CTX, 2, "context lookups", "cuCtxGetCurrent"},
    {SC_PH_MEMCLASS, 2, "pointer classification misses", "cuPointerGetAttr."},
    {SC_PH_POST, 1, "after the call (sc_post)", ""},
    {SC_PH_TRACK, 2, "state tracking", ""},
    {SC_PH_RUNLOG, 2, "pricing model's run log (records, rates)", ""},
    {SC_PH_WALK, 2, "call-site walks (native)", "frames"},
    {SC_PH_WALKNEED, 3, "frames needed, to the program's depth-th", "frames"},
    {SC_PH_WALKLONG, 3, "walked again: needed more than depth + 16", ""},
    {SC_PH_PYFRAMES, 2, "Python frames", "frames"},
    {SC_PH_COMMIT, 2, "findings committed", ""},
    {SC_PH_HB, 0, "pthread tracker, acquires and releases with a clock", "joined/published"},
    {SC_PH_HBACQ, 1, "acquires", "joined"},
    {SC_PH_HBREL, 1, "releases", "published"},
    {SC_PH_HBMOD, 1, "caller checks by module lookup (cache misses)", ""},
    {SC_PH_HBEV, 2, "events recorded at releases (per-thread stream)", "cuEventRecord"},
    {SC_PH_CALIBRATE, 0, "pinned-rate timing, in the slow path above", ""},
    {SC_PH_MODSCAN, 0, "module map scans (an address in no known module)", "rebuilds"},
    {SC_PH_DRAIN, 0, "drain before pageable copies (driver's, excluded)", ""},
    {SC_PH_INIT, 0, "initialization", ""},
    {SC_PH_FORK, 0, "fork handlers", ""},
    {SC_PH_QUIESCE, 0, "exit handshake", ""},
    {SC_PH_BUILD, 0, "report model at exit", ""},
    {SC_PH_BUILDPRICE, 1, "pricing model", ""},
    {SC_PH_BUILDNAMES, 1, "call sites' frames named (dladdr)", "call sites"},
    {SC_PH_SYMBOLIZE, 1, "symbolization", "call sites"},
    {SC_PH_JUDGE, 0, "filters, judgement, sort", ""},
    {SC_PH_WRITE, 0, "rendering, writing (not in the estimate)", ""},
};

/* The pthread tracker's busiest releasing callers (hb_pthread.c counts them in
   profile mode): which code's locks publish clocks and record events. */
#define TOP_CALLERS 8
typedef struct caller_row {
    uintptr_t ra;
    uint64_t pub, ev;
} caller_row;
typedef struct caller_top {
    caller_row r[TOP_CALLERS];
    unsigned n;
} caller_top;

static uint64_t caller_weight(const caller_row *c) { return c->pub + c->ev; }

static void add_caller(uintptr_t ra, uint64_t pub, uint64_t ev, void *arg)
{
    caller_top *t = arg;
    caller_row c = {ra, pub, ev};
    unsigned i = t->n < TOP_CALLERS ? t->n++ : TOP_CALLERS;
    if (i == TOP_CALLERS) {
        if (caller_weight(&t->r[TOP_CALLERS - 1]) >= caller_weight(&c))
            return;
        i = TOP_CALLERS - 1;
    }
    for (; i > 0 && caller_weight(&t->r[i - 1]) < caller_weight(&c); i--)
        t->r[i] = t->r[i - 1];
    t->r[i] = c;
}

/* "libtorch_cuda.so+0x1234 (symbol)": the module and, where the dynamic
   symbol table has one, the enclosing exported function. */
static void caller_name(uintptr_t ra, char *out, size_t size)
{
    uintptr_t base = 0;
    unsigned idx = sc_module_find(ra, &base);
    const char *mod = idx != SC_MOD_UNKNOWN ? sc_module_base(idx) : NULL;
    Dl_info di;
    const char *sym = dladdr((void *)ra, &di) && di.dli_sname ? di.dli_sname : NULL;
    snprintf(out, size, "%s+0x%" PRIxPTR "%s%.60s%s", mod ? mod : "?", ra - base, sym ? " (" : "",
             sym ? sym : "", sym ? ")" : "");
}

static void print_profile(void)
{
    if (!sc_prof_on)
        return;
    static prof_acc a;
    memset(&a, 0, sizeof a);
    sc_threads_foreach(add_thread, &a);
    for (unsigned i = 0; i < SC_PH_N; i++) {
        sc_prof_cell p;
        sc_proc_cell(i, &p);
        a.c[i].ticks += p.ticks;
        a.c[i].calls += p.calls;
        a.c[i].items += p.items;
    }
    double ns = sc_tsc_ns();
    double run = (double)(sc_now_ns() - sc_start_ns);
    uint64_t proc = atomic_load(&sc_proc_own_ticks);
    double est = (double)(a.own_ticks + proc + a.c[SC_PH_BUILD].ticks + a.c[SC_PH_JUDGE].ticks) * ns;
    char buf[16384];
    size_t n = 0;
#define OUT(...)                                                                     \
    do {                                                                             \
        int k_ = snprintf(buf + n, sizeof buf - n, __VA_ARGS__);                     \
        if (k_ > 0)                                                                  \
            n = n + (size_t)k_ < sizeof buf ? n + (size_t)k_ : sizeof buf - 1;       \
    } while (0)
    OUT("streamcheck[%ld]: profile (STREAMCHECK_PROFILE=1): %.3f s run, %" PRIu64
        " calls intercepted, %" PRIu64 " SC101/SC601 notes counted; TSC %.4f ns/tick, "
        "%" PRIu64 " ticks per read pair taken off; times include the rows indented under them\n",
        (long)getpid(), run / 1e9, a.calls, a.notes, ns, sc_tsc_overhead);
    OUT("  %-52s %12s %12s %-18s %11s %9s %8s\n", "phase", "calls", "items", "", "total ms", "ns/call",
        "% run");
    for (size_t r = 0; r < SC_ARRAY_LEN(rows); r++) {
        const sc_prof_cell *c = &a.c[rows[r].ph];
        /* a count of walks shows its 0 beside the walks it counts among */
        int zero_shown = rows[r].ph == SC_PH_WALKLONG && a.c[SC_PH_WALKNEED].calls;
        if (!c->calls && !c->items && !zero_shown)
            continue;
        double t = (double)c->ticks * ns;
        char name[64];
        snprintf(name, sizeof name, "%*s%s", (int)rows[r].depth * 2, "", rows[r].name);
        char items[24] = "";
        if (rows[r].items[0])
            snprintf(items, sizeof items, "%" PRIu64, c->items);
        OUT("  %-52s %12" PRIu64 " %12s %-18s %11.3f %9.1f %8.3f\n", name, c->calls, items, rows[r].items,
            t / 1e6, c->calls ? t / (double)c->calls : 0.0, run > 0 ? 100.0 * t / run : 0.0);
    }
    OUT("  %-52s %12s %12s %-18s %11.3f %9s %8.3f\n", "estimate (the report's time in streamcheck)", "", "",
        "", est / 1e6, "", run > 0 ? 100.0 * est / run : 0.0);
    caller_top top = {.n = 0};
    sc_hb_prof_callers(add_caller, &top);
    if (top.n)
        OUT("  pthread tracker's busiest releasing callers (clocks published, events recorded):\n");
    for (unsigned i = 0; i < top.n; i++) {
        char name[160];
        caller_name(top.r[i].ra, name, sizeof name);
        OUT("    %10" PRIu64 " %8" PRIu64 "  %s\n", top.r[i].pub, top.r[i].ev, name);
    }
    OUT("  (the estimate leaves out: the wrappers' few instructions outside sc_fast, the pthread\n"
        "   interposers' call-through, the runtime-API attribution wrappers, dlsym and cuGetProcAddress\n"
        "   answers, and what the shim does to the program's caches; profile mode adds a clock read per\n"
        "   call)\n");
    int fd = sc_err_fd();
    ssize_t w = fd >= 0 ? write(fd, buf, n) : 0;
    (void)w;
}

static const sc_part part = {"profile", 90, NULL, NULL, NULL, NULL, print_profile};
SC_PART_REGISTER(part)
