/* callsites.h: call-site registry (callsites.c) and Python frames (pyframes.c). */
#ifndef SC_CALLSITES_H
#define SC_CALLSITES_H

#include <stdint.h>

typedef struct sc_frame_ref {
    unsigned mod;        /* module registry index, or SC_MOD_UNKNOWN */
    uintptr_t off;       /* pc - 1 - load base (absolute pc if the module is unknown) */
    uintptr_t pc;        /* pc - 1, absolute, for symbolizing in this process */
} sc_frame_ref;

typedef struct sc_pyref {
    const char *file;    /* interned */
    const char *func;    /* interned */
    unsigned line;
} sc_pyref;

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
unsigned sc_frames_select(const uint8_t *kind, unsigned n, unsigned depth, unsigned *keep, unsigned max,
                          unsigned *own);
void sc_sites_foreach(void (*fn)(const sc_site *, void *), void *arg);
const char *sc_intern(const char *s);

/* Innermost Python frames of this thread if the process runs CPython
   3.11-3.13, read without the GIL (pyframes.c); returns how many were
   written (0 otherwise). */
int sc_py_capture(sc_pyref *out, int max);
void sc_py_forget(void);   /* re-resolve the CPython API (after new modules load) */

#endif /* SC_CALLSITES_H */
