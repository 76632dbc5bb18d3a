/* modules.c: which loaded ELF object an address belongs to.
 *
 * Two uses: api counts grouped by calling library (every call: the
 * per-thread return-address cache in thread.h answers most of them), and
 * call-site frames stored as module + offset (hazard path only).
 *
 * A registry gives each object path a stable index for the life of the
 * process.  The address map (sorted segments) is rebuilt with
 * dl_iterate_phdr when a lookup misses and the set of loaded objects has
 * changed; readers use whichever map was published last.
 */
#include "config.h"

#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "modules.h"
#include "report.h"
#include "thread.h"

#define MAX_NAMES 1024

typedef struct name_ent {
    char *path;
    const char *base;
    char *build_id;         /* its GNU build ID in hex, or NULL: the launcher
                               checks the file it symbolizes from against it */
    uint64_t hash;          /* of the basename: stable across runs */
    uint8_t nvidia;         /* one of NVIDIA's libraries (sc_nvidia_library) */
    uint8_t cublas;
} name_ent;

static name_ent names[MAX_NAMES];
static _Atomic unsigned nnames;

typedef struct map {
    struct map *older;      /* the map this one replaced: kept (a reader may
                               hold it), and reachable, not a leak */
    size_t n;
    unsigned long long adds, subs;   /* dl_iterate_phdr generation it was built at */
    sc_module m[];
} map;

static _Atomic(map *) cur;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Count slots (SC_MAX_MODS) are handed out in first-call order. */
static _Atomic unsigned short slot_of_idx[MAX_NAMES];
static _Atomic unsigned nslots;
static unsigned slot_idx[SC_MAX_MODS];   /* reverse: slot -> registry index */

static int has_prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* The object's GNU build ID, from its NT_GNU_BUILD_ID note in the loaded
   image (no file read), as lowercase hex; NULL when it has none. */
static char *build_id_of(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        size_t align = ph->p_align == 8 ? 8 : 4;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *n = (const void *)p;
            const char *name = p + sizeof *n;
            const unsigned char *desc = (const unsigned char *)name + ((n->n_namesz + align - 1) & ~(align - 1));
            if ((const char *)desc > end || n->n_descsz > (size_t)(end - (const char *)desc))
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) && n->n_descsz &&
                n->n_descsz <= 64) {
                char *hex = malloc(2 * n->n_descsz + 1);
                for (unsigned k = 0; hex && k < n->n_descsz; k++)
                    snprintf(hex + 2 * k, 3, "%02x", desc[k]);
                return hex;
            }
            p = (const char *)desc + ((n->n_descsz + align - 1) & ~(align - 1));
        }
    }
    return NULL;
}

static unsigned name_index(const char *path, const struct dl_phdr_info *info)
{
    unsigned n = atomic_load(&nnames);
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(names[i].path, path))
            return i;
    if (n >= MAX_NAMES)
        return SC_MOD_UNKNOWN;
    name_ent *e = &names[n];
    e->path = strdup(path);
    if (!e->path)
        return SC_MOD_UNKNOWN;
    const char *slash = strrchr(e->path, '/');
    e->base = slash ? slash + 1 : e->path;
    e->hash = sc_hash_bytes(SC_HASH_INIT, e->base, strlen(e->base));
    e->cublas = has_prefix(e->base, "libcublas");
    e->nvidia = sc_nvidia_library(e->path);
    e->build_id = build_id_of(info);
    atomic_store(&nnames, n + 1);
    return n;
}

struct build { map *m; size_t cap; unsigned long long adds, subs; };

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct build *b = arg;
    (void)size;
    b->adds = info->dlpi_adds;
    b->subs = info->dlpi_subs;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo) lo = s;
        if (s + ph->p_memsz > hi) hi = s + ph->p_memsz;
    }
    if (lo >= hi)
        return 0;
    const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL;
    char exe[4096];
    if (!path) {
        /* The main program (or the vDSO): name it by /proc/self/exe. */
        if (b->m->n == 0) {
            ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
            if (k <= 0)
                return 0;
            exe[k] = 0;
            path = exe;
        } else {
            path = "[vdso]";
        }
    }
    if (b->m->n == b->cap) {
        size_t cap = b->cap * 2;
        map *nm = realloc(b->m, sizeof *nm + cap * sizeof nm->m[0]);
        if (!nm)
            return 1;
        b->m = nm;
        b->cap = cap;
    }
    unsigned idx = name_index(path, info);
    if (idx == SC_MOD_UNKNOWN)
        return 0;
    b->m->m[b->m->n++] = (sc_module){lo, hi, info->dlpi_addr, idx};
    return 0;
}

