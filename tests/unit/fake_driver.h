/* fake_driver.h: the state a unit test sets for the fake driver. */
#ifndef SC_FAKE_DRIVER_H
#define SC_FAKE_DRIVER_H

#include <stddef.h>
#include <stdio.h>

#include <cuda.h>

#define FAKE_MAX_STREAMS 160   /* PyTorch makes 128 pool streams */

typedef struct fake_state {
    int nstreams;
    unsigned flags[FAKE_MAX_STREAMS];
    int busy[FAKE_MAX_STREAMS];   /* cuStreamQuery answers NOT_READY */
    int legacy_busy, ptds_busy;
    int event_done;
    int async_engines;
    void *registered;             /* memory pinned behind the shim's back */
    size_t registered_len;
    int fail_next;                /* the next launch or capture begin fails */
    CUstream last_launch_stream, last_sync_stream;
    int launches, launches_pt, sync_pt, queries;
    int ctx_queries, ptr_queries;  /* the shim's cuCtxGetCurrent, cuPointerGetAttributes */
    int own_streams;              /* streams the shim made for itself */
    int primary_active;           /* cuDevicePrimaryCtxGetState: still retained */
    int device;                   /* the current context's device (one context each) */
    int stream_device[FAKE_MAX_STREAMS]; /* the device a stream was created on */
    /* The ordering calls the shim makes itself, in order:
       'r' cuEventRecord(event, stream), 'w' cuStreamWaitEvent(stream, event),
       and 'c' for a synchronous copy through a per-thread entry point. */
    struct { char op; CUstream stream; CUevent event; } log[32];
    int nlog;
} fake_state;

extern fake_state fake;

void fake_install(void);          /* call before the first wrapper */
CUstream fake_stream(int i);      /* the handle of the i-th created stream */

#endif
