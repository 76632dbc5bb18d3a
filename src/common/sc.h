/* sc.h: small helpers shared by the shim's files. */
#ifndef SC_SC_H
#define SC_SC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define SC_EXPORT __attribute__((visibility("default")))
#define SC_HIDDEN __attribute__((visibility("hidden")))
#define SC_LIKELY(x) __builtin_expect(!!(x), 1)
#define SC_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Initial-exec TLS: a preloaded library gets a slot in the static TLS block,
   and the access is one instruction.  Keep these few and small. */
#define SC_TLS __thread __attribute__((tls_model("initial-exec")))
#define SC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* For code that runs inside a sanitizer's own start-up (it resolves its
   interceptors through our dlsym before its shadow memory, or
   ThreadSanitizer's thread state, exists): no instrumentation, or the
   first checked access faults. */
#define SC_NO_SANITIZE __attribute__((no_sanitize("address", "undefined", "thread")))

/* An array *pp of *cap elements of elt bytes holds at least need: its
   capacity doubles, from first.  0, or -1 when out of memory (the array
   is then as it was). */
static inline int sc_grow_cap(void *pp, size_t *cap, size_t need, size_t elt, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : first;
    while (nc < need)
        nc *= 2;
    void *p = nc <= SIZE_MAX / elt ? realloc(*(void **)pp, nc * elt) : NULL;
    if (!p)
        return -1;
    *(void **)pp = p;
    *cap = nc;
    return 0;
}

/* qsort's order of uint64_t values, smallest first. */
static inline int sc_cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

static inline uint64_t sc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Diagnostics on stderr, prefixed "streamcheck[pid]: ".  They never exit. */
enum { SC_LOG_QUIET = 0, SC_LOG_WARNING = 1, SC_LOG_INFO = 2, SC_LOG_DEBUG = 3 };
extern int sc_log_level;
void sc_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define sc_warn(...) sc_log(SC_LOG_WARNING, __VA_ARGS__)
#define sc_info(...) sc_log(SC_LOG_INFO, __VA_ARGS__)
#define sc_debug(...) sc_log(SC_LOG_DEBUG, __VA_ARGS__)
/* Warns once per flag (a static int at the call site). */
#define sc_warn_once(flagp, ...)                                   \
    do {                                                           \
        if (!__atomic_exchange_n((flagp), 1, __ATOMIC_RELAXED))    \
            sc_warn(__VA_ARGS__);                                  \
    } while (0)

/* 64-bit FNV-1a, for stable call-site ids. */
static inline uint64_t sc_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define SC_HASH_INIT 0xcbf29ce484222325ull

/* Mixes one 64-bit word into h: a word at a time, several times faster than
   FNV over bytes, and as stable across runs (no addresses go in). */
static inline uint64_t sc_mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

#endif /* SC_SC_H */
