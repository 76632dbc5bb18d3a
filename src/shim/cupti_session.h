/* cupti_session.h: measured mode's CUPTI session (cupti_session.c).
 *
 * Loads libcupti at run time, subscribes, puts CUPTI's timestamps on the
 * shim's clock, enables the activity kinds measured mode reads and parses
 * the buffers CUPTI completes into plain records (timeline.h's types).
 * Hands CUPTI over when the program's own profiler asks for it
 * (hooks_cupti.c), flushes at exit, and lets the child of a fork report
 * in detect mode.  What the records mean is measure.c's and timeline.c's.
 */
#ifndef SC_CUPTI_SESSION_H
#define SC_CUPTI_SESSION_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The records' types (timeline.h): included by measure.h, which the slow
   path includes, this header names them only. */
struct sc_tl_op;
struct sc_tl_api;
struct sc_tl_ext;

/* CUPTI records for us now: set when recording starts (at start, or when
   a window opens), cleared when it stops or we let go.  The slow path
   reads it (dispatch.c, through measure.h); a window's thread writes it. */
extern _Atomic int sc_measure_active;

/* Loads CUPTI and subscribes, or says in one line why not; records from
   now on when record is set, else from sc_cupti_record(1) on (a window).
   Once started, registers at_exit with atexit: it runs before CUPTI's own
   exit handler, which would tear CUPTI down before the last flush.
   Returns 0 once started, -1 when measured mode is off. */
int sc_cupti_start(void (*at_exit)(void), int record);
/* A window opens (on) or closes: CUPTI records for us, or stops (what it
   recorded stays for the last flush).  0, or -1 when the session is not
   ours to record (not started, stopped, handed over, or CUPTI refused). */
int sc_cupti_record(int on);
/* Around a finding event's real call: its external id, if CUPTI records
   external correlations. */
void sc_cupti_push(uint64_t ext);
void sc_cupti_pop(void);
/* The program's own profiler asks for CUPTI (hooks_cupti.c): if we hold
   it, flush, let go (the timeline ends here) and say so once. */
void sc_cupti_handover(const char *api);
/* The host time one API record costs the calling thread, in ns, timed when
   recording started (the same cheap driver call with records and without);
   0 when not timed. */
double sc_cupti_record_ns(void);
/* Measured mode, at each call the pricing model records (runlog.c): one
   more record timed amid the program's work (each call's, once recording
   was timed at start); sc_cupti_cold_ns, their mean cost (and how many),
   0 when none. */
void sc_cupti_sample_record(void);
double sc_cupti_cold_ns(uint64_t *samples);
/* A symbol of the libcupti we loaded; NULL when we loaded none. */
void *sc_cupti_sym(const char *name);
/* The last flush, once: 1 when this process recorded a timeline, which
   sc_cupti_take then gives; 0 when it did not or was stopped before. */
int sc_cupti_stop(void);

/* What the session recorded, after the last flush. */
typedef struct sc_cupti_records {
    struct sc_tl_op *ops; size_t nops;      /* the first operations recorded, in arrival order */
    struct sc_tl_api *apis; size_t napis;   /* the first API calls recorded */
    struct sc_tl_ext *exts; size_t nexts;
    char **names; size_t nnames;      /* kernel names (sc_tl_op.name); names[0] is "" */
    uint64_t ops_seen;                /* GPU operations recorded, nops of them kept */
    uint64_t dropped;                 /* records CUPTI dropped */
    int handed;                       /* the program's own profiler took CUPTI ... */
    int64_t handed_ns;                /* ... this long after the shim started */
    int windowed;                     /* recorded in a window (sc_cupti_record) ... */
    int64_t window_a, window_b;       /* ... from, to (ns after the shim started) */
} sc_cupti_records;

/* Moves the records into r; the session keeps none. */
void sc_cupti_take(sc_cupti_records *r);
/* The name of an API record's call ("cuLaunchKernel", "cudaMemcpy"); NULL
   when CUPTI's headers did not name it. */
const char *sc_cupti_api_name(int runtime, uint32_t cbid);

#endif /* SC_CUPTI_SESSION_H */
