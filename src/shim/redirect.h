/* redirect.h: --redirect (redirect.c): legacy-stream work moved to the
 * calling thread's per-thread stream, on the slow path and, while nothing
 * it decided on has changed, on the fast path.
 */
#ifndef SC_REDIRECT_H
#define SC_REDIRECT_H

#include "lanes.h"
#include "shim.h"

/* Legacy-lane work (or a query or synchronization of the legacy stream):
   moves it, or says why not (op->redirected).  cq: the created streams of
   its context, NULL to count them here. */
void sc_redirect(sc_thread *t, sc_op *op, const sc_count_q *cq);
void sc_order_with_own(sc_thread *t, sc_op *op);
void sc_redirect_post(sc_op *op);   /* after the call: op->rd_chain */
/* The fast path's redirect (fast.h, sc_fast_legacy): 0 when it sent the
   call where the thread's last slow-path redirect sent its legacy work,
   1 for the slow path. */
int sc_fast_redirect(sc_thread *t, sc_op *op);

#endif /* SC_REDIRECT_H */
