/* unmap.c: munmap and mmap, interposed to time the release and the
 * receipt of a pageable copy's host side (runlog.c, sc_rl_unmapped,
 * sc_rl_mapped): PyTorch's DataLoader workers pass each batch in shared
 * memory; the thread that copies it to the GPU receives it (reads the
 * worker's message, takes the file descriptor, maps it), and frees those
 * pages when it drops the batch.  Pinning (pin_memory=True) moves both to
 * the loader's pinning thread, so the fix of a pageable copy (SC203) saves
 * them too, and the pricing model must know it.  A result read back into a
 * new mapping and dropped (a large .cpu() each step) is released the same
 * way; one pinned buffer kept is not.
 *
 * Every other unmap passes straight through: a thread-local load, the
 * thread's run log, and a compare with its last two copies' ranges (kept
 * in the run log, not in the fast path's part of the thread).  Every map
 * but a shared mapping of a file, in a thread the shim knows, passes
 * straight through too.  The real functions are found in a constructor; a
 * call before that (the loader's own) goes to the system call.  errno is
 * the real call's.
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
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
static munmap_fn _Atomic real_munmap;
static mmap_fn _Atomic real_mmap, real_mmap64;

__attribute__((constructor)) static void find_munmap(void)
{
    atomic_store(&real_munmap, (munmap_fn)sc_dlsym_real(RTLD_NEXT, "munmap"));
    atomic_store(&real_mmap, (mmap_fn)sc_dlsym_real(RTLD_NEXT, "mmap"));
    atomic_store(&real_mmap64, (mmap_fn)sc_dlsym_real(RTLD_NEXT, "mmap64"));
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

/* A shared mapping of a file made by a thread with a run log goes to the
   log (runlog.c, sc_rl_mapped), which keeps those of a regular file.  Not
   instrumented: ThreadSanitizer, preloaded before the shim, resolves its
   real mmap to this one and maps through it while it starts, before its
   thread state exists (every process faulted at its start); a thread the
   shim knows (sc_tls_self) comes after that. */
SC_NO_SANITIZE static void *mapped(mmap_fn _Atomic *real, void *addr, size_t len, int prot, int flags, int fd,
                                   off_t off)
{
    mmap_fn f = atomic_load_explicit(real, memory_order_relaxed);
    void *p = f ? f(addr, len, prot, flags, fd, off) : (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    sc_thread *t = sc_tls_self;
    if (SC_LIKELY(!t || fd < 0 || !(flags & MAP_SHARED) || p == MAP_FAILED || !t->rlog))
        return p;
    int saved = errno;
    sc_rl_mapped(t, p, len, fd);
    errno = saved;
    return p;
}

SC_EXPORT SC_NO_SANITIZE void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mapped(&real_mmap, addr, len, prot, flags, fd, off);
}

SC_EXPORT SC_NO_SANITIZE void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mapped(&real_mmap64, addr, len, prot, flags, fd, off);
}
