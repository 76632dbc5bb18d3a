/* simcheck.h: under --simulate, a program the simulator cannot run is
 * said to be one (simcheck.c).
 */
#ifndef SC_SIMCHECK_H
#define SC_SIMCHECK_H

/* What cuGetProcAddress hands out for `symbol` (the real p): a watcher of
   cuGetExportTable on the simulator, else p. */
void *sc_simcheck_filter(const char *symbol, void *p);

#endif /* SC_SIMCHECK_H */
