/* fault_trace.c: where a fault struck, for the test hook
 * STREAMCHECK_TEST_FAULT_TRACE=1 (read at initialization).  A rare crash
 * at exit on a lent GPU, where no debugger runs, leaves only its exit
 * status; with the hook, the handler of a fault the kernel raised
 * (signals.c) first writes on stderr the faulting thread's return
 * addresses and the process's mappings, from which addr2line
 * here names the lines.  write(2), open(2) and read(2) only, and the
 * unwinder the call sites use (libunwind's local unwinding may run in a
 * signal handler); nothing is allocated.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "callsites.h"
#include "core.h"
#include "fault_trace.h"
#include "sigsafe.h"

static int on;

static void put(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

void sc_fault_trace_init(void)
{
    on = sc_test_switch("STREAMCHECK_TEST_FAULT_TRACE", 0);
}

void sc_fault_trace(int sig, const siginfo_t *si, const void *uc)
{
    if (!on)
        return;
    char b[160] = "streamcheck[";
    sc_ss_put_num(b, sizeof b, (uint64_t)getpid(), 0);
    sc_ss_put(b, sizeof b, "]: fault, signal ");
    sc_ss_put_num(b, sizeof b, (uint64_t)sig, 0);
    sc_ss_put(b, sizeof b, " ");
    sc_ss_put_num(b, sizeof b, (uintptr_t)(si ? si->si_addr : 0), 1);
    sc_ss_put(b, sizeof b, " ");
    sc_ss_put_num(b, sizeof b, (uint64_t)gettid(), 0);
    sc_ss_put(b, sizeof b, "\n");
    put(b);
    (void)uc;
    void *pcs[32];
    int k = sc_backtrace(pcs, 32);
    for (int i = 0; i < k; i++) {
        char l[32] = "  ";
        sc_ss_put_num(l, sizeof l, (uintptr_t)pcs[i], 1);
        sc_ss_put(l, sizeof l, "\n");
        put(l);
    }
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char m[4096];
    ssize_t r;
    while ((r = read(fd, m, sizeof m - 1)) > 0) {   /* every mapping: addr2line wants the executable ones */
        m[r] = 0;
        put(m);
    }
    close(fd);
}
