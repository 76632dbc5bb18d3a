/* reporter.h: the shim's own thread that writes reports where they cannot
 * be written from the caller: for signal handlers, and every --snapshot
 * seconds (reporter.c).
 */
#ifndef SC_REPORTER_H
#define SC_REPORTER_H

#include <stdint.h>

enum { SC_REQ_NONE = 0, SC_REQ_INTERIM = 1, SC_REQ_FINAL = 2 };
/* Why a final report is asked for, where no signal is: before exec*, at
   _exit (called from a handler of the program's own). */
enum { SC_WHY_EXEC = -1, SC_WHY_EXIT = -2 };

/* Async-signal-safe: asks for the final report (the process is ending by
   signal sig, or SC_WHY_*) or an interim one (sig was taken by a handler of the
   program's own), and waits for it, ns at most.  1 when it was written
   (or was not needed), 0 when not in time or when there is no reporter
   (a forked child). */
int sc_reporter_request(int what, int sig, uint64_t ns);
/* Async-signal-safe: the calling thread is the reporter. */
int sc_reporter_is_self(void);
/* Async-signal-safe, from the reporter's own fault handler: it will not
   finish; whoever waits for it stops waiting, and it parks for good. */
void sc_reporter_crashed(void) __attribute__((noreturn));

#endif /* SC_REPORTER_H */
