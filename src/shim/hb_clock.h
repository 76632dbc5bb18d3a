/* hb_clock.h: the tracker's inside (hb.h is its outside), shared by its
 * three files: hb_clock.c (vector clocks, sync objects, thread states: the
 * happens-before tracker), hb_order.c (redirect's waits: what a thread's
 * redirected work must wait for) and hb_pthread.c (the interposed pthread
 * and semaphore functions, generated from hb_pthread.def).  hb_clock.c
 * owns every piece of state below; the other two read and update it.
 *
 * What the interposers answer inline (hb_pthread.c, before_release and
 * after_acquire) is here as static inline functions, so that a lock and an
 * unlock stay one call each.
 */
#ifndef SC_HB_CLOCK_H
#define SC_HB_CLOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

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

static inline void hb_spin_lock(hb_spin *l)
{
    while (atomic_exchange_explicit(l, 1, memory_order_acquire))
        while (atomic_load_explicit(l, memory_order_relaxed))
            __builtin_ia32_pause();
}

static inline void hb_spin_unlock(hb_spin *l)
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

/* A thread's memory of one sync object (hb_thr.kc). */
typedef struct hb_known {
    uintptr_t key;
    uint64_t rel_own;
    uint32_t seen, rel_ver, rel_clr;
    uint32_t rel_xacq;
    uint8_t has_seen, has_rel;
} hb_known;

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
       mutex's release stores that one component (sc_hb_release_key). */
    uint32_t ver;
    hb_known kc[HB_KCACHE];
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
/* Defined in hb_clock.c (its fork handler resets them). */
SC_HIDDEN extern _Atomic int sc_hb_on_flag;          /* some thread submitted legacy work */
SC_HIDDEN extern _Atomic(hb_ent *) sc_hb_tab;        /* SC_HB_TABLE entries + the overflow one */
SC_HIDDEN extern hb_slot sc_hb_slots[SC_HB_SLOTS];
SC_HIDDEN extern _Atomic uint32_t sc_hb_slots_used;  /* components handed out */
SC_HIDDEN extern _Atomic uint64_t sc_hb_n_handoffs, sc_hb_n_waits, sc_hb_n_kept;   /* sc_hb_stats */
SC_HIDDEN extern _Atomic unsigned sc_hb_n_overflowed;
SC_HIDDEN extern pthread_key_t sc_hb_key;            /* its destructor publishes a thread's last clock */
SC_HIDDEN extern _Atomic int sc_hb_follow_all;       /* tests */
SC_HIDDEN extern _Atomic int sc_hb_no_order;         /* STREAMCHECK_TEST_NO_HB_ORDER: the mutant */

SC_HIDDEN extern SC_TLS hb_thr *sc_hb_self;
SC_HIDDEN extern SC_TLS int sc_hb_in;                  /* inside the tracker: pass everything through */
SC_HIDDEN extern SC_TLS hb_start_rec *sc_hb_pending;   /* from the parent, not yet joined */
SC_HIDDEN extern SC_TLS uint64_t sc_hb_prof_events;    /* profile mode: events this thread recorded */

/* sc_hb_on, inline: the fast path's redirect asks it (sc_hb_fast_submit). */
static inline int hb_on(void)
{
    return atomic_load_explicit(&sc_hb_on_flag, memory_order_relaxed);
}

/* ------------------------------------------------------------ hb_clock.c --- */
SC_HIDDEN hb_thr *sc_hb_self_get(void);      /* made if it has none (NULL without memory) */
SC_HIDDEN void sc_hb_take_pending(void);     /* joins a clock pthread_create handed over */
/* 1 when a call made from ra is not the program's own ordering: the shim's
   code, or CUDA's libraries (h's caller cache, when h is not NULL). */
SC_HIDDEN int sc_hb_skip_caller(hb_thr *h, const void *ra);
/* The thread acquires (joins) or releases (publishes into) the clock of the
   object keyed key; 1 when it joined or published one.  acquire: e is the
   entry if the caller found it already (else NULL), clear empties it (a
   joined thread's).  release: kind is HB_REL_*. */
