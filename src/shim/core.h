/* core.h: the shim's leaf module (core.c): the globals, the log, per-thread
 * state, the init state machine, the fork and exit protocol, and the
 * shim's own time (the TSC and the profile's cells).
 *
 * core.c names no other module of the shim.  Modules that own a lock or
 * state a forked child must drop, or that need a hook at initialization or
 * exit, describe themselves with an sc_part and register it from a
 * constructor (SC_PART_REGISTER).  The fork handlers then take every
 * registered lock by construction: a module that adds a lock adds it to its
 * part, and the fork test (testapps/fork_stress) hangs if it forgets.
 */
#ifndef SC_CORE_H
#define SC_CORE_H

#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "options.h"
#include "shim.h"
#include "thread.h"

typedef struct sc_part {
    const char *name;
    /* Lock order: parts are locked in increasing order before fork and
       unlocked in decreasing order after it.  A module that takes another
       module's lock while it holds its own must have the smaller order.
       In use: modules 10, the GPU sampler 15 (held while a stream is
       destroyed), streams 20, hostmem 30, intern 35, ranges 37, callsites 40,
       findings 50, the run log 55, contexts (lanes.c) 60, cublas 70,
       hb 80 (it holds nothing: its child reset clears its spin locks),
       measure 85 (its locks are taken under findings' when a report
       prices its findings). */
    unsigned order;
    void (*lock)(void);          /* take every lock of the module */
    void (*unlock)(void);        /* in the parent after fork */
    void (*child_reset)(void);   /* in the child: locks re-initialized (never
                                    unlocked: another thread owned them),
                                    the parent's state dropped */
    void (*init)(void);          /* once, at the shim's initialization (or at
                                    registration, if that came later) */
    void (*at_exit)(void);       /* once, at exit, after the slow paths drained */
} sc_part;

/* Registers p (which must outlive the process); safe from a constructor. */
void sc_part_register(const sc_part *p);

#define SC_PART_REGISTER(part)                                            \
    __attribute__((constructor)) static void sc_part_register_##part(void) \
    {                                                                     \
        sc_part_register(&part);                                          \
    }

/* ----------------------------------------------------- own time, TSC --- */
/* The shim times itself with the time-stamp counter (a few ns, never a
   system call), converted to ns at report time against CLOCK_MONOTONIC
   over the whole run (core.c, sc_tsc_ns).  Always: the slow path, every
   call (sc_pre to the end of sc_post, less the real call and the wait
   drain.c does for the driver); the fast path, one call in
   SC_FAST_SAMPLE; initialization, the fork handlers and the report's own
   building at exit.  With STREAMCHECK_PROFILE=1 every phase (shim.h,
   sc_phase) is timed and counted per thread and a table is printed at exit
   (prof.c). */
static inline uint64_t sc_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return sc_now_ns();
#endif
}

/* ------------------------------------------------------------ globals --- */
/* The shim's mode.  PAUSED: the reporter thread (reporter.c) is reading
   the tables for a report while the program goes on (a snapshot, a signal
   the program handles itself); calls that would judge wait for it to end
   (core.c, "pauses"). */
enum { SC_MODE_UNINIT = 0, SC_MODE_ACTIVE = 1, SC_MODE_DISABLED = 2, SC_MODE_PAUSED = 3 };

typedef struct sc_globals {
    _Atomic int mode;
    int redirect;              /* 0 off, 1 per-thread */
    int redirect_method;       /* SC_RDM_* (options.h) */
    _Atomic unsigned ctx_gen;  /* bumped when a context is destroyed or reset */
    unsigned max_conn;         /* CUDA_DEVICE_MAX_CONNECTIONS in effect */
    _Atomic int async_engines; /* -1 unknown */
    _Atomic int slow_copies;   /* send async copies to the slow path (SC702 possible) */
    _Atomic unsigned n_active; /* streams marked busy (approximate, verified before reporting) */
    _Atomic int ptds_used;     /* some thread submitted to its per-thread stream */
    _Atomic int n_capturing;   /* captures in progress */
    _Atomic unsigned n_live;   /* created streams alive */
    _Atomic unsigned n_blocking; /* of which blocking */
    _Atomic int legacy_threads;  /* threads that submitted to the legacy stream */
    _Atomic int multi_ctx;     /* calls seen in two or more contexts (devices) */
    _Atomic unsigned n_ctx;    /* contexts the slow path has seen (lanes.c) */
    _Atomic unsigned n_internal; /* live created streams that are NCCL's (sc_stream.internal) */
    pid_t pid;
    int asym_fence;            /* membarrier(PRIVATE_EXPEDITED) is registered */
    uintptr_t self_lo, self_hi; /* our own text, to skip our frames */
    unsigned ablate;           /* STREAMCHECK_TEST_ABLATE: SC_ABLATE_* (a test hook) */
} sc_globals;
/* STREAMCHECK_TEST_ABLATE=hb,slow,walk,drain,rt,api,...: switch a part of the shim
   off to see what it costs on a real program (tools/overhead-probe.sh).
   A test hook, not an option: the findings are wrong while it is set. */