static int cmp_mod(const void *a, const void *b)
{
    const sc_module *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static map *rebuild(void)
{
    pthread_mutex_lock(&lock);
    struct build b = {0};
    b.cap = 64;
    b.m = malloc(sizeof *b.m + b.cap * sizeof b.m->m[0]);
    if (!b.m) {
        pthread_mutex_unlock(&lock);
        return atomic_load(&cur);
    }
    b.m->n = 0;
    dl_iterate_phdr(collect, &b);
    qsort(b.m->m, b.m->n, sizeof b.m->m[0], cmp_mod);
    b.m->adds = b.adds;
    b.m->subs = b.subs;
    /* The old map is not freed: a reader may hold it. */
    b.m->older = atomic_load_explicit(&cur, memory_order_relaxed);
    atomic_store_explicit(&cur, b.m, memory_order_release);
    pthread_mutex_unlock(&lock);
    return b.m;
}

static const sc_module *find_in(const map *m, uintptr_t pc)
{
    if (!m)
        return NULL;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->m[mid].hi <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->m[lo].lo <= pc ? &m->m[lo] : NULL;
}

static int gen_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *g = arg;
    (void)size;
    g[0] = info->dlpi_adds;
    g[1] = info->dlpi_subs;
    return 1;   /* the first object is enough to read the counters */
}

unsigned sc_module_find(uintptr_t pc, uintptr_t *base_out)
{
    map *m = atomic_load_explicit(&cur, memory_order_acquire);
    const sc_module *hit = find_in(m, pc);
    if (!hit) {
        uint64_t p0 = sc_prof_t0();
        unsigned long long g[2] = {0, 0};
        dl_iterate_phdr(gen_cb, g);
        int stale = !m || g[0] != m->adds || g[1] != m->subs;
        if (stale)
            hit = find_in(rebuild(), pc);
        if (p0)
            sc_prof_add_slow(NULL, SC_PH_MODSCAN, p0, (uint64_t)stale);
    }
    if (!hit)
        return SC_MOD_UNKNOWN;
    if (base_out)
        *base_out = hit->base;
    return hit->idx;
}

unsigned sc_module_of_slow(sc_thread *t, uintptr_t ra)
{
    unsigned idx = sc_module_find(ra, NULL);
    unsigned slot = SC_MAX_MODS - 1;      /* "other" */
    if (idx != SC_MOD_UNKNOWN) {
        unsigned s = atomic_load(&slot_of_idx[idx]);
        if (!s) {
            pthread_mutex_lock(&lock);
            s = atomic_load(&slot_of_idx[idx]);
            if (!s) {
                unsigned n = atomic_load(&nslots);
                if (n < SC_MAX_MODS - 1) {
                    slot_idx[n] = idx;
                    atomic_store(&nslots, n + 1);
                    s = n + 1;
                } else {
                    s = SC_MAX_MODS;   /* other */
                }
                atomic_store(&slot_of_idx[idx], (unsigned short)s);
            }
            pthread_mutex_unlock(&lock);
        }
        slot = s - 1;
    }
    unsigned i = (unsigned)(ra >> 4) & (SC_RACACHE - 1);
    t->racache[i].ra = ra;
    t->racache[i].mod = slot;
    return slot;
}

/* Registry index of count slot s, or SC_MOD_UNKNOWN for "other". */
unsigned sc_module_slot_index(unsigned s)
{
    return s < atomic_load(&nslots) ? slot_idx[s] : SC_MOD_UNKNOWN;
}

/* Whether count slot s (sc_module_of) is cuBLAS or cuBLASLt. */
int sc_module_slot_is_cublas(unsigned s)
{
    unsigned idx = sc_module_slot_index(s);
    return idx != SC_MOD_UNKNOWN && sc_module_is_cublas(idx);
}

const char *sc_module_path(unsigned idx) { return idx < atomic_load(&nnames) ? names[idx].path : NULL; }
const char *sc_module_base(unsigned idx) { return idx < atomic_load(&nnames) ? names[idx].base : NULL; }
const char *sc_module_build_id(unsigned idx) { return idx < atomic_load(&nnames) ? names[idx].build_id : NULL; }
uint64_t sc_module_hash(unsigned idx) { return idx < atomic_load(&nnames) ? names[idx].hash : 0; }
unsigned sc_module_count(void) { return atomic_load(&nnames); }
int sc_module_is_nvidia(unsigned idx) { return idx < atomic_load(&nnames) && names[idx].nvidia; }
int sc_module_is_cublas(unsigned idx) { return idx < atomic_load(&nnames) && names[idx].cublas; }

static void modules_lock(void) { pthread_mutex_lock(&lock); }
static void modules_unlock(void) { pthread_mutex_unlock(&lock); }
static void modules_child(void) { pthread_mutex_init(&lock, NULL); }

static const sc_part part = {"modules", 10, modules_lock, modules_unlock, modules_child, NULL, NULL};
SC_PART_REGISTER(part)
