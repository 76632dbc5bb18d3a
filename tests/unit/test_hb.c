/* test_hb.c: the happens-before tracker (src/shim/hb_clock.c, hb_order.c,
 * hb_pthread.c): its vector clocks through the real, interposed pthread
 * functions (the shim is linked into this program, so every pthread call
 * in it goes through the tracker),
 * transitivity, the limits (components, table), fork, and the waits it adds
 * for redirect, against a fake driver that logs them.  Check runs each test
 * in a fork, so each starts with the tracker off.
 *
 * Threads coordinate through plain atomics wherever the test must not add
 * an order of its own: the tracker does not see those.  Nothing asserts
 * inside a thread: Check's assertions take a mutex, which is an order too.
 * Threads count what went wrong in `bad`; the main thread asserts.
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "hb.h"
#include "real.h"
#include "thread.h"

/* ------------------------------------------------------ fake driver --- */
#define CTX ((CUcontext)(uintptr_t)0xc0)
static _Atomic int nlog;
static struct { char op; CUstream s; CUevent e; } flog[256];
static _Atomic uintptr_t next_ev = 0xe0;

static void logop(char op, CUstream s, CUevent e)
{
    int i = atomic_fetch_add(&nlog, 1);
    if (i < 256) {
        flog[i].op = op;
        flog[i].s = s;
        flog[i].e = e;
    }
}
static CUresult f_ctx(CUcontext *c) { *c = CTX; return CUDA_SUCCESS; }
static CUresult f_ev_create(CUevent *e, unsigned flags)
{
    (void)flags;
    *e = (CUevent)atomic_fetch_add(&next_ev, 1);
    return CUDA_SUCCESS;
}
static CUresult f_record(CUevent e, CUstream s) { logop('r', s, e); return CUDA_SUCCESS; }
static CUresult f_wait(CUstream s, CUevent e, unsigned f) { (void)f; logop('w', s, e); return CUDA_SUCCESS; }

/* How many 'r'/'w' entries the log has from index `from` on. */
static int count(char op, int from)
{
    int n = 0, end = atomic_load(&nlog);
    for (int i = from; i < end && i < 256; i++)
        n += flog[i].op == op;
    return n;
}

static void setup(void)
{
    unsetenv("STREAMCHECK_TEST_NO_HB_ORDER");
    setenv("STREAMCHECK_FORMAT", "json", 1);
    sc_d.CtxGetCurrent = f_ctx;
    sc_d.EventCreate = f_ev_create;
    sc_d.EventRecord = f_record;
    sc_d.StreamWaitEvent = f_wait;
    atomic_store(&nlog, 0);
    sc_hb_test_follow_all(1);
}

static void teardown(void)
{
    atomic_store(&sc_g.mode, SC_MODE_DISABLED);
}

/* --------------------------------------------------------- helpers --- */
/* The calling thread's shim block (made on first use). */
static _Atomic int bad;

static sc_thread *me(void)
{
    sc_thread *t = sc_enter();
    if (!t)
        abort();
    return t;
}

/* One legacy-stream submission of the calling thread; returns whether it
   raced another thread's latest one (the SC103 query). */
static int submit(int where)
{
    sc_thread *t = me();
    if (sc_hb_thread_legacy(t) < 0)
        atomic_fetch_add(&bad, 1);
    int c = sc_hb_legacy_concurrent(t);
    sc_hb_submitted(t, where, CTX);
    return c;
}

static int my_slot(void) { return sc_hb_thread_legacy(me()); }

static void spin_until(_Atomic int *flag, int value)
{
    while (atomic_load(flag) != value)
        sched_yield();
}

/* Three threads started in this order and all joined: their bodies order
   themselves (spin_until on atomics the tracker ignores). */
static void run_three(void *(*a)(void *), void *(*b)(void *), void *(*c)(void *))
{
    pthread_t th[3];
    void *(*fn[3])(void *) = {a, b, c};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, fn[i], NULL), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
}

/* Two threads, A then B; B's body runs after A's, ordered only by what
   the bodies do (the test waits through an atomic the tracker ignores). */
typedef struct pair {
    void (*a)(struct pair *), (*b)(struct pair *);
    _Atomic int a_done, b_done;
    _Atomic int slot_a;       /* atomic: B may read it with no order to A's write (ThreadSanitizer) */
    int slot_b;
    int conc_b;               /* B's submission raced? */
    uint64_t b_sees_a;        /* B's clock component of A after its body */
    unsigned lid_a, lid_b;
    pthread_mutex_t m, m2;
    pthread_cond_t cv;
    pthread_rwlock_t rw;
    sem_t sem;
    pthread_barrier_t bar;
    _Atomic int flag;
} pair;

static void *run_a(void *p)
{
    pair *x = p;
    me();
    x->slot_a = my_slot();
    if (submit(SC_HB_LEGACY) != 0)
        atomic_fetch_add(&bad, 1);
    x->lid_a = sc_hb_lifetime();
    x->a(x);
    atomic_store(&x->a_done, 1);
    /* Alive until B is done: a thread block is reused once its thread
       ends, and B must have one of its own here. */
    spin_until(&x->b_done, 1);
    return NULL;
}

