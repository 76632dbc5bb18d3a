/* calibrate.h: how long this machine takes to copy from or to pinned
 * memory: the rate a pageable or synchronous copy's fix would run at, and
 * the time of the pinned copies the run log records (the pricing model,
 * price.c). */
#ifndef SC_CALIBRATE_H
#define SC_CALIBRATE_H

#include <stdint.h>

/* After a call that copied `bytes` between host memory and the device
   (ordinal) `device` with a pinning fix (SC203, SC201; d2h 1 for device to
   host), on the calling thread, whose context is the copy's: the first such
   call of a device and direction times a copy of that size (at most 64 MiB)
   from pinned memory of the shim's own (calibrate.c says what it costs). */
/* 1 while the rate of this device and direction is still to be timed. */
int sc_cal_wanted(unsigned device, int d2h);
void sc_cal_note(unsigned device, int d2h, uint64_t bytes);
/* A rate wanted where timing it now would hold the program's work back
   (the device had work): sc_cal_deferred gives the bytes to time (the
   largest copy's, 0: none deferred) until sc_cal_note times them. */
void sc_cal_defer(unsigned device, int d2h, uint64_t bytes);
uint64_t sc_cal_deferred(unsigned device, int d2h);
/* When the rate of a device and direction was timed ([a, b), sc_now_ns):
   the GPU's work then was the shim's (price.c takes it out of the device's
   busy time).  0 when it was not. */
int sc_cal_span(unsigned device, int d2h, uint64_t *a, uint64_t *b);
/* The pinned rate measured for a device and direction, in bytes per ns; 0
   when none was. */
double sc_cal_rate(unsigned device, int d2h);
/* Pinned copies both ways at once on a device, in bytes per ns in all,
   timed with the second direction's rate (at least 2 MiB); 0 when it was
   not. */
double sc_cal_duplex(unsigned device);

#endif
