/* hb_clock.c: the happens-before tracker (hb.h says what it is for): the
 * vector clocks of threads and sync objects, the thread states, and SC103's
 * verdict.  Its state is hb_clock.h's; the interposed pthread functions
 * that feed it are hb_pthread.c's, redirect's waits hb_order.c's.
 *
 * Clocks.  A clock is SC_HB_SLOTS 64-bit components and a bit mask of the
 * nonzero ones; joins walk the mask, so their cost follows the number of
 * threads that actually met, not SC_HB_SLOTS.  Component s of thread B's
 * clock is the number of legacy-stream submissions of tracked thread s that
 * happen before B's current point.  A tracked thread's own component is its
 * submission count (there is no separate epoch: only submissions need
 * ordering).  Counts never go back, also when a thread exits and another one
 * takes its component over (components belong to the shim's thread blocks,
 * which are recycled with their redirect streams), so a value seen once
 * keeps meaning "at least these submissions".
 *
 * Sync objects.  A fixed table of SC_HB_TABLE entries keyed by the object's
 * address (open addressing, HB_PROBE probes), mapped on first need.  An
 * object that finds no free entry shares one overflow entry with every other
 * such object: an acquire of any of them joins everything released into any
 * of them, which only adds order (conservative for redirect, and for SC103,
 * where "ordered" means no finding).  Entries are never freed: an address
 * reused by a new object inherits the old clock, which again only adds
 * order.  Each entry has a small spin lock; a mutex already serializes its
 * own entry, condition variables, semaphores and rwlock readers need it.
 *
 * Threads.  Each thread that holds a clock has a state block (pool of mmap'd
 * blocks, recycled at thread exit through a pthread key destructor, which
 * also publishes the thread's final clock for pthread_join).  A thread
 * created by a thread with a clock gets the parent's clock through a
 * wrapper of its start routine.
 *
 * What is followed.  Calls made from inside the shim (its own locks, the
 * unwinder) and from CUDA's own libraries (the driver's, the runtime's and
 * cuBLAS's internal locks) are not the program's ordering: following them
 * would order every pair of threads that ever called CUDA.  They are told
 * apart by the caller's return address (a small per-thread cache of
 * verdicts) and by the shim's busy flag.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "hb_clock.h"
#include "modules.h"
#include "real.h"
#include "thread.h"

/* Zeroed pages of the shim's own, from the system call: the shim's mmap
   (unmap.c) is there for the program's mappings. */
