/* callsites.c: where in the program a hazard came from.
 *
 * mpiP style: walk the stack with libunwind (UNW_LOCAL_ONLY), keep pc - 1
 * (the call instruction, not the return address) as module + offset, and
 * name the call site by a hash of those frames.  The hash uses the module's
 * basename and the offset, never an absolute address, so the same code gives
 * the same id in every run and every process: reports of many ranks merge.
 * Names, files and lines wait for the report: src/report/symbols.c looks
 * them up from module + offset, with the module's build ID to check the
 * file against.
 *
 * Frames inside the shim are skipped, and so are the leading frames inside
 * NVIDIA's libraries (libcuda, libcudart, cuDNN, cuBLAS and the others of
 * sc_nvidia_library): the interesting frame is the program's call into
 * them.  The depth asked for counts the program's frames only, so a deep
 * cuDNN stack does not use it up before PyTorch's frames are reached.
 *
 * A call site reached from a thread other than the main one carries the
 * thread's name (PyTorch's autograd engine thread has no Python frame: its
 * name is what tells it apart), read once per thread at its first walk.
 */
#include "config.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "callsites.h"
#include "core.h"
#include "intern.h"
#include "modules.h"
#include "options.h"
#include "thread.h"

#define SITE_SLOTS (1u << 16)
/* The raw walk: first depth + WALK_SLACK frames, and when NVIDIA's frames
   took so many that fewer than depth of the program's were left, once more
   up to depth + WALK_MORE (64 for the default depth of 8).  On 2 H200s a
   Hugging Face GPT-2 step's walks needed 15.2 frames on average to reach
   the program's 8th, and 1 of 975 more than 24: depth + 32 walked 35.9
   frames a walk, depth + 16 walks 24.0 (STREAMCHECK_PROFILE=1's rows). */
#define WALK_SLACK 16
#define WALK_MORE 56
#define MAX_PCS (64 + WALK_MORE)

static _Atomic(sc_site *) sites[SITE_SLOTS];
static _Atomic unsigned nsites;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static sc_site *site_find(uint64_t h)
{
    for (unsigned i = (unsigned)h & (SITE_SLOTS - 1), k = 0; k < SITE_SLOTS; i = (i + 1) & (SITE_SLOTS - 1), k++) {
        sc_site *s = atomic_load_explicit(&sites[i], memory_order_acquire);
        if (!s)
            return NULL;
        if (s->hash == h)
            return s;
    }
    return NULL;
}

const sc_site *sc_site_get(uint64_t h) { return site_find(h); }

static void site_insert(uint64_t h, const sc_frame_ref *fr, unsigned nf, const sc_pyref *py, unsigned np,
                        const char *thread)
{
    static int full_warned;
    pthread_mutex_lock(&lock);
    if (site_find(h)) {
        pthread_mutex_unlock(&lock);
        return;
    }
    if (atomic_load(&nsites) >= SITE_SLOTS / 2) {
        pthread_mutex_unlock(&lock);
        sc_warn_once(&full_warned, "more than %u distinct call sites; later ones are reported "
                     "without frames", SITE_SLOTS / 2);
        return;
    }
    sc_site *s = calloc(1, sizeof *s + nf * sizeof s->frames[0] + np * sizeof(sc_pyref));
    if (!s) {
        pthread_mutex_unlock(&lock);
        return;
    }
    s->hash = h;
    s->nframes = (uint16_t)nf;
    s->npy = (uint16_t)np;
    memcpy(s->frames, fr, nf * sizeof fr[0]);
    s->py = (sc_pyref *)(s->frames + nf);
    memcpy(s->py, py, np * sizeof py[0]);
    atomic_init(&s->thread, thread);
    unsigned i = (unsigned)h & (SITE_SLOTS - 1);
    while (atomic_load_explicit(&sites[i], memory_order_relaxed))
        i = (i + 1) & (SITE_SLOTS - 1);
    atomic_store_explicit(&sites[i], s, memory_order_release);
    atomic_fetch_add(&nsites, 1);
    pthread_mutex_unlock(&lock);
}

static int is_self(uintptr_t pc)
{
    return pc >= sc_g.self_lo && pc < sc_g.self_hi;
}

