/* hb.c: happens-before between host threads, and the pthread functions
 * interposed to follow it (see hb.h for what it is for).
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
 *
 * Cost.  Until some thread submits legacy-stream work, an interposed call is
 * the real call plus one relaxed load.  After that: a thread with an empty
 * clock pays a TLS load on release and a table probe on acquire; a thread
 * with a clock, inline, a table probe and a look at its caller cache and
 * its memory of the object, which answer most calls; the rest pay the
 * entry's spin lock and a join over the nonzero components, or, for a
 * mutex whose release adds only the thread's own submissions, one store
 * (bench: see hb_cost in bench/shim_cost.c).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "core.h"
#include "hb.h"
#include "shim.h"

#define HB_PROBE 16
#define HB_LIDS 65536          /* thread lifetimes with their own SC103 verdict */
#define HB_RACACHE 1024        /* per-thread verdicts on callers (a power of two) */
#define HB_PULL 4              /* per-thread events, one per context, to pull other threads' work */
#define HB_KCACHE 256          /* per-thread memory of recently used sync objects (a power of two) */
#define HB_JUDGED 256          /* detect mode: submissions judged beside another thread's, then rest */

/* ----------------------------------------------------------- spin lock --- */
typedef _Atomic uint32_t hb_spin;

static inline void spin_lock(hb_spin *l)
{
    while (atomic_exchange_explicit(l, 1, memory_order_acquire))
        while (atomic_load_explicit(l, memory_order_relaxed))
            __builtin_ia32_pause();
}

static inline void spin_unlock(hb_spin *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

/* --------------------------------------------------------------- types --- */
typedef struct hb_ent {
    _Atomic uintptr_t key;      /* 0: free */
    hb_spin lock;
    _Atomic uint32_t mask;      /* nonzero components of c (read unlocked as a hint) */
    _Atomic uint32_t xacq;      /* acquires by a thread other than its last releaser (a count) */
    _Atomic uint32_t sticky;    /* once taken with per-thread-stream work no event covered (cover_check) */
    _Atomic uint32_t seq;       /* bumped by every release that is not skipped, and by a clear */
    _Atomic uint32_t clr;       /* bumped when c is cleared (it only grows otherwise) */
    _Atomic uintptr_t rel;      /* last releaser's state */
    uint64_t c[SC_HB_SLOTS];
} hb_ent;

/* A tracked thread's component.  Written by its occupant; read by others. */
typedef struct hb_slot {
    _Atomic(sc_thread *) block;   /* the shim thread block it belongs to */
    _Atomic uint64_t nsub;        /* legacy submissions (the component's value) */
    _Atomic unsigned last_lid;    /* lifetime that made the latest one */
    _Atomic uint64_t idle;        /* submissions up to here are known finished */
    _Atomic uint64_t stale;       /* per-thread-stream work of earlier occupants, not coverable */
    _Atomic(CUcontext) ctx;       /* context of its redirected work */
    _Atomic int multi;            /* redirected work in more than one context */
    _Atomic uint64_t own_last;    /* latest submission that went to its own stream */
    _Atomic uint64_t ptds_last;   /* latest submission that went to the per-thread stream */
    _Atomic uint64_t ev_upto;     /* submissions the event's latest record covers */
    _Atomic(CUevent) ev;          /* recorded on the occupant's per-thread stream */
    _Atomic(CUcontext) ev_ctx;
    _Atomic unsigned ev_gen;
    hb_spin lock;                 /* guards own[] */
    struct { CUcontext ctx; CUstream stream; unsigned gen; } own[SC_OWN_MAX];
} hb_slot;

typedef struct hb_thr {
    uint32_t mask;
    int slot;                   /* component, or -1 */
    int untracked;              /* wanted a component and got none */
    unsigned lid;
    uint64_t c[SC_HB_SLOTS];
    uint64_t waited[SC_HB_SLOTS];   /* redirect: covered on this thread's stream in waited_ctx */
    CUcontext waited_ctx;
    uint64_t snap[SC_HB_SLOTS];     /* submissions before a context synchronization */
    uint32_t snap_mask;
    uintptr_t racache[HB_RACACHE];  /* a caller's address, and its verdict in the top bit (ra_*) */
    /* The steady state of a program is one thread taking and releasing the
       same locks between two submissions (the GIL, an allocator's mutex):
       nothing to join, nothing to publish.  ver counts changes of c other
       than the thread's own submissions (joins); per object, the entry's
       seq whose clock c contains (seen), and what held at this thread's
       last release into it (rel_*, rel_own its own component).  An acquire
       that finds seq unchanged, and a release by the entry's last releaser
       whose clock and the entry's xacq did not change since, and with no
       clear between, have nothing to do; if only its own component grew, a
       mutex's release stores that one component (release_key). */
    uint32_t ver;
    struct {
        uintptr_t key;
        uint64_t rel_own;
        uint32_t seen, rel_ver, rel_clr;
        uint32_t rel_xacq;
        uint8_t has_seen, has_rel;
    } kc[HB_KCACHE];
    struct { CUcontext ctx; CUevent ev; unsigned gen; } pull[HB_PULL];   /* kept across reuse */
    struct hb_thr *next_free;
} hb_thr;

/* pthread_create: the child's start routine and the parent's clock. */
typedef struct hb_start_rec {
    void *(*fn)(void *);
    void *arg;
    uint32_t mask;
    uint64_t c[SC_HB_SLOTS];
} hb_start_rec;

/* -------------------------------------------------------------- state --- */
static _Atomic int hb_on_flag;           /* some thread submitted legacy work */
/* Detect mode only needs the tracker for SC103's verdict: after HB_JUDGED
   legacy-stream submissions judged while another thread had submitted
   some too, it rests (off, as before any legacy work) until a thread new to
   the legacy stream wakes it.  Waking starts an epoch: every submission
   made before it counts as seen by every thread (hb_base), since the
   orders made while resting were not followed. */
static _Atomic int hb_resting;
static _Atomic uint64_t hb_judged, hb_rests;
static _Atomic uint64_t hb_base[SC_HB_SLOTS];
static _Atomic(hb_ent *) tab;            /* SC_HB_TABLE entries + the overflow one */
static hb_slot slots[SC_HB_SLOTS];
static _Atomic uint32_t slots_used;      /* components handed out */
static _Atomic unsigned next_lid;
static _Atomic uint64_t lid_raced[HB_LIDS / 64];
static _Atomic uint64_t n_handoffs, n_waits, n_kept;
static _Atomic unsigned n_overflowed;
static pthread_key_t hb_key;
static _Atomic int follow_all;           /* tests */
static _Atomic int no_order;             /* STREAMCHECK_TEST_NO_HB_ORDER: the mutant */

static hb_spin pool_lock;
static hb_thr *pool_free;
static hb_thr *pool_chunk;
static unsigned pool_left;

static SC_TLS hb_thr *hb_self;
static SC_TLS int hb_in;                 /* inside the tracker: pass everything through */
static SC_TLS hb_start_rec *hb_pending;  /* from the parent, not yet joined */
static SC_TLS uint64_t hb_prof_events;    /* profile mode: events this thread recorded */

int sc_hb_on(void) { return atomic_load_explicit(&hb_on_flag, memory_order_relaxed); }
void sc_hb_test_follow_all(int on) { atomic_store(&follow_all, on); }
unsigned sc_hb_test_overflowed(void) { return atomic_load(&n_overflowed); }

/* ------------------------------------------------------- clock helpers --- */
/* Returns nonzero when dst grew. */
static inline int join_into(uint64_t *dst, uint32_t *dmask, const uint64_t *src, uint32_t smask)
{
    int grew = (smask & ~*dmask) != 0;
    for (uint32_t m = smask; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if (src[i] > dst[i]) {
            dst[i] = src[i];
            grew = 1;
        }
    }
    *dmask |= smask;
    return grew;
}

/* Joins into the thread's own clock, counting the change. */
static inline void join_self(hb_thr *h, const uint64_t *src, uint32_t smask)
{
    if (join_into(h->c, &h->mask, src, smask))
        h->ver++;
}

/* The caller cache: direct-mapped by a hash of the return address (a
   PyTorch step unlocks from dozens of call sites in a few libraries, which
   the address's low bits alone put into the same few entries).  User-space
   addresses leave the top bit free for the verdict. */
#define RA_SKIP ((uintptr_t)1 << 63)
static inline unsigned ra_index(uintptr_t ra)
{
    return (unsigned)((ra * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctz(HB_RACACHE)));
}

/* 1 skip, 0 follow, -1 not cached. */
static inline int ra_cached(const hb_thr *h, uintptr_t ra)
{
    uintptr_t v = h->racache[ra_index(ra)];
    return (v & ~RA_SKIP) == ra ? (v & RA_SKIP) != 0 : -1;
}

static inline unsigned kc_index(uintptr_t key)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctz(HB_KCACHE)));
}

