// cupti_session.h: the CUPTI profiler of testapps/measure_handover, the way
// a program's own profiler does it: subscribe, register buffers, enable
// concurrent kernel records; at the end flush, count, unsubscribe.  Linked
// into measure_handover, and built into libcupti-plugin.so, which
// measure_handover_plugin loads with RTLD_LOCAL as Python loads PyTorch
// (whose libtorch links CUPTI).  What it could not do is in its output.
#ifndef SC_CUPTI_SESSION_H
#define SC_CUPTI_SESSION_H

#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef SC_CUPTI_PLUGIN_BUILD
#define SESSION_API extern "C" __attribute__((visibility("default")))
#else
#define SESSION_API static
#endif

static size_t session_kernels;
static CUpti_SubscriberHandle session_sub;

static void CUPTIAPI session_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
    *size = 1 << 16;
    *buf = (uint8_t *)aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI session_completed(CUcontext, uint32_t, uint8_t *buf, size_t, size_t valid)
{
    CUpti_Activity *rec = NULL;
    while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            session_kernels++;
    free(buf);
}

static void CUPTIAPI session_callback(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

// by_name: cuptiSubscribe looked up in libcupti's handle, as XLA's CUPTI
// wrapper does, instead of the function the code was linked with.
SESSION_API int session_start(int by_name)
{
    const char *why = "";
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) = cuptiSubscribe;
    if (by_name) {
        void *lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
        subscribe = lib ? (decltype(subscribe))dlsym(lib, "cuptiSubscribe") : NULL;
        if (!subscribe) {
            printf("measure_handover: cuptiSubscribe not found by name\n");
            return 0;
        }
    }
    CUptiResult r = subscribe(&session_sub, session_callback, NULL);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityRegisterCallbacks(session_requested, session_completed);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r == CUPTI_SUCCESS)
        return 1;
    cuptiGetResultString(r, &why);
    printf("measure_handover: the profiler could not start: %s\n", why);
    return 0;
}

// The kernels it saw.
SESSION_API size_t session_stop(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiUnsubscribe(session_sub);
    return session_kernels;
}

#endif