/* A thread's own (sc_thread.sites): the modules of the frames it walked
   last, since a hazard in a loop walks the same frames again and again,
   and its name, read for the tid it names.  Made at the thread block's
   first walk and kept with the block. */
#define PC_CACHE 64
struct sc_sites_thread {
    struct { uintptr_t pc, base; unsigned idx; } pc[PC_CACHE];
    pid_t name_tid;
    const char *name;
};

static struct sc_sites_thread *thread_caches(sc_thread *t)
{
    if (t && !t->sites)
        t->sites = calloc(1, sizeof *t->sites);
    return t ? t->sites : NULL;
}

/* Module of a frame's pc, through the thread's cache c (NULL: none). */
static unsigned frame_module(struct sc_sites_thread *c, uintptr_t pc, uintptr_t *base)
{
    unsigned i = (unsigned)(pc >> 3) & (PC_CACHE - 1);
    if (c && c->pc[i].pc == pc) {
        *base = c->pc[i].base;
        return c->pc[i].idx;
    }
    *base = 0;
    unsigned idx = sc_module_find(pc, base);
    if (c) {
        c->pc[i].pc = pc;
        c->pc[i].base = *base;
        c->pc[i].idx = idx;
    }
    return idx;
}

unsigned sc_frames_select(const uint8_t *kind, unsigned n, unsigned depth, unsigned *keep, unsigned max,
                          unsigned *own)
{
    unsigned i = 0, nk = 0, no = 0;
    while (i < n && kind[i] != SC_FK_OWN)
        i++;
    if (i == n) {
        /* Nothing but the shim and NVIDIA's libraries (a thread of theirs):
           their frames are all there is to show. */
        for (i = 0; i < n && nk < max && nk < depth; i++)
            if (kind[i] == SC_FK_NVIDIA)
                keep[nk++] = i;
        *own = 0;
        return nk;
    }
    for (; i < n && nk < max && no < depth; i++) {
        if (kind[i] == SC_FK_SELF)
            continue;
        keep[nk++] = i;
        no += kind[i] == SC_FK_OWN;
    }
    *own = no;
    return nk;
}

/* The calling thread's name when it is not the main thread, read once per
   thread (prctl: no /proc, no allocation). */
static const char *thread_name(sc_thread *t, struct sc_sites_thread *c)
{
    if (!t || !c || t->tid == sc_g.pid)
        return NULL;
    if (c->name_tid != t->tid) {
        char b[17] = "";
        c->name = prctl(PR_GET_NAME, (unsigned long)b, 0, 0, 0) == 0 && b[0] ? sc_intern(b) : NULL;
        c->name_tid = t->tid;
    }
    return c->name;
}

/* The return addresses of the calling thread's stack, innermost first.
   ThreadSanitizer (gcc 12) crashes a thread at its exit when libunwind's
   unw_backtrace cache, freed by a thread-specific destructor that takes a
   mutex, outlives ThreadSanitizer's own state of the thread: in its
   builds, walk with unw_step, which keeps no per-thread cache.  Every walk
   of the shim goes through here (track.c's too). */
int sc_backtrace(void **pcs, int max)
{
#if defined(__SANITIZE_THREAD__)
    unw_context_t uc;
    unw_cursor_t c;
    int n = 0;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&c, &uc) != 0)
        return 0;
    while (n < max && unw_step(&c) > 0) {
        unw_word_t ip;
        if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0)
            break;
        pcs[n++] = (void *)(uintptr_t)ip;
    }
    return n;
#else
    return unw_backtrace(pcs, max);
#endif
}

