/* touch.c: the first touch of a pageable copy's destination (touch.h).
 *
 * The copy writes every page of its destination range, the first and last
 * partly, so each page is write-faulted by the copy anyway: faulting them
 * in first (madvise MADV_POPULATE_WRITE, Linux 5.14: "populate (prefault)
 * page tables writable, ... however, avoid the actual memory access")
 * changes no byte and no mapping the copy would not have changed, and it
 * is done after drain.c's wait for the stream, where the driver's copy
 * would have faulted them.  mincore says whether there is anything to do:
 * one system call over the range's page vector, a few microseconds for
 * 16 MiB, against the milliseconds of the pageable copy it precedes.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "sc.h"
#include "touch.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14's value, for older headers */
#endif

#define VEC 4096                 /* pages asked of mincore at a time */

static _Atomic int unsupported;  /* the kernel refused MADV_POPULATE_WRITE: never again */

/* The destinations of the thread's last cold copies to the host, newest
   at `next - 1`: a copy into one of them again is the program mapping it
   anew (touch.h, sc_touch_seen). */
#define SEEN 8
static SC_TLS struct { uintptr_t lo, hi; } seen[SEEN];
static SC_TLS unsigned seen_next;

static uintptr_t page_size(void)
{
    static _Atomic uintptr_t ps;
    uintptr_t p = atomic_load_explicit(&ps, memory_order_relaxed);
    if (!p) {
        long v = sysconf(_SC_PAGESIZE);
        p = v > 0 ? (uintptr_t)v : 4096;
        atomic_store_explicit(&ps, p, memory_order_relaxed);
    }
    return p;
}

int sc_touch_cold(const void *addr, size_t len)
{
    if (len < SC_TOUCH_MIN || !addr || atomic_load_explicit(&unsupported, memory_order_relaxed))
        return 0;
    int saved = errno;
    uintptr_t ps = page_size(), a = (uintptr_t)addr & ~(ps - 1), b = ((uintptr_t)addr + len + ps - 1) & ~(ps - 1);
    unsigned char vec[VEC];
    int cold = 0;
    while (a < b && !cold) {
        size_t n = (b - a) / ps < VEC ? (size_t)((b - a) / ps) : VEC;
        if (mincore((void *)a, n * ps, vec) != 0)
            break;   /* not all mapped (ENOMEM), or not memory mincore knows: leave it be */
        for (size_t i = 0; i < n && !cold; i++)
            cold = !(vec[i] & 1);
        a += n * ps;
    }
    errno = saved;
    return cold;
}

uint64_t sc_touch_populate(const void *addr, size_t len)
{
    int saved = errno;
    uintptr_t ps = page_size(), a = (uintptr_t)addr & ~(ps - 1), b = ((uintptr_t)addr + len + ps - 1) & ~(ps - 1);
    uint64_t t0 = sc_now_ns();
    int rc = madvise((void *)a, b - a, MADV_POPULATE_WRITE);
    uint64_t ns = sc_now_ns() - t0;
    /* EINVAL: before Linux 5.14, nothing done.  Another failure (a page
       that cannot be written, EFAULT) may come after some pages were: their
       time is the copy's all the same. */
    int none = rc != 0 && errno == EINVAL;
    if (none)
        atomic_store_explicit(&unsupported, 1, memory_order_relaxed);
    errno = saved;
    return none ? 0 : ns;
}

int sc_touch_seen(const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    for (unsigned i = 0; i < SEEN; i++)
        if (seen[i].hi && a < seen[i].hi && a + len > seen[i].lo)
            return 1;
    seen[seen_next % SEEN].lo = a;
    seen[seen_next % SEEN].hi = a + len;
    seen_next++;
    return 0;
}