/* --------------------------------------------------------------- pool --- */
static hb_thr *thr_alloc(void)
{
    spin_lock(&pool_lock);
    hb_thr *h = pool_free;
    if (h) {
        pool_free = h->next_free;
    } else {
        if (!pool_left) {
            size_t n = 64;
            void *p = mmap(NULL, n * sizeof(hb_thr), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
    spin_unlock(&pool_lock);
    if (!h)
        return NULL;
    /* Everything but the events, which stay valid for the next thread. */
    h->mask = 0;
    h->slot = -1;
    h->untracked = 0;
    h->lid = 0;
    memset(h->c, 0, sizeof h->c);
    memset(h->waited, 0, sizeof h->waited);
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
    spin_lock(&pool_lock);
    h->next_free = pool_free;
    pool_free = h;
    spin_unlock(&pool_lock);
}

/* The calling thread's state, made if it has none (NULL without memory). */
static hb_thr *self_get(void)
{
    hb_thr *h = hb_self;
    if (SC_LIKELY(h))
        return h;
    h = thr_alloc();
    if (!h)
        return NULL;
    hb_self = h;
    if (atomic_load_explicit(&hb_on_flag, memory_order_acquire))
        pthread_setspecific(hb_key, h);
    return h;
}

/* A clock handed over by pthread_create, not joined yet. */
static void take_pending(void)
{
    hb_start_rec *r = hb_pending;
    if (SC_LIKELY(!r))
        return;
    hb_pending = NULL;
    hb_thr *h = self_get();
    if (h)
        join_self(h, r->c, r->mask);
    free(r);
}

/* -------------------------------------------------------------- table --- */
static inline unsigned key_hash(uintptr_t k)
{
    uint64_t x = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    return (unsigned)(x >> 40) & (SC_HB_TABLE - 1);
}

/* The entry of key; with create, a new one if needed (the overflow entry
   when its probe window is full).  Without create: NULL if the object never
   had a clock, the overflow entry if it may be there. */
static hb_ent *ent_find(uintptr_t key, int create)
{
    hb_ent *t = atomic_load_explicit(&tab, memory_order_acquire);
    if (!t)
        return NULL;
    unsigned h = key_hash(key);
    for (unsigned i = 0; i < HB_PROBE; i++) {
        hb_ent *e = &t[(h + i) & (SC_HB_TABLE - 1)];
        uintptr_t k = atomic_load_explicit(&e->key, memory_order_acquire);
        if (k == key)
            return e;
        if (k == 0) {
            if (!create)
                return NULL;   /* never released: entries are never freed */
            uintptr_t expect = 0;
            if (atomic_compare_exchange_strong(&e->key, &expect, key) || expect == key)
                return e;
        }
    }
    if (create)
        atomic_fetch_add_explicit(&n_overflowed, 1, memory_order_relaxed);
    return &t[SC_HB_TABLE];
}

static inline int is_overflow(const hb_ent *e)
{
    return atomic_load_explicit(&e->key, memory_order_relaxed) == (uintptr_t)1;
}

/* --------------------------------------------------------- the filter --- */
/* 1 when a call made from ra is not the program's own ordering: the shim's
   code, or CUDA's libraries. */
static int skip_caller(hb_thr *h, const void *ra)
{
    if (atomic_load_explicit(&follow_all, memory_order_relaxed))
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
    int c = h ? ra_cached(h, pc) : -1;
    if (c >= 0)
        return c;
    uint64_t t0 = sc_prof_t0();
    unsigned idx = sc_module_find(pc, NULL);
    int skip = idx != SC_MOD_UNKNOWN && sc_module_is_nvidia(idx);
    sc_prof_add(t, SC_PH_HBMOD, t0, 0);
    if (h)
        h->racache[ra_index(pc)] = pc | (skip ? RA_SKIP : 0);
    return skip;
}

/* ------------------------------------------------ acquire and release --- */
static void record_ptds_event(hb_thr *h);

/* A thread takes e from another (under e's lock).  A lock's releases
   record the per-thread stream's event only when the lock passes between
   threads (release_key); if e holds per-thread-stream work that no event
   covers, a run of one thread's releases went unrecorded and the taker's
   next call stays on the legacy stream (sc_hb_order).  Such an object
   records at every release from then on: one such call per object. */
static void cover_check(hb_ent *e)
{
    if (atomic_load_explicit(&e->sticky, memory_order_relaxed))
        return;
    for (uint32_t m = atomic_load_explicit(&e->mask, memory_order_relaxed); m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        hb_slot *sl = &slots[i];
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
static int acquire_key(uintptr_t key, const void *ra, int clear, hb_ent *e)
{
    take_pending();
    if (!e)
        e = ent_find(key, 0);
    if (!e || !atomic_load_explicit(&e->mask, memory_order_relaxed))
        return 0;
    hb_thr *h = hb_self;
    if (h && !clear) {
        /* Unchanged since this thread joined it: nothing new (a release
           that changes the entry bumps seq before the real unlock, signal or
           post, which the real lock, wait or wait returned after). */
        const __typeof__(h->kc[0]) *k = &h->kc[kc_index(key)];
        if (k->key == key && k->has_seen && k->seen == atomic_load_explicit(&e->seq, memory_order_acquire))
            return 0;
    }
    if (ra && skip_caller(h, ra))
        return 0;
    h = self_get();
    if (!h)
        return 0;
    spin_lock(&e->lock);
    if (atomic_load_explicit(&e->rel, memory_order_relaxed) != (uintptr_t)h) {
        atomic_store_explicit(&e->xacq, atomic_load_explicit(&e->xacq, memory_order_relaxed) + 1,
                              memory_order_relaxed);   /* under the entry's lock */
        cover_check(e);
    }
    join_self(h, e->c, atomic_load_explicit(&e->mask, memory_order_relaxed));
    if (clear && !is_overflow(e)) {   /* the shared entry holds other objects' clocks too */
        memset(e->c, 0, sizeof e->c);
        atomic_store_explicit(&e->mask, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&e->clr, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&e->seq, 1, memory_order_release);
    }
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
    spin_unlock(&e->lock);
    __typeof__(h->kc[0]) *k = &h->kc[kc_index(key)];
    if (k->key != key)
        *k = (__typeof__(h->kc[0])){.key = key};
    k->seen = seq;
    k->has_seen = 1;
    return 1;
}

/* Release kinds.  HB_REL_HANDOFF objects are made to hand over (condition
   variables, semaphores, barriers, create): a thread's first release into
   one records an event (release_key); HB_REL_MUTEX and HB_REL_LOCK are
   locks, which need one only once seen passing between threads.  A mutex's
   unlock is the only release its holder makes alone: no other release into
   the object can run beside it, and the next acquire comes after it. */
enum { HB_REL_LOCK = 0, HB_REL_HANDOFF = 1, HB_REL_MUTEX = 2 };

/* Only the releasing thread's own component grew since its last release
   into e (a mutex it took and released around its own submissions, the
   steady state of a PyTorch step): that one component is stored, without
   the entry's lock.  The mutex orders this before the next acquire's
   join; the seq bump makes that acquire look.  The caller records the
   event of a sticky entry first (sticky only changes at a cross acquire,
   which cannot run while this thread holds the mutex). */
static void release_own(hb_thr *h, hb_ent *e, __typeof__(h->kc[0]) *k, uint64_t own)
{
    unsigned s = (unsigned)h->slot;
    __atomic_store_n(&e->c[s], own, __ATOMIC_RELAXED);
    uint32_t m = atomic_load_explicit(&e->mask, memory_order_relaxed);
    if (!(m & 1u << s))
        atomic_store_explicit(&e->mask, m | 1u << s, memory_order_relaxed);
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
    atomic_store_explicit(&e->seq, seq + 1, memory_order_release);
    k->has_seen = k->has_seen && k->seen == seq;
    k->seen = seq + 1;
    k->rel_own = own;
}

static inline uint64_t own_count(const hb_thr *h)
{
    return h->slot >= 0 ? h->c[h->slot] : 0;
}

/* The entry of key when it holds this thread's clock but for its own
   component, as at the thread's last release into it, and no one took it
   since (k: the thread's memory of key); else NULL. */
static inline hb_ent *rel_entry_current(const hb_thr *h, const __typeof__(h->kc[0]) *k, uintptr_t key)
{
    hb_ent *e;
    if (k->key == key && k->has_rel && k->rel_ver == h->ver && (e = ent_find(key, 0)) != NULL &&
        atomic_load_explicit(&e->rel, memory_order_relaxed) == (uintptr_t)h &&
        atomic_load_explicit(&e->clr, memory_order_relaxed) == k->rel_clr &&
        k->rel_xacq == atomic_load_explicit(&e->xacq, memory_order_relaxed))
        return e;
    return NULL;
}

/* Returns 1 when it published the thread's clock into the entry. */
static int release_key(uintptr_t key, const void *ra, int kind)
{
    take_pending();
    hb_thr *h = hb_self;
    if (!h || !h->mask)
        return 0;
    __typeof__(h->kc[0]) *k = &h->kc[kc_index(key)];
    uint64_t own = own_count(h);
    hb_ent *e = rel_entry_current(h, k, key);
    if (e) {
        if (k->rel_own == own)
            return 0;   /* the entry holds this clock already */
        if (kind == HB_REL_MUTEX) {
            if (ra && skip_caller(h, ra))
                return 0;
            if (atomic_load_explicit(&e->sticky, memory_order_relaxed))
                record_ptds_event(h);
            release_own(h, e, k, own);
            return 1;
        }
    }
    if (ra && skip_caller(h, ra))
        return 0;
    e = ent_find(key, 1);
    if (!e)
        return 0;
    /* The per-thread stream's event (record_ptds_event), for the next
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
        record_ptds_event(h);
    spin_lock(&e->lock);
    uint32_t m = atomic_load_explicit(&e->mask, memory_order_relaxed);
    join_into(e->c, &m, h->c, h->mask);
    atomic_store_explicit(&e->mask, m, memory_order_relaxed);
    atomic_store_explicit(&e->rel, (uintptr_t)h, memory_order_relaxed);
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
    atomic_store_explicit(&e->seq, seq + 1, memory_order_release);
    uint32_t clr = atomic_load_explicit(&e->clr, memory_order_relaxed);
    spin_unlock(&e->lock);
    if (k->key != key)
        *k = (__typeof__(h->kc[0])){.key = key};
    /* It held what this thread had seen, and now this thread's clock too. */
    k->has_seen = k->has_seen && k->seen == seq && !is_overflow(e);
    k->seen = seq + 1;
    k->has_rel = !is_overflow(e);
    k->rel_ver = h->ver;
    k->rel_own = own;
    k->rel_clr = clr;
    k->rel_xacq = xacq;
    return 1;
}

static inline uintptr_t obj_key(const void *p) { return (uintptr_t)p; }
/* Thread ends, for pthread_join: the pthread_t, tagged (objects are aligned). */
static inline uintptr_t thread_key(pthread_t t) { return (uintptr_t)t | 1; }

void sc_hb_acquire(const void *obj)
{
    if (!sc_hb_on() || hb_in)
        return;
    int saved = errno;
    hb_in = 1;
    acquire_key(obj_key(obj), NULL, 0, NULL);
    hb_in = 0;
    errno = saved;
}

void sc_hb_release(const void *obj)
{
    if (!sc_hb_on() || hb_in)
        return;
    int saved = errno;
    hb_in = 1;
    release_key(obj_key(obj), NULL, HB_REL_HANDOFF);
    hb_in = 0;
    errno = saved;
}

uint64_t sc_hb_test_clock(int slot)
{
    take_pending();
    hb_thr *h = hb_self;
    return h && slot >= 0 && slot < SC_HB_SLOTS ? h->c[slot] : 0;
}

/* ---------------------------------------------------- thread lifetime --- */
/* Thread exit: the final clock goes where pthread_join finds it. */
static void key_dtor(void *v)
{
    (void)v;   /* the state, or hb_start's marker: the TLS says which */
    int saved = errno;
    hb_in = 1;
    hb_thr *h = hb_self;
    if (hb_pending) {
        hb_start_rec *r = hb_pending;
        hb_pending = NULL;
        if (!h)
            h = hb_self = thr_alloc();
        if (h)
            join_self(h, r->c, r->mask);
        free(r);
    }
    if (h) {
        if (h->mask) {
            hb_ent *e = ent_find(thread_key(pthread_self()), 1);
            if (e) {
                spin_lock(&e->lock);
                uint32_t m = atomic_load_explicit(&e->mask, memory_order_relaxed);
                if (!is_overflow(e)) {   /* a thread before with this pthread_t was joined */
                    memset(e->c, 0, sizeof e->c);
                    m = 0;
                    atomic_fetch_add_explicit(&e->clr, 1, memory_order_relaxed);
                }
                join_into(e->c, &m, h->c, h->mask);
                atomic_store_explicit(&e->mask, m, memory_order_relaxed);
                atomic_store_explicit(&e->rel, (uintptr_t)h, memory_order_relaxed);
                atomic_fetch_add_explicit(&e->seq, 1, memory_order_release);
                spin_unlock(&e->lock);
            }
        }
        hb_self = NULL;
        thr_free(h);
    }
    hb_in = 0;
    errno = saved;
}

/* ------------------------------------------------------------ enabling --- */
static void enable(void)
{
    static hb_spin lock;
    static int done;
    if (SC_UNLIKELY(sc_g.ablate & SC_ABLATE_HB))
        return;
    spin_lock(&lock);
    if (!done) {
        size_t sz = (SC_HB_TABLE + 1) * sizeof(hb_ent);
        void *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            atomic_store_explicit(&tab, (hb_ent *)p, memory_order_release);
            hb_ent *ov = &((hb_ent *)p)[SC_HB_TABLE];
            atomic_store(&ov->key, (uintptr_t)1);
        }
        if (pthread_key_create(&hb_key, key_dtor) == 0) {
            const char *m = getenv("STREAMCHECK_TEST_NO_HB_ORDER");
            atomic_store(&no_order, m && *m && strcmp(m, "0") != 0);
            done = p != MAP_FAILED ? 1 : -1;
        } else {
            done = -1;
        }
    }
    int ok = done > 0;
    spin_unlock(&lock);
    if (ok && !atomic_load(&hb_on_flag)) {
        atomic_store_explicit(&hb_on_flag, 1, memory_order_release);
        /* The thread that turned it on may hold a clock already (a test). */
        if (hb_self)
            pthread_setspecific(hb_key, hb_self);
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
    hb_thr *h = hb_self;
    return h ? h->lid : 0;
}

/* A component for block t: the one it had (a thread block is recycled with
   its redirect streams), else a free one. */
static int bind_slot(sc_thread *t, hb_thr *h)
{
    uint32_t used = atomic_load(&slots_used);
    int s = -1;
    for (uint32_t m = used; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if (atomic_load(&slots[i].block) == t) {
            s = (int)i;
            break;
        }
    }
    while (s < 0) {
        used = atomic_load(&slots_used);
        if (used == UINT32_MAX)
            return -1;
        unsigned i = (unsigned)__builtin_ctz(~used);
        if (atomic_compare_exchange_strong(&slots_used, &used, used | (1u << i))) {
            atomic_store(&slots[i].block, t);
            s = (int)i;
        }
    }
    hb_slot *sl = &slots[s];
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
    hb_in = 1;
    take_pending();
    hb_thr *h = self_get();
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
    hb_in = 0;
    errno = saved;
    return s;
}

int sc_hb_legacy_concurrent(sc_thread *t)
{
    (void)t;
    hb_thr *h = hb_self;
    if (!h || !sc_hb_on())
        return 0;
    uint32_t used = atomic_load_explicit(&slots_used, memory_order_acquire);
    int raced = 0, beside = 0;
    for (uint32_t m = used; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if ((int)i == h->slot)
            continue;
        uint64_t n = atomic_load_explicit(&slots[i].nsub, memory_order_acquire);
        uint64_t seen = h->c[i], base = atomic_load_explicit(&hb_base[i], memory_order_relaxed);
        beside |= n > 0;
        if (n > (seen > base ? seen : base)) {
            raced = 1;
            mark_raced(atomic_load_explicit(&slots[i].last_lid, memory_order_relaxed));
        }
    }
    if (raced)
        mark_raced(h->lid);
    if (beside && !sc_g.redirect &&
        atomic_fetch_add_explicit(&hb_judged, 1, memory_order_relaxed) + 1 == HB_JUDGED) {
        int no = 0;
        if (atomic_compare_exchange_strong(&hb_resting, &no, 1)) {
            atomic_store_explicit(&hb_on_flag, 0, memory_order_release);
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
    uint32_t used = atomic_load(&slots_used);
    for (uint32_t m = used; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        atomic_store(&hb_base[i], atomic_load(&slots[i].nsub));
    }
    atomic_store(&hb_judged, 0);
    atomic_store_explicit(&hb_on_flag, 1, memory_order_release);
    atomic_store(&hb_resting, 0);
}

uint64_t sc_hb_rests(void)
{
    return atomic_load(&hb_rests);
}

void sc_hb_submitted(sc_thread *t, int where, CUcontext ctx)
{
    (void)t;
    hb_thr *h = hb_self;
    if (!h || h->slot < 0)
        return;
    hb_slot *sl = &slots[h->slot];
    uint64_t n = atomic_load_explicit(&sl->nsub, memory_order_relaxed) + 1;
    h->c[h->slot] = n;   /* not a change of ver: release_key compares the own component itself */
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
static void record_ptds_event(hb_thr *h)
{
    hb_slot *sl = &slots[h->slot];
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
        hb_prof_events++;
}

/* ------------------------------------------------------------ redirect --- */
void sc_hb_own_stream(sc_thread *t, CUcontext ctx, CUstream s, unsigned gen)
{
    (void)t;
    hb_thr *h = hb_self;
    if (!h || h->slot < 0)
        return;
    hb_slot *sl = &slots[h->slot];
    spin_lock(&sl->lock);
    int free_i = -1, i;
    for (i = 0; i < SC_OWN_MAX; i++) {
        if (sl->own[i].stream && sl->own[i].ctx == ctx)
            break;
        if (free_i < 0 && (!sl->own[i].stream || sl->own[i].gen != gen))
            free_i = i;
    }
    if (i == SC_OWN_MAX)
        i = free_i;
    if (i >= 0) {
        sl->own[i].ctx = ctx;
        sl->own[i].stream = s;
        sl->own[i].gen = gen;
    }
    spin_unlock(&sl->lock);
}

static CUstream own_of(hb_slot *sl, CUcontext ctx, unsigned gen)
{
    CUstream s = NULL;
    spin_lock(&sl->lock);
    for (unsigned i = 0; i < SC_OWN_MAX; i++)
        if (sl->own[i].stream && sl->own[i].ctx == ctx && sl->own[i].gen == gen)
            s = sl->own[i].stream;
    spin_unlock(&sl->lock);
    return s;
}

/* This thread's event for pulling other threads' streams in ctx. */
static CUevent pull_event(hb_thr *h, CUcontext ctx, unsigned gen)
{
    int slot = -1;
    for (int i = 0; i < HB_PULL; i++) {
        if (h->pull[i].ev && h->pull[i].ctx == ctx && h->pull[i].gen == gen)
            return h->pull[i].ev;
        if (slot < 0 && (!h->pull[i].ev || h->pull[i].gen != gen))
            slot = i;
    }
    if (slot < 0 || !sc_d.EventCreate)
        return NULL;
    CUevent ev = NULL;
    if (sc_d.EventCreate(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
        return NULL;
    h->pull[slot].ctx = ctx;
    h->pull[slot].ev = ev;
    h->pull[slot].gen = gen;
    return ev;
}

/* Makes target wait for slot s's redirected work up to v.  0 done, -1 no. */
static int pull(hb_thr *h, unsigned s, uint64_t v, CUcontext ctx, CUstream target)
{
    hb_slot *sl = &slots[s];
    unsigned gen = atomic_load(&sc_g.ctx_gen);
    uint64_t lo = h->waited[s], idle = atomic_load_explicit(&sl->idle, memory_order_acquire);
    if (idle > lo)
        lo = idle;
    /* Its own stream in this context (method stream): record there now; the
       event covers at least everything it queued before its release. */
    CUstream os = atomic_load_explicit(&sl->own_last, memory_order_acquire) > lo ? own_of(sl, ctx, gen) : NULL;
    if (os) {
        CUevent ev = pull_event(h, ctx, gen);
        if (!ev || sc_d.EventRecord(ev, os) != CUDA_SUCCESS || sc_d.StreamWaitEvent(target, ev, 0) != CUDA_SUCCESS)
            return -1;
        atomic_fetch_add_explicit(&n_waits, 1, memory_order_relaxed);
    }
    /* Its per-thread stream: only its own event can reach it. */
    uint64_t pl = atomic_load_explicit(&sl->ptds_last, memory_order_acquire);
    if (atomic_load(&sl->stale) > lo)
        return -1;   /* an earlier occupant's, not covered by any event */
    if (pl > lo) {
        CUcontext wctx = atomic_load(&sl->ctx);
        if (atomic_load(&sl->multi))
            return -1;
        if (wctx != ctx)
            return 0;   /* another context's: the legacy stream never ordered it with ours */
        uint64_t need = pl < v ? pl : v;
        uint64_t eu = atomic_load_explicit(&sl->ev_upto, memory_order_acquire);
        CUevent ev = atomic_load(&sl->ev);
        if (eu < need || !ev || atomic_load(&sl->ev_ctx) != ctx || atomic_load(&sl->ev_gen) != gen)
            return -1;
        if (sc_d.StreamWaitEvent(target, ev, 0) != CUDA_SUCCESS)
            return -1;
        atomic_fetch_add_explicit(&n_waits, 1, memory_order_relaxed);
    }
    return 0;
}

int sc_hb_order(sc_thread *t, CUcontext ctx, CUstream target)
{
    (void)t;
    hb_thr *h = hb_self;
    if (!h || !sc_hb_on())
        return 0;
    take_pending();
    uint32_t others = h->mask & ~(h->slot >= 0 ? 1u << h->slot : 0u);
    if (!others)
        return 0;
    if (h->waited_ctx != ctx) {
        memset(h->waited, 0, sizeof h->waited);
        h->waited_ctx = ctx;
    }
    if (atomic_load(&sc_g.n_capturing) > 0)
        return 0;   /* nothing is redirected during a capture */
    if (!sc_d.EventRecord || !sc_d.StreamWaitEvent)
        return -1;
    int saved = errno, rc = 0;
    hb_in = 1;
    for (uint32_t m = others; m; m &= m - 1) {
        unsigned s = (unsigned)__builtin_ctz(m);
        uint64_t v = h->c[s];
        if (v <= h->waited[s])
            continue;
        atomic_fetch_add_explicit(&n_handoffs, 1, memory_order_relaxed);
        if (!atomic_load_explicit(&no_order, memory_order_relaxed) &&
            v > atomic_load_explicit(&slots[s].idle, memory_order_acquire) &&
            pull(h, s, v, ctx, target) != 0) {
            rc = -1;
            break;
        }
        h->waited[s] = v;
    }
    hb_in = 0;
    errno = saved;
    return rc;
}

int sc_hb_fast_submit(int where, CUcontext ctx)
{
    hb_thr *h = hb_self;
    if (!h || h->slot < 0 || hb_in || SC_UNLIKELY(hb_pending != NULL) || !sc_hb_on())
        return 1;
    uint32_t others = h->mask & ~(1u << h->slot);
    if (others && h->waited_ctx != ctx)
        return 1;
    for (uint32_t m = others; m; m &= m - 1) {
        unsigned s = (unsigned)__builtin_ctz(m);
        if (h->c[s] > h->waited[s])
            return 1;   /* a hand-off to look at: sc_hb_order, on the slow path */
    }
    if (where >= 0)
        sc_hb_submitted(NULL, where, ctx);
    return 0;
}

void sc_hb_kept_legacy(sc_thread *t)
{
    (void)t;
    hb_thr *h = hb_self;
    if (!h)
        return;
    /* The legacy stream waits for every blocking stream's earlier work, and
       this thread's streams wait for it: everything seen so far is covered. */
    memcpy(h->waited, h->c, sizeof h->waited);
    atomic_fetch_add_explicit(&n_kept, 1, memory_order_relaxed);
}

void sc_hb_drained(sc_thread *t, CUcontext ctx)
{
    (void)t;
    hb_thr *h = hb_self;
    if (!h || h->slot < 0)
        return;
    hb_slot *sl = &slots[h->slot];
    if (atomic_load(&sl->multi) || (atomic_load(&sl->ctx) && atomic_load(&sl->ctx) != ctx))
        return;
    if (atomic_load(&sl->stale) > atomic_load(&sl->idle))
        return;   /* a predecessor's per-thread stream is not this thread's to drain */
    atomic_store_explicit(&sl->idle, h->c[h->slot], memory_order_release);
}

void sc_hb_ctx_sync_begin(void)
{
    hb_thr *h = hb_self;
    if (!h || !sc_hb_on())
        return;
    uint32_t used = atomic_load(&slots_used);
    for (uint32_t m = used; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        h->snap[i] = atomic_load_explicit(&slots[i].nsub, memory_order_acquire);
    }
    h->snap_mask = used;
}

void sc_hb_ctx_sync_end(CUcontext ctx)
{
    hb_thr *h = hb_self;
    if (!h || !sc_hb_on())
        return;
    for (uint32_t m = h->snap_mask; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        hb_slot *sl = &slots[i];
        CUcontext c = atomic_load(&sl->ctx);
        if (atomic_load(&sl->multi) || (c && c != ctx))
            continue;
        uint64_t idle = atomic_load(&sl->idle);
        while (idle < h->snap[i] && !atomic_compare_exchange_weak(&sl->idle, &idle, h->snap[i]))
            ;
    }
    h->snap_mask = 0;
}

void sc_hb_stats(uint64_t *handoffs, uint64_t *waits, uint64_t *kept)
{
    *handoffs = atomic_load(&n_handoffs);
    *waits = atomic_load(&n_waits);
    *kept = atomic_load(&n_kept);
}

/* ---------------------------------------------------------------- fork --- */
void sc_hb_atfork_child(void)
{
    /* The child's GPU work is not the parent's, and the parent's other
       threads do not exist here: start from nothing, off until the child
       submits legacy work itself. */
    atomic_store(&hb_on_flag, 0);
    atomic_store(&hb_resting, 0);
    atomic_store(&hb_judged, 0);
    atomic_store(&hb_rests, 0);
    for (unsigned i = 0; i < SC_HB_SLOTS; i++)
        atomic_store(&hb_base[i], 0);
    /* The entries start again from seq 0: what this thread remembers of
       them would match the new ones by chance. */
    if (hb_self)
        memset(hb_self->kc, 0, sizeof hb_self->kc);
    hb_ent *t = atomic_load(&tab);
    if (t)
        madvise(t, (SC_HB_TABLE + 1) * sizeof(hb_ent), MADV_DONTNEED);   /* zero again */
    if (t)
        atomic_store(&t[SC_HB_TABLE].key, (uintptr_t)1);
    for (unsigned i = 0; i < SC_HB_SLOTS; i++) {
        hb_slot *sl = &slots[i];
        memset(sl, 0, sizeof *sl);
    }
    atomic_store(&slots_used, 0);
    atomic_store(&next_lid, 0);
    for (unsigned i = 0; i < HB_LIDS / 64; i++)
        atomic_store(&lid_raced[i], 0);
    atomic_store(&n_handoffs, 0);
    atomic_store(&n_waits, 0);
    atomic_store(&n_kept, 0);
    atomic_store(&n_overflowed, 0);
    atomic_store(&pool_lock, 0);
    hb_thr *h = hb_self;
    if (h) {
        h->mask = 0;
        h->slot = -1;
        h->untracked = 0;
        h->lid = 0;
        memset(h->c, 0, sizeof h->c);
        memset(h->waited, 0, sizeof h->waited);
        memset(h->pull, 0, sizeof h->pull);   /* the parent's events */
        h->snap_mask = 0;
    }
    hb_in = 0;
}

/* ============================================== the interposed functions === */
/* Each resolves the real function once, lazily, from the next object in the
   lookup order (libc, or a sanitizer's interceptor when one comes before
   us), and never calls itself.  pthread_cond_* exist in two versions on
   glibc (x86-64: GLIBC_2.3.2, the default, and GLIBC_2.2.5, the old
   condition variable); an unversioned definition such as ours satisfies
   references to either, so the real one is asked for by the default
   version, as sanitizers do, and by plain name where that version does not
   exist (other architectures).  errno and return values pass unchanged. */
typedef void *(*dlsym_fn)(void *, const char *);

enum {
    R_MUTEX_LOCK, R_MUTEX_TRYLOCK, R_MUTEX_TIMEDLOCK, R_MUTEX_CLOCKLOCK, R_MUTEX_UNLOCK,
    R_COND_WAIT, R_COND_TIMEDWAIT, R_COND_CLOCKWAIT, R_COND_SIGNAL, R_COND_BROADCAST,
    R_RW_RDLOCK, R_RW_TRYRDLOCK, R_RW_TIMEDRDLOCK, R_RW_CLOCKRDLOCK,
    R_RW_WRLOCK, R_RW_TRYWRLOCK, R_RW_TIMEDWRLOCK, R_RW_CLOCKWRLOCK, R_RW_UNLOCK,
    R_SEM_POST, R_SEM_WAIT, R_SEM_TRYWAIT, R_SEM_TIMEDWAIT, R_SEM_CLOCKWAIT,
    R_BARRIER_WAIT, R_CREATE, R_JOIN, R_TRYJOIN, R_TIMEDJOIN, R_CLOCKJOIN,
    R_N
};
static const struct { const char *name, *ver; } real_names[R_N] = {
    [R_MUTEX_LOCK] = {"pthread_mutex_lock", NULL},
    [R_MUTEX_TRYLOCK] = {"pthread_mutex_trylock", NULL},
    [R_MUTEX_TIMEDLOCK] = {"pthread_mutex_timedlock", NULL},
    [R_MUTEX_CLOCKLOCK] = {"pthread_mutex_clocklock", NULL},
    [R_MUTEX_UNLOCK] = {"pthread_mutex_unlock", NULL},
    [R_COND_WAIT] = {"pthread_cond_wait", "GLIBC_2.3.2"},
    [R_COND_TIMEDWAIT] = {"pthread_cond_timedwait", "GLIBC_2.3.2"},
    [R_COND_CLOCKWAIT] = {"pthread_cond_clockwait", NULL},
    [R_COND_SIGNAL] = {"pthread_cond_signal", "GLIBC_2.3.2"},
    [R_COND_BROADCAST] = {"pthread_cond_broadcast", "GLIBC_2.3.2"},
    [R_RW_RDLOCK] = {"pthread_rwlock_rdlock", NULL},
    [R_RW_TRYRDLOCK] = {"pthread_rwlock_tryrdlock", NULL},
    [R_RW_TIMEDRDLOCK] = {"pthread_rwlock_timedrdlock", NULL},
    [R_RW_CLOCKRDLOCK] = {"pthread_rwlock_clockrdlock", NULL},
    [R_RW_WRLOCK] = {"pthread_rwlock_wrlock", NULL},
    [R_RW_TRYWRLOCK] = {"pthread_rwlock_trywrlock", NULL},
    [R_RW_TIMEDWRLOCK] = {"pthread_rwlock_timedwrlock", NULL},
    [R_RW_CLOCKWRLOCK] = {"pthread_rwlock_clockwrlock", NULL},
    [R_RW_UNLOCK] = {"pthread_rwlock_unlock", NULL},
    [R_SEM_POST] = {"sem_post", NULL},
    [R_SEM_WAIT] = {"sem_wait", NULL},
    [R_SEM_TRYWAIT] = {"sem_trywait", NULL},
    [R_SEM_TIMEDWAIT] = {"sem_timedwait", NULL},
    [R_SEM_CLOCKWAIT] = {"sem_clockwait", NULL},
    [R_BARRIER_WAIT] = {"pthread_barrier_wait", NULL},
    [R_CREATE] = {"pthread_create", NULL},
    [R_JOIN] = {"pthread_join", NULL},
    [R_TRYJOIN] = {"pthread_tryjoin_np", NULL},
    [R_TIMEDJOIN] = {"pthread_timedjoin_np", NULL},
    [R_CLOCKJOIN] = {"pthread_clockjoin_np", NULL},
};
static void *_Atomic reals[R_N];

SC_NO_SANITIZE static void *resolve_real(unsigned i)
{
    /* dlvsym and the real dlsym are not ours: this cannot come back here.
       (They take the loader's lock through libc's internal functions, not
       through the interposable symbols.)  The next definition by plain name
       is the one to call: another interposer's (ThreadSanitizer's, when its
       runtime comes after us), else the C library's default version.  For
       the versioned functions the C library's is taken by its version when
       it is the C library's anyway: dlvsym skips unversioned definitions
       such as interposers', so it cannot be asked first. */
    dlsym_fn f = (dlsym_fn)sc_resolve_real_dlsym();
    void *p = f ? f(RTLD_NEXT, real_names[i].name) : NULL;
    if (real_names[i].ver) {
        void *v = dlvsym(RTLD_NEXT, real_names[i].name, real_names[i].ver);
        Dl_info a, b;
        if (v && (!p || (dladdr(p, &a) && dladdr(v, &b) && a.dli_fbase == b.dli_fbase)))
            p = v;
    }
    if (p)
        atomic_store_explicit(&reals[i], p, memory_order_release);
    return p;
}

static inline void *real(unsigned i)
{
    void *p = atomic_load_explicit(&reals[i], memory_order_acquire);
    return SC_LIKELY(p != NULL) ? p : resolve_real(i);
}

#define RA __builtin_return_address(0)
#define HB_ACTIVE() SC_UNLIKELY(atomic_load_explicit(&hb_on_flag, memory_order_relaxed) && !hb_in)

/* The tracker's own time goes into the report's estimate: one call in
   HB_SAMPLE of a thread is timed and counted for HB_SAMPLE (every call in
   profile mode, which also fills its row). */
#define HB_SAMPLE 64
static SC_TLS uint32_t hb_ncalls;

/* Profile mode: the callers whose releases publish a clock or record the
   per-thread stream's event, counted by return address (the profile lists
   the busiest; sc_hb_prof_callers).  A full table drops new callers. */
#define HB_PCALLERS 128
static struct {
    _Atomic uintptr_t ra;
    _Atomic uint64_t pub, ev;
} pcallers[HB_PCALLERS];

static void prof_caller(const void *ra, int pub, uint64_t ev)
{
    uintptr_t k = (uintptr_t)ra;
    if (!k || (!pub && !ev))
        return;
    for (unsigned i = 0, h = ra_index(k) % HB_PCALLERS; i < HB_PCALLERS; i++, h = (h + 1) % HB_PCALLERS) {
        uintptr_t cur = atomic_load_explicit(&pcallers[h].ra, memory_order_acquire);
        if (cur == 0 && atomic_compare_exchange_strong(&pcallers[h].ra, &cur, k))
            cur = k;
        if (cur == k) {
            atomic_fetch_add_explicit(&pcallers[h].pub, (uint64_t)(pub != 0), memory_order_relaxed);
            atomic_fetch_add_explicit(&pcallers[h].ev, ev, memory_order_relaxed);
            return;
        }
    }
}

void sc_hb_prof_callers(void (*fn)(uintptr_t ra, uint64_t pub, uint64_t ev, void *arg), void *arg)
{
    for (unsigned i = 0; i < HB_PCALLERS; i++) {
        uintptr_t ra = atomic_load_explicit(&pcallers[i].ra, memory_order_acquire);
        if (ra)
            fn(ra, atomic_load(&pcallers[i].pub), atomic_load(&pcallers[i].ev), arg);
    }
}

static inline uint64_t hb_t0(void)
{
    return SC_UNLIKELY((++hb_ncalls & (HB_SAMPLE - 1)) == 0 || sc_prof_on) ? sc_tsc() : 0;
}

static void hb_account(uint64_t t0, int full, int rel)
{
    if (SC_LIKELY(!t0))
        return;
    uint64_t dt = sc_tsc() - t0;
    dt = dt > sc_tsc_overhead ? dt - sc_tsc_overhead : 0;
    sc_thread *t = sc_tls_self;
    if (sc_prof_on) {
        sc_prof_add_slow(t, SC_PH_HB, t0, (uint64_t)full);
        sc_prof_add_slow(t, rel ? SC_PH_HBREL : SC_PH_HBACQ, t0, (uint64_t)full);
    } else {
        dt *= HB_SAMPLE;
    }
    atomic_fetch_add_explicit(t ? &t->own_ticks : &sc_proc_own_ticks, dt, memory_order_relaxed);
}

__attribute__((noinline)) static void after_acquire_slow(uintptr_t key, const void *ra, hb_ent *e)
{
    int saved = errno;
    uint64_t t0 = hb_t0();
    hb_in = 1;
    int full = acquire_key(key, ra, 0, e);
    hb_in = 0;
    hb_account(t0, full, 0);
    errno = saved;
}

/* Most acquires find no clock in the object, or one this thread joined
   already: a probe and a look at the thread's memory of the object, inline. */
static inline void after_acquire(const void *obj, const void *ra)
{
    uintptr_t key = obj_key(obj);
    hb_ent *e = ent_find(key, 0);
    if (SC_UNLIKELY(hb_pending != NULL)) {
        after_acquire_slow(key, ra, e);
        return;
    }
    if (!e)
        return;
    const hb_thr *h = hb_self;
    if (h) {
        const __typeof__(h->kc[0]) *k = &h->kc[kc_index(key)];
        if (k->key == key && k->has_seen && k->seen == atomic_load_explicit(&e->seq, memory_order_acquire))
            return;
    }
    after_acquire_slow(key, ra, e);
}

__attribute__((noinline)) static void before_release_slow(const void *obj, const void *ra, int kind)
{
    int saved = errno;
    uint64_t t0 = hb_t0();
    uint64_t ev0 = hb_prof_events;
    hb_in = 1;
    int full = release_key(obj_key(obj), ra, kind);
    hb_in = 0;
    hb_account(t0, full, 1);
    if (SC_UNLIKELY(sc_prof_on))
        prof_caller(ra, full, hb_prof_events - ev0);
    errno = saved;
}

/* A thread with an empty clock has nothing to release, a lock of CUDA's
   own libraries (the driver's and the runtime's, taken in every API call)
   is not the program's order (skip_caller's cache says so), and an object
   that holds the thread's clock already needs nothing: all three are
   answered inline, before any call (redirect keeps the tracker on, and a
   PyTorch step makes thousands of such calls).  So is the commonest
   release that does publish: a mutex whose last release was this thread's
   own, after this thread's own submissions only (release_own), from a
   caller the cache knows to follow, outside the shim, with no event to
   record (a sticky entry records: the slow path). */
static inline void before_release(const void *obj, const void *ra, int kind)
{
    hb_thr *h = hb_self;
    if (SC_UNLIKELY(hb_pending != NULL)) {
        before_release_slow(obj, ra, kind);
    } else if (h && h->mask) {
        int cached = ra_cached(h, (uintptr_t)ra);
        if (cached == 1 && !atomic_load_explicit(&follow_all, memory_order_relaxed))
            return;
        uintptr_t key = obj_key(obj);
        __typeof__(h->kc[0]) *k = &h->kc[kc_index(key)];
        uint64_t own = own_count(h);
        hb_ent *e = rel_entry_current(h, k, key);
        if (e && k->rel_own == own)
            return;
        sc_thread *t;
        if (e && kind == HB_REL_MUTEX && cached == 0 && !atomic_load_explicit(&e->sticky, memory_order_relaxed) &&
            !((t = sc_tls_self) && atomic_load_explicit(&t->busy, memory_order_relaxed))) {
            uint64_t t0 = hb_t0();
            release_own(h, e, k, own);
            hb_account(t0, 1, 1);
            if (SC_UNLIKELY(sc_prof_on))
                prof_caller(ra, 1, 0);
            return;
        }
        before_release_slow(obj, ra, kind);
    }
}

/* An acquire succeeded (robust mutexes: EOWNERDEAD still locks it). */
#define LOCKED(r) ((r) == 0 || (r) == EOWNERDEAD)

typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*mutex_timed_fn)(pthread_mutex_t *, const struct timespec *);
typedef int (*mutex_clock_fn)(pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timed_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_clock_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*cond_fn)(pthread_cond_t *);
typedef int (*rw_fn)(pthread_rwlock_t *);
typedef int (*rw_timed_fn)(pthread_rwlock_t *, const struct timespec *);
typedef int (*rw_clock_fn)(pthread_rwlock_t *, clockid_t, const struct timespec *);
typedef int (*sem_fn)(sem_t *);
typedef int (*sem_timed_fn)(sem_t *, const struct timespec *);
typedef int (*sem_clock_fn)(sem_t *, clockid_t, const struct timespec *);
typedef int (*barrier_fn)(pthread_barrier_t *);
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*join_fn)(pthread_t, void **);
typedef int (*join_timed_fn)(pthread_t, void **, const struct timespec *);
typedef int (*join_clock_fn)(pthread_t, void **, clockid_t, const struct timespec *);

#define CALL(id, type, ...) ({                          \
    type f_ = (type)real(id);                           \
    f_ ? f_(__VA_ARGS__) : ENOSYS;                      \
})
/* For the sem_* family: -1 and errno. */
#define CALL_ERRNO(id, type, ...) ({                    \
    type f_ = (type)real(id);                           \
    f_ ? f_(__VA_ARGS__) : (errno = ENOSYS, -1);        \
})

/* ------------------------------------------------------------ mutexes --- */
SC_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    int r = CALL(R_MUTEX_LOCK, mutex_fn, m);
    if (HB_ACTIVE() && LOCKED(r))
        after_acquire(m, RA);
    return r;
}

SC_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    int r = CALL(R_MUTEX_TRYLOCK, mutex_fn, m);
    if (HB_ACTIVE() && LOCKED(r))
        after_acquire(m, RA);
    return r;
}

SC_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *restrict m, const struct timespec *restrict ts)
{
    int r = CALL(R_MUTEX_TIMEDLOCK, mutex_timed_fn, m, ts);
    if (HB_ACTIVE() && LOCKED(r))
        after_acquire(m, RA);
    return r;
}

SC_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *restrict m, clockid_t clk, const struct timespec *restrict ts)
{
    int r = CALL(R_MUTEX_CLOCKLOCK, mutex_clock_fn, m, clk, ts);
    if (HB_ACTIVE() && LOCKED(r))
        after_acquire(m, RA);
    return r;
}

