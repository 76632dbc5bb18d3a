/* ranges.c: the NVTX ranges each thread is in.
 *
 * Every push costs the program (PyTorch's emit_nvtx pushes one per
 * operator), so a push is a look-up of its name in intern.c's table, which
 * takes no lock once the name is known, and two stores into the thread's
 * own stack; a pop is a decrement.  The stack keeps the first
 * SC_RANGE_DEPTH levels' names; deeper ones are counted, not named.
 *
 * --range NAME: a call counts when a range of that name is open on its
 * thread, innermost or enclosing.  The time inside is the union over the
 * threads: a count of the ranges of that name open in the process, and
 * the time it was above zero (opening or closing one takes the module's
 * lock, once a step in a training loop).
 *
 * Ranges that may end on another thread (nvtxRangeStart/End) live in a
 * small table under the lock; they count for the thread that started them,
 * ordered against its pushes by a per-thread sequence number.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "intern.h"
#include "ranges.h"

#define SC_RANGE_DEPTH 128
#define STARTED_MAX 256

typedef struct rstack {
    uint32_t token;       /* the thread, as the started ranges name it (tids are reused) */
    uint32_t seq;         /* ranges opened so far: which is innermost */
    unsigned depth;       /* pushed ranges open, those past SC_RANGE_DEPTH included */
    unsigned nscope;      /* of those named, how many are --range's */
    struct { uint32_t name, seq; } e[SC_RANGE_DEPTH];
} rstack;

static SC_TLS rstack *tls_rs;
static pthread_key_t rs_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static _Atomic uint32_t next_token = 1;

/* Under lock: --range's open ranges and their time, the started ranges. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* --range's name; 0: none.  Set once, before NVTX's first range; read by
   the slow path of threads that never called NVTX too. */
static _Atomic unsigned scope_id;
static unsigned scope_open;        /* its ranges open in the process */
static uint64_t scope_since, scope_total;
static int scope_seen;             /* one was ever opened */
static struct started { uint64_t id; uint32_t token, name, seq; } started[STARTED_MAX];
static _Atomic unsigned nstarted;  /* entries in use (read without the lock: any at all?) */
static uint64_t next_id = 1;

/* ------------------------------------------------------------ scope --- */
static inline unsigned scope(void)
{
    return atomic_load_explicit(&scope_id, memory_order_relaxed);
}

static _Atomic unsigned scope_entries;   /* ranges of --range's name opened so far */

static void scope_enter_locked(void)
{
    if (scope_open++ == 0)
        scope_since = sc_now_ns();
    scope_seen = 1;
    atomic_fetch_add_explicit(&scope_entries, 1, memory_order_relaxed);
}

unsigned sc_range_scope_entries(void)
{
    return atomic_load_explicit(&scope_entries, memory_order_relaxed);
}

static void scope_leave_locked(void)
{
    if (scope_open && --scope_open == 0)
        scope_total += sc_now_ns() - scope_since;
}

static void scope_enter(void)
{
    pthread_mutex_lock(&lock);
    scope_enter_locked();
    pthread_mutex_unlock(&lock);
}

static void scope_leave(void)
{
    pthread_mutex_lock(&lock);
    scope_leave_locked();
    pthread_mutex_unlock(&lock);
}

uint64_t sc_range_scope_ns(void)
{
    pthread_mutex_lock(&lock);
    uint64_t ns = scope_total + (scope_open ? sc_now_ns() - scope_since : 0);
    pthread_mutex_unlock(&lock);
    return ns;
}

const char *sc_range_scope(void)
{
    return sc_opt.range[0] ? sc_opt.range : NULL;
}

static void quiet(const char *msg)
{
    (void)msg;   /* the shim's own initialization says it, once */
}

/* The settings as the shim will read them at its initialization, which
   cannot happen here: initializing at the program's first NVTX call would
   install the exit handler before the CUDA runtime's (core.c, "Exit"). */