static void *run_b(void *p)
{
    pair *x = p;
    me();
    if (x->b == NULL)
        spin_until(&x->a_done, 1);
    else
        x->b(x);
    x->slot_b = my_slot();
    x->b_sees_a = sc_hb_test_clock(x->slot_a);
    x->conc_b = submit(SC_HB_LEGACY);
    x->lid_b = sc_hb_lifetime();
    atomic_store(&x->b_done, 1);
    return NULL;
}

static void pair_init(pair *x)
{
    memset(x, 0, sizeof *x);
    pthread_mutex_init(&x->m, NULL);
    pthread_mutex_init(&x->m2, NULL);
    pthread_cond_init(&x->cv, NULL);
    pthread_rwlock_init(&x->rw, NULL);
    sem_init(&x->sem, 0, 0);
    pthread_barrier_init(&x->bar, NULL, 2);
}

/* Runs A and B concurrently; nothing of the main thread orders them (it
   never submits, so its create and join carry no clock). */
static void pair_run(pair *x)
{
    pthread_t ta, tb;
    ck_assert_int_eq(pthread_create(&ta, NULL, run_a, x), 0);
    ck_assert_int_eq(pthread_create(&tb, NULL, run_b, x), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    ck_assert_int_eq(atomic_load(&bad), 0);
}

/* ----------------------------------------------------------- clocks --- */
static void a_unlock(pair *x) { pthread_mutex_lock(&x->m); pthread_mutex_unlock(&x->m); }
static void b_lock(pair *x)
{
    spin_until(&x->a_done, 1);
    pthread_mutex_lock(&x->m);
    pthread_mutex_unlock(&x->m);
}

START_TEST(racing_threads_are_concurrent)
{
    pair x;
    pair_init(&x);
    x.a = a_unlock;
    x.b = NULL;   /* B never touches A's mutex */
    pair_run(&x);
    ck_assert_int_eq(x.b_sees_a, 0);
    ck_assert_int_eq(x.conc_b, 1);
    /* Both lifetimes count for SC103, whichever submitted first. */
    ck_assert(sc_hb_lifetime_concurrent(x.lid_a));
    ck_assert(sc_hb_lifetime_concurrent(x.lid_b));
}
END_TEST

START_TEST(mutex_orders)
{
    pair x;
    pair_init(&x);
    x.a = a_unlock;
    x.b = b_lock;
    pair_run(&x);
    ck_assert_int_ne(x.slot_a, x.slot_b);
    ck_assert_uint_eq(x.b_sees_a, 1);
    ck_assert_int_eq(x.conc_b, 0);
    ck_assert(!sc_hb_lifetime_concurrent(x.lid_a));
    ck_assert(!sc_hb_lifetime_concurrent(x.lid_b));
}
END_TEST

/* The per-thread memory of sync objects (hb_clock.h, kc): a release by the
   object's last releaser whose clock did not change is skipped, so one
   whose clock grew in between (a new submission) must not be. */
static void a_unlock_submit_unlock(pair *x)
{
    for (int i = 0; i < 3; i++)
        a_unlock(x);                       /* the second and third are skipped */
    if (submit(SC_HB_LEGACY) != 0)
        atomic_fetch_add(&bad, 1);
    a_unlock(x);                           /* carries the new submission */
}

START_TEST(repeated_release_carries_new_submissions)
{
    pair x;
    pair_init(&x);
    x.a = a_unlock_submit_unlock;
    x.b = b_lock;
    pair_run(&x);
    ck_assert_uint_eq(x.b_sees_a, 2);
    ck_assert_int_eq(x.conc_b, 0);
}
END_TEST

/* And an acquire of an object that has not changed since the thread last
   took it is skipped, so one that changed in between must not be: B takes
   the mutex while A has submitted once, then again after A's second
   submission and release. */
static _Atomic uint64_t b_first_sight;
static void a_two_phases(pair *x)
{
    a_unlock(x);
    atomic_store(&x->flag, 1);
    spin_until(&x->flag, 2);
    if (submit(SC_HB_LEGACY) != 0)
        atomic_fetch_add(&bad, 1);
    a_unlock(x);
}

static void b_two_phases(pair *x)
{
    spin_until(&x->flag, 1);
    for (int i = 0; i < 2; i++) {          /* the second is skipped */
        pthread_mutex_lock(&x->m);
        pthread_mutex_unlock(&x->m);
    }
    atomic_store(&b_first_sight, sc_hb_test_clock(atomic_load(&x->slot_a)));
    atomic_store(&x->flag, 2);
    spin_until(&x->a_done, 1);
    pthread_mutex_lock(&x->m);
    pthread_mutex_unlock(&x->m);
}

START_TEST(repeated_acquire_sees_later_releases)
{
    pair x;
    pair_init(&x);
    x.a = a_two_phases;
    x.b = b_two_phases;
    pair_run(&x);
    ck_assert_uint_eq(atomic_load(&b_first_sight), 1);
    ck_assert_uint_eq(x.b_sees_a, 2);
    ck_assert_int_eq(x.conc_b, 0);
}
END_TEST

static void a_trylock(pair *x)
{
    if (pthread_mutex_trylock(&x->m) != 0)
        atomic_fetch_add(&bad, 1);
    pthread_mutex_unlock(&x->m);
}
static void b_timedlock(pair *x)
{
    spin_until(&x->a_done, 1);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 5;
    if (pthread_mutex_timedlock(&x->m, &ts) != 0)
        atomic_fetch_add(&bad, 1);
    pthread_mutex_unlock(&x->m);
}

START_TEST(mutex_trylock_and_timedlock)
{
    pair x;
    pair_init(&x);
    x.a = a_trylock;
    x.b = b_timedlock;
    pair_run(&x);
    ck_assert_uint_eq(x.b_sees_a, 1);
    ck_assert_int_eq(x.conc_b, 0);
}
END_TEST

/* A signals until B has woken with A's clock: B's wait must carry it, the
   mutex B waits with is B's alone. */
static void a_signal(pair *x)
{
    while (!atomic_load(&x->flag)) {
        pthread_cond_broadcast(&x->cv);
        sched_yield();
    }
}
static int use_clockwait;   /* pthread_cond_clockwait (C++'s wait_for) instead */
static void b_wait(pair *x)
{
    pthread_mutex_lock(&x->m2);
    /* A is the first thread to submit: component 0 (x->slot_a is A's to
       write until B is done). */
    for (int i = 0; i < 20000 && !sc_hb_test_clock(0); i++) {
        struct timespec ts;
        clock_gettime(use_clockwait ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        if (use_clockwait)
            pthread_cond_clockwait(&x->cv, &x->m2, CLOCK_MONOTONIC, &ts);
        else
            pthread_cond_timedwait(&x->cv, &x->m2, &ts);
    }
    pthread_mutex_unlock(&x->m2);
    atomic_store(&x->flag, 1);
}

START_TEST(condition_variable_orders)
{
    pair x;
    pair_init(&x);
    x.a = a_signal;
    x.b = b_wait;
    pair_run(&x);
    ck_assert_int_eq(x.slot_a, 0);
    ck_assert_uint_eq(x.b_sees_a, 1);
    ck_assert_int_eq(x.conc_b, 0);
}
END_TEST

static void a_post(pair *x) { sem_post(&x->sem); }
static void b_sem(pair *x)
{
    if (sem_wait(&x->sem) != 0)
        atomic_fetch_add(&bad, 1);
}

START_TEST(condition_variable_clockwait_orders)
{
    pair x;
    pair_init(&x);
    use_clockwait = 1;
    x.a = a_signal;
    x.b = b_wait;
    pair_run(&x);
    ck_assert_uint_eq(x.b_sees_a, 1);
    ck_assert_int_eq(x.conc_b, 0);
}
END_TEST

START_TEST(semaphore_orders)
{
    pair x;
    pair_init(&x);
    x.a = a_post;
    x.b = b_sem;
    pair_run(&x);
    ck_assert_uint_eq(x.b_sees_a, 1);
    ck_assert_int_eq(x.conc_b, 0);
}
END_TEST

static void a_barrier(pair *x) { pthread_barrier_wait(&x->bar); }
static void b_barrier(pair *x) { pthread_barrier_wait(&x->bar); }

START_TEST(barrier_orders)
{
    pair x;
    pair_init(&x);
    x.a = a_barrier;
    x.b = b_barrier;
    pair_run(&x);
    ck_assert_uint_eq(x.b_sees_a, 1);
    ck_assert_int_eq(x.conc_b, 0);
}
END_TEST

static void a_wr(pair *x) { pthread_rwlock_wrlock(&x->rw); pthread_rwlock_unlock(&x->rw); }
static void b_rd(pair *x)
{
    spin_until(&x->a_done, 1);
    pthread_rwlock_rdlock(&x->rw);
    pthread_rwlock_unlock(&x->rw);
}

START_TEST(rwlock_orders)
{
    pair x;
    pair_init(&x);
    x.a = a_wr;
    x.b = b_rd;
    pair_run(&x);
    ck_assert_uint_eq(x.b_sees_a, 1);
    ck_assert_int_eq(x.conc_b, 0);
}
END_TEST

/* create and join: a child starts after its parent's earlier work, and a
   joiner continues after the joined thread's. */
static uint64_t child_sees;
static int parent_slot;
static void *child(void *arg)
{
    (void)arg;
    child_sees = sc_hb_test_clock(parent_slot);
    return NULL;
}
static void *submitter(void *arg)
{
    (void)arg;
    parent_slot = my_slot();
    submit(SC_HB_LEGACY);
    submit(SC_HB_LEGACY);
    return NULL;
}

START_TEST(create_and_join_order)
{
    /* create: the main thread submits, then creates. */
    parent_slot = my_slot();
    submit(SC_HB_LEGACY);
    pthread_t th;
    pthread_create(&th, NULL, child, NULL);
    pthread_join(th, NULL);
    ck_assert_uint_eq(child_sees, 1);
    /* join: another thread submits twice; the main thread joins it. */
    pthread_create(&th, NULL, submitter, NULL);
    pthread_join(th, NULL);
    ck_assert_uint_eq(sc_hb_test_clock(parent_slot), 2);
    ck_assert_int_eq(submit(SC_HB_LEGACY), 0);   /* not racing: it ended before */
}
END_TEST

/* A thread block (and its component) is reused once its thread ends; the
   new thread still races the old one unless it is ordered after its end. */
static sc_thread *_Atomic blk;
static unsigned lid_out;
static void *sub_once(void *arg)
{
    (void)arg;
    submit(SC_HB_LEGACY);
    lid_out = sc_hb_lifetime();
    atomic_store(&blk, me());
    return NULL;
}

static unsigned run_sub_once(pthread_t *th, int join)
{
    atomic_store(&blk, NULL);
    pthread_create(th, NULL, sub_once, NULL);
    if (join) {
        pthread_join(*th, NULL);
    } else {
        pthread_detach(*th);
        while (!atomic_load(&blk) || atomic_load(&atomic_load(&blk)->in_use))
            sched_yield();
    }
    return lid_out;
}

START_TEST(a_reused_block_races_unless_ordered)
{
    pthread_t th;
    /* Joined before the next one starts: turn-taking. */
    unsigned c = run_sub_once(&th, 1);
    sc_thread *first = atomic_load(&blk);
    unsigned d = run_sub_once(&th, 1);
    ck_assert_ptr_eq(atomic_load(&blk), first);   /* the same block, the same component */
    ck_assert(!sc_hb_lifetime_concurrent(c));
    ck_assert(!sc_hb_lifetime_concurrent(d));
    /* Not joined: A (created after D was joined) takes over from D in
       order; B takes over from A, which it never waited for. */
    unsigned a = run_sub_once(&th, 0);
    unsigned b = run_sub_once(&th, 0);
    ck_assert_ptr_eq(atomic_load(&blk), first);
    ck_assert(!sc_hb_lifetime_concurrent(d));
    ck_assert(sc_hb_lifetime_concurrent(a));
    ck_assert(sc_hb_lifetime_concurrent(b));
    ck_assert_int_eq(atomic_load(&bad), 0);
}
END_TEST

/* A -> C -> B through two mutexes; C never submits. */
static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int step;
static int slot_a;
static uint64_t b_sees;
static int b_conc;
static void *ta(void *arg)
{
    (void)arg;
    slot_a = my_slot();
    submit(SC_HB_LEGACY);
    pthread_mutex_lock(&m1);
    pthread_mutex_unlock(&m1);
    atomic_store(&step, 1);
    return NULL;
}
static void *tc(void *arg)
{
    (void)arg;
    spin_until(&step, 1);
    pthread_mutex_lock(&m1);
    pthread_mutex_unlock(&m1);
    pthread_mutex_lock(&m2);
    pthread_mutex_unlock(&m2);
    atomic_store(&step, 2);
    return NULL;
}
static void *tb(void *arg)
{
    (void)arg;
    spin_until(&step, 2);
    pthread_mutex_lock(&m2);
    pthread_mutex_unlock(&m2);
    b_sees = sc_hb_test_clock(slot_a);
    b_conc = submit(SC_HB_LEGACY);
    return NULL;
}

START_TEST(transitive_through_a_thread_that_never_submits)
{
    /* The tracker must be on before C's first lock. */
    submit(SC_HB_LEGACY);
    atomic_store(&step, 0);
    run_three(ta, tc, tb);
    ck_assert_uint_eq(b_sees, 1);
    ck_assert_int_eq(b_conc, 0);
}
END_TEST

/* A mutex released again by its last releaser after only its own
   submissions gets that one component (hb_clock.h, hb_release_own), but a
   clock that also joined another thread's in between must go in whole: A
   publishes into m3, joins D's submission through m4, submits, and
   releases m3; B takes m3 and must see both. */
static pthread_mutex_t m3 = PTHREAD_MUTEX_INITIALIZER, m4 = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int step2;
static int own_slot_a, own_slot_d;
static uint64_t own_b_sees_a, own_b_sees_d;
static void *own_a(void *arg)
{
    (void)arg;
    own_slot_a = my_slot();
    submit(SC_HB_LEGACY);
    pthread_mutex_lock(&m3);
    pthread_mutex_unlock(&m3);
    atomic_store(&step2, 1);
    spin_until(&step2, 2);
    pthread_mutex_lock(&m4);
    pthread_mutex_unlock(&m4);
    submit(SC_HB_LEGACY);
    pthread_mutex_lock(&m3);
    pthread_mutex_unlock(&m3);
    atomic_store(&step2, 3);
    return NULL;
}
static void *own_d(void *arg)
{
    (void)arg;
    spin_until(&step2, 1);
    own_slot_d = my_slot();
    submit(SC_HB_LEGACY);
    pthread_mutex_lock(&m4);
    pthread_mutex_unlock(&m4);
    atomic_store(&step2, 2);
    spin_until(&step2, 4);   /* alive until B looked: its block stays its own */
    return NULL;
}
static void *own_b(void *arg)
{
    (void)arg;
    spin_until(&step2, 3);
    pthread_mutex_lock(&m3);
    pthread_mutex_unlock(&m3);
    own_b_sees_a = sc_hb_test_clock(own_slot_a);
    own_b_sees_d = sc_hb_test_clock(own_slot_d);
    atomic_store(&step2, 4);
    return NULL;
}

START_TEST(own_component_release_keeps_joined_ones)
{
    submit(SC_HB_LEGACY);
    atomic_store(&step2, 0);
    run_three(own_a, own_d, own_b);
    ck_assert_int_ne(own_slot_a, own_slot_d);
    ck_assert_uint_eq(own_b_sees_a, 2);
    ck_assert_uint_eq(own_b_sees_d, 1);
}
END_TEST

/* ---------------------------------------------------------- limits --- */
#define MANY (SC_HB_SLOTS + 2)
static pthread_barrier_t many_bar;
static _Atomic int got_slot, got_none;
static void *one_of_many(void *arg)
{
    (void)arg;
    /* All alive at once: a thread block is reused only after its thread ends. */
    pthread_barrier_wait(&many_bar);
    int s = sc_hb_thread_legacy(me());
    atomic_fetch_add(s >= 0 ? &got_slot : &got_none, 1);
    pthread_barrier_wait(&many_bar);
    return NULL;
}

START_TEST(components_are_bounded)
{
    pthread_t th[MANY];
    pthread_barrier_init(&many_bar, NULL, MANY);
    for (int i = 0; i < MANY; i++)
        pthread_create(&th[i], NULL, one_of_many, NULL);
    for (int i = 0; i < MANY; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_eq(atomic_load(&got_slot), SC_HB_SLOTS);
    ck_assert_int_eq(atomic_load(&got_none), MANY - SC_HB_SLOTS);
}
END_TEST

/* More objects than the table holds: those left over share one clock,
   which is conservative (an acquire of any of them is ordered after all). */
static char objs[3 * SC_HB_TABLE];
static _Atomic int released;
static uint64_t seen_last, seen_never;
static int rel_slot;
static void *releaser(void *arg)
{
    (void)arg;
    rel_slot = my_slot();
    submit(SC_HB_LEGACY);
    for (size_t i = 0; i < sizeof objs; i++)
        sc_hb_release(&objs[i]);
    atomic_store(&released, 1);
    return NULL;
}
static void *acquirer(void *arg)
{
    (void)arg;
    spin_until(&released, 1);
    sc_hb_acquire(&objs[sizeof objs - 1]);
    seen_last = sc_hb_test_clock(rel_slot);
    return NULL;
}
static void *acquirer_never(void *arg)
{
    (void)arg;
    spin_until(&released, 1);
    static char other;
    sc_hb_acquire(&other);   /* never released: nothing, unless its window is full */
    seen_never = sc_hb_test_clock(rel_slot);
    return NULL;
}

START_TEST(table_overflow_is_conservative)
{
    run_three(releaser, acquirer, acquirer_never);
    ck_assert_uint_gt(sc_hb_test_overflowed(), 0);
    ck_assert_uint_eq(seen_last, 1);
    /* The table is full: any object may be in the shared entry. */
    ck_assert_uint_eq(seen_never, 1);
}
END_TEST

START_TEST(off_until_legacy_work_and_after_fork)
{
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    ck_assert(!sc_hb_on());
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    ck_assert(!sc_hb_on());
    submit(SC_HB_LEGACY);
    ck_assert(sc_hb_on());
    pid_t pid = fork();
    if (pid == 0) {
        /* The child: off, and its clock empty. */
        int ok = !sc_hb_on() && sc_hb_test_clock(0) == 0;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

/* Detect mode: after 256 submissions judged beside another thread's the
   tracker rests (hb_clock.h, HB_JUDGED); a thread new to the legacy stream
   wakes it, and only what is submitted after that is judged. */
static _Atomic int helper_conc = -1, helper_slot = -1;
static _Atomic uint64_t helper_own;   /* its own component after submitting */
static void *submit_once(void *arg)
{
    if (arg)
        sc_hb_new_legacy_thread();   /* what detect_legacy.c does for a new thread */
    atomic_store(&helper_conc, submit(SC_HB_LEGACY));
    atomic_store(&helper_slot, my_slot());
    atomic_store(&helper_own, sc_hb_test_clock(my_slot()));
    return NULL;
}

START_TEST(rests_after_enough_verdicts_and_a_new_thread_wakes_it)
{
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_t th;
    submit(SC_HB_LEGACY);
    ck_assert_int_eq(pthread_create(&th, NULL, submit_once, NULL), 0);
    pthread_join(th, NULL);
    unsigned judged = 0;
    while (sc_hb_on() && judged < 5000) {
        submit(SC_HB_LEGACY);
        judged++;
    }
    ck_assert_uint_eq(judged, 255);   /* the helper's own submission was the first */
    ck_assert_uint_eq(sc_hb_rests(), 1);
    pthread_mutex_lock(&m);            /* not followed while it rests */
    pthread_mutex_unlock(&m);
    ck_assert(!sc_hb_on());
    /* A new thread wakes it: nothing from before counts against it, though
       nothing ordered it after the others' earlier submissions. */
    ck_assert_int_eq(pthread_create(&th, NULL, submit_once, (void *)1), 0);
    pthread_join(th, NULL);
    ck_assert(sc_hb_on());
    ck_assert_int_eq(atomic_load(&helper_conc), 0);
    /* Followed again: the join brought its submission into our clock. */
    ck_assert_int_ge(atomic_load(&helper_slot), 0);
    ck_assert_uint_gt(atomic_load(&helper_own), 0);
    ck_assert_uint_eq(sc_hb_test_clock(atomic_load(&helper_slot)), atomic_load(&helper_own));
    ck_assert_int_eq(submit(SC_HB_LEGACY), 0);
}
END_TEST

START_TEST(errno_and_results_pass_through)
{
    submit(SC_HB_LEGACY);
    sem_t s;
    sem_init(&s, 0, 0);
    errno = 0;
    ck_assert_int_eq(sem_trywait(&s), -1);
    ck_assert_int_eq(errno, EAGAIN);
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    errno = 1234;
    pthread_mutex_unlock(&m);
    ck_assert_int_eq(errno, 1234);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t e;
    pthread_mutex_init(&e, &a);
#ifndef __SANITIZE_THREAD__   /* ThreadSanitizer reports the unlock of a mutex nobody holds */
    ck_assert_int_eq(pthread_mutex_unlock(&e), EPERM);
#endif
    ck_assert_int_eq(pthread_mutex_lock(&e), 0);
    ck_assert_int_eq(pthread_mutex_trylock(&e), EBUSY);
    ck_assert_int_eq(pthread_mutex_unlock(&e), 0);
}
END_TEST

/* -------------------------------------------------------- redirect --- */
#define S_A ((CUstream)(uintptr_t)0x5a)
#define S_B ((CUstream)(uintptr_t)0x5b)
static pthread_mutex_t rm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rcv = PTHREAD_COND_INITIALIZER;
static _Atomic int phase;
static int where_a;

/* A: redirected work, then a hand-off (mutex, then condition variable). */
static void *rd_a(void *arg)
{
    (void)arg;
    sc_thread *t = me();
    sc_hb_thread_legacy(t);
    if (where_a == SC_HB_OWN)
        sc_hb_own_stream(t, CTX, S_A, atomic_load(&sc_g.ctx_gen));
    sc_hb_submitted(t, where_a, CTX);
    pthread_mutex_lock(&rm);
    pthread_mutex_unlock(&rm);
    atomic_store(&phase, 1);
    spin_until(&phase, 2);
    sc_hb_submitted(t, where_a, CTX);
    pthread_mutex_lock(&rm);
    pthread_cond_broadcast(&rcv);
    pthread_mutex_unlock(&rm);
    atomic_store(&phase, 3);
    return NULL;
}

static int order_b(void) { return sc_hb_order(me(), CTX, S_B); }

START_TEST(redirect_to_own_streams_pulls_the_other_thread)
{
    where_a = SC_HB_OWN;
    atomic_store(&phase, 0);
    me();
    sc_hb_thread_legacy(me());   /* B: the main thread */
    pthread_t a;
    pthread_create(&a, NULL, rd_a, NULL);
    spin_until(&phase, 1);
    /* Before B synchronizes with A: nothing to wait for. */
    ck_assert_int_eq(order_b(), 0);
    ck_assert_int_eq(atomic_load(&nlog), 0);
    pthread_mutex_lock(&rm);
    pthread_mutex_unlock(&rm);
    int from = atomic_load(&nlog);
    ck_assert_int_eq(order_b(), 0);
    /* An event recorded on A's stream, waited for on B's. */
    ck_assert_int_eq(count('r', from), 1);
    ck_assert_int_eq(count('w', from), 1);
    ck_assert_ptr_eq(flog[from].s, S_A);
    ck_assert_ptr_eq(flog[from + 1].s, S_B);
    ck_assert_ptr_eq(flog[from].e, flog[from + 1].e);
    /* Once is enough. */
    from = atomic_load(&nlog);
    ck_assert_int_eq(order_b(), 0);
    ck_assert_int_eq(atomic_load(&nlog), from);
    uint64_t h, w, k;
    sc_hb_stats(&h, &w, &k);
    ck_assert_uint_eq(h, 1);
    ck_assert_uint_eq(w, 1);
    /* A's next work, finished before the next hand-off: no wait. */
    atomic_store(&phase, 2);
    spin_until(&phase, 3);
    pthread_join(a, NULL);
    from = atomic_load(&nlog);
    sc_hb_ctx_sync_begin();
    sc_hb_ctx_sync_end(CTX);
    ck_assert_int_eq(order_b(), 0);
    ck_assert_int_eq(atomic_load(&nlog), from);
}
END_TEST

START_TEST(redirect_to_per_thread_streams_uses_the_other_threads_event)
{
    where_a = SC_HB_PTDS;
    atomic_store(&phase, 0);
    sc_hb_thread_legacy(me());
    pthread_t a;
    pthread_create(&a, NULL, rd_a, NULL);
    spin_until(&phase, 1);
    /* A's mutex had not been seen passing between threads: A recorded no
       event, so B must stay on the legacy stream once. */
    ck_assert_int_eq(count('r', 0), 0);
    pthread_mutex_lock(&rm);
    pthread_mutex_unlock(&rm);
    ck_assert_int_eq(order_b(), -1);
    sc_hb_kept_legacy(me());
    ck_assert_int_eq(order_b(), 0);
    /* Second round: A records at the broadcast, on its per-thread stream. */
    int from = atomic_load(&nlog);
    atomic_store(&phase, 2);
    spin_until(&phase, 3);
    ck_assert_int_ge(count('r', from), 1);
    ck_assert_ptr_eq(flog[from].s, CU_STREAM_PER_THREAD);
    CUevent ev = flog[from].e;
    pthread_mutex_lock(&rm);
    pthread_mutex_unlock(&rm);
    from = atomic_load(&nlog);
    ck_assert_int_eq(order_b(), 0);
    ck_assert_int_eq(count('w', from), 1);
    ck_assert_int_eq(count('r', from), 0);
    ck_assert_ptr_eq(flog[from].s, S_B);
    ck_assert_ptr_eq(flog[from].e, ev);
    pthread_join(a, NULL);
    uint64_t h, w, k;
    sc_hb_stats(&h, &w, &k);
    ck_assert_uint_eq(h, 2);
    ck_assert_uint_eq(w, 1);
    ck_assert_uint_eq(k, 1);
}
END_TEST

/* A lock that one thread takes again and again records the per-thread
   stream's event only when it came from another thread (hb_clock.c,
   sc_hb_release_key): A hands over through a condition variable (an
   event), B takes the mutex (covered: a wait), A takes it back (turns: an
   event), takes it again (a run of its own: none), and B takes it: that
   work no event covers, so B's call stays on the legacy stream once, and
   from then on the mutex records at every release (cover_check). */
static pthread_mutex_t lm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lcv = PTHREAD_COND_INITIALIZER;
static _Atomic int lrec[4];
static void *run_lock_runs(void *arg)
{
    (void)arg;
    sc_thread *t = me();
    sc_hb_thread_legacy(t);
    sc_hb_submitted(t, SC_HB_PTDS, CTX);
    pthread_mutex_lock(&lm);
    pthread_cond_broadcast(&lcv);
    pthread_mutex_unlock(&lm);
    atomic_store(&phase, 1);
    spin_until(&phase, 2);
    int from = atomic_load(&nlog);
    sc_hb_submitted(t, SC_HB_PTDS, CTX);
    pthread_mutex_lock(&lm);
    pthread_mutex_unlock(&lm);             /* taken from B: an event */
    atomic_store(&lrec[0], count('r', from));
    from = atomic_load(&nlog);
    sc_hb_submitted(t, SC_HB_PTDS, CTX);
    pthread_mutex_lock(&lm);
    pthread_mutex_unlock(&lm);             /* its own run: none */
    atomic_store(&lrec[1], count('r', from));
    atomic_store(&phase, 3);
    spin_until(&phase, 4);
    from = atomic_load(&nlog);
    sc_hb_submitted(t, SC_HB_PTDS, CTX);
    pthread_mutex_lock(&lm);
    pthread_mutex_unlock(&lm);             /* the mutex now records always */
    atomic_store(&lrec[2], count('r', from));
    from = atomic_load(&nlog);
    sc_hb_submitted(t, SC_HB_PTDS, CTX);
    pthread_mutex_lock(&lm);
    pthread_mutex_unlock(&lm);
    atomic_store(&lrec[3], count('r', from));
    atomic_store(&phase, 5);
    return NULL;
}

START_TEST(a_lock_records_when_it_passes_between_threads)
{
    atomic_store(&phase, 0);
    sc_hb_thread_legacy(me());
    pthread_t a;
    pthread_create(&a, NULL, run_lock_runs, NULL);
    spin_until(&phase, 1);
    ck_assert_int_eq(count('r', 0), 1);    /* the broadcast */
    pthread_mutex_lock(&lm);
    pthread_mutex_unlock(&lm);
    int from = atomic_load(&nlog);
    ck_assert_int_eq(order_b(), 0);        /* covered by the broadcast's event */
    ck_assert_int_eq(count('w', from), 1);
    atomic_store(&phase, 2);
    spin_until(&phase, 3);
    ck_assert_int_eq(atomic_load(&lrec[0]), 1);
    ck_assert_int_eq(atomic_load(&lrec[1]), 0);
    pthread_mutex_lock(&lm);
    pthread_mutex_unlock(&lm);
    ck_assert_int_eq(order_b(), -1);       /* A's last work: no event */
    sc_hb_kept_legacy(me());
    atomic_store(&phase, 4);
    spin_until(&phase, 5);
    pthread_join(a, NULL);
    ck_assert_int_eq(atomic_load(&lrec[2]), 1);
    ck_assert_int_eq(atomic_load(&lrec[3]), 1);
    pthread_mutex_lock(&lm);
    pthread_mutex_unlock(&lm);
    from = atomic_load(&nlog);
    ck_assert_int_eq(order_b(), 0);
    ck_assert_int_eq(count('w', from), 1);
    uint64_t h, w, k;
    sc_hb_stats(&h, &w, &k);
    ck_assert_uint_eq(h, 3);
    ck_assert_uint_eq(w, 2);
    ck_assert_uint_eq(k, 1);
}
END_TEST

/* The same for an object made to hand over: a thread's first post of a
   semaphore records an event, its later posts while no other thread took
   it do not; the first other taker of that unrecorded work stays on the
   legacy stream once, and the semaphore records at every post after. */
static sem_t psem;
static _Atomic int prec[3];
static void *run_posts(void *arg)
{
    (void)arg;
    sc_thread *t = me();
    sc_hb_thread_legacy(t);
    for (int i = 0; i < 2; i++) {
        int from = atomic_load(&nlog);
        sc_hb_submitted(t, SC_HB_PTDS, CTX);
        sem_post(&psem);
        atomic_store(&prec[i], count('r', from));
    }
    atomic_store(&phase, 1);
    spin_until(&phase, 2);
    int from = atomic_load(&nlog);
    sc_hb_submitted(t, SC_HB_PTDS, CTX);
    sem_post(&psem);
    atomic_store(&prec[2], count('r', from));
    atomic_store(&phase, 3);
    return NULL;
}

START_TEST(a_semaphore_records_at_its_first_post_and_when_taken)
{
    atomic_store(&phase, 0);
    sem_init(&psem, 0, 0);
    sc_hb_thread_legacy(me());
    pthread_t a;
    pthread_create(&a, NULL, run_posts, NULL);
    spin_until(&phase, 1);
    ck_assert_int_eq(atomic_load(&prec[0]), 1);
    ck_assert_int_eq(atomic_load(&prec[1]), 0);
    sem_wait(&psem);
    ck_assert_int_eq(order_b(), -1);       /* A's second work: no event */
    sc_hb_kept_legacy(me());
    atomic_store(&phase, 2);
    spin_until(&phase, 3);
    pthread_join(a, NULL);
    ck_assert_int_eq(atomic_load(&prec[2]), 1);
    sem_wait(&psem);
    int from = atomic_load(&nlog);
    ck_assert_int_eq(order_b(), 0);
    ck_assert_int_eq(count('w', from), 1);
}
END_TEST

START_TEST(the_mutant_hook_drops_the_order)
{
    setenv("STREAMCHECK_TEST_NO_HB_ORDER", "1", 1);
    where_a = SC_HB_OWN;
    atomic_store(&phase, 0);
    sc_hb_thread_legacy(me());
    pthread_t a;
    pthread_create(&a, NULL, rd_a, NULL);
    spin_until(&phase, 1);
    pthread_mutex_lock(&rm);
    pthread_mutex_unlock(&rm);
    ck_assert_int_eq(order_b(), 0);
    ck_assert_int_eq(atomic_load(&nlog), 0);
    atomic_store(&phase, 2);
    pthread_join(a, NULL);
}
END_TEST

static Suite *hb_suite(void)
{
    Suite *s = suite_create("hb");
    TCase *tc = tcase_create("hb");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, racing_threads_are_concurrent);
    tcase_add_test(tc, mutex_orders);
    tcase_add_test(tc, repeated_release_carries_new_submissions);
    tcase_add_test(tc, repeated_acquire_sees_later_releases);
    tcase_add_test(tc, mutex_trylock_and_timedlock);
    tcase_add_test(tc, condition_variable_orders);
    tcase_add_test(tc, condition_variable_clockwait_orders);
    tcase_add_test(tc, semaphore_orders);
    tcase_add_test(tc, barrier_orders);
    tcase_add_test(tc, rwlock_orders);
    tcase_add_test(tc, create_and_join_order);
    tcase_add_test(tc, a_reused_block_races_unless_ordered);
    tcase_add_test(tc, transitive_through_a_thread_that_never_submits);
    tcase_add_test(tc, own_component_release_keeps_joined_ones);
    tcase_add_test(tc, components_are_bounded);
    tcase_add_test(tc, table_overflow_is_conservative);
    tcase_add_test(tc, off_until_legacy_work_and_after_fork);
    tcase_add_test(tc, errno_and_results_pass_through);
    tcase_add_test(tc, redirect_to_own_streams_pulls_the_other_thread);
    tcase_add_test(tc, redirect_to_per_thread_streams_uses_the_other_threads_event);
    tcase_add_test(tc, a_lock_records_when_it_passes_between_threads);
    tcase_add_test(tc, a_semaphore_records_at_its_first_post_and_when_taken);
    tcase_add_test(tc, the_mutant_hook_drops_the_order);
    tcase_add_test(tc, rests_after_enough_verdicts_and_a_new_thread_wakes_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(hb_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