SC_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (HB_ACTIVE())
        before_release(m, RA, HB_REL_MUTEX);
    return CALL(R_MUTEX_UNLOCK, mutex_fn, m);
}

/* -------------------------------------------------- condition variables --- */
/* The wait unlocks the mutex (a release), and returns with it locked again
   (an acquire), after a signal or broadcast (a release of the condition
   variable) or a timeout: both are acquired in every case, which at worst
   adds order. */
SC_EXPORT int pthread_cond_wait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m)
{
    const void *ra = RA;
    if (HB_ACTIVE())
        before_release(m, ra, HB_REL_MUTEX);
    int r = CALL(R_COND_WAIT, cond_wait_fn, c, m);
    if (HB_ACTIVE() && r == 0) {   /* asked again: the tracker may have come on meanwhile */
        after_acquire(c, ra);
        after_acquire(m, ra);
    }
    return r;
}

SC_EXPORT int pthread_cond_timedwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m,
                                     const struct timespec *restrict ts)
{
    const void *ra = RA;
    if (HB_ACTIVE())
        before_release(m, ra, HB_REL_MUTEX);
    int r = CALL(R_COND_TIMEDWAIT, cond_timed_fn, c, m, ts);
    if (HB_ACTIVE() && (r == 0 || r == ETIMEDOUT)) {
        after_acquire(c, ra);
        after_acquire(m, ra);
    }
    return r;
}

