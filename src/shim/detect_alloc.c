/* detect_alloc.c: allocation and freeing.
 *   SC301  device allocation or freeing (cuMemAlloc, cuMemFree, managed)
 *          while other streams have unfinished work: it synchronizes
 *   SC302  page-locked host allocation, freeing or registration while
 *          other streams have unfinished work
 *   SC303  counted here (the allocating call sites), judged at report
 *          time: allocation in a loop
 * PG, Stream Ordered Memory Allocator; PG, Asynchronous Concurrent
 * Execution > Streams > Implicit Synchronization; PG, Page-Locked Host
 * Memory (rules.def has each rule's citation).
 */
#include "config.h"

#include "detect.h"
#include "kinds.h"
#include "lanes.h"

void sc_detect_alloc(sc_thread *t, sc_op *op)
{
    if (sc_kind_is(op->kind, SC_KF_FREES) && !op->p1)
        return;   /* freeing NULL does nothing */
    /* The device synchronized is the current context's (PG, Multi-Device
       System: allocations go to the current device). */
    sc_busy_q q = {.ctx = sc_op_ctx(op)};
    if (sc_busy_others(t, &q) > 0) {
        int dev = sc_kind_is(op->kind, SC_KF_DEVMEM);
        /* PG Stream Ordered Memory Allocator (cudaMalloc/cudaFree
           synchronize) and PG Implicit Synchronization (page-locked
           host allocation, device allocation). */
        sc_event_add(op, dev ? SC_RULE_SC301 : SC_RULE_SC302, SC_SEV_WARNING, 1);
    }
    op->marks |= SC_M_ALLOCSITE;   /* SC303 */
}
