/* apis.h: the driver entry points the shim wraps, by id (apis.c, from
 * hooks/all.def): names, ABI versions and legacy/per-thread twins.
 */
#ifndef SC_APIS_H
#define SC_APIS_H

#include "shim.h"

extern const sc_api_info sc_apis[SC_NAPI];
/* 1 for an entry point that submits work to a stream (apis.c says which). */
extern const unsigned char sc_api_work[SC_NAPI];

#endif /* SC_APIS_H */