SC_EXPORT int pthread_cond_clockwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m, clockid_t clk,
                                     const struct timespec *restrict ts)
{
    const void *ra = RA;
    if (HB_ACTIVE())
        before_release(m, ra, HB_REL_MUTEX);
    int r = CALL(R_COND_CLOCKWAIT, cond_clock_fn, c, m, clk, ts);
    if (HB_ACTIVE() && (r == 0 || r == ETIMEDOUT)) {
        after_acquire(c, ra);
        after_acquire(m, ra);
    }
    return r;
}

SC_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
    if (HB_ACTIVE())
        before_release(c, RA, HB_REL_HANDOFF);
    return CALL(R_COND_SIGNAL, cond_fn, c);
}

SC_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
    if (HB_ACTIVE())
        before_release(c, RA, HB_REL_HANDOFF);
    return CALL(R_COND_BROADCAST, cond_fn, c);
}

/* ------------------------------------------------------------ rwlocks --- */
/* Readers release into the lock too, and acquire what other readers
   released: more order than the program has, never less. */
#define RW_ACQUIRE(id, type, ...)                        \
    do {                                                 \
        int r = CALL(id, type, __VA_ARGS__);             \
        if (HB_ACTIVE() && r == 0)                       \
            after_acquire(rw, RA);                       \
        return r;                                        \
    } while (0)

