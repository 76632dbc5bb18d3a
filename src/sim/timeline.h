/* src/sim/timeline.h: the simulator's GPU timeline, as the simulated
 * libcuda.so.1 hands it to the simulated libcupti.so.13 (and to the
 * simulated runtime, for its API records).
 *
 * Like NVIDIA's CUPTI, which reaches the driver through cuGetExportTable,
 * libcupti.so.13 and libcudart.so.13 get this table from the simulated
 * driver with cuGetExportTable(&table, &SCSIM_TL_UUID); the driver answers
 * any other id as before (a stub).  Nothing here needs CUPTI's headers:
 * libcupti.so.13 turns these records into CUPTI's record structs.
 *
 * Zero cost unless a client enabled a kind: the driver tests one atomic
 * mask at each traced entry point and each executed stream operation. */
#ifndef SC_SIM_TIMELINE_H
#define SC_SIM_TIMELINE_H

#include <stdatomic.h>
#include <stdint.h>

/* "streamcheck-tl-01": the export table id (a CUuuid's 16 bytes). */
#define SCSIM_TL_UUID_BYTES                                                   \
    {'s', 'c', 's', 'i', 'm', '-', 't', 'i', 'm', 'e', 'l', 'i', 'n', 'e',    \
     '0', '1'}

/* Record kinds; the enable mask has bit (1u << kind). */
enum scsim_tl_kind {
    SCSIM_TL_DRIVER = 1,  /* a driver API call */
    SCSIM_TL_RUNTIME = 2, /* a runtime API call */
    SCSIM_TL_KERNEL = 3,  /* a kernel ran on a stream */
    SCSIM_TL_MEMCPY = 4,  /* a copy ran on a stream */
    SCSIM_TL_MEMSET = 5,  /* a memset ran on a stream */
    SCSIM_TL_SYNC = 6,    /* the host waited: stream/event/context sync */
    SCSIM_TL_EXTCORR = 7, /* (no driver record: libcupti's own kind) */
};
#define SCSIM_TL_BIT(k) (1u << (k))

/* Directions and memory kinds (libcupti maps them onto CUPTI's). */
enum { SCSIM_TL_HTOD = 1, SCSIM_TL_DTOH, SCSIM_TL_DTOD, SCSIM_TL_HTOH, SCSIM_TL_PTOP };
enum { SCSIM_TL_MEM_PAGEABLE = 1, SCSIM_TL_MEM_PINNED, SCSIM_TL_MEM_DEVICE };
enum {
    SCSIM_TL_SYNC_EVENT = 1,  /* cuEventSynchronize */
    SCSIM_TL_SYNC_STREAM,     /* cuStreamSynchronize */
    SCSIM_TL_SYNC_CONTEXT,    /* cuCtxSynchronize */
};

typedef struct scsim_tl_rec {
    int kind;
    uint64_t start, end; /* ns on the timeline clock */
    uint32_t correlation;
    /* device ordinal, context id (ordinal + 1) and stream of the work;
     * 0, 0 (API records) or 0, 1 when there is no context */
    uint32_t device_id, context_id, stream_id;
    /* API records */
    uint32_t cbid;
    uint32_t thread_id;
    int32_t result;
    /* copies */
    uint64_t bytes;
    int copy_kind, src_kind, dst_kind;
    /* memsets */
    uint32_t value;
    int mem_kind;
    /* kernels */
    const char *name; /* lives as long as the process */
    unsigned grid[3], block[3], shmem;
    /* synchronization */
    int sync_type;
    uint32_t event_id;
} scsim_tl_rec;

/* What a client (libcupti.so.13) gives the driver. */
typedef struct scsim_tl_sink {
    /* Takes one finished record; called from any thread (stream workers
     * and application threads), never with a simulator lock held. */
    void (*emit)(const scsim_tl_rec *r);
    /* Called on the application's thread when an API call gets its
     * correlation id, before the call does anything (external
     * correlation). */
    void (*api_enter)(uint32_t correlation);
} scsim_tl_sink;

/* An API call in progress (one per traced entry point, on the stack). */
typedef struct scsim_tl_api {
    uint64_t start;
    uint32_t correlation;
    uint32_t cbid;
    int kind;   /* SCSIM_TL_DRIVER or SCSIM_TL_RUNTIME */
    int active; /* 0: nothing traced, or nested in a traced call */
} scsim_tl_api;

/* The driver's export table. */
typedef struct scsim_tl_table {
    unsigned long size; /* sizeof(scsim_tl_table) */
    /* Installs the sink (NULL removes it). */
    void (*set_sink)(const scsim_tl_sink *sink);
    /* Which kinds are recorded (SCSIM_TL_BIT mask); 0 records nothing. */
    void (*set_kinds)(unsigned mask);
    unsigned (*kinds)(void);
    /* The mask itself, for a cheap test in another layer's entry points. */
    const atomic_uint *mask;
    /* The timeline clock: CLOCK_REALTIME in ns, or fn when set. */
    void (*set_clock)(uint64_t (*fn)(void));
    uint64_t (*now)(void);
    /* API calls of another layer (the runtime): begin assigns the
     * correlation id, unless the thread is inside a traced call already;
     * end emits the API record. */
    void (*api_begin)(scsim_tl_api *a, int kind, uint32_t cbid);
    void (*api_end)(scsim_tl_api *a, int result);
    /* Stream and context ids as the timeline names them. */
    int (*stream_id)(void *hstream, int per_thread, uint32_t *id);
    uint32_t (*context_id)(void);
    /* A context's id and device ordinal (NULL: the current context);
     * -1 when it is not a context of the driver. */
    int (*context_info)(void *ctx, uint32_t *id, uint32_t *device);
} scsim_tl_table;

#endif /* SC_SIM_TIMELINE_H */