enum {
    SC_ABLATE_HB = 1,      /* the happens-before tracker never turns on */
    SC_ABLATE_SLOW = 2,    /* no call takes the slow path (nothing is judged) */
    SC_ABLATE_WALK = 4,    /* call sites are not walked */
    SC_ABLATE_RT = 8,      /* measured mode: no runtime API records */
    SC_ABLATE_API = 16,    /* measured mode: no driver or runtime API records */
    SC_ABLATE_EXT = 32,    /* measured mode: no external correlation */
    SC_ABLATE_TS = 64,     /* measured mode: CUPTI's own clock, not our callback */
    SC_ABLATE_COPY = 128,  /* measured mode: no memcpy or memset records */
    SC_ABLATE_PARSE = 256, /* measured mode: buffers are freed unread */
    SC_ABLATE_DRAIN = 512, /* no wait before a pageable copy: every split by the rate (drain.c) */
};
extern sc_globals sc_g;

extern SC_TLS sc_thread *sc_tls_self;
extern SC_TLS uint16_t sc_tls_rt;     /* current runtime API (attribution) */
extern sc_options sc_opt;             /* the settings, loaded at initialization */
/* Whether the settings ask for the GPU's timeline: --measure,
   --measure-window or a trace (measured mode, libstreamcheck(7)). */
static inline int sc_opt_measured(void)
{
    return sc_opt.measure || sc_opt.measure_window.set || (sc_opt.formats & SC_FMT_TRACE);
}
/* A test hook that switches a part of the model on or off: the variable
   `name` set to 1 or 0 says so, else dflt (most: measured mode, above).
   Read once where the model is set up (initialization, a device's copy
   calibration, the report), never on an intercepted call's fast path. */
static inline int sc_test_switch(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && (v[0] == '0' || v[0] == '1') ? v[0] == '1' : dflt;
}

/* The mask of a thread of the shim's own (the reporter, the GPU sampler,
   the measured window's timer): no signal meant for the program, which
   would wait there for a report that waits for the thread (signals.c), but
   the faults the thread itself may raise, which a blocked mask turns into
   a silent kill of the process: its handler runs (signals.c). */
static inline void sc_internal_mask(sigset_t *set)
{
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    sigfillset(set);
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
        sigdelset(set, faults[i]);
}
extern double sc_start_time;          /* seconds since the epoch, at start (or fork) */
extern int sc_prof_on;                /* STREAMCHECK_PROFILE=1 */
extern uint64_t sc_tsc_overhead;      /* ticks of an empty sc_tsc() pair (subtracted) */
double sc_tsc_ns(void);               /* ns per tick, calibrated over the run */
void sc_prof_add_slow(sc_thread *t, unsigned ph, uint64_t t0, uint64_t items);
void sc_prof_proc(unsigned ph, uint64_t ticks, uint64_t items);   /* process-wide phases */
extern _Atomic uint64_t sc_proc_own_ticks;   /* init, fork handlers, exit: in the estimate */
void sc_proc_cell(unsigned ph, sc_prof_cell *out);
/* Timing a phase in profile mode: one predictable branch when off. */
static inline uint64_t sc_prof_t0(void)
{
    return SC_UNLIKELY(sc_prof_on) ? sc_tsc() : 0;
}
static inline void sc_prof_add(sc_thread *t, unsigned ph, uint64_t t0, uint64_t items)
{
    if (SC_UNLIKELY(t0))
        sc_prof_add_slow(t, ph, t0, items);
}
extern uint64_t sc_start_ns;          /* sc_now_ns() then */

/* ------------------------------------------------- the shim's stderr --- */
/* A duplicate of the stderr the process started with (core.c says why),
   or -1 when it had none or the program has since closed or reused it. */
int sc_err_fd(void);
/* A stream on a duplicate of it, to fclose after use; NULL when none. */
FILE *sc_err_open(void);

/* ---------------------------------------------------- threads, init --- */
sc_thread *sc_thread_new(void);
void sc_init_slow(void);
/* Not active: initializes the shim if that is still to do, waits out a
   pause; 1 when the shim then judges calls. */
int sc_enter_slow(void);
static inline sc_thread *sc_enter(void)
{
    if (SC_UNLIKELY(atomic_load_explicit(&sc_g.mode, memory_order_relaxed) != SC_MODE_ACTIVE) && !sc_enter_slow())
        return NULL;
    sc_thread *t = sc_tls_self;
    if (SC_UNLIKELY(!t))
        t = sc_thread_new();
    return (t && !atomic_load_explicit(&t->busy, memory_order_relaxed)) ? t : NULL;
}
/* The shim keeps its tables (active, or paused while a report reads them). */
static inline int sc_judging(void)
{
    int m = atomic_load_explicit(&sc_g.mode, memory_order_acquire);
    return m == SC_MODE_ACTIVE || m == SC_MODE_PAUSED;
}
void sc_threads_foreach(void (*fn)(sc_thread *, void *), void *arg);