SC_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw) { RW_ACQUIRE(R_RW_RDLOCK, rw_fn, rw); }
SC_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw) { RW_ACQUIRE(R_RW_TRYRDLOCK, rw_fn, rw); }
SC_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw) { RW_ACQUIRE(R_RW_WRLOCK, rw_fn, rw); }
SC_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw) { RW_ACQUIRE(R_RW_TRYWRLOCK, rw_fn, rw); }
SC_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict rw, const struct timespec *restrict ts)
{
    RW_ACQUIRE(R_RW_TIMEDRDLOCK, rw_timed_fn, rw, ts);
}
SC_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict rw, const struct timespec *restrict ts)
{
    RW_ACQUIRE(R_RW_TIMEDWRLOCK, rw_timed_fn, rw, ts);
}
SC_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *restrict rw, clockid_t clk, const struct timespec *restrict ts)
{
    RW_ACQUIRE(R_RW_CLOCKRDLOCK, rw_clock_fn, rw, clk, ts);
}
SC_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *restrict rw, clockid_t clk, const struct timespec *restrict ts)
{
    RW_ACQUIRE(R_RW_CLOCKWRLOCK, rw_clock_fn, rw, clk, ts);
}

SC_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
    if (HB_ACTIVE())
        before_release(rw, RA, HB_REL_LOCK);
    return CALL(R_RW_UNLOCK, rw_fn, rw);
}