static int configured_enabled;
static _Atomic int configured;     /* NVTX called in */
static void configure_once(void)
{
    static sc_options o;
    const sc_options *opt = &sc_opt;
    if (atomic_load(&sc_g.mode) != SC_MODE_ACTIVE) {
        sc_options_load(&o, quiet);
        opt = &o;
    }
    configured_enabled = !opt->disable;
    if (opt->range[0])
        atomic_store(&scope_id, sc_range_intern(opt->range));
    atomic_store(&configured, 1);
}

int sc_ranges_configure(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    int saved = errno;
    pthread_once(&once, configure_once);
    errno = saved;
    return configured_enabled;
}

/* ------------------------------------------------------------ names --- */
unsigned sc_range_intern(const char *name)
{
    static int full_warned;
    if (!name || !*name)
        return SC_RANGE_NONE;
    int saved = errno;   /* a new name allocates */
    unsigned id = sc_str_id(SC_STRS_RANGES, name);
    if (!id) {
        sc_warn_once(&full_warned, "too many distinct NVTX range names; findings in the later ones name "
                     "their range \"?\"");
        id = SC_RANGE_FULL;
    }
    errno = saved;
    return id;
}

const char *sc_range_name(unsigned id)
{
    if (id == SC_RANGE_FULL)
        return "?";
    return sc_str_at(SC_STRS_RANGES, id);
}

/* ------------------------------------------------------------ stack --- */
/* A thread that ends inside ranges of --range's name leaves them. */
static void thread_gone(void *p)
{
    rstack *rs = p;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < rs->nscope; i++)
        scope_leave_locked();
    pthread_mutex_unlock(&lock);
    free(rs);
}

static void make_key(void)
{
    pthread_key_create(&rs_key, thread_gone);
}

static rstack *self(void)
{
    rstack *rs = tls_rs;
    if (SC_LIKELY(rs))
        return rs;
    int saved = errno;
    pthread_once(&key_once, make_key);
    rs = calloc(1, sizeof *rs);
    if (rs) {
        rs->token = atomic_fetch_add(&next_token, 1);
        pthread_setspecific(rs_key, rs);
        tls_rs = rs;
    }
    errno = saved;
    return rs;
}

int sc_range_push(unsigned name)
{
    rstack *rs = self();
    if (!rs)
        return -1;
    unsigned level = rs->depth++;
    if (level < SC_RANGE_DEPTH) {
        rs->e[level].name = name;
        rs->e[level].seq = ++rs->seq;
        if (name && name == scope()) {
            rs->nscope++;
            scope_enter();
        }
    }
    return (int)level;
}

int sc_range_pop(void)
{
    rstack *rs = tls_rs;
    if (!rs || !rs->depth)
        return -1;
    unsigned level = --rs->depth;
    if (level < SC_RANGE_DEPTH && rs->e[level].name && rs->e[level].name == scope()) {
        rs->nscope--;
        scope_leave();
    }
    return (int)level;
}

/* ---------------------------------------------------------- started --- */
uint64_t sc_range_start(unsigned name)
{
    static int full_warned;
    rstack *rs = self();
    pthread_mutex_lock(&lock);
    uint64_t id = next_id++;
    struct started *e = NULL;
    for (unsigned i = 0; rs && i < STARTED_MAX && !e; i++)
        if (!started[i].id)
            e = &started[i];
    if (e) {
        *e = (struct started){id, rs->token, name, ++rs->seq};
        atomic_fetch_add(&nstarted, 1);
        if (name && name == scope())
            scope_enter_locked();
    }
    pthread_mutex_unlock(&lock);
    if (!e && rs) {
        int saved = errno;
        sc_warn_once(&full_warned, "more than %d NVTX ranges started and not ended; later ones are not "
                     "followed", STARTED_MAX);
        errno = saved;
    }
    return id;
}

