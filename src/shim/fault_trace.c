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
#include <unistd.h>

#include "callsites.h"
#include "core.h"
#include "fault_trace.h"

static int on;

static void put(const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static size_t hex(char *b, uintptr_t v)
{
    char t[2 * sizeof v];
    size_t n = 0, k = 0;
    do {
        t[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    b[k++] = '0';
    b[k++] = 'x';
    while (n)
        b[k++] = t[--n];
    return k;
}

static size_t dec(char *b, unsigned long v)
{
    char t[24];
    size_t n = 0, k = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        b[k++] = t[--n];
    return k;
}

void sc_fault_trace_init(void)
{
    on = sc_test_switch("STREAMCHECK_TEST_FAULT_TRACE", 0);
}

void sc_fault_trace(int sig, const siginfo_t *si, const void *uc)
{
    if (!on)
        return;
    char b[160];
    size_t n = 0;
    static const char head[] = "streamcheck[";
    for (size_t i = 0; i < sizeof head - 1; i++)
        b[n++] = head[i];
    n += dec(b + n, (unsigned long)getpid());
    static const char mid[] = "]: fault, signal ";
    for (size_t i = 0; i < sizeof mid - 1; i++)
        b[n++] = mid[i];
    n += dec(b + n, (unsigned long)sig);
    b[n++] = ' ';
    n += hex(b + n, (uintptr_t)(si ? si->si_addr : 0));
    b[n++] = ' ';
    n += dec(b + n, (unsigned long)gettid());
    b[n++] = '\n';
    put(b, n);
    (void)uc;
    void *pcs[32];
    int k = sc_backtrace(pcs, 32);
    for (int i = 0; i < k; i++) {
        n = 0;
        b[n++] = ' ';
        b[n++] = ' ';
        n += hex(b + n, (uintptr_t)pcs[i]);
        b[n++] = '\n';
        put(b, n);
    }
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char m[4096];
    ssize_t r;
    while ((r = read(fd, m, sizeof m)) > 0)   /* every mapping: addr2line wants the executable ones */
        put(m, (size_t)r);
    close(fd);
}
