/* dispatch.h: the slow path (dispatch.c): sc_pre() before the real driver
 * call, sc_post() after it.
 */
#ifndef SC_DISPATCH_H
#define SC_DISPATCH_H

#include <cuda.h>

#include "shim.h"

void sc_pre(sc_thread *t, sc_op *op);
void sc_post(sc_thread *t, sc_op *op, CUresult r);

#endif /* SC_DISPATCH_H */
