/* signals.c: reports survive how jobs end.  Slurm ends a job at its time
 * limit with SIGTERM (SIGKILL follows after KillWait, 30 s by default),
 * users press Ctrl-C, programs abort or crash: before the process dies of
 * such a signal, the report is written, then the program's own
 * disposition acts as it would have.
 *
 * At initialization the shim puts its handler on each signal of the table
 * below whose disposition is not SIG_IGN, keeping what was there (a
 * handler the program installed before the shim initialized) as the
 * program's.  The program's later sigaction, signal, sysv_signal,
 * bsd_signal and sigset calls are interposed: they change the program's
 * disposition, which the shim keeps (and answers with, as the old
 * action), while its handler stays installed, with the program's mask and
 * SA_RESTART, SA_ONSTACK and SA_NODEFER; SIG_IGN is passed to the kernel
 * as it is (an ignored signal must not interrupt system calls, and exec
 * keeps it).  Programs that install handlers by system call (the Go
 * runtime) replace the shim's: they get a report at exit only.
 *
 * When one of these signals comes:
 *  - the program's disposition is the default (it ends the process): the
 *    final report is written (by the reporter thread, reporter.c: nothing
 *    the report needs may run in a handler), then the default action is
 *    restored and the signal raised again, so the process ends as it would
 *    have, with the same status (and core dump).  A fault the kernel raised
 *    (SIGSEGV, SIGBUS, SIGFPE, SIGILL at an instruction) comes back by
 *    itself when the handler returns to that instruction;
 *  - the program has a handler of its own: for a request to end (SIGTERM,
 *    SIGINT, ...), the first of each kind has an interim report written
 *    first (the file formats, not the text; the program may go on, and the
 *    final report replaces it); then the handler runs, with the mask, flags
 *    and arguments it asked for (SA_RESETHAND is done here).  A handler for
 *    a fault (a JIT's SIGSEGV, a CPU probe's SIGILL) runs with nothing
 *    first: those come often and are the program's business;
 *  - it came while the thread was in the shim's own bookkeeping (which may
 *    hold locks the report needs): it is raised again as the thread leaves
 *    it, microseconds later (core.h, sc_raise_deferred).
 * Where no report could be written in SC_END_WAIT_NS, the status file
 * says so ("noreport", status.c) and the signal acts all the same.
 *
 * Abort and crashes, as far as is safe: the report is written by another
 * thread, from ordinary code, so a crash leaves the writing safe in
 * itself; what a crash can break (a corrupt heap, a lock the crashed
 * thread held) makes the report late or lost, never the exit status
 * different.  A stack overflow runs the handler only on an alternate
 * signal stack the program set up (SA_ONSTACK is asked for).
 */
#include "config.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "fault_trace.h"
#include "real.h"
#include "reporter.h"
#include "signals.h"
#include "sigsafe.h"
#include "status.h"
#include "thread.h"

/* The signals taken: requests to end (an interim report before a handler
   of the program's), abort, and faults (nothing before the program's
   handler). */
enum { SIG_REQUEST, SIG_ABORT, SIG_FAULT };
static const struct { int sig; int kind; } taken[] = {
    {SIGTERM, SIG_REQUEST}, {SIGINT, SIG_REQUEST},  {SIGHUP, SIG_REQUEST},  {SIGQUIT, SIG_REQUEST},
    {SIGXCPU, SIG_REQUEST}, {SIGUSR1, SIG_REQUEST}, {SIGUSR2, SIG_REQUEST}, {SIGPIPE, SIG_REQUEST},
    {SIGALRM, SIG_REQUEST}, {SIGABRT, SIG_ABORT},   {SIGSEGV, SIG_FAULT},   {SIGBUS, SIG_FAULT},
    {SIGFPE, SIG_FAULT},    {SIGILL, SIG_FAULT},
};
#define NSIGS 65

/* The program's disposition of each signal taken, double-buffered: a
   writer (under the lock, signals blocked) fills the other slot and flips
   cur, so a handler reads a whole one without a lock. */
typedef struct prog_act {
    struct sigaction a[2];
    _Atomic int cur;
    _Atomic int managed;        /* the shim took the signal: the program's view is here */
    _Atomic int interim_done;   /* the first request of this kind had its interim report */
    int kind;
} prog_act;
static prog_act acts[NSIGS];
static atomic_flag wlock = ATOMIC_FLAG_INIT;
static SC_TLS int in_handler;   /* depth of program handlers called from ours */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*handler_fn)(int, sighandler_t);
static sigaction_fn real_sigaction_p;

static void *next_fn(const char *name)
{
    typedef void *(*dlsym_fn)(void *, const char *);
    dlsym_fn f = (dlsym_fn)sc_resolve_real_dlsym();
    return f ? f(RTLD_NEXT, name) : NULL;
}

