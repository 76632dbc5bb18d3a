/* callsites.h: call-site registry (callsites.c). */
#ifndef SC_CALLSITES_H
#define SC_CALLSITES_H

#include <stdint.h>

#include "pyframes.h"
#include "shim.h"

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
    const char *_Atomic thread;   /* name of a thread other than the main one
                                     that reached it (interned), or NULL */
    sc_frame_ref frames[];
} sc_site;

const sc_site *sc_site_get(uint64_t hash);
/* The calling thread's call site, walked and registered (its hash). */
uint64_t sc_callsite_capture(sc_thread *t);

/* Which of a walk's frames a call site keeps (callsites.c).  kind[i] says
   what raw frame i (innermost first) is: */
enum { SC_FK_OWN = 0,      /* the program's: counts against the depth */
       SC_FK_SELF = 1,     /* the shim's own: dropped */
       SC_FK_NVIDIA = 2 }; /* NVIDIA's libraries: dropped before the first
                              program frame, kept but not counted after it */
/* Writes the indices kept to keep[] (at most max) and returns how many;
   *own gets how many of them are the program's (at most depth).  A stack
   of nothing but the shim and NVIDIA's libraries keeps its NVIDIA frames,
   up to depth. */
int sc_backtrace(void **pcs, int max);   /* return addresses, innermost first */
unsigned sc_frames_select(const uint8_t *kind, unsigned n, unsigned depth, unsigned *keep, unsigned max,
                          unsigned *own);

#endif /* SC_CALLSITES_H */