void sc_range_end(uint64_t id)
{
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; id && i < STARTED_MAX; i++)
        if (started[i].id == id) {
            if (started[i].name && started[i].name == scope())
                scope_leave_locked();
            started[i].id = 0;
            atomic_fetch_sub(&nstarted, 1);
            break;
        }
    pthread_mutex_unlock(&lock);
}

/* The innermost named range this thread started and has not ended, if it
   is inner to *seq (then *name and *seq become its); with want, whether
   one of them is named want instead. */
static int started_by(const rstack *rs, unsigned want, unsigned *name, uint32_t *seq)
{
    int found = 0;
    if (!atomic_load_explicit(&nstarted, memory_order_relaxed))
        return 0;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < STARTED_MAX; i++) {
        const struct started *e = &started[i];
        if (!e->id || e->token != rs->token || !e->name)
            continue;
        if (want)
            found |= e->name == want;
        else if (e->seq > *seq)
            *name = e->name, *seq = e->seq, found = 1;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

/* ----------------------------------------------------------- asking --- */
unsigned sc_range_current(void)
{
    const rstack *rs = tls_rs;
    if (!rs)
        return SC_RANGE_NONE;
    unsigned name = SC_RANGE_NONE;
    uint32_t seq = 0;
    for (unsigned i = rs->depth < SC_RANGE_DEPTH ? rs->depth : SC_RANGE_DEPTH; i-- > 0;)
        if (rs->e[i].name) {
            name = rs->e[i].name;
            seq = rs->e[i].seq;
            break;
        }
    started_by(rs, 0, &name, &seq);
    return name;
}

int sc_range_in_scope(void)
{
    if (!sc_opt.range[0])
        return 1;
    const rstack *rs = tls_rs;
    if (!rs || !scope())
        return 0;
    unsigned n;
    uint32_t s;
    return rs->nscope > 0 || started_by(rs, scope(), &n, &s);
}

/* ------------------------------------------------------- fork, exit --- */
static void ranges_lock(void) { pthread_mutex_lock(&lock); }
static void ranges_unlock(void) { pthread_mutex_unlock(&lock); }

/* The child is the forking thread alone: its ranges stay open, and the
   time inside --range's starts again (the child's report is its own). */
static void ranges_child(void)
{
    pthread_mutex_init(&lock, NULL);
    const rstack *rs = tls_rs;
    scope_open = rs ? rs->nscope : 0;
    unsigned n = 0;
    for (unsigned i = 0; i < STARTED_MAX; i++) {
        struct started *e = &started[i];
        if (e->id && (!rs || e->token != rs->token))
            e->id = 0;
        n += e->id != 0;
        scope_open += e->id && e->name && e->name == scope();
    }
    atomic_store(&nstarted, n);
    scope_total = 0;
    scope_since = sc_now_ns();
}

/* --range named a range the program never opened: say why that may be. */
static void ranges_exit(void)
{
    const char *scope = sc_range_scope();
    if (!scope)
        return;
    pthread_mutex_lock(&lock);
    int seen = scope_seen;
    pthread_mutex_unlock(&lock);
    const char *inj = getenv("NVTX_INJECTION64_PATH");
    if (seen)
        return;
    if (atomic_load(&configured))
        sc_warn("--range %s: the program opened no NVTX range of that name: nothing was reported", scope);
    else if (inj && *inj)
        sc_warn("--range %s: NVTX never called streamcheck (NVTX_INJECTION64_PATH is %s, another tool's?): "
                "nothing was reported", scope, inj);
    else
        sc_warn("--range %s: NVTX never called streamcheck (NVTX_INJECTION64_PATH is not set; the launcher "
                "sets it to libstreamcheck.so): nothing was reported", scope);
}

static const sc_part part = {"ranges", 37, ranges_lock, ranges_unlock, ranges_child, NULL, ranges_exit};
SC_PART_REGISTER(part)
