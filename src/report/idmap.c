/* idmap.c: call sites by id in O(1) -- an open-addressing table of indices
 * into a call-site array, so that merging thousands of ranks and checking
 * their references stays linear. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static uint64_t id_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

int sc_idmap_init(sc_idmap *m, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 1) {
        if (cap > SIZE_MAX / 4) {
            errno = ENOMEM;
            return -1;
        }
        cap *= 2;
    }
    m->slot = calloc(cap, sizeof *m->slot);
    if (!m->slot)
        return -1;
    m->cap = cap;
    m->n = 0;
    return 0;
}

void sc_idmap_free(sc_idmap *m)
{
    free(m->slot);
    m->slot = NULL;
    m->cap = m->n = 0;
}

long sc_idmap_find(const sc_idmap *m, const sc_callsite *cs, const char *id)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)id_hash(id) & mask;; i = (i + 1) & mask) {
        size_t s = m->slot[i];
        if (!s)
            return -1;
        if (!strcmp(cs[s - 1].id, id))
            return (long)(s - 1);
    }
}

int sc_idmap_add(sc_idmap *m, const sc_callsite *cs, size_t idx)
{
    if (2 * (m->n + 1) >= m->cap) {
        errno = ENOSPC; /* callers size the map up front */
        return -1;
    }
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)id_hash(cs[idx].id) & mask;; i = (i + 1) & mask) {
        size_t s = m->slot[i];
        if (!s) {
            m->slot[i] = idx + 1;
            m->n++;
            return 0;
        }
        if (!strcmp(cs[s - 1].id, cs[idx].id)) {
            errno = EEXIST;
            return -1;
        }
    }
}
