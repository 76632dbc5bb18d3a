/* calibrate.h: how long this machine takes to copy from or to pinned
 * memory: the rate a pageable or synchronous copy's fix would run at (the
 * pricing model, price.c). */
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
/* The pinned rate measured for a device and direction, in bytes per ns; 0
   when none was. */
double sc_cal_rate(unsigned device, int d2h);

#endif