/* --------------------------------------------------------- semaphores --- */
SC_EXPORT int sem_post(sem_t *s)
{
    if (HB_ACTIVE())
        before_release(s, RA, HB_REL_HANDOFF);
    return CALL_ERRNO(R_SEM_POST, sem_fn, s);
}

#define SEM_ACQUIRE(id, type, ...)                       \
    do {                                                 \
        int r = CALL_ERRNO(id, type, __VA_ARGS__);       \
        if (HB_ACTIVE() && r == 0)                       \
            after_acquire(s, RA);                        \
        return r;                                        \
    } while (0)

SC_EXPORT int sem_wait(sem_t *s) { SEM_ACQUIRE(R_SEM_WAIT, sem_fn, s); }
SC_EXPORT int sem_trywait(sem_t *s) { SEM_ACQUIRE(R_SEM_TRYWAIT, sem_fn, s); }
SC_EXPORT int sem_timedwait(sem_t *restrict s, const struct timespec *restrict ts)
{
    SEM_ACQUIRE(R_SEM_TIMEDWAIT, sem_timed_fn, s, ts);
}
SC_EXPORT int sem_clockwait(sem_t *restrict s, clockid_t clk, const struct timespec *restrict ts)
{
    SEM_ACQUIRE(R_SEM_CLOCKWAIT, sem_clock_fn, s, clk, ts);
}

