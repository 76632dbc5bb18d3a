/* hooks_driver.h: the exported driver-API wrappers (hooks_driver.c), by
 * API id: what interpose.c hands out.
 */
#ifndef SC_HOOKS_DRIVER_H
#define SC_HOOKS_DRIVER_H

#include "shim.h"

extern void *const sc_wrappers[SC_NAPI];

#endif /* SC_HOOKS_DRIVER_H */
