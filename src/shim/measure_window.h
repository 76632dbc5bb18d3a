/* measure_window.h: measured mode in a window of the run
 * (--measure-window, measure_window.c).
 */
#ifndef SC_MEASURE_WINDOW_H
#define SC_MEASURE_WINDOW_H

#include "options.h"

/* Opens CUPTI's recording w->start seconds from now and closes it
   w->length seconds later (never, for 0), from a thread of the shim's
   own.  Called once, when the CUPTI session has started without
   recording. */
void sc_measure_window_start(const sc_opt_window *w);

#endif /* SC_MEASURE_WINDOW_H */
