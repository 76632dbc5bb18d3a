/* intern.c: strings kept for the life of the process, one copy each, in
 * open-addressed tables of fixed size.  Looking a string up takes no lock
 * (every slow call's Python frames and every NVTX push look one up);
 * adding one takes the module's lock.  A table never shrinks: its strings
 * are named by pointer (sc_intern) or by slot (sc_str_id) until exit.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "intern.h"

#define NAME_SLOTS 8192
#define RANGE_SLOTS 4096

static const char *_Atomic name_slots[NAME_SLOTS];
static const char *_Atomic range_slots[RANGE_SLOTS];

/* max: how many strings it takes.  Range names are looked up at every
   push, so their table stays at most half full and a probe short. */
static struct strtab {
    const char *_Atomic *slot;
    unsigned cap, max, n;
} tabs[SC_STRS_N] = {
    [SC_STRS_NAMES] = {name_slots, NAME_SLOTS, NAME_SLOTS, 0},
    [SC_STRS_RANGES] = {range_slots, RANGE_SLOTS, RANGE_SLOTS / 2, 0},
};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The slot of s, or of the empty slot where it would go; cap when the
   table is full without it. */
static unsigned probe(const struct strtab *t, const char *s, unsigned i0, memory_order mo)
{
    for (unsigned k = 0, i = i0; k < t->cap; k++, i = (i + 1) & (t->cap - 1)) {
        const char *x = atomic_load_explicit(&t->slot[i], mo);
        if (!x || !strcmp(x, s))
            return i;
    }
    return t->cap;
}

unsigned sc_str_id(unsigned tab, const char *s)
{
    struct strtab *t = &tabs[tab];
    unsigned i0 = (unsigned)sc_hash_bytes(SC_HASH_INIT, s, strlen(s)) & (t->cap - 1);
    unsigned i = probe(t, s, i0, memory_order_acquire);
    if (i < t->cap && atomic_load_explicit(&t->slot[i], memory_order_relaxed))
        return i + 1;
    pthread_mutex_lock(&lock);
    i = probe(t, s, i0, memory_order_relaxed);
    if (i < t->cap && !atomic_load_explicit(&t->slot[i], memory_order_relaxed)) {
        char *d = t->n < t->max ? strdup(s) : NULL;
        if (d) {
            atomic_store_explicit(&t->slot[i], d, memory_order_release);
            t->n++;
        } else {
            i = t->cap;
        }
    }
    pthread_mutex_unlock(&lock);
    return i < t->cap ? i + 1 : 0;
}

const char *sc_str_at(unsigned tab, unsigned id)
{
    if (!id || id > tabs[tab].cap)
        return NULL;
    return atomic_load_explicit(&tabs[tab].slot[id - 1], memory_order_acquire);
}

const char *sc_intern(const char *s)
{
    if (!s)
        return "?";
    const char *x = sc_str_at(SC_STRS_NAMES, sc_str_id(SC_STRS_NAMES, s));
    return x ? x : "?";
}

static void intern_lock(void) { pthread_mutex_lock(&lock); }
static void intern_unlock(void) { pthread_mutex_unlock(&lock); }
/* The strings stay valid in a child; only the lock needs to be fresh. */
static void intern_child(void) { pthread_mutex_init(&lock, NULL); }

static const sc_part part = {"intern", 35, intern_lock, intern_unlock, intern_child, NULL, NULL};
SC_PART_REGISTER(part)