static sigaction_fn real_sigaction(void)
{
    sigaction_fn f = __atomic_load_n(&real_sigaction_p, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (sigaction_fn)next_fn("sigaction");
        __atomic_store_n(&real_sigaction_p, f, __ATOMIC_RELEASE);
    }
    return f;
}

static int taken_kind(int sig)
{
    for (size_t i = 0; i < SC_ARRAY_LEN(taken); i++)
        if (taken[i].sig == sig)
            return taken[i].kind;
    return -1;
}

static void program_action(int sig, struct sigaction *out)
{
    *out = acts[sig].a[atomic_load(&acts[sig].cur)];
}

int sc_in_program_handler(void)
{
    return in_handler > 0;
}

/* ------------------------------------------------------- the handler --- */
/* Whether any thread made a CUDA call (a forked helper that made none has
   nothing to report, and no status to leave). */
static void count_called(sc_thread *t, void *arg)
{
    int *called = arg;
    for (unsigned s = 0; s < SC_MAX_MODS && !*called; s++)
        for (unsigned i = 0; i < SC_NAPI && !*called; i++)
            if (atomic_load_explicit(&t->counts[s][i], memory_order_relaxed))
                *called = 1;
}

/* The process is ending by sig: the final report first, or a status
   saying why there is none (only where there was something to report). */
static void final_first(int sig)
{
    char why[24] = "ended signal ";
    sc_ss_put_num(why, sizeof why, (uint64_t)sig, 0);
    int st = sc_final_state();
    if (st == 2)
        return;
    if (st == 1) {   /* at exit, in another thread, or in this one (a fault while writing) */
        if (sc_final_writer() != (pid_t)gettid() && sc_final_wait(SC_END_WAIT_NS))
            return;
    } else if (sc_reporter_request(SC_REQ_FINAL, sig, SC_END_WAIT_NS) && sc_final_state() == 2) {
        return;
    }
    int called = 0;
    sc_threads_foreach(count_called, &called);
    if (called)
        sc_status_noreport(why);
}

/* The default action, now: restored, and the signal raised again (it is
   blocked in the handler, so it acts as the handler returns).  A fault the
   kernel raised at an instruction comes back by itself. */
static void act_default(int sig, const siginfo_t *si)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction_fn real = __atomic_load_n(&real_sigaction_p, __ATOMIC_ACQUIRE);
    if (real)
        real(sig, &dfl, NULL);
    if (!(acts[sig].kind == SIG_FAULT && si && si->si_code > 0))
        raise(sig);
}

static void call_program(int sig, siginfo_t *si, void *uc, const struct sigaction *pa)
{
    in_handler++;
    if (pa->sa_flags & SA_SIGINFO)
        pa->sa_sigaction(sig, si, uc);
    else
        pa->sa_handler(sig);
    in_handler--;
}

static void set_program(int sig, const struct sigaction *a);

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    if (sig <= 0 || sig >= NSIGS)
        return;
    int fault = acts[sig].kind == SIG_FAULT && si && si->si_code > 0;
    if (fault)
        sc_fault_trace(sig, si, uc);
    if (sc_reporter_is_self())
        sc_reporter_crashed();   /* never returns: whoever waits for it goes on */
    sc_thread *t = sc_tls_self;
    if (!fault && t && atomic_load_explicit(&t->busy, memory_order_relaxed) == SC_BUSY_SHIM) {
        t->pending_sig = sig;    /* raised again in a moment (core.h, sc_raise_deferred) */
        errno = saved;
        return;
    }
    struct sigaction pa;
    program_action(sig, &pa);
    if (pa.sa_handler == SIG_IGN) {
        errno = saved;
        return;
    }
    if (pa.sa_handler == SIG_DFL) {
        final_first(sig);
        act_default(sig, si);
        errno = saved;
        return;
    }
    if (acts[sig].kind == SIG_REQUEST && !atomic_exchange(&acts[sig].interim_done, 1))
        sc_reporter_request(SC_REQ_INTERIM, sig, SC_END_WAIT_NS);
    if (pa.sa_flags & SA_RESETHAND) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        set_program(sig, &dfl);
    }
    errno = saved;
    call_program(sig, si, uc, &pa);
}

/* --------------------------------------------------- the dispositions --- */
/* What the kernel gets for the program's disposition a: SIG_IGN as it is,
   else our handler with a's mask and the flags that change how the
   interrupted code goes on. */