static void *anon_map(size_t sz)
{
    int saved = errno;
    void *p = (void *)syscall(SYS_mmap, NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = saved;
    return p;
}

/* -------------------------------------------------------------- state --- */
_Atomic int sc_hb_on_flag;                  /* some thread submitted legacy work */
/* Detect mode only needs the tracker for SC103's verdict: after HB_JUDGED
   legacy-stream submissions judged while another thread had submitted
   some too, it rests (off, as before any legacy work) until a thread new to
   the legacy stream wakes it.  Waking starts an epoch: every submission
   made before it counts as seen by every thread (hb_base), since the
   orders made while resting were not followed. */
static _Atomic int hb_resting;
static _Atomic uint64_t hb_judged, hb_rests;
static _Atomic uint64_t hb_base[SC_HB_SLOTS];
_Atomic(hb_ent *) sc_hb_tab;            /* SC_HB_TABLE entries + the overflow one */
hb_slot sc_hb_slots[SC_HB_SLOTS];
_Atomic uint32_t sc_hb_slots_used;      /* components handed out */
static _Atomic unsigned next_lid;
static _Atomic uint64_t lid_raced[HB_LIDS / 64];
_Atomic uint64_t sc_hb_n_handoffs, sc_hb_n_waits, sc_hb_n_kept;
_Atomic unsigned sc_hb_n_overflowed;
pthread_key_t sc_hb_key;
_Atomic int sc_hb_follow_all;           /* tests */
_Atomic int sc_hb_no_order;             /* STREAMCHECK_TEST_NO_HB_ORDER: the mutant */

static hb_spin pool_lock;
static hb_thr *pool_free;
static hb_thr *pool_chunk;
static unsigned pool_left;

SC_TLS hb_thr *sc_hb_self;
SC_TLS int sc_hb_in;                 /* inside the tracker: pass everything through */
SC_TLS hb_start_rec *sc_hb_pending;  /* from the parent, not yet joined */
SC_TLS uint64_t sc_hb_prof_events;    /* profile mode: events this thread recorded */

int sc_hb_on(void) { return hb_on(); }
void sc_hb_test_follow_all(int on) { atomic_store(&sc_hb_follow_all, on); }
unsigned sc_hb_test_overflowed(void) { return atomic_load(&sc_hb_n_overflowed); }

/* --------------------------------------------------------------- pool --- */
/* A thread state's clock, component and lifetime, back to none. */
static void thr_clear(hb_thr *h)
{
    h->mask = 0;
    h->slot = -1;
    h->untracked = 0;
    h->lid = 0;
    memset(h->c, 0, sizeof h->c);
    memset(h->waited, 0, sizeof h->waited);
}

static hb_thr *thr_alloc(void)
{
    hb_spin_lock(&pool_lock);
    hb_thr *h = pool_free;
    if (h) {
        pool_free = h->next_free;
    } else {
        if (!pool_left) {
            size_t n = 64;
            void *p = anon_map(n * sizeof(hb_thr));
            if (p != MAP_FAILED) {
                pool_chunk = p;
                pool_left = (unsigned)n;
            }
        }
        if (pool_left) {
            h = pool_chunk++;
            pool_left--;
        }
    }
    hb_spin_unlock(&pool_lock);
    if (!h)
        return NULL;
    /* Everything but the events, which stay valid for the next thread. */
    thr_clear(h);
    h->waited_ctx = NULL;
    h->snap_mask = 0;
    memset(h->racache, 0, sizeof h->racache);
    h->ver = 0;
    memset(h->kc, 0, sizeof h->kc);
    h->next_free = NULL;
    return h;
}

static void thr_free(hb_thr *h)
{
    hb_spin_lock(&pool_lock);
    h->next_free = pool_free;
    pool_free = h;
    hb_spin_unlock(&pool_lock);
}

/* The calling thread's state, made if it has none (NULL without memory). */
hb_thr *sc_hb_self_get(void)
{
    hb_thr *h = sc_hb_self;
    if (SC_LIKELY(h))
        return h;
    h = thr_alloc();
    if (!h)
        return NULL;
    sc_hb_self = h;
    if (atomic_load_explicit(&sc_hb_on_flag, memory_order_acquire))
        pthread_setspecific(sc_hb_key, h);
    return h;
}

/* A clock handed over by pthread_create, not joined yet. */
void sc_hb_take_pending(void)
{
    hb_start_rec *r = sc_hb_pending;
    if (SC_LIKELY(!r))
        return;
    sc_hb_pending = NULL;
    hb_thr *h = sc_hb_self_get();
    if (h)
        hb_join_self(h, r->c, r->mask);
    free(r);
}

/* --------------------------------------------------------- the filter --- */
/* 1 when a call made from ra is not the program's own ordering: the shim's
   code, or CUDA's libraries. */
int sc_hb_skip_caller(hb_thr *h, const void *ra)
{
    if (atomic_load_explicit(&sc_hb_follow_all, memory_order_relaxed))
        return 0;
    sc_thread *t = sc_tls_self;
    if (t && atomic_load_explicit(&t->busy, memory_order_relaxed))
        return 1;   /* inside the shim's slow path (unwinder, Python frames...) */
    uintptr_t pc = (uintptr_t)ra;
    uintptr_t hi = __atomic_load_n(&sc_g.self_hi, __ATOMIC_ACQUIRE);
    if (!hi) {
        sc_self_range();
        hi = __atomic_load_n(&sc_g.self_hi, __ATOMIC_ACQUIRE);
    }
    if (pc >= sc_g.self_lo && pc < hi)
        return 1;
    int c = h ? hb_ra_cached(h, pc) : -1;
    if (c >= 0)
        return c;
    uint64_t t0 = sc_prof_t0();
    unsigned idx = sc_module_find(pc, NULL);
    int skip = idx != SC_MOD_UNKNOWN && sc_module_is_nvidia(idx);
    sc_prof_add(t, SC_PH_HBMOD, t0, 0);
    if (h)
        h->racache[hb_ra_index(pc)] = pc | (skip ? HB_RA_SKIP : 0);
    return skip;
}

/* ------------------------------------------------ acquire and release --- */
/* A thread takes e from another (under e's lock).  A lock's releases
   record the per-thread stream's event only when the lock passes between
   threads (sc_hb_release_key); if e holds per-thread-stream work that no event
   covers, a run of one thread's releases went unrecorded and the taker's
   next call stays on the legacy stream (sc_hb_order).  Such an object
   records at every release from then on: one such call per object. */
static void cover_check(hb_ent *e)
{
    if (atomic_load_explicit(&e->sticky, memory_order_relaxed))
        return;
    for (uint32_t m = atomic_load_explicit(&e->mask, memory_order_relaxed); m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        hb_slot *sl = &sc_hb_slots[i];
        uint64_t v = e->c[i], pl = atomic_load_explicit(&sl->ptds_last, memory_order_relaxed);
        uint64_t need = v < pl ? v : pl;
        if (need > atomic_load_explicit(&sl->ev_upto, memory_order_relaxed) &&
            need > atomic_load_explicit(&sl->idle, memory_order_relaxed)) {
            atomic_store_explicit(&e->sticky, 1, memory_order_relaxed);
            return;
        }
    }
}

/* e: the entry of key if the caller looked it up already (else NULL).
   Returns 1 when it joined the entry's clock (the profile counts those). */
int sc_hb_acquire_key(uintptr_t key, const void *ra, int clear, hb_ent *e)
{
    sc_hb_take_pending();
    if (!e)
        e = hb_ent_find(key, 0);
    if (!e || !atomic_load_explicit(&e->mask, memory_order_relaxed))
        return 0;
    hb_thr *h = sc_hb_self;
    if (h && !clear) {
        /* Unchanged since this thread joined it: nothing new (a release
           that changes the entry bumps seq before the real unlock, signal or
           post, which the real lock, wait or wait returned after). */
        const hb_known *k = &h->kc[hb_kc_index(key)];
        if (k->key == key && k->has_seen && k->seen == atomic_load_explicit(&e->seq, memory_order_acquire))
            return 0;
    }
    if (ra && sc_hb_skip_caller(h, ra))
        return 0;
    h = sc_hb_self_get();
    if (!h)
        return 0;
    hb_spin_lock(&e->lock);
    if (atomic_load_explicit(&e->rel, memory_order_relaxed) != (uintptr_t)h) {
        atomic_store_explicit(&e->xacq, atomic_load_explicit(&e->xacq, memory_order_relaxed) + 1,
                              memory_order_relaxed);   /* under the entry's lock */
        cover_check(e);
    }
    hb_join_self(h, e->c, atomic_load_explicit(&e->mask, memory_order_relaxed));
    if (clear && !hb_is_overflow(e)) {   /* the shared entry holds other objects' clocks too */
        memset(e->c, 0, sizeof e->c);
        atomic_store_explicit(&e->mask, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&e->clr, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&e->seq, 1, memory_order_release);
    }
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
    hb_spin_unlock(&e->lock);
    hb_known *k = &h->kc[hb_kc_index(key)];
    if (k->key != key)
        *k = (hb_known){.key = key};
    k->seen = seq;
    k->has_seen = 1;
    return 1;
}

/* Returns 1 when it published the thread's clock into the entry. */
int sc_hb_release_key(uintptr_t key, const void *ra, int kind)
{
    sc_hb_take_pending();
    hb_thr *h = sc_hb_self;
    if (!h || !h->mask)
        return 0;
    hb_known *k = &h->kc[hb_kc_index(key)];
    uint64_t own = hb_own_count(h);
    hb_ent *e = hb_rel_entry_current(h, k, key);
    if (e) {
        if (k->rel_own == own)
            return 0;   /* the entry holds this clock already */
        if (kind == HB_REL_MUTEX) {
            if (ra && sc_hb_skip_caller(h, ra))
                return 0;
            if (atomic_load_explicit(&e->sticky, memory_order_relaxed))
                sc_hb_record_ptds_event(h);
            hb_release_own(h, e, k, own);
            return 1;
        }
    }
    if (ra && sc_hb_skip_caller(h, ra))
        return 0;
    e = hb_ent_find(key, 1);
    if (!e)
        return 0;
    /* The per-thread stream's event (sc_hb_record_ptds_event), for the next
       thread to take the object: when it came from another thread since
       this thread's last release into it (threads taking turns), and at
       this thread's first release into an object made to hand over (a
       condition variable); not while one thread takes and releases it
       again and again (PyTorch's allocator mutex during the forward pass,
       the autograd thread signalling its own ready queue: an event per
       launch otherwise).  A thread that takes it next after all finds no
       event covering this work, and its call stays on the legacy stream
       (sc_hb_order, -1), which orders it after this thread's work; the
       object then records at every release (cover_check). */
    uint32_t xacq = atomic_load_explicit(&e->xacq, memory_order_relaxed);
    int known = k->key == key && k->has_rel;
    if (h->slot >= 0 && (atomic_load_explicit(&e->sticky, memory_order_relaxed) ||
                         (known ? xacq != k->rel_xacq : kind == HB_REL_HANDOFF || xacq != 0)))
        sc_hb_record_ptds_event(h);
    hb_spin_lock(&e->lock);
    uint32_t m = atomic_load_explicit(&e->mask, memory_order_relaxed);
    hb_join_into(e->c, &m, h->c, h->mask);
    atomic_store_explicit(&e->mask, m, memory_order_relaxed);
    atomic_store_explicit(&e->rel, (uintptr_t)h, memory_order_relaxed);
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
    atomic_store_explicit(&e->seq, seq + 1, memory_order_release);
    uint32_t clr = atomic_load_explicit(&e->clr, memory_order_relaxed);
    hb_spin_unlock(&e->lock);
    if (k->key != key)
        *k = (hb_known){.key = key};
    /* It held what this thread had seen, and now this thread's clock too. */
    k->has_seen = k->has_seen && k->seen == seq && !hb_is_overflow(e);
    k->seen = seq + 1;
    k->has_rel = !hb_is_overflow(e);
    k->rel_ver = h->ver;
    k->rel_own = own;
    k->rel_clr = clr;
    k->rel_xacq = xacq;
    return 1;
}

void sc_hb_acquire(const void *obj)
{
    if (!sc_hb_on() || sc_hb_in)
        return;
    int saved = errno;
    sc_hb_in = 1;
    sc_hb_acquire_key(hb_obj_key(obj), NULL, 0, NULL);
    sc_hb_in = 0;
    errno = saved;
}

void sc_hb_release(const void *obj)
{
    if (!sc_hb_on() || sc_hb_in)
        return;
    int saved = errno;
    sc_hb_in = 1;
    sc_hb_release_key(hb_obj_key(obj), NULL, HB_REL_HANDOFF);
    sc_hb_in = 0;
    errno = saved;
}

uint64_t sc_hb_test_clock(int slot)
{
    sc_hb_take_pending();
    hb_thr *h = sc_hb_self;
    return h && slot >= 0 && slot < SC_HB_SLOTS ? h->c[slot] : 0;
}

/* ---------------------------------------------------- thread lifetime --- */
/* Thread exit: the final clock goes where pthread_join finds it. */
static void key_dtor(void *v)
{
    (void)v;   /* the state, or hb_start's marker: the TLS says which */
    int saved = errno;
    sc_hb_in = 1;
    hb_thr *h = sc_hb_self;
    if (sc_hb_pending) {
        hb_start_rec *r = sc_hb_pending;
        sc_hb_pending = NULL;
        if (!h)
            h = sc_hb_self = thr_alloc();
        if (h)
            hb_join_self(h, r->c, r->mask);
        free(r);
    }
    if (h) {
        if (h->mask) {
            hb_ent *e = hb_ent_find(hb_thread_key(pthread_self()), 1);
            if (e) {
                hb_spin_lock(&e->lock);
                uint32_t m = atomic_load_explicit(&e->mask, memory_order_relaxed);
                if (!hb_is_overflow(e)) {   /* a thread before with this pthread_t was joined */
                    memset(e->c, 0, sizeof e->c);
                    m = 0;
                    atomic_fetch_add_explicit(&e->clr, 1, memory_order_relaxed);
                }
                hb_join_into(e->c, &m, h->c, h->mask);
                atomic_store_explicit(&e->mask, m, memory_order_relaxed);
                atomic_store_explicit(&e->rel, (uintptr_t)h, memory_order_relaxed);
                atomic_fetch_add_explicit(&e->seq, 1, memory_order_release);
                hb_spin_unlock(&e->lock);
            }
        }
        sc_hb_self = NULL;
        thr_free(h);
    }
    sc_hb_in = 0;
    errno = saved;
}

/* ------------------------------------------------------------ enabling --- */
static void enable(void)
{
    static hb_spin lock;
    static int done;
    if (SC_UNLIKELY(sc_g.ablate & SC_ABLATE_HB))
        return;
    hb_spin_lock(&lock);
    if (!done) {
        size_t sz = (SC_HB_TABLE + 1) * sizeof(hb_ent);
        void *p = anon_map(sz);
        if (p != MAP_FAILED) {
            atomic_store_explicit(&sc_hb_tab, (hb_ent *)p, memory_order_release);
            hb_ent *ov = &((hb_ent *)p)[SC_HB_TABLE];
            atomic_store(&ov->key, (uintptr_t)1);
        }
        if (pthread_key_create(&sc_hb_key, key_dtor) == 0) {
            const char *m = getenv("STREAMCHECK_TEST_NO_HB_ORDER");
            atomic_store(&sc_hb_no_order, m && *m && strcmp(m, "0") != 0);
            done = p != MAP_FAILED ? 1 : -1;
        } else {
            done = -1;
        }
    }
    int ok = done > 0;
    hb_spin_unlock(&lock);
    if (ok && !atomic_load(&sc_hb_on_flag)) {
        atomic_store_explicit(&sc_hb_on_flag, 1, memory_order_release);
        /* The thread that turned it on may hold a clock already (a test). */
        if (sc_hb_self)
            pthread_setspecific(sc_hb_key, sc_hb_self);
    }
}

static unsigned new_lid(void)
{
    unsigned l = atomic_fetch_add(&next_lid, 1) + 1;
    return l < HB_LIDS ? l : HB_LIDS - 1;   /* the last one stands for all the rest */
}

static void mark_raced(unsigned lid)
{
    if (lid && lid < HB_LIDS)
        atomic_fetch_or_explicit(&lid_raced[lid / 64], 1ull << (lid % 64), memory_order_relaxed);
}

int sc_hb_lifetime_concurrent(unsigned lid)
{
    return lid && lid < HB_LIDS &&
           (atomic_load_explicit(&lid_raced[lid / 64], memory_order_relaxed) >> (lid % 64) & 1);
}

unsigned sc_hb_lifetime(void)
{
    hb_thr *h = sc_hb_self;
    return h ? h->lid : 0;
}

/* A component for block t: the one it had (a thread block is recycled with
   its redirect streams), else a free one. */
static int bind_slot(sc_thread *t, hb_thr *h)
{
    uint32_t used = atomic_load(&sc_hb_slots_used);
    int s = -1;
    for (uint32_t m = used; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if (atomic_load(&sc_hb_slots[i].block) == t) {
            s = (int)i;
            break;
        }
    }
    while (s < 0) {
        used = atomic_load(&sc_hb_slots_used);
        if (used == UINT32_MAX)
            return -1;
        unsigned i = (unsigned)__builtin_ctz(~used);
        if (atomic_compare_exchange_strong(&sc_hb_slots_used, &used, used | (1u << i))) {
            atomic_store(&sc_hb_slots[i].block, t);
            s = (int)i;
        }
    }
    hb_slot *sl = &sc_hb_slots[s];
    /* A new occupant: its per-thread stream is not its predecessor's, whose
       unfinished work there no event of the new one will cover. */
    uint64_t pl = atomic_load(&sl->ptds_last), idle = atomic_load(&sl->idle);
    if (pl > idle && pl > atomic_load(&sl->stale))
        atomic_store(&sl->stale, pl);
    atomic_store(&sl->ev_upto, 0);
    /* Its own component starts where the block's left off (counts never go
       back); that carries the predecessor's work as if it were this
       thread's, which only adds order.  But first, SC103: unless this thread
       is ordered after the predecessor's latest submission (it joined it,
       say), the two raced, as two threads with blocks of their own would
       have (sc_hb_legacy_concurrent skips the thread's own component). */
    uint64_t n = atomic_load(&sl->nsub);
    unsigned prev = atomic_load(&sl->last_lid);
    if (n > h->c[s] && prev && prev != h->lid) {
        mark_raced(prev);
        mark_raced(h->lid);
    }
    if (n > h->c[s]) {
        h->c[s] = n;
        h->ver++;
    }
    if (n && !(h->mask & 1u << s)) {
        h->mask |= 1u << s;
        h->ver++;
    }
    return s;
}

int sc_hb_thread_legacy(sc_thread *t)
{
    if (SC_UNLIKELY(!sc_hb_on()) && !atomic_load_explicit(&hb_resting, memory_order_relaxed))
        enable();
    if (!sc_hb_on())
        return -1;
    int saved = errno;
    sc_hb_in = 1;
    sc_hb_take_pending();
    hb_thr *h = sc_hb_self_get();
    int s = -1;
    if (h) {
        if (!h->lid)
            h->lid = new_lid();
        if (h->slot < 0 && !h->untracked && t) {
            h->slot = bind_slot(t, h);
            h->untracked = h->slot < 0;
        }
        s = h->slot;
    }
    sc_hb_in = 0;
    errno = saved;
    return s;
}

int sc_hb_legacy_concurrent(sc_thread *t)
{
    (void)t;
    hb_thr *h = sc_hb_self;
    if (!h || !sc_hb_on())
        return 0;
    uint32_t used = atomic_load_explicit(&sc_hb_slots_used, memory_order_acquire);
    int raced = 0, beside = 0;
    for (uint32_t m = used; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if ((int)i == h->slot)
            continue;
        uint64_t n = atomic_load_explicit(&sc_hb_slots[i].nsub, memory_order_acquire);
        uint64_t seen = h->c[i], base = atomic_load_explicit(&hb_base[i], memory_order_relaxed);
        beside |= n > 0;
        if (n > (seen > base ? seen : base)) {
            raced = 1;
            mark_raced(atomic_load_explicit(&sc_hb_slots[i].last_lid, memory_order_relaxed));
        }
    }
    if (raced)
        mark_raced(h->lid);
    if (beside && !sc_g.redirect &&
        atomic_fetch_add_explicit(&hb_judged, 1, memory_order_relaxed) + 1 == HB_JUDGED) {
        int no = 0;
        if (atomic_compare_exchange_strong(&hb_resting, &no, 1)) {
            atomic_store_explicit(&sc_hb_on_flag, 0, memory_order_release);
            atomic_fetch_add(&hb_rests, 1);
        }
    }
    return raced;
}

void sc_hb_new_legacy_thread(void)
{
    if (SC_LIKELY(!atomic_load_explicit(&hb_resting, memory_order_relaxed)))
        return;
    int yes = 1;
    if (!atomic_compare_exchange_strong(&hb_resting, &yes, 2))
        return;   /* another thread is waking it */
    uint32_t used = atomic_load(&sc_hb_slots_used);
    for (uint32_t m = used; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        atomic_store(&hb_base[i], atomic_load(&sc_hb_slots[i].nsub));
    }
    atomic_store(&hb_judged, 0);
    atomic_store_explicit(&sc_hb_on_flag, 1, memory_order_release);
    atomic_store(&hb_resting, 0);
}

uint64_t sc_hb_rests(void)
{
    return atomic_load(&hb_rests);
}

void sc_hb_submitted(sc_thread *t, int where, CUcontext ctx)
{
    (void)t;
    hb_thr *h = sc_hb_self;
    if (!h || h->slot < 0)
        return;
    hb_slot *sl = &sc_hb_slots[h->slot];
    uint64_t n = atomic_load_explicit(&sl->nsub, memory_order_relaxed) + 1;
    h->c[h->slot] = n;   /* not a change of ver: sc_hb_release_key compares the own component itself */
    h->mask |= 1u << h->slot;
    atomic_store_explicit(&sl->last_lid, h->lid, memory_order_relaxed);
    if (where != SC_HB_LEGACY && ctx) {
        CUcontext c = atomic_load_explicit(&sl->ctx, memory_order_relaxed);
        if (SC_UNLIKELY(c != ctx)) {
            CUcontext expect = NULL;
            if (!atomic_compare_exchange_strong(&sl->ctx, &expect, ctx) && expect != ctx)
                atomic_store(&sl->multi, 1);
        }
    }
    if (where == SC_HB_OWN)
        atomic_store_explicit(&sl->own_last, n, memory_order_relaxed);
    if (where == SC_HB_PTDS) {
        atomic_store_explicit(&sl->ptds_last, n, memory_order_relaxed);
        /* The event other threads wait on: made once per slot and context. */
        unsigned gen = atomic_load(&sc_g.ctx_gen);
        if (ctx && (!atomic_load(&sl->ev) || atomic_load(&sl->ev_ctx) != ctx ||
                    atomic_load(&sl->ev_gen) != gen) && sc_d.EventCreate) {
            CUevent ev = NULL;
            if (sc_d.EventCreate(&ev, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS) {
                atomic_store(&sl->ev_upto, 0);
                atomic_store(&sl->ev_ctx, ctx);
                atomic_store(&sl->ev_gen, gen);
                atomic_store(&sl->ev, ev);
            }
        }
    }
    /* Published last: whoever reads n sees the rest. */
    atomic_store_explicit(&sl->nsub, n, memory_order_release);
}

/* Release with per-thread-stream work no event covers yet: record the
   slot's event on the per-thread stream, so other threads can wait for it
   (nobody else can name this thread's per-thread stream).  Not during a
   capture, and only in the context the work went to. */
void sc_hb_record_ptds_event(hb_thr *h)
{
    hb_slot *sl = &sc_hb_slots[h->slot];
    uint64_t pl = atomic_load_explicit(&sl->ptds_last, memory_order_relaxed);
    if (pl <= atomic_load_explicit(&sl->ev_upto, memory_order_relaxed) ||
        pl <= atomic_load_explicit(&sl->idle, memory_order_relaxed))
        return;   /* covered, or finished (the thread synchronized it) */
    CUevent ev = atomic_load(&sl->ev);
    if (!ev || atomic_load(&sl->multi) || atomic_load(&sc_g.n_capturing) > 0 || !sc_d.EventRecord ||
        !sc_d.CtxGetCurrent || atomic_load(&sl->ev_gen) != atomic_load(&sc_g.ctx_gen))
        return;
    CUcontext cur = NULL;
    if (sc_d.CtxGetCurrent(&cur) != CUDA_SUCCESS || cur != atomic_load(&sl->ev_ctx))
        return;
    uint64_t n = atomic_load_explicit(&sl->nsub, memory_order_relaxed);
    uint64_t t0 = sc_prof_t0();
    if (sc_d.EventRecord(ev, CU_STREAM_PER_THREAD) == CUDA_SUCCESS)
        atomic_store_explicit(&sl->ev_upto, n, memory_order_release);
    sc_prof_add(sc_tls_self, SC_PH_HBEV, t0, 1);
    if (SC_UNLIKELY(sc_prof_on))
        sc_hb_prof_events++;
}

/* ---------------------------------------------------------------- fork --- */
void sc_hb_atfork_child(void)
{
    /* The child's GPU work is not the parent's, and the parent's other
       threads do not exist here: start from nothing, off until the child
       submits legacy work itself. */
    atomic_store(&sc_hb_on_flag, 0);
    atomic_store(&hb_resting, 0);
    atomic_store(&hb_judged, 0);
    atomic_store(&hb_rests, 0);
    for (unsigned i = 0; i < SC_HB_SLOTS; i++)
        atomic_store(&hb_base[i], 0);
    /* The entries start again from seq 0: what this thread remembers of
       them would match the new ones by chance. */
    if (sc_hb_self)
        memset(sc_hb_self->kc, 0, sizeof sc_hb_self->kc);
    hb_ent *t = atomic_load(&sc_hb_tab);
    if (t)
        madvise(t, (SC_HB_TABLE + 1) * sizeof(hb_ent), MADV_DONTNEED);   /* zero again */
    if (t)
        atomic_store(&t[SC_HB_TABLE].key, (uintptr_t)1);
    for (unsigned i = 0; i < SC_HB_SLOTS; i++) {
        hb_slot *sl = &sc_hb_slots[i];
        memset(sl, 0, sizeof *sl);
    }
    atomic_store(&sc_hb_slots_used, 0);
    atomic_store(&next_lid, 0);
    for (unsigned i = 0; i < HB_LIDS / 64; i++)
        atomic_store(&lid_raced[i], 0);
    atomic_store(&sc_hb_n_handoffs, 0);
    atomic_store(&sc_hb_n_waits, 0);
    atomic_store(&sc_hb_n_kept, 0);
    atomic_store(&sc_hb_n_overflowed, 0);
    atomic_store(&pool_lock, 0);
    hb_thr *h = sc_hb_self;
    if (h) {
        thr_clear(h);
        memset(h->pull, 0, sizeof h->pull);   /* the parent's events */
        h->snap_mask = 0;
    }
    sc_hb_in = 0;
}

/* ------------------------------------------------------------ the part --- */
/* Registered with the shim's fork handler (core.h).  Nothing to hold before
   fork: the child clears every spin lock with the rest of the state, and a
   lock held here would deadlock whatever the fork handlers of others do
   with a mutex afterwards (it comes through hb_pthread.c). */
static void hb_fork_lock(void) {}
static void hb_fork_unlock(void) {}
static const sc_part hb_part = {"hb", 80, hb_fork_lock, hb_fork_unlock, sc_hb_atfork_child, NULL, NULL};
SC_PART_REGISTER(hb_part)
