/* tests/sim/simtest.c: helpers for the simulator's Check tests. */
#include "config.h"

#include "simtest.h"

#include <cudaTypedefs.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static CUcontext primary;

CUcontext st_init(void)
{
    ST_OK(cuInit(0));
    CUdevice d;
    ST_OK(cuDeviceGet(&d, 0));
    ST_OK(cuDevicePrimaryCtxRetain(&primary, d));
    ST_OK(cuCtxSetCurrent(primary));
    return primary;
}

void st_thread_ctx(void)
{
    ST_OK(cuCtxSetCurrent(primary));
}

CUfunction st_func(const char *mangled)
{
    static CUmodule m;
    if (!m)
        ST_OK(cuModuleLoadData(&m, "// streamcheck simulator test module\n"));
    CUfunction f;
    ST_OK(cuModuleGetFunction(&f, m, mangled));
    return f;
}

void st_spin(CUstream s, unsigned long long ns)
{
    void *args[] = {&ns};
    ST_OK(cuLaunchKernel(st_func(ST_SPIN), 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

void *st_proc(const char *name, int version, int flags)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult st;
    ST_OK(cuGetProcAddress(name, &p, version, (cuuint64_t)flags, &st));
    ck_assert_ptr_nonnull(p);
    return p;
}

double st_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void st_sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

/* ---------------------------------------------------------------- gates --- */

void st_gate_init(st_gate *g)
{
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->open = false;
    g->entered = false;
}

static void CUDA_CB gate_fn(void *p)
{
    st_gate *g = p;
    pthread_mutex_lock(&g->mu);
    g->entered = true;
    pthread_cond_broadcast(&g->cv);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

void st_gate_on(st_gate *g, CUstream s)
{
    ST_OK(cuLaunchHostFunc(s, gate_fn, g));
}

void st_gate_on_pt(st_gate *g, CUstream s)
{
    PFN_cuLaunchHostFunc_v10000_ptsz f =
        (PFN_cuLaunchHostFunc_v10000_ptsz)st_proc("cuLaunchHostFunc", 10000, 2);
    ST_OK(f(s, gate_fn, g));
}

void st_gate_open(st_gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

bool st_gate_reached(st_gate *g, int ms)
{
    double end = st_now_ms() + ms;
    pthread_mutex_lock(&g->mu);
    while (!g->entered && st_now_ms() < end) {
        pthread_mutex_unlock(&g->mu);
        st_sleep_ms(1);
        pthread_mutex_lock(&g->mu);
    }
    bool r = g->entered;
    pthread_mutex_unlock(&g->mu);
    return r;
}

void CUDA_CB st_flag_fn(void *flag)
{
    atomic_store((atomic_int *)flag, 1);
}

void st_flag_on(atomic_int *flag, CUstream s)
{
    ST_OK(cuLaunchHostFunc(s, st_flag_fn, flag));
}

/* ---------------------------------------------------------------- calls --- */

static void *call_main(void *p)
{
    st_call *c = p;
    if (c->ctx)
        cuCtxSetCurrent(primary);
    c->fn(c->arg);
    atomic_store(&c->done, 1);
    return NULL;
}

void st_call_start(st_call *c, void (*fn)(void *), void *arg)
{
    c->fn = fn;
    c->arg = arg;
    c->ctx = primary != NULL;
    atomic_init(&c->done, 0);
    ck_assert_int_eq(pthread_create(&c->th, NULL, call_main, c), 0);
}

bool st_call_done_within(st_call *c, int ms)
{
    double end = st_now_ms() + ms;
    while (!atomic_load(&c->done) && st_now_ms() < end)
        st_sleep_ms(1);
    return atomic_load(&c->done);
}

void st_call_join(st_call *c)
{
    pthread_join(c->th, NULL);
}

/* --------------------------------------------------------------- stderr --- */

static FILE *capture_file;

int st_stderr_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    ck_assert_ptr_nonnull(capture_file);
    int saved = dup(STDERR_FILENO);
    ck_assert_int_ge(saved, 0);
    dup2(fileno(capture_file), STDERR_FILENO);
    return saved;
}

char *st_stderr_end(int saved)
{
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    fseek(capture_file, 0, SEEK_END);
    long n = ftell(capture_file);
    if (n < 0)
        n = 0;
    char *buf = calloc(1, (size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    rewind(capture_file);
    size_t got = fread(buf, 1, (size_t)n, capture_file);
    buf[got] = 0;
    fclose(capture_file);
    capture_file = NULL;
    return buf;
}

int st_count(const char *haystack, const char *needle)
{
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = strstr(haystack, needle); p; p = strstr(p + len, needle))
        n++;
    return n;
}

int st_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
