/* detect.h: what the rule detectors share.
 *
 * The slow path is split by rule family, so that each rule's decision is
 * found from a file name:
 *   dispatch.c       sc_pre/sc_post: a handler per kind of call (kinds.def)
 *                    calls the detectors below, then commits their findings
 *   detect_legacy.c  SC101, SC102, SC103 (counting), SC601: work on the
 *                    legacy stream, blocking streams, cuBLAS on the legacy stream
 *   detect_copy.c    SC201, SC202, SC203, SC204, SC702: copies and memsets
 *   detect_alloc.c   SC301, SC302, SC303 (counting): allocation and freeing
 *   detect_sync.c    SC401, SC402: synchronization calls
 *   detect_queue.c   SC701 (hardware queues), SC501 (cache configuration)
 * They ask lanes.h (contexts, lanes, busy marks, which other streams have
 * unfinished work) and memclass.h (device, pinned or pageable memory).
 * Beside them: redirect.c (--redirect: moving legacy-stream work to
 * per-thread streams) and track.c (the state kept after each call).
 * The rules themselves (ids, titles, documentation) are in rules.def.
 */
#ifndef SC_DETECT_H
#define SC_DETECT_H

#include "core.h"
#include "lanes.h"
#include "memclass.h"
#include "shim.h"
#include "thread.h"

/* A finding of this call, committed in sc_post. */
static inline void sc_event_add(sc_op *op, unsigned rule, unsigned sev, int pending)
{
    if (op->nev < SC_MAX_EVENTS)
        op->ev[op->nev++] = (sc_event){(uint8_t)rule, (uint8_t)sev, (uint8_t)(pending != 0), 0, 0};
}

/* ------------------------------------------------------ detectors --- */
/* detect_legacy.c */
void sc_detect_legacy_submission(sc_thread *t, sc_op *op);   /* SC101, SC601, then the next */
void sc_detect_legacy_common(sc_thread *t, sc_op *op, sc_count_q *cq);   /* SC103, SC102 */
void sc_detect_sc102(sc_thread *t, sc_op *op);   /* the SC102 findings, per blocking stream */
int sc_legacy_serializes(sc_thread *t, const sc_count_q *cq, int *others);
/* detect_copy.c */
void sc_detect_memset_async(sc_thread *t, sc_op *op);   /* SC202 */
void sc_detect_copy_async(sc_thread *t, sc_op *op, int pageable);   /* SC203, SC702 */
void sc_detect_copy_sync(sc_thread *t, sc_op *op, const sc_count_q *cq);   /* SC201, SC204 */
void sc_detect_memset_sync(sc_thread *t, sc_op *op, const sc_count_q *cq);   /* SC202 */
/* detect_alloc.c */
void sc_detect_alloc(sc_thread *t, sc_op *op);   /* SC301, SC302, SC303 */
/* detect_sync.c */
void sc_detect_stream_sync(sc_thread *t, sc_op *op);   /* SC402 */
void sc_detect_event_sync(sc_op *op);   /* SC402 */
void sc_detect_ctx_sync(sc_thread *t, sc_op *op);   /* SC401, SC402 */
/* detect_queue.c */
void sc_detect_queues(sc_thread *t, sc_op *op);   /* SC701 */
void sc_detect_cache_config(sc_thread *t, sc_op *op);   /* SC501 */

#endif /* SC_DETECT_H */