/* ----------------------------------------------------- the handshake --- */
/* A thread in the slow path says where it is in sc_thread.busy: in the
   shim's own bookkeeping (SHIM: it may be changing its tables and holding
   the shim's locks), or inside the driver's part of the call (DRIVER: the
   real call, or a wait the driver does for it; the shim's state is not
   touched).  A report (at exit, or a pause while the program goes on)
   turns the mode off, then waits only for threads in their bookkeeping,
   for at most SC_QUIESCE_NS in all: a thread inside a CUDA call that does
   not return for minutes costs nothing, and on its way back
   (sc_busy_back) it sees the mode and leaves the tables alone. */
enum { SC_BUSY_NO = 0, SC_BUSY_SHIM = 1, SC_BUSY_DRIVER = 2 };
#define SC_QUIESCE_NS (100 * 1000 * 1000ull)
/* The thread's half of the handshake. */
static inline void sc_busy_enter(sc_thread *t)
{
    if (SC_LIKELY(sc_g.asym_fence)) {
        atomic_store_explicit(&t->busy, SC_BUSY_SHIM, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst);   /* the reporter's membarrier does the rest */
    } else {
        atomic_store(&t->busy, SC_BUSY_SHIM);        /* a full fence, every slow call */
    }
}
/* After sc_busy_enter, when the mode is not active: waits out a pause; 1 to
   judge the call, 0 to pass it through (busy is then cleared). */
int sc_busy_begin(sc_thread *t);
/* A signal that came while the thread was in its bookkeeping (which may
   hold locks a report needs) was kept in sc_thread.pending_sig by the
   handler (signals.c): it is raised again as the thread leaves it. */
void sc_raise_deferred(sc_thread *t);
static inline void sc_busy_driver(sc_thread *t)
{
    atomic_store_explicit(&t->busy, SC_BUSY_DRIVER, memory_order_release);
    if (SC_UNLIKELY(t->pending_sig))
        sc_raise_deferred(t);
}
/* Back from the driver's part: 1 to finish the bookkeeping, 0 when a
   report has turned the shim off meanwhile (the tables are its now). */
int sc_busy_back(sc_thread *t);
static inline void sc_busy_done(sc_thread *t)
{
    atomic_store_explicit(&t->busy, SC_BUSY_NO, memory_order_release);
    if (SC_UNLIKELY(t->pending_sig))
        sc_raise_deferred(t);
}
/* The report's half (core.c, quiesce): after the mode is off or paused,
   it waits for the threads in their bookkeeping, SC_QUIESCE_NS at most in
   all; a thread still there is marked late (sc_thread.late) and its tables
   are left out of the report. */

/* ------------------------------------------------------------ ending --- */
/* The final report is written once: at exit, before exec* or _exit, or at a
   signal that ends the process (then by the reporter thread, reporter.c).
   sc_final_report writes it in the calling thread (nothing if it was, or
   is being, written), saying why in the status file: NULL at an ordinary
   exit, else "signal 15", "exec", "_exit" (shim_report.c reads
   sc_end_reason). */
void sc_final_report(const char *why);
extern char sc_end_reason[32];
/* How long a thread waits for a report another thread writes for it (a
   signal handler for the reporter, a second exit for the first). */
#define SC_END_WAIT_NS (10 * 1000 * 1000 * 1000ull)
/* Async-signal-safe: 0 no final report yet, 1 being written, 2 written;
   sc_final_writer is the thread writing it (0 when none). */
int sc_final_state(void);
pid_t sc_final_writer(void);
/* Async-signal-safe: waits until the final report is written, ns at most;
   1 if it was. */
int sc_final_wait(uint64_t ns);
/* A report while the program goes on (reporter.c): stops the slow paths
   and waits for every thread to leave its bookkeeping (ns at most); 1 then
   (the tables are the caller's until sc_resume), 0 if not (resumed, or the
   final report has begun).  A pause and the final report exclude each
   other until sc_pause_done: the final report's files replace the
   pause's, never the reverse. */
int sc_pause(uint64_t ns);
void sc_resume(void);      /* the slow paths go on */
void sc_pause_done(void);  /* after sc_pause's 1: what was read is written */
/* Futexes: wait while *word == val (ns at most, 0: forever); wake all. */
void sc_futex_wait(_Atomic int *word, int val, uint64_t ns);
void sc_futex_wake(_Atomic int *word);

#endif /* SC_CORE_H */