static void kernel_action(const struct sigaction *a, struct sigaction *k)
{
    memset(k, 0, sizeof *k);
    if (a->sa_handler == SIG_IGN) {
        k->sa_handler = SIG_IGN;
        sigemptyset(&k->sa_mask);
        return;
    }
    k->sa_sigaction = on_signal;
    k->sa_mask = a->sa_mask;
    if (a->sa_handler == SIG_DFL)
        k->sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;   /* only the deferral returns to the code */
    else
        k->sa_flags = SA_SIGINFO | (a->sa_flags & (SA_RESTART | SA_ONSTACK | SA_NODEFER));
}

static void lock_acts(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
    while (atomic_flag_test_and_set_explicit(&wlock, memory_order_acquire))
        ;
}

static void unlock_acts(const sigset_t *old)
{
    atomic_flag_clear_explicit(&wlock, memory_order_release);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Records a as the program's disposition of sig (the caller holds the
   lock, or is the handler, which only resets it to the default). */
static void set_program(int sig, const struct sigaction *a)
{
    prog_act *p = &acts[sig];
    int next = !atomic_load(&p->cur);
    p->a[next] = *a;
    atomic_store(&p->cur, next);
}

/* The interposed sigaction of a signal the shim took. */
static int virtual_sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
    sigset_t old;
    lock_acts(&old);
    int rc = 0;
    if (!atomic_load(&acts[sig].managed)) {
        rc = real_sigaction()(sig, act, oact);
    } else {
        struct sigaction prev;
        program_action(sig, &prev);
        if (act) {
            struct sigaction k;
            kernel_action(act, &k);
            rc = real_sigaction()(sig, &k, NULL);
            if (rc == 0)
                set_program(sig, act);
        }
        if (rc == 0 && oact)
            *oact = prev;
    }
    int e = errno;
    unlock_acts(&old);
    errno = e;
    return rc;
}

SC_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
    if (sig <= 0 || sig >= NSIGS || taken_kind(sig) < 0 || !real_sigaction())
        return real_sigaction() ? real_sigaction()(sig, act, oact) : (errno = ENOSYS, -1);
    return virtual_sigaction(sig, act, oact);
}

/* signal(), sysv_signal() and sigset() as the C library makes them of
   sigaction, so they go through the one above. */
static sighandler_t install_handler(int sig, sighandler_t h, int flags, int mask_self)
{
    struct sigaction a, old;
    memset(&a, 0, sizeof a);
    a.sa_handler = h;
    sigemptyset(&a.sa_mask);
    if (mask_self)
        sigaddset(&a.sa_mask, sig);
    a.sa_flags = flags;
    return virtual_sigaction(sig, &a, &old) == 0 ? old.sa_handler : SIG_ERR;
}

static int passes(int sig)
{
    return sig <= 0 || sig >= NSIGS || taken_kind(sig) < 0 || !real_sigaction() ||
           !atomic_load(&acts[sig].managed);
}

SC_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
    if (passes(sig))
        return ((handler_fn)next_fn("signal"))(sig, h);
    return install_handler(sig, h, SA_RESTART, 1);   /* BSD semantics, glibc's signal() */
}

SC_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
    return signal(sig, h);
}

SC_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
    if (passes(sig))
        return ((handler_fn)next_fn("sysv_signal"))(sig, h);
    return install_handler(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}

SC_EXPORT sighandler_t sigset(int sig, sighandler_t h)
{
    if (passes(sig) || h == SIG_HOLD)
        return ((handler_fn)next_fn("sigset"))(sig, h);
    sigset_t one, was;
    sigemptyset(&one);
    sigaddset(&one, sig);
    if (sigprocmask(SIG_UNBLOCK, &one, &was) != 0)
        return SIG_ERR;
    sighandler_t old = install_handler(sig, h, 0, 0);
    return old != SIG_ERR && sigismember(&was, sig) ? SIG_HOLD : old;
}

/* At initialization: the shim takes each signal of the table, keeping what
   was there as the program's; an ignored one stays ignored. */
static void take_signals(void)
{
    sc_fault_trace_init();
    if (!real_sigaction())
        return;
    for (size_t i = 0; i < SC_ARRAY_LEN(taken); i++) {
        int sig = taken[i].sig;
        sigset_t old;
        lock_acts(&old);
        struct sigaction cur, k;
        acts[sig].kind = taken[i].kind;
        if (real_sigaction()(sig, NULL, &cur) == 0) {
            set_program(sig, &cur);
            kernel_action(&cur, &k);
            if (cur.sa_handler == SIG_IGN || real_sigaction()(sig, &k, NULL) == 0)
                atomic_store(&acts[sig].managed, 1);
        }
        unlock_acts(&old);
    }
}

/* A child forked while another thread changed a disposition: that thread
   is not in the child, and its spin lock must not be either. */
static void signals_child(void)
{
    atomic_flag_clear(&wlock);
}

static const sc_part part = {"signals", 0, NULL, NULL, signals_child, take_signals, NULL};
SC_PART_REGISTER(part)
