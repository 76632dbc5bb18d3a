/* hb_pthread.c: the pthread and semaphore functions the tracker follows
 * (hb_pthread.def lists them), interposed: each passes the call on to the
 * real function and tells the tracker (hb_clock.c) what the call released
 * before it and acquired after it.  errno and results pass unchanged.
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
#include <time.h>

#include "core.h"
#include "hb_clock.h"
#include "runlog.h"
#include "real.h"
#include "thread.h"

/* ----------------------------------------------------- the real ones --- */
/* Each resolves the real function once, lazily, from the next object in the
   lookup order (libc, or a sanitizer's interceptor when one comes before
   us), and never calls itself.  pthread_cond_* exist in two versions on
   glibc (x86-64: GLIBC_2.3.2, the default, and GLIBC_2.2.5, the old
   condition variable); an unversioned definition such as ours satisfies
   references to either, so the real one is asked for by the default
   version, as sanitizers do, and by plain name where that version does not
   exist (other architectures).  errno and return values pass unchanged. */
typedef void *(*dlsym_fn)(void *, const char *);

/* Every line's pointer type, id and name: an HB_FN line stands for its
   HB_OWN part here. */
#define HB_FN(NAME, VER, P, A, FAIL, BEFORE, AFTER) HB_OWN(NAME, VER, P)
#define HB_OWN(NAME, VER, P) typedef int (*hb_fn_##NAME) P;
#include "hb_pthread.def"
#undef HB_OWN

enum {
#define HB_OWN(NAME, VER, P) HB_R_##NAME,
#include "hb_pthread.def"
#undef HB_OWN
    HB_R_N
};
static const struct { const char *name, *ver; } real_names[HB_R_N] = {
#define HB_OWN(NAME, VER, P) [HB_R_##NAME] = {#NAME, VER},
#include "hb_pthread.def"
#undef HB_OWN
};
#undef HB_FN
static void *_Atomic reals[HB_R_N];

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
#define HB_ACTIVE() SC_UNLIKELY(atomic_load_explicit(&sc_hb_on_flag, memory_order_relaxed) && !sc_hb_in)

/* ------------------------------------------------- telling the tracker --- */
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
    for (unsigned i = 0, h = hb_ra_index(k) % HB_PCALLERS; i < HB_PCALLERS; i++, h = (h + 1) % HB_PCALLERS) {
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
    sc_hb_in = 1;
    int full = sc_hb_acquire_key(key, ra, 0, e);
    sc_hb_in = 0;
    hb_account(t0, full, 0);
    errno = saved;
}

/* Most acquires find no clock in the object, or one this thread joined
   already: a probe and a look at the thread's memory of the object, inline. */
static inline void after_acquire(const void *obj, const void *ra)
{
    uintptr_t key = hb_obj_key(obj);
    hb_ent *e = hb_ent_find(key, 0);
    if (SC_UNLIKELY(sc_hb_pending != NULL)) {
        after_acquire_slow(key, ra, e);
        return;
    }
    if (!e)
        return;
    const hb_thr *h = sc_hb_self;
    if (h) {
        const hb_known *k = &h->kc[hb_kc_index(key)];
        if (k->key == key && k->has_seen && k->seen == atomic_load_explicit(&e->seq, memory_order_acquire))
            return;
    }
    after_acquire_slow(key, ra, e);
}

__attribute__((noinline)) static void before_release_slow(const void *obj, const void *ra, int kind)
{
    int saved = errno;
    uint64_t t0 = hb_t0();
    uint64_t ev0 = sc_hb_prof_events;
    sc_hb_in = 1;
    int full = sc_hb_release_key(hb_obj_key(obj), ra, kind);
    sc_hb_in = 0;
    hb_account(t0, full, 1);
    if (SC_UNLIKELY(sc_prof_on))
        prof_caller(ra, full, sc_hb_prof_events - ev0);
    errno = saved;
}

/* A thread with an empty clock has nothing to release, a lock of CUDA's
   own libraries (the driver's and the runtime's, taken in every API call)
   is not the program's order (sc_hb_skip_caller's cache says so), and an object
   that holds the thread's clock already needs nothing: all three are
   answered inline, before any call (redirect keeps the tracker on, and a
   PyTorch step makes thousands of such calls).  So is the commonest
   release that does publish: a mutex whose last release was this thread's
   own, after this thread's own submissions only (hb_release_own), from a
   caller the cache knows to follow, outside the shim, with no event to
   record (a sticky entry records: the slow path). */
