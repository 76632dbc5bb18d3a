/* signals.h: the signals that end a process, taken so the report is
 * written first (signals.c).
 */
#ifndef SC_SIGNALS_H
#define SC_SIGNALS_H

#include <signal.h>

/* Interposed with signal() and sigaction() (signals.c); the C library
   defines it but its headers no longer declare it. */
sighandler_t bsd_signal(int sig, sighandler_t handler);

/* The calling thread runs a handler of the program's own, called from ours
   (exec.c: a report asked for there goes through the reporter thread). */
int sc_in_program_handler(void);

#endif /* SC_SIGNALS_H */
