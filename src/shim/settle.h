/* settle.h: findings held until the thread's next slow call (settle.c). */
#ifndef SC_SETTLE_H
#define SC_SETTLE_H

#include "shim.h"

/* The call's main finding h, about to be committed: held instead when what
   the thread does next decides it (then 1; an earlier one held is
   committed first).  Only for a call not redirected, counted once. */
int sc_held_keep(sc_thread *t, const sc_op *op, const sc_hit *h);
/* A slow call of a thread that holds a finding, before it is judged:
   commits the held one, as this call decides it.  Returns 1 when the held
   call was a synchronous read this call ends (no finding at all). */
int sc_held_settle(sc_thread *t, const sc_op *op);
/* At report time: nothing came next but what the fast path submitted. */
void sc_held_flush(sc_thread *t);

#endif /* SC_SETTLE_H */