static inline void before_release(const void *obj, const void *ra, int kind)
{
    hb_thr *h = sc_hb_self;
    if (SC_UNLIKELY(sc_hb_pending != NULL)) {
        before_release_slow(obj, ra, kind);
    } else if (h && h->mask) {
        int cached = hb_ra_cached(h, (uintptr_t)ra);
        if (cached == 1 && !atomic_load_explicit(&sc_hb_follow_all, memory_order_relaxed))
            return;
        uintptr_t key = hb_obj_key(obj);
        hb_known *k = &h->kc[hb_kc_index(key)];
        uint64_t own = hb_own_count(h);
        hb_ent *e = hb_rel_entry_current(h, k, key);
        if (e && k->rel_own == own)
            return;
        sc_thread *t;
        if (e && kind == HB_REL_MUTEX && cached == 0 && !atomic_load_explicit(&e->sticky, memory_order_relaxed) &&
            !((t = sc_tls_self) && atomic_load_explicit(&t->busy, memory_order_relaxed))) {
            uint64_t t0 = hb_t0();
            hb_release_own(h, e, k, own);
            hb_account(t0, 1, 1);
            if (SC_UNLIKELY(sc_prof_on))
                prof_caller(ra, 1, 0);
            return;
        }
        before_release_slow(obj, ra, kind);
    }
}

__attribute__((noinline)) static void after_join(pthread_t th, const void *ra)
{
    int saved = errno;
    sc_hb_in = 1;
    sc_hb_acquire_key(hb_thread_key(th), ra, 1, NULL);
    sc_hb_in = 0;
    errno = saved;
}

/* -------------------------------------------------------- interposers --- */
/* What an interposer does around the real call (hb_pthread.def). */
#define HB_ENOSYS ENOSYS
#define HB_ENOSYS_ERRNO (errno = ENOSYS, -1)
#define HB_LOCKED(r) ((r) == 0 || (r) == EOWNERDEAD)
#define HB_NONE (void)0
#define HB_WHEN(taken, act)                   \
    do {                                      \
        if (HB_ACTIVE() && (taken)) {         \
            act;                              \
        }                                     \
    } while (0)
#define HB_RELEASE(obj, kind) HB_WHEN(1, before_release((obj), RA, (kind)))
#define HB_ACQUIRE(taken, obj) HB_WHEN(taken, after_acquire((obj), RA))
#define HB_ACQUIRE2(taken, a, b) HB_WHEN(taken, after_acquire((a), RA); after_acquire((b), RA))
/* A join is also a wait of the run log's (runlog.h): its thread waited
   that long for the other to end. */
#define HB_JOIN_START uint64_t jt0_ = sc_rl_on ? sc_now_ns() : 0
#define HB_JOINED(taken, th)                                  \
    do {                                                      \
        if (jt0_ && (taken))                                  \
            sc_rl_join((th), jt0_, sc_now_ns());              \
        HB_WHEN(taken, after_join((th), RA));                 \
    } while (0)

/* HB_ACTIVE is asked again after the call: the tracker may have come on
   meanwhile (a condition variable's wait, for one). */
#define HB_FN(NAME, VER, P, A, FAIL, BEFORE, AFTER)            \
    SC_EXPORT int NAME P                                         \
    {                                                            \
        BEFORE;                                                  \
        hb_fn_##NAME f_ = (hb_fn_##NAME)real(HB_R_##NAME);       \
        int r = f_ ? f_ A : FAIL;                                \
        AFTER;                                                   \
        return r;                                                \
    }
#define HB_OWN(NAME, VER, P)
#include "hb_pthread.def"
#undef HB_FN
#undef HB_OWN

/* What SC_SHIM_LIBS (local.mk) names for the linker, so that a program
   linking the shim's archive gets this object. */
SC_HIDDEN const int sc_hb_interposers = 1;

/* ------------------------------------------------------------ create --- */
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
    sc_hb_pending = r;
    pthread_setspecific(sc_hb_key, r);   /* any non-NULL value: the destructor reads the TLS */
    return fn(arg);
}

SC_EXPORT int pthread_create(pthread_t *restrict th, const pthread_attr_t *restrict attr, void *(*fn)(void *),
                             void *restrict arg)
{
    hb_fn_pthread_create f = (hb_fn_pthread_create)real(HB_R_pthread_create);
    if (!f)
        return EAGAIN;
    if (!HB_ACTIVE())
        return f(th, attr, fn, arg);
    int saved = errno;
    sc_hb_in = 1;
    sc_hb_take_pending();
    hb_thr *h = sc_hb_self;
    hb_start_rec *r = NULL;
    if (h && h->mask && !sc_hb_skip_caller(h, RA) && (r = malloc(sizeof *r)) != NULL) {
        r->fn = fn;
        r->arg = arg;
        r->mask = h->mask;
        memcpy(r->c, h->c, sizeof r->c);
        if (h->slot >= 0)
            sc_hb_record_ptds_event(h);
    }
    sc_hb_in = 0;
    errno = saved;
    if (!r)
        return f(th, attr, fn, arg);
    int rc = f(th, attr, hb_start, r);
    if (rc)
        free(r);
    return rc;
}

