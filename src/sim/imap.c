/* src/sim/imap.c: interval map as a treap keyed by interval start. */
#include "config.h"

#include "sim/imap.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct node {
    scsim_interval iv;
    uint32_t prio;
    struct node *l, *r;
} node;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static node *root;
static uint32_t rng = 2463534242u; /* xorshift32 state, under the write lock */

static uint32_t next_prio(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* Splits t into keys < key (*l) and keys >= key (*r). */
static void split(node *t, uintptr_t key, node **l, node **r)
{
    if (!t) {
        *l = *r = NULL;
    } else if (t->iv.base < key) {
        split(t->r, key, &t->r, r);
        *l = t;
    } else {
        split(t->l, key, l, &t->l);
        *r = t;
    }
}

/* Joins l and r, every key of l below every key of r. */
static node *merge(node *l, node *r)
{
    if (!l)
        return r;
    if (!r)
        return l;
    if (l->prio > r->prio) {
        l->r = merge(l->r, r);
        return l;
    }
    r->l = merge(l, r->l);
    return r;
}

/* The node with the greatest base <= addr. */
static const node *floor_node(uintptr_t addr)
{
    const node *t = root, *best = NULL;
    while (t) {
        if (t->iv.base <= addr) {
            best = t;
            t = t->r;
        } else {
            t = t->l;
        }
    }
    return best;
}

/* The node with the smallest base >= addr. */
static const node *ceil_node(uintptr_t addr)
{
    const node *t = root, *best = NULL;
    while (t) {
        if (t->iv.base >= addr) {
            best = t;
            t = t->l;
        } else {
            t = t->r;
        }
    }
    return best;
}

static bool overlaps_locked(uintptr_t base, size_t size)
{
    const node *f = floor_node(base);
    if (f && base - f->iv.base < f->iv.size)
        return true;
    const node *c = ceil_node(base);
    return c && c->iv.base - base < size;
}

bool scsim_imap_insert(const scsim_interval *iv)
{
    node *n = malloc(sizeof *n);
    if (!n)
        return false;
    n->iv = *iv;
    n->l = n->r = NULL;
    pthread_rwlock_wrlock(&lock);
    if (overlaps_locked(iv->base, iv->size)) {
        pthread_rwlock_unlock(&lock);
        free(n);
        return false;
    }
    n->prio = next_prio();
    node *l, *r;
    split(root, iv->base, &l, &r);
    root = merge(merge(l, n), r);
    pthread_rwlock_unlock(&lock);
    return true;
}

bool scsim_imap_remove(uintptr_t base, unsigned kind_mask, scsim_interval *out)
{
    pthread_rwlock_wrlock(&lock);
    const node *f = floor_node(base);
    if (!f || f->iv.base != base || !(kind_mask & (1u << f->iv.kind))) {
        pthread_rwlock_unlock(&lock);
        return false;
    }
    node *l, *m, *r;
    split(root, base, &l, &m);
    split(m, base + 1, &m, &r);
    root = merge(l, r);
    pthread_rwlock_unlock(&lock);
    if (out)
        *out = m->iv;
    free(m);
    return true;
}

bool scsim_imap_find(uintptr_t addr, scsim_interval *out)
{
    pthread_rwlock_rdlock(&lock);
    const node *f = floor_node(addr);
    bool hit = f && addr - f->iv.base < f->iv.size;
    if (hit && out)
        *out = f->iv;
    pthread_rwlock_unlock(&lock);
    return hit;
}

bool scsim_imap_overlaps(uintptr_t base, size_t size)
{
    pthread_rwlock_rdlock(&lock);
    bool r = overlaps_locked(base, size);
    pthread_rwlock_unlock(&lock);
    return r;
}