SC_HIDDEN int sc_hb_acquire_key(uintptr_t key, const void *ra, int clear, hb_ent *e);
SC_HIDDEN int sc_hb_release_key(uintptr_t key, const void *ra, int kind);
/* Records the slot's event on the per-thread stream when it has work no
   event covers yet (h holds a slot). */
SC_HIDDEN void sc_hb_record_ptds_event(hb_thr *h);

/* ------------------------------------------------------- clock helpers --- */
/* Returns nonzero when dst grew. */
static inline int hb_join_into(uint64_t *dst, uint32_t *dmask, const uint64_t *src, uint32_t smask)
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
static inline void hb_join_self(hb_thr *h, const uint64_t *src, uint32_t smask)
{
    if (hb_join_into(h->c, &h->mask, src, smask))
        h->ver++;
}

/* The caller cache: direct-mapped by a hash of the return address (a
   PyTorch step unlocks from dozens of call sites in a few libraries, which
   the address's low bits alone put into the same few entries).  User-space
   addresses leave the top bit free for the verdict. */
#define HB_RA_SKIP ((uintptr_t)1 << 63)
static inline unsigned hb_ra_index(uintptr_t ra)
{
    return (unsigned)((ra * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctz(HB_RACACHE)));
}

/* 1 skip, 0 follow, -1 not cached. */
static inline int hb_ra_cached(const hb_thr *h, uintptr_t ra)
{
    uintptr_t v = h->racache[hb_ra_index(ra)];
    return (v & ~HB_RA_SKIP) == ra ? (v & HB_RA_SKIP) != 0 : -1;
}

static inline unsigned hb_kc_index(uintptr_t key)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctz(HB_KCACHE)));
}

/* -------------------------------------------------------------- table --- */
static inline unsigned hb_key_hash(uintptr_t k)
{
    uint64_t x = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    return (unsigned)(x >> 40) & (SC_HB_TABLE - 1);
}

/* The entry of key; with create, a new one if needed (the overflow entry
   when its probe window is full).  Without create: NULL if the object never
   had a clock, the overflow entry if it may be there. */
static inline hb_ent *hb_ent_find(uintptr_t key, int create)
{
    hb_ent *t = atomic_load_explicit(&sc_hb_tab, memory_order_acquire);
    if (!t)
        return NULL;
    unsigned h = hb_key_hash(key);
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
        atomic_fetch_add_explicit(&sc_hb_n_overflowed, 1, memory_order_relaxed);
    return &t[SC_HB_TABLE];
}

static inline int hb_is_overflow(const hb_ent *e)
{
    return atomic_load_explicit(&e->key, memory_order_relaxed) == (uintptr_t)1;
}

static inline uintptr_t hb_obj_key(const void *p) { return (uintptr_t)p; }
/* Thread ends, for pthread_join: the pthread_t, tagged (objects are aligned). */
static inline uintptr_t hb_thread_key(pthread_t t) { return (uintptr_t)t | 1; }

/* Release kinds.  HB_REL_HANDOFF objects are made to hand over (condition
   variables, semaphores, barriers, create): a thread's first release into
   one records an event (sc_hb_release_key); HB_REL_MUTEX and HB_REL_LOCK are
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
static inline void hb_release_own(hb_thr *h, hb_ent *e, hb_known *k, uint64_t own)
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

static inline uint64_t hb_own_count(const hb_thr *h)
{
    return h->slot >= 0 ? h->c[h->slot] : 0;
}

/* The entry of key when it holds this thread's clock but for its own
   component, as at the thread's last release into it, and no one took it
   since (k: the thread's memory of key); else NULL. */
static inline hb_ent *hb_rel_entry_current(const hb_thr *h, const hb_known *k, uintptr_t key)
{
    hb_ent *e;
    if (k->key == key && k->has_rel && k->rel_ver == h->ver && (e = hb_ent_find(key, 0)) != NULL &&
        atomic_load_explicit(&e->rel, memory_order_relaxed) == (uintptr_t)h &&
        atomic_load_explicit(&e->clr, memory_order_relaxed) == k->rel_clr &&
        k->rel_xacq == atomic_load_explicit(&e->xacq, memory_order_relaxed))
        return e;
    return NULL;
}

#endif /* SC_HB_CLOCK_H */