static uint64_t capture(sc_thread *t)
{
    void *pcs[MAX_PCS];
    uint8_t kind[MAX_PCS];
    unsigned mod[MAX_PCS];
    uintptr_t base[MAX_PCS];
    unsigned keep[64], own = 0, nk = 0;
    unsigned depth = (unsigned)sc_opt.stack_depth;
    if (depth > SC_ARRAY_LEN(keep))
        depth = SC_ARRAY_LEN(keep);
    /* Walking a deep stack (PyTorch's) to its end costs more than all the
       rest of a slow call: walk what the depth needs, and further only when
       NVIDIA's frames used the walk up. */
    struct sc_sites_thread *cache = thread_caches(t);
    int want = (int)depth + WALK_SLACK, n = 0;
    uint64_t p0 = sc_prof_t0(), walked = 0;
    for (int pass = SC_UNLIKELY(sc_g.ablate & SC_ABLATE_WALK) ? 2 : 0; pass < 2; pass++) {
        n = sc_backtrace(pcs, want);
        walked += n > 0 ? (uint64_t)n : 0;
        for (int i = 0; i < n; i++) {
            uintptr_t pc = (uintptr_t)pcs[i] - 1;
            if (is_self(pc)) {
                kind[i] = SC_FK_SELF;
                continue;
            }
            mod[i] = frame_module(cache, pc, &base[i]);
            kind[i] = mod[i] != SC_MOD_UNKNOWN && sc_module_is_nvidia(mod[i]) ? SC_FK_NVIDIA : SC_FK_OWN;
        }
        nk = sc_frames_select(kind, (unsigned)n, depth, keep, SC_ARRAY_LEN(keep), &own);
        if (own >= depth || n < want || want >= (int)depth + WALK_MORE)
            break;
        want = (int)depth + WALK_MORE;
    }
    sc_prof_add(t, SC_PH_WALK, p0, walked);
    if (SC_UNLIKELY(p0) && t) {
        /* How deep the walk had to go: what a shorter first walk (want)
           would save, or cost in second walks, on this program's stacks. */
        unsigned need = own >= depth && nk ? keep[nk - 1] + 1 : (unsigned)(n > 0 ? n : 0);
        t->prof[SC_PH_WALKNEED].calls++;
        t->prof[SC_PH_WALKNEED].items += need;
        t->prof[SC_PH_WALKLONG].calls += need > depth + WALK_SLACK;
    }

    sc_frame_ref fr[64];
    unsigned nf = 0;
    uint64_t h = SC_HASH_INIT;
    for (unsigned k = 0; k < nk; k++) {
        uintptr_t pc = (uintptr_t)pcs[keep[k]] - 1;
        unsigned idx = mod[keep[k]];
        fr[nf].mod = idx;
        fr[nf].off = idx == SC_MOD_UNKNOWN ? pc : pc - base[keep[k]];
        fr[nf].pc = pc;
        h = sc_mix(h, idx == SC_MOD_UNKNOWN ? 0 : sc_module_hash(idx));
        h = sc_mix(h, fr[nf].off);
        nf++;
    }

    sc_pyref py[32 + 1];   /* and the library frame beside them (pyframes.h) */
    unsigned np = 0;
    if (sc_opt.python_depth > 0) {
        uint64_t q0 = sc_prof_t0();
        np = (unsigned)sc_py_capture(py, sc_opt.python_depth < 32 ? sc_opt.python_depth : 32);
        sc_prof_add(t, SC_PH_PYFRAMES, q0, np);
        for (unsigned k = 0; k < np; k++) {
            h = sc_mix(h, sc_hash_bytes(SC_HASH_INIT, py[k].file, strlen(py[k].file)));
            h = sc_mix(h, py[k].line);
            h = sc_mix(h, sc_hash_bytes(SC_HASH_INIT, py[k].func, strlen(py[k].func)));
        }
    }
    if (!h)
        h = 1;   /* 0 means "no call site" */
    /* The thread is not part of the id: one line of code is one call site,
       whichever threads run it. */
    const char *tn = thread_name(t, cache);
    sc_site *s = site_find(h);
    if (!s)
        site_insert(h, fr, nf, py, np, tn);
    else if (tn && !atomic_load_explicit(&s->thread, memory_order_relaxed))
        atomic_store_explicit(&s->thread, tn, memory_order_relaxed);
    return h;
}

/* Walks run inside the slow path, whose time is counted in full (the one
   outside, cublasCreate's, counts its own); in profile mode they are timed
   and their frames counted (capture). */
uint64_t sc_callsite_capture(sc_thread *t)
{
    return capture(t);
}

static void callsites_lock(void) { pthread_mutex_lock(&lock); }
static void callsites_unlock(void) { pthread_mutex_unlock(&lock); }
/* Sites are plain data and stay valid in a child; only the lock needs to
   be fresh. */
static void callsites_child(void) { pthread_mutex_init(&lock, NULL); }

static const sc_part part = {"callsites", 40, callsites_lock, callsites_unlock, callsites_child, NULL, NULL};
SC_PART_REGISTER(part)