/* ----------------------------------------------------------- barriers --- */
SC_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
    const void *ra = RA;
    if (HB_ACTIVE())
        before_release(b, ra, HB_REL_HANDOFF);
    int r = CALL(R_BARRIER_WAIT, barrier_fn, b);
    if (HB_ACTIVE() && (r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD))
        after_acquire(b, ra);
    return r;
}

/* ---------------------------------------------------- create and join --- */
/* The child's first code: runs before a sanitizer's own start routine when
   one comes before us in the lookup order (it passes us its routine), so it
   touches nothing a sanitizer would instrument: it leaves the parent's
   clock for the child's first tracked call and for its exit (the key's
   destructor runs even if the child never calls anything we follow). */
SC_NO_SANITIZE static void *hb_start(void *p)
{
    hb_start_rec *r = p;
    void *(*fn)(void *) = r->fn;
    void *arg = r->arg;
    hb_pending = r;
    pthread_setspecific(hb_key, r);   /* any non-NULL value: the destructor reads the TLS */
    return fn(arg);
}

SC_EXPORT int pthread_create(pthread_t *restrict th, const pthread_attr_t *restrict attr, void *(*fn)(void *),
                             void *restrict arg)
{
    create_fn f = (create_fn)real(R_CREATE);
    if (!f)
        return EAGAIN;
    if (!HB_ACTIVE())
        return f(th, attr, fn, arg);
    int saved = errno;
    hb_in = 1;
    take_pending();
    hb_thr *h = hb_self;
    hb_start_rec *r = NULL;
    if (h && h->mask && !skip_caller(h, RA) && (r = malloc(sizeof *r)) != NULL) {
        r->fn = fn;
        r->arg = arg;
        r->mask = h->mask;
        memcpy(r->c, h->c, sizeof r->c);
        if (h->slot >= 0)
            record_ptds_event(h);
    }
    hb_in = 0;
    errno = saved;
    if (!r)
        return f(th, attr, fn, arg);
    int rc = f(th, attr, hb_start, r);
    if (rc)
        free(r);
    return rc;
}

