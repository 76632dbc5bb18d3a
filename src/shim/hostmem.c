/* hostmem.c: which host ranges are pinned, and which addresses are device
 * allocations.
 *
 * docs/ARCHITECTURE.md, "Why the driver layer": asking the driver costs
 * 120-850 ns a pointer, so the shim classifies from its own record of
 * cuMemHostAlloc, cuMemAllocHost, cuMemHostRegister and device allocations,
 * and asks the driver only about pointers it has never seen (slow path).
 *
 * Each set is a sorted array of [lo, hi) ranges behind a sequence lock:
 * readers (every async copy on the fast path) never take a lock; they retry
 * if a writer was active.  Writers hold a mutex.  Arrays only grow; a grown
 * array replaces the old one, which stays allocated because a reader may
 * still be looking at it (the waste is bounded by the final size).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "hostmem.h"
#include "thread.h"

typedef struct range {
    _Atomic uintptr_t lo, hi;
} range;

typedef struct rangeset {
    _Atomic unsigned seq;
    _Atomic(range *) v;
    _Atomic size_t n;
    size_t cap;
    pthread_mutex_t lock;
} rangeset;

static rangeset pinned = {.lock = PTHREAD_MUTEX_INITIALIZER};
static rangeset devmem = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Index of the first range with hi > p, searching the snapshot (v, n). */
static size_t upper(range *v, size_t n, uintptr_t p)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (atomic_load_explicit(&v[mid].hi, memory_order_relaxed) <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 1 if [p, p+len) lies inside one range of s. */
static int contains(rangeset *s, uintptr_t p, size_t len)
{
    for (;;) {
        unsigned seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (seq & 1)
            continue;
        range *v = atomic_load_explicit(&s->v, memory_order_acquire);
        size_t n = atomic_load_explicit(&s->n, memory_order_acquire);
        int hit = 0;
        if (v && n) {
            size_t i = upper(v, n, p);
            if (i < n) {
                uintptr_t lo = atomic_load_explicit(&v[i].lo, memory_order_relaxed);
                uintptr_t hi = atomic_load_explicit(&v[i].hi, memory_order_relaxed);
                hit = lo <= p && (len == 0 || len <= hi - p);   /* upper() gave hi > p */
            }
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->seq, memory_order_relaxed) == seq)
            return hit;
    }
}

static void write_begin(rangeset *s)
{
    pthread_mutex_lock(&s->lock);
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_acq_rel);
}

static void write_end(rangeset *s)
{
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_release);
    pthread_mutex_unlock(&s->lock);
}

static void add(rangeset *s, uintptr_t lo, size_t len)
{
    if (!lo || !len)
        return;
    uintptr_t hi = lo + len < lo ? UINTPTR_MAX : lo + len;
    write_begin(s);
    range *v = atomic_load_explicit(&s->v, memory_order_relaxed);
    size_t n = atomic_load_explicit(&s->n, memory_order_relaxed);
    /* A new range replaces any it overlaps (a freed range we did not see go). */
    size_t i = upper(v, n, lo), j = i;
    while (j < n && atomic_load_explicit(&v[j].lo, memory_order_relaxed) < hi)
        j++;
    size_t newn = n - (j - i) + 1;
    if (newn > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        while (cap < newn)
            cap *= 2;
        range *nv = calloc(cap, sizeof *nv);
        if (!nv) {
            write_end(s);
            return;          /* untracked: the slow path asks the driver instead */
        }
        for (size_t k = 0; k < n; k++) {
            atomic_store_explicit(&nv[k].lo, atomic_load_explicit(&v[k].lo, memory_order_relaxed), memory_order_relaxed);
            atomic_store_explicit(&nv[k].hi, atomic_load_explicit(&v[k].hi, memory_order_relaxed), memory_order_relaxed);
        }
        atomic_store_explicit(&s->v, nv, memory_order_release);
        s->cap = cap;
        v = nv;   /* the old array is left for readers still in it */
    }
    /* Shift the tail to make room for exactly one entry at i. */
    if (j != i + 1) {
        size_t tail = n - j;
        if (j > i + 1)
            for (size_t k = 0; k < tail; k++) {
                atomic_store_explicit(&v[i + 1 + k].lo, atomic_load_explicit(&v[j + k].lo, memory_order_relaxed), memory_order_relaxed);
                atomic_store_explicit(&v[i + 1 + k].hi, atomic_load_explicit(&v[j + k].hi, memory_order_relaxed), memory_order_relaxed);
            }
        else
            for (size_t k = tail; k-- > 0;) {
                atomic_store_explicit(&v[i + 1 + k].lo, atomic_load_explicit(&v[j + k].lo, memory_order_relaxed), memory_order_relaxed);
                atomic_store_explicit(&v[i + 1 + k].hi, atomic_load_explicit(&v[j + k].hi, memory_order_relaxed), memory_order_relaxed);
            }
    }
    atomic_store_explicit(&v[i].lo, lo, memory_order_relaxed);
    atomic_store_explicit(&v[i].hi, hi, memory_order_relaxed);
    atomic_store_explicit(&s->n, newn, memory_order_release);
    write_end(s);
}

static void del(rangeset *s, uintptr_t lo)
{
    write_begin(s);
    range *v = atomic_load_explicit(&s->v, memory_order_relaxed);
    size_t n = atomic_load_explicit(&s->n, memory_order_relaxed);
    size_t i = upper(v, n, lo);
    if (i < n && atomic_load_explicit(&v[i].lo, memory_order_relaxed) == lo) {
        for (size_t k = i; k + 1 < n; k++) {
            atomic_store_explicit(&v[k].lo, atomic_load_explicit(&v[k + 1].lo, memory_order_relaxed), memory_order_relaxed);
            atomic_store_explicit(&v[k].hi, atomic_load_explicit(&v[k + 1].hi, memory_order_relaxed), memory_order_relaxed);
        }
        atomic_store_explicit(&s->n, n - 1, memory_order_release);
    }
    write_end(s);
}

int sc_pinned_contains(const void *p, size_t n) { return contains(&pinned, (uintptr_t)p, n); }
void sc_pinned_add(const void *p, size_t n) { add(&pinned, (uintptr_t)p, n); }
void sc_pinned_remove(const void *p) { del(&pinned, (uintptr_t)p); }
int sc_devmem_contains(const void *p) { return contains(&devmem, (uintptr_t)p, 0); }
void sc_devmem_add(const void *p, size_t n) { add(&devmem, (uintptr_t)p, n); }
void sc_devmem_remove(const void *p) { del(&devmem, (uintptr_t)p); }

/* After fork: the child's copy may hold a lock some other thread owned. */
static void hostmem_child(void)
{
    pthread_mutex_init(&pinned.lock, NULL);
    pthread_mutex_init(&devmem.lock, NULL);
    atomic_store(&pinned.seq, 0);
    atomic_store(&devmem.seq, 0);
}

static void hostmem_lock(void)
{
    pthread_mutex_lock(&pinned.lock);
    pthread_mutex_lock(&devmem.lock);
}
static void hostmem_unlock(void)
{
    pthread_mutex_unlock(&devmem.lock);
    pthread_mutex_unlock(&pinned.lock);
}

static const sc_part part = {"hostmem", 30, hostmem_lock, hostmem_unlock, hostmem_child, NULL, NULL};
SC_PART_REGISTER(part)
