/* pyframes.h: the Python frames behind a CUDA call (pyframes.c). */
#ifndef SC_PYFRAMES_H
#define SC_PYFRAMES_H

typedef struct sc_pyref {
    const char *file;    /* interned */
    const char *func;    /* interned */
    unsigned line;
} sc_pyref;

/* Innermost Python frames of this thread if the process runs CPython
   3.11-3.13, read without the GIL: up to max of the program's own, after
   the library frame that made the call when there is one (so out holds
   max + 1), or, without any of the program's, up to max library frames.
   Returns how many were written (0 otherwise). */
int sc_py_capture(sc_pyref *out, int max);

/* Whether the process runs an initialized CPython (of the versions above). */
int sc_py_running(void);

#endif /* SC_PYFRAMES_H */
