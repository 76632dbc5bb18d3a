/* hooks_runtime.c: the runtime attribution layer.
 *
 * Programs that use the shared libcudart (PyTorch does) call these exported
 * cuda* wrappers first.  They only note which runtime call is in progress,
 * so a finding says cudaMemcpyAsync and not cuMemcpyDtoHAsync_v2; counting,
 * judging and redirecting happen once, in the driver layer (docs/ARCHITECTURE.md,
 * "Layers of interception").  They are exported unversioned: an unversioned interposer
 * binds to references against libcudart.so.13 (seen on H100).
 *
 * Each wrapper is declared from the runtime header's prototype first, so a
 * parameter list that drifts from cuda_runtime_api.h does not compile.
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core.h"
#include "hooks_runtime.h"
#include "real.h"



const char *const sc_rt_names[SC_NRT] = {
#define SC_RT(name, P, A) [SC_RT_##name] = #name,
#define SC_RTP(name, pt, P, A) [SC_RT_##name] = #name, [SC_RT_##name##_##pt] = #name "_" #pt,
#include "hooks/runtime.def"
#undef SC_RT
#undef SC_RTP
};

static _Atomic(void *) rt_real[SC_NRT];

/* The real runtime function: next in the global scope, or, when the
   runtime was loaded RTLD_LOCAL (Python extension modules are), in the
   loaded libcudart.so.13 itself. */
static void *rt_resolve(unsigned id)
{
    void *p = atomic_load_explicit(&rt_real[id], memory_order_acquire);
    if (p)
        return p;
    const char *name = sc_rt_names[id];
    p = dlvsym(RTLD_NEXT, name, "libcudart.so.13");
    if (!p || sc_is_ours(p))
        p = sc_dlsym_real(RTLD_NEXT, name);
    if (!p || sc_is_ours(p)) {
        void *h = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
        p = h ? sc_dlsym_real(h, name) : NULL;
    }
    if (!p || sc_is_ours(p))
        return NULL;
    atomic_store_explicit(&rt_real[id], p, memory_order_release);
    return p;
}

static cudaError_t rt_unresolved(unsigned id)
{
    static int warned[SC_NRT];
    sc_warn_once(&warned[id], "cannot find the real %s (is libcudart.so.13 loaded?); returning "
                 "cudaErrorInitializationError", sc_rt_names[id]);
    return cudaErrorInitializationError;
}

#define SC_RT_WRAP(name, ID, P, A)                                     \
    SC_EXPORT cudaError_t name P                                       \
    {                                                                  \
        typedef cudaError_t (*fn_t) P;                                 \
        fn_t real_ = (fn_t)rt_resolve(ID);                             \
        if (SC_UNLIKELY(!real_))                                       \
            return rt_unresolved(ID);                                  \
        uint16_t prev_ = sc_tls_rt;                                    \
        sc_tls_rt = ID;                                                \
        cudaError_t r_ = real_ A;                                      \
        sc_tls_rt = prev_;                                             \
        return r_;                                                     \
    }

#define SC_RT(name, P, A)                        \
    extern __typeof__(name) name;                \
    SC_RT_WRAP(name, SC_RT_##name, P, A)
#define SC_RTP(name, pt, P, A)                   \
    SC_RT(name, P, A)                            \
    extern __typeof__(name) name##_##pt;         \
    SC_RT_WRAP(name##_##pt, SC_RT_##name##_##pt, P, A)
#include "hooks/runtime.def"
#undef SC_RT
#undef SC_RTP

static int rt_lookup(const char *name)
{
    for (unsigned i = 1; i < SC_NRT; i++)
        if (!strcmp(sc_rt_names[i], name))
            return (int)i;
    return -1;
}

/* dlsym(RTLD_DEFAULT, "cudaMalloc") finds our export first; a program
   probing for the runtime must still get NULL when none is loaded. */
void *sc_runtime_dlsym_filter(void *handle, const char *name, void *p)
{
    (void)handle;
    if (!p || !sc_is_ours(p))
        return p;
    int id = rt_lookup(name);
    return id > 0 && !rt_resolve((unsigned)id) ? NULL : p;
}
