/* callsites.h: call-site registry (callsites.c). */
#ifndef SC_CALLSITES_H
#define SC_CALLSITES_H

#include <stdint.h>

#include "pyframes.h"

typedef struct sc_frame_ref {
    unsigned mod;        /* module registry index, or SC_MOD_UNKNOWN */
    uintptr_t off;       /* pc - 1 - load base (absolute pc if the module is unknown) */
    uintptr_t pc;        /* pc - 1, absolute, for symbolizing in this process */
} sc_frame_ref;


typedef struct sc_site {
    uint64_t hash;
    uint16_t nframes;
    uint16_t npy;
    sc_pyref *py;
    sc_frame_ref frames[];
} sc_site;

const sc_site *sc_site_get(uint64_t hash);

#endif /* SC_CALLSITES_H */
