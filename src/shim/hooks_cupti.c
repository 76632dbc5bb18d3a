/* hooks_cupti.c: handing CUPTI over to the program's own profiler.
 *
 * CUDA 13 lets one CUPTI client work at a time (CUPTI API reference,
 * cuptiSubscribe: "Only a single subscriber can be registered at a time").
 * Measured mode takes it at the first CUDA call.  A program that starts its
 * own profiler later (torch.profiler's Kineto, jax.profiler, a CUPTI sample
 * of the user's) would then get CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
 * and lose its GPU records: a tool must not take away what the program asked
 * for.  So the calls a CUPTI client starts with -- cuptiSubscribe,
 * cuptiSubscribe_v2 and cuptiActivityRegisterCallbacks -- are interposed:
 * when measured mode holds CUPTI, it lets go first (cupti_session.c,
 * sc_cupti_handover: the records so far are kept, the timeline ends
 * there, one line on stderr), then the real call runs as it would have.
 *
 * Outside measured mode these are plain call-throughs.  The shim's own
 * CUPTI calls go through pointers from its own dlopen handle, never here.
 */
#include "config.h"

#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "core.h"
#include "cupti_session.h"
#include "hooks_cupti.h"
#include "real.h"
#include "shim.h"

enum { C_SUB, C_SUB2, C_REG, C_N };
static const char *const cnames[C_N] = {"cuptiSubscribe", "cuptiSubscribe_v2", "cuptiActivityRegisterCallbacks"};
static _Atomic(void *) c_real[C_N];

/* A libcupti already loaded anywhere in the process, by its path. */
static int find_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    if (!base || strncmp(base + 1, "libcupti.so", 11))
        return 0;
    *(void **)arg = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
    return *(void **)arg != NULL;
}

/* The program's libcupti.  After us in the global lookup order; else the
   one measured mode loaded; else one loaded into a local scope: PyTorch's
   libtorch links CUPTI, and Python loads extension modules with
   RTLD_LOCAL, so Kineto's calls bind to us (the global scope comes first)
   while the real functions are out of RTLD_NEXT's reach. */
static void *c_resolve(unsigned id)
{
    void *p = atomic_load_explicit(&c_real[id], memory_order_acquire);
    if (p)
        return p;
    p = sc_dlsym_real(RTLD_NEXT, cnames[id]);
    if (!p || sc_is_ours(p))
        p = sc_cupti_sym(cnames[id]);
    if (!p || sc_is_ours(p)) {
        void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
        if (!h)
            dl_iterate_phdr(find_loaded, &h);
        p = h ? sc_dlsym_real(h, cnames[id]) : NULL;
    }
    if (!p || sc_is_ours(p))
        return NULL;
    void *expected = NULL;
    if (!atomic_compare_exchange_strong(&c_real[id], &expected, p))
        return expected;
    return p;
}

static CUptiResult c_unresolved(unsigned id)
{
    static int warned[C_N];
    sc_warn_once(&warned[id], "cannot find the real %s (is libcupti.so.13 loaded?)", cnames[id]);
    return CUPTI_ERROR_NOT_INITIALIZED;
}

SC_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                     void *userdata)
{
    CUptiResult (*real)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) = c_resolve(C_SUB);
    if (!real)
        return c_unresolved(C_SUB);
    int saved = errno;
    sc_cupti_handover(cnames[C_SUB]);
    errno = saved;
    return real(subscriber, callback, userdata);
}

SC_EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                        void *userdata, CUpti_SubscriberParams *params)
{
    CUptiResult (*real)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *, CUpti_SubscriberParams *) =
        c_resolve(C_SUB2);
    if (!real)
        return c_unresolved(C_SUB2);
    int saved = errno;
    sc_cupti_handover(cnames[C_SUB2]);
    errno = saved;
    return real(subscriber, callback, userdata, params);
}

SC_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                     CUpti_BuffersCallbackCompleteFunc completed)
{
    CUptiResult (*real)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = c_resolve(C_REG);
    if (!real)
        return c_unresolved(C_REG);
    int saved = errno;
    sc_cupti_handover(cnames[C_REG]);
    errno = saved;
    return real(requested, completed);
}

/* dlsym of these names: our function when the real one exists (a program
   that looks CUPTI up by name, as XLA's CUPTI wrapper does, still hands
   over), else NULL, as without us. */
void *sc_cupti_dlsym_filter(void *handle, const char *name, void *p)
{
    (void)handle;
    static void *const ours[C_N] = {(void *)cuptiSubscribe, (void *)cuptiSubscribe_v2,
                                    (void *)cuptiActivityRegisterCallbacks};
    for (unsigned i = 0; i < C_N; i++) {
        if (strcmp(name, cnames[i]))
            continue;
        if (!p)
            return NULL;
        if (sc_is_ours(p))
            return c_resolve(i) ? p : NULL;
        void *expected = NULL;
        atomic_compare_exchange_strong(&c_real[i], &expected, p);
        return ours[i];
    }
    return p;
}
