/* measure.h: measured mode (--measure, STREAMCHECK_MEASURE=1).
 *
 * CUPTI's activity API, loaded at run time, records what the GPU did
 * (cupti_session.h); the slow path ties each finding event to it with an
 * external correlation id pushed around the real driver call; at exit the
 * timeline is analysed (timeline.h; libstreamcheck(7), Measured mode) and
 * put into the report model (measure.c).
 *
 * Nothing here runs in detect mode except one load of sc_measure_active
 * on the slow path of calls that carry a finding.
 */
#ifndef SC_MEASURE_H
#define SC_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_session.h"   /* sc_measure_active */
#include "sc.h"

struct sc_agg_key;
struct sc_op;
struct sc_report;
struct sc_finding;

extern SC_TLS uint32_t sc_measure_tls_mid;  /* the current call's event, 0: none */

/* After cuInit succeeded (track.c): load CUPTI and start recording, or
   say in one line why not. */
void sc_measure_start(void);
/* Before the real call of a slow-path call with findings (dispatch.c):
   records an event, sets sc_measure_tls_mid (cleared by sc_measure_done
   at the end of sc_post) and pushes its external correlation id.
   unordered: legacy-stream work that no other stream waits for (no
   blocking stream, no per-thread stream: classify.h), not a barrier
   whatever its rules. */
void sc_measure_pre(const struct sc_op *op, int unordered);
/* Right after the real call: pops the id, records the call's end. */
void sc_measure_post(void);
static inline void sc_measure_done(void) { sc_measure_tls_mid = 0; }
/* An aggregate the event `mid` was counted in (findings.c). */
void sc_measure_commit(uint32_t mid, const struct sc_agg_key *k, uint32_t also, unsigned weight);
/* At exit, before the report is built: flushes CUPTI and analyses. */
void sc_measure_stop(void);
/* When the device (ordinal) had work, on sc_now_ns's clock, for the
   pricing model: 1 and the spans (a malloc'd array for the caller, NULL
   when the device had none), or 0 when not measured. */
struct sc_pr_span;
int sc_measure_busy(unsigned device, struct sc_pr_span **v, size_t *n);
/* Measured mode's GPU time per recorded call of the pricing model's
   threads (sc_pr_call.gpu_ns, fast_gpu_ns, gpu_known), from the operations
   each API call of the thread queued (CUPTI's threads and correlation
   ids): what the call queued, and what the calls before it since the
   previous one queued; and CUPTI's own host time in the gap before it
   (tool_ns: the thread's API records there, each at sc_cupti_cold_ns, or
   sc_cupti_record_ns where no record was timed amid the program's work).
   Nothing when not measured from start to end. */
struct sc_pr_model;
void sc_measure_queued(struct sc_pr_model *m);
/* The device's (ordinal) idle gaps between two operations of one stream
   (timeline.h, sc_tl_gaps), by replay.h's SC_RP_GAP(prev_copy, next_copy), for
   sc_pr_device.gap_ns; 0 where none was seen or nothing was measured from
   start to end. */
void sc_measure_gaps(unsigned device, uint32_t gap_ns[4]);
/* What the aggregate's events cost on the GPU; 0 when not measured.  In a
   window (--measure-window), scaled from its events there to its count of
   calls over the run. */
int sc_measure_price(const struct sc_agg_key *k, uint64_t count, uint64_t *lost_ns);
/* Fills process 0's gpu block and the report's timeline. */
void sc_measure_fill(struct sc_report *r);

#endif
