/* unmap.c: munmap, interposed to time the release of a pageable copy's
 * host side (runlog.c, sc_rl_unmapped): PyTorch's DataLoader workers pass
 * each batch in shared memory, and the thread that copied it to the GPU
 * frees those pages when it drops the batch.  Pinning (pin_memory=True)
 * moves that work to the loader's pinning thread, so the fix of a
 * pageable copy (SC203) saves it too, and the pricing model must know it.
 * A result read back into a new mapping and dropped (a large .cpu() each
 * step) is released the same way; one pinned buffer kept is not.
 *
 * Every other unmap passes straight through: a thread-local load, the
 * thread's run log, and a compare with its last two copies' ranges (kept
 * in the run log, not in the fast path's part of the thread).  The real munmap is
 * found in a constructor; a call before that (the loader's own) goes to
 * the system call.  errno is the real call's.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "real.h"
#include "runlog.h"
#include "thread.h"

typedef int (*munmap_fn)(void *, size_t);
static munmap_fn _Atomic real_munmap;

__attribute__((constructor)) static void find_munmap(void)
{
    atomic_store(&real_munmap, (munmap_fn)sc_dlsym_real(RTLD_NEXT, "munmap"));
}

static int unmap(void *addr, size_t len)
{
    munmap_fn f = atomic_load_explicit(&real_munmap, memory_order_relaxed);
    return f ? f(addr, len) : (int)syscall(SYS_munmap, addr, len);
}

SC_EXPORT int munmap(void *addr, size_t len)
{
    sc_thread *t = sc_tls_self;
    if (SC_LIKELY(!t || sc_rl_src_of(t, addr, len) < 0))
        return unmap(addr, len);
    uint64_t t0 = sc_now_ns();
    int rc = unmap(addr, len);
    int saved = errno;
    if (rc == 0)
        sc_rl_unmapped(t, addr, len, sc_now_ns() - t0);
    errno = saved;
    return rc;
}
