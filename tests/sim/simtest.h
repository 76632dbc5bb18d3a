/* tests/sim/simtest.h: helpers for the simulator's Check tests.
 *
 * Ordering tests do not rely on timing: a "gate" is a host function
 * queued on a stream that blocks the stream's worker until the test opens
 * it, so "B has not run while A is held" is deterministic.  Where a call
 * must block the host, it runs in a helper thread and the test asserts a
 * lower bound (it has not returned after a while) and that it returns
 * once the gate opens; upper bounds are generous (seconds), so a loaded
 * machine cannot make a correct simulator fail. */
#ifndef SC_SIMTEST_H
#define SC_SIMTEST_H

#include <check.h>
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* Asserts that a driver call returns want. */
#define ST_EXPECT(want, call)                                                 \
    do {                                                                      \
        CUresult st_r_ = (call);                                              \
        ck_assert_msg(st_r_ == (want), "%s returned %d, expected %d", #call,  \
                      (int)st_r_, (int)(want));                               \
    } while (0)
#define ST_OK(call) ST_EXPECT(CUDA_SUCCESS, call)

/* How long a blocked call is watched before the test calls it blocked,
 * and how long a call that should return is given. */
#define ST_BLOCK_MS 150
#define ST_RETURN_MS 10000

/* cuInit, retain the primary context, make it current. */
CUcontext st_init(void);
/* Makes the primary context current in a new thread. */
void st_thread_ctx(void);

/* A function of the simulator's module by mangled name. */
CUfunction st_func(const char *mangled);
#define ST_SPIN "_Z7sc_spiny"
#define ST_SAXPY "_Z8sc_saxpyifPKfPf"
#define ST_FILL "_Z7sc_fillPfif"

/* Launches sc_spin(ns) on s. */
void st_spin(CUstream s, unsigned long long ns);

/* A driver entry point through cuGetProcAddress (flags 2: per-thread). */
void *st_proc(const char *name, int version, int flags);

double st_now_ms(void);
void st_sleep_ms(int ms);

/* ---- gates ---- */
typedef struct st_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open;
    bool entered;
} st_gate;
void st_gate_init(st_gate *g);
/* Queues the gate on stream s (legacy entry point). */
void st_gate_on(st_gate *g, CUstream s);
/* Queues the gate with cuLaunchHostFunc_ptsz. */
void st_gate_on_pt(st_gate *g, CUstream s);
void st_gate_open(st_gate *g);
/* Waits until the stream reached the gate (returns false after ms). */
bool st_gate_reached(st_gate *g, int ms);

/* ---- flags: a host function that records that it ran ---- */
void st_flag_on(atomic_int *flag, CUstream s);
void CUDA_CB st_flag_fn(void *flag);

/* ---- calls in a helper thread ---- */
typedef struct st_call {
    pthread_t th;
    void (*fn)(void *);
    void *arg;
    atomic_int done;
    bool ctx; /* make the primary context current first */
} st_call;
void st_call_start(st_call *c, void (*fn)(void *), void *arg);
/* True once the call returned, false if it has not within ms. */
bool st_call_done_within(st_call *c, int ms);
void st_call_join(st_call *c);

/* ---- stderr capture ---- */
int st_stderr_begin(void);
/* Restores stderr and returns what was written (malloc'd). */
char *st_stderr_end(int saved);
/* Occurrences of needle in haystack. */
int st_count(const char *haystack, const char *needle);

/* Runs a suite through an SRunner and returns the exit status. */
int st_run(Suite *s);

#endif /* SC_SIMTEST_H */
