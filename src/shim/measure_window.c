/* measure_window.c: measured mode in a window of the run (measure_window.h).
 *
 * CUPTI's tracing costs a PyTorch loop what a profiler's does (about 20%:
 * docs/PERFORMANCE.md), for as long as it records.  A window bounds that
 * to its own length, as a profiler's delay and duration do (Nsight
 * Systems' --delay and --duration, torch.profiler's schedule): CUPTI is
 * loaded and subscribed from the start, so no other tool takes it, and
 * records only between the window's ends, which a thread of the shim's own
 * opens and closes on the clock (a program need not mark its steps).  The
 * slow path ties no finding event to the timeline outside the window
 * (sc_measure_active is clear there), and the report scales each finding's
 * GPU cost from its calls inside the window to all of them (measure.c).
 *
 * The thread blocks every signal (the program's handlers run on its own
 * threads) and is marked busy only while it calls CUPTI, so CUDA calls
 * CUPTI makes pass through the shim and the exit handshake waits for it
 * no longer than that call.  A forked child has no such thread; its
 * session stops at the fork anyway (cupti_session.c).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "core.h"
#include "cupti_session.h"
#include "measure_window.h"

static struct window_plan { uint64_t open_ns, close_ns; } plan;

static void sleep_until(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* Calls CUPTI as the shim: CUDA calls it makes pass straight through. */
static int record(int on)
{
    sc_thread *t = sc_enter();
    if (t)
        sc_busy_enter(t);
    int r = sc_cupti_record(on);
    if (t)
        atomic_store_explicit(&t->busy, 0, memory_order_release);
    return r;
}

static void *window_thread(void *arg)
{
    (void)arg;
    sleep_until(plan.open_ns);
    if (record(1) || !plan.close_ns)
        return NULL;
    sleep_until(plan.close_ns);
    record(0);
    return NULL;
}

void sc_measure_window_start(const sc_opt_window *w)
{
    uint64_t now = sc_now_ns();
    plan.open_ns = now + (uint64_t)(w->start * 1e9);
    plan.close_ns = w->length > 0 ? plan.open_ns + (uint64_t)(w->length * 1e9) : 0;
    sigset_t all, old;
    sc_internal_mask(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t a;
    pthread_t th;
    int made = !pthread_attr_init(&a) && !pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) &&
               !pthread_create(&th, &a, window_thread, NULL);
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!made && !record(1))
        sc_log(SC_LOG_WARNING, "measured mode: no thread for the window (--measure-window); recording the "
               "whole run");
}
