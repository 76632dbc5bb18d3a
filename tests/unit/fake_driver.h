/* fake_driver.h: the state a unit test sets for the fake driver. */
#ifndef SC_FAKE_DRIVER_H
#define SC_FAKE_DRIVER_H

#include <stddef.h>
#include <stdio.h>

#include <cuda.h>

#define FAKE_MAX_STREAMS 64

typedef struct fake_state {
    int nstreams;
    unsigned flags[FAKE_MAX_STREAMS];
    int busy[FAKE_MAX_STREAMS];   /* cuStreamQuery answers NOT_READY */
    int legacy_busy, ptds_busy;
    int event_done;
    int async_engines;
    void *registered;             /* memory pinned behind the shim's back */
    size_t registered_len;
    int fail_next;                /* the next launch fails */
    CUstream last_launch_stream, last_sync_stream;
    int launches, launches_pt, sync_pt, queries;
} fake_state;

extern fake_state fake;

void fake_install(void);          /* call before the first wrapper */
CUstream fake_stream(int i);      /* the handle of the i-th created stream */

#endif
