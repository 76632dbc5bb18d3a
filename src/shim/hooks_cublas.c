/* hooks_cublas.c: the cuBLAS layer.
 *
 * cuBLAS launches are already seen by the driver layer (cuBLASLt's static
 * runtime calls cuLaunchKernel through pointers it got from
 * cuGetProcAddress).  What only this layer knows is which stream each handle
 * is bound to, and where the handle was created: SC601 names handles left
 * on the legacy stream (cuBLAS Library, cublasSetStream).
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include <cublas_api.h>

#include "callsites.h"
#include "core.h"
#include "hooks_cublas.h"
#include "real.h"
#include "thread.h"


/* --------------------------------------------------- handle -> stream --- */
#define MAX_HANDLES 4096
typedef struct blas_handle {
    cublasHandle_t h;
    cudaStream_t stream;
    uint64_t site;        /* where cublasCreate was called */
    int alive;
} blas_handle;

static blas_handle handles[MAX_HANDLES];
static size_t nhandles;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static blas_handle *find(cublasHandle_t h)
{
    for (size_t i = 0; i < nhandles; i++)
        if (handles[i].h == h && handles[i].alive)
            return &handles[i];
    return NULL;
}

static void bind(cublasHandle_t h, cudaStream_t s, int create, uint64_t site)
{
    pthread_mutex_lock(&lock);
    blas_handle *b = find(h);
    if (!b && create) {
        for (size_t i = 0; i < nhandles && !b; i++)
            if (!handles[i].alive)
                b = &handles[i];
        if (!b && nhandles < MAX_HANDLES)
            b = &handles[nhandles++];
        if (b)
            *b = (blas_handle){h, NULL, site, 1};
    }
    if (b)
        b->stream = s;
    pthread_mutex_unlock(&lock);
}

static void unbind(cublasHandle_t h)
{
    pthread_mutex_lock(&lock);
    blas_handle *b = find(h);
    if (b)
        b->alive = 0;
    pthread_mutex_unlock(&lock);
}

/* Handles created so far and how many of them are bound to the legacy
   stream (for the report). */
void sc_cublas_summary(unsigned *all, unsigned *legacy)
{
    pthread_mutex_lock(&lock);
    *all = *legacy = 0;
    for (size_t i = 0; i < nhandles; i++) {
        (*all)++;
        if (handles[i].stream == NULL || handles[i].stream == cudaStreamLegacy)
            (*legacy)++;
    }
    pthread_mutex_unlock(&lock);
}

/* --------------------------------------------------------- wrappers --- */
enum { B_CREATE, B_DESTROY, B_SET, B_GET, B_N };
static const char *const bnames[B_N] = {"cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2",
                                        "cublasGetStream_v2"};
static _Atomic(void *) breal[B_N];

static void *b_resolve(unsigned id)
{
    void *p = atomic_load_explicit(&breal[id], memory_order_acquire);
    if (p)
        return p;
    p = dlvsym(RTLD_NEXT, bnames[id], "libcublas.so.13");
    if (!p || sc_is_ours(p))
        p = sc_dlsym_real(RTLD_NEXT, bnames[id]);
    if (!p || sc_is_ours(p)) {
        void *h = dlopen("libcublas.so.13", RTLD_LAZY | RTLD_NOLOAD);
        p = h ? sc_dlsym_real(h, bnames[id]) : NULL;
    }
    if (!p || sc_is_ours(p))
        return NULL;
    atomic_store_explicit(&breal[id], p, memory_order_release);
    return p;
}

static cublasStatus_t b_unresolved(unsigned id)
{
    static int warned[B_N];
    sc_warn_once(&warned[id], "cannot find the real %s (is libcublas.so.13 loaded?)", bnames[id]);
    return CUBLAS_STATUS_NOT_INITIALIZED;
}

/* Our own bookkeeping runs with the thread marked busy, like the slow path. */
static sc_thread *begin(void)
{
    sc_thread *t = sc_enter();
    if (!t)
        return NULL;
    sc_busy_enter(t);              /* the same handshake as sc_pre */
    if (atomic_load(&sc_g.mode) != SC_MODE_ACTIVE && !sc_busy_begin(t))
        return NULL;
    return t;
}
static void end(sc_thread *t)
{
    if (t)
        sc_busy_done(t);
}

SC_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    cublasStatus_t (*real)(cublasHandle_t *) = b_resolve(B_CREATE);
    if (!real)
        return b_unresolved(B_CREATE);
    cublasStatus_t r = real(handle);
    int saved = errno;
    sc_thread *t = begin();
    if (t && r == CUBLAS_STATUS_SUCCESS && handle) {
        uint64_t k0 = sc_tsc();
        bind(*handle, NULL, 1, sc_callsite_capture(t));   /* a new handle uses stream 0 */
        atomic_fetch_add_explicit(&t->own_ticks, sc_tsc() - k0, memory_order_relaxed);
    }
    end(t);
    errno = saved;
    return r;
}

SC_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    cublasStatus_t (*real)(cublasHandle_t) = b_resolve(B_DESTROY);
    if (!real)
        return b_unresolved(B_DESTROY);
    cublasStatus_t r = real(handle);
    int saved = errno;
    if (r == CUBLAS_STATUS_SUCCESS && sc_judging())
        unbind(handle);
    errno = saved;
    return r;
}

SC_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t s)
{
    cublasStatus_t (*real)(cublasHandle_t, cudaStream_t) = b_resolve(B_SET);
    if (!real)
        return b_unresolved(B_SET);
    cublasStatus_t r = real(handle, s);
    int saved = errno;
    sc_thread *t = begin();
    if (t && r == CUBLAS_STATUS_SUCCESS)
        bind(handle, s, 1, 0);
    end(t);
    errno = saved;
    return r;
}

SC_EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *s)
{
    cublasStatus_t (*real)(cublasHandle_t, cudaStream_t *) = b_resolve(B_GET);
    if (!real)
        return b_unresolved(B_GET);
    cublasStatus_t r = real(handle, s);
    int saved = errno;
    if (r == CUBLAS_STATUS_SUCCESS && s && sc_judging())
        bind(handle, *s, 0, 0);   /* trust the library over our record */
    errno = saved;
    return r;
}

void *sc_cublas_dlsym_filter(void *handle, const char *name, void *p)
{
    (void)handle;
    if (!p || !sc_is_ours(p))
        return p;
    for (unsigned i = 0; i < B_N; i++)
        if (!strcmp(name, bnames[i]))
            return b_resolve(i) ? p : NULL;
    return p;
}

/* --------------------------------------------------------- fork --- */
static void cublas_lock(void) { pthread_mutex_lock(&lock); }
static void cublas_unlock(void) { pthread_mutex_unlock(&lock); }
/* In a forked child: the lock fresh, and the parent's handles dropped (the
   child cannot use them: cuBLAS needs a CUDA context, which fork does not
   carry over). */
static void cublas_child(void)
{
    pthread_mutex_init(&lock, NULL);
    nhandles = 0;
}

static const sc_part part = {"cublas", 70, cublas_lock, cublas_unlock, cublas_child, NULL, NULL};
SC_PART_REGISTER(part)
