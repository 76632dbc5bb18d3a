/* gpusample.h: when each device had work, sampled in detect mode by a
 * thread of the shim's own (gpusample.c says how and what it cannot see). */
#ifndef SC_GPUSAMPLE_H
#define SC_GPUSAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "pricing.h"

/* Starts sampling every `period` ns (0: the default, 1 ms); once. */
void sc_gs_start(uint64_t period);
/* Stops and joins the thread (at report time); the last stretch is closed. */
void sc_gs_stop(void);
/* The busy spans of a device (ordinal), sorted: 1, or 0 when the device
   was not sampled or cannot be (per-thread default streams in use). */
int sc_gs_busy(unsigned device, const sc_pr_span **v, size_t *n);
uint64_t sc_gs_period(void);
/* Around the real call that destroys a stream or a context: no round of
   queries runs meanwhile. */
void sc_gs_hold(void);
void sc_gs_release(void);
/* After sc_g.n_capturing was raised: waits for a round of queries in
   progress; no round queries until the count falls again. */
void sc_gs_fence(void);

#endif