__attribute__((noinline)) static void after_join(pthread_t th, const void *ra)
{
    int saved = errno;
    hb_in = 1;
    acquire_key(thread_key(th), ra, 1, NULL);
    hb_in = 0;
    errno = saved;
}

SC_EXPORT int pthread_join(pthread_t th, void **ret)
{
    int r = CALL(R_JOIN, join_fn, th, ret);
    if (HB_ACTIVE() && r == 0)
        after_join(th, RA);
    return r;
}

SC_EXPORT int pthread_tryjoin_np(pthread_t th, void **ret)
{
    int r = CALL(R_TRYJOIN, join_fn, th, ret);
    if (HB_ACTIVE() && r == 0)
        after_join(th, RA);
    return r;
}

SC_EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *ts)
{
    int r = CALL(R_TIMEDJOIN, join_timed_fn, th, ret, ts);
    if (HB_ACTIVE() && r == 0)
        after_join(th, RA);
    return r;
}

SC_EXPORT int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clk, const struct timespec *ts)
{
    int r = CALL(R_CLOCKJOIN, join_clock_fn, th, ret, clk, ts);
    if (HB_ACTIVE() && r == 0)
        after_join(th, RA);
    return r;
}

/* ------------------------------------------------------------ the part --- */
/* Registered with the shim's fork handler (core.h).  Nothing to hold before
   fork: the child clears every spin lock with the rest of the state, and a
   lock held here would deadlock whatever the fork handlers of others do
   with a mutex afterwards (it comes through this file). */
static void hb_fork_lock(void) {}
static void hb_fork_unlock(void) {}
static const sc_part hb_part = {"hb", 80, hb_fork_lock, hb_fork_unlock, sc_hb_atfork_child, NULL, NULL};
SC_PART_REGISTER(hb_part)
