/* reporter.c: a thread of the shim's own that writes the report where it
 * cannot be written from where it is asked for.
 *
 * A signal handler may not call malloc, take a lock, or do anything else
 * the report needs (building it allocates, symbolizing takes the loader's
 * lock, rendering uses stdio): the interrupted code may hold any of them.
 * So the handler (signals.c) only posts a request and waits, a bounded
 * time, on a futex; this thread, started at initialization with every
 * signal blocked, writes the report from ordinary code and wakes it.  What
 * runs in the handler is async-signal-safe: atomics, futex(2),
 * clock_gettime and, when no report came in time, the open/write/rename
 * of the status file (status.c).  Darshan and HPCToolkit have the same
 * split for the same reason.  The interrupted thread may hold a lock the
 * report needs (malloc's, the loader's, stdio's list): then the report
 * comes late or not at all, and the handler stops waiting after
 * SC_END_WAIT_NS; the shim's own locks are never held there (a signal that
 * comes during the shim's bookkeeping waits for its end, signals.c).
 *
 * Between requests the thread sleeps; with --snapshot it wakes every so
 * many seconds to write the JSON report (shim_report.c, in a pause of the
 * slow paths, core.h), so even a SIGKILL loses at most that much.  A
 * forked child has no reporter (threads do not survive fork; CUDA does not
 * either): a signal there ends it without a report.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "options.h"
#include "reporter.h"
#include "shim_report.h"

static _Atomic int asked;      /* futex: bumped by each request */
static _Atomic int served;     /* futex: the last request served */
static _Atomic int want;       /* the strongest kind asked since (SC_REQ_*) */
static _Atomic int want_sig;
static _Atomic pid_t self_tid; /* the reporter's thread id, in self_pid */
static _Atomic pid_t self_pid;
static _Atomic int broken;     /* it crashed: nobody waits for it */

int sc_reporter_is_self(void)
{
    return atomic_load(&self_tid) == (pid_t)gettid() && atomic_load(&self_pid) == getpid();
}

int sc_reporter_request(int what, int sig, uint64_t ns)
{
    if (atomic_load(&self_pid) != getpid() || atomic_load(&broken) || sc_reporter_is_self())
        return 0;
    int cur = atomic_load(&want);
    while (cur < what && !atomic_compare_exchange_weak(&want, &cur, what))
        ;
    atomic_store(&want_sig, sig);
    int mine = atomic_fetch_add(&asked, 1) + 1;
    sc_futex_wake(&asked);
    uint64_t end = sc_now_ns() + ns;
    for (;;) {
        int s = atomic_load(&served);
        if (s - mine >= 0)
            return 1;
        uint64_t now = sc_now_ns();
        if (now >= end || atomic_load(&broken))
            return 0;
        sc_futex_wait(&served, s, end - now < 100000000u ? end - now : 100000000u);
    }
}

void sc_reporter_crashed(void)
{
    atomic_store(&broken, 1);
    /* A pause it held would hold the program's calls up: the shim stops
       judging instead. */
    int paused = SC_MODE_PAUSED;
    if (atomic_compare_exchange_strong(&sc_g.mode, &paused, SC_MODE_DISABLED))
        sc_futex_wake(&sc_g.mode);
    sc_pause_done();
    sc_futex_wake(&served);
    for (;;)
        pause();
}

static void serve(int what, int sig)
{
    if (what == SC_REQ_FINAL) {
        char why[24];
        snprintf(why, sizeof why, "signal %d", sig);
        sc_final_report(sig == SC_WHY_EXEC ? "exec" : sig == SC_WHY_EXIT ? "_exit" : why);
    } else if (what == SC_REQ_INTERIM && sc_final_state() == 0) {
        sc_shim_write_partial(sig);
    }
}

static void *reporter_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "streamcheck");
    atomic_store(&self_tid, (pid_t)gettid());
    uint64_t every = (uint64_t)sc_opt.snapshot * 1000000000u, next = sc_now_ns() + every;
    int seen = 0;   /* a request made before the thread ran is served too */
    for (;;) {
        int cur = atomic_load(&asked);
        if (cur == seen) {
            uint64_t now = sc_now_ns();
            if (every && now >= next) {
                if (sc_final_state() == 0)
                    sc_shim_write_partial(0);
                next = sc_now_ns() + every;
                continue;
            }
            sc_futex_wait(&asked, cur, every ? next - now : 0);
            continue;
        }
        serve(atomic_exchange(&want, SC_REQ_NONE), atomic_load(&want_sig));
        seen = cur;
        atomic_store(&served, cur);
        sc_futex_wake(&served);
    }
    return NULL;
}

/* At initialization: the thread, with every signal blocked (a signal meant
   for the program must never wait in it for itself). */
static void reporter_start(void)
{
    pthread_attr_t a;
    pthread_t th;
    sigset_t all, old;
    if (pthread_attr_init(&a))
        return;
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    sc_internal_mask(&all);   /* a fault of its own parks it (sc_reporter_crashed) */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    atomic_store(&self_pid, getpid());
    if (pthread_create(&th, &a, reporter_main, NULL) != 0) {
        atomic_store(&self_pid, 0);
        sc_warn("cannot start the reporter thread: a signal that ends the program writes no report");
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
}

/* In a forked child the thread is gone. */
static void reporter_child(void)
{
    atomic_store(&self_pid, 0);
    atomic_store(&self_tid, 0);
}

static const sc_part part = {"reporter", 0, NULL, NULL, reporter_child, reporter_start, NULL};
SC_PART_REGISTER(part)
