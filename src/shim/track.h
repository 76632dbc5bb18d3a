/* track.h: the state kept after each call (track.c), and the device's
 * facts learned once cuInit succeeded, for the report.
 */
#ifndef SC_TRACK_H
#define SC_TRACK_H

#include <cuda.h>

#include "shim.h"

void sc_track_post(sc_thread *t, sc_op *op, CUresult r);
/* Before the real call that begins a capture, and (for a call not judged:
   dispatch.c's post_unjudged) after it; track.c says why. */
void sc_track_capture_announce(void);
void sc_track_capture_undo(const sc_op *op);
extern char sc_device_name[256];   /* device facts learned after cuInit, for the report */
extern int sc_driver_version;

#endif /* SC_TRACK_H */
