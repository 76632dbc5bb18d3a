/* detect.h: what the rule detectors share.
 *
 * The slow path is split by rule family, so that each rule's decision is
 * found from a file name:
 *   dispatch.c       sc_pre/sc_post: a handler per kind of call (kinds.def)
 *                    calls the detectors below, then commits their findings
 *   detect_legacy.c  SC101, SC102, SC103 (counting), SC601: work on the
 *                    legacy stream, blocking streams, cuBLAS on the legacy stream
 *   detect_copy.c    SC201, SC202, SC203, SC204, SC702, SC703: copies and memsets
 *   detect_alloc.c   SC301, SC302, SC303 (counting): allocation and freeing
 *   detect_sync.c    SC401, SC402, SC403: synchronization calls
 *   detect_queue.c   SC701 (hardware queues), SC501 (cache configuration)
 * They read the call's facts, worked out once before any of them runs
 * (classify.h: its lane, its memory, the streams of its context, the
 * legacy stream's barrier), and ask lanes.h which other streams have
 * unfinished work.  The dispatcher alone acts: redirect.c (--redirect:
 * moving legacy-stream work to per-thread streams), the wait before a
 * pageable copy (drain.c), and track.c (the state kept after each call).
 * The rules themselves (ids, titles, documentation) are in rules.def.
 */
#ifndef SC_DETECT_H
#define SC_DETECT_H

#include "classify.h"
#include "core.h"
#include "lanes.h"
#include "memclass.h"
#include "pricing.h"
#include "shim.h"
#include "thread.h"

/* A finding of this call, committed in sc_post. */
static inline void sc_event_add(sc_op *op, unsigned rule, unsigned sev, int pending)
{
    if (op->nev < SC_MAX_EVENTS)
        op->ev[op->nev++] = (sc_event){(uint8_t)rule, (uint8_t)sev, (uint8_t)(pending != 0), 0, 0};
}

/* ------------------------------------------------------ detectors --- */
/* Each adds the events of its rules to op, from op and the call's facts
   (classify.h); none acts on the program's streams, and none calls
   another.  dispatch.c calls them, kinds.def says for which calls. */
/* detect_legacy.c */
void sc_detect_legacy(sc_op *op, const sc_facts *f);   /* SC101, SC601; SC103, SC102 owed */
void sc_detect_sc102(sc_thread *t, sc_op *op);   /* the SC102 findings, per blocking stream */
/* detect_copy.c */
void sc_detect_memset(sc_op *op, const sc_facts *f);   /* SC202 */
void sc_detect_pageable_copy(sc_thread *t, sc_op *op);   /* SC203 */
void sc_detect_copy_engines(sc_thread *t, sc_op *op);   /* SC702 */
void sc_detect_pipeline(sc_op *op);   /* SC703's candidate (the dispatcher asks the run log when) */
void sc_detect_copy_sync(sc_thread *t, sc_op *op, const sc_facts *f);   /* SC201, SC204 */
/* detect_alloc.c */
void sc_detect_alloc(sc_thread *t, sc_op *op);   /* SC301, SC302, SC303 */
/* detect_sync.c */
void sc_detect_stream_sync(sc_thread *t, sc_op *op, const sc_facts *f);   /* SC402 */
void sc_detect_event_sync(sc_op *op);   /* SC402 */
void sc_detect_ctx_sync(sc_thread *t, sc_op *op);   /* SC401, SC402 */
void sc_detect_waited(sc_op *op, uint64_t waited_ns);   /* SC403, after the call */
/* A copy to the host of a result's few bytes (SC_PR_READ_MAX or less: a
   loss, a count, a flag), which the program could keep on the GPU. */
static inline int sc_detect_small_read(const sc_op *op)
{
    return op->dir == SC_DIR_D2H && op->bytes <= SC_PR_READ_MAX;
}
/* detect_queue.c */
void sc_detect_queues(sc_thread *t, sc_op *op);   /* SC701 */
void sc_detect_cache_config(sc_thread *t, sc_op *op);   /* SC501 */

#endif /* SC_DETECT_H */
