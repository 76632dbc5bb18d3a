/* fault_trace.h: where a fault struck, on stderr, under the test hook
 * STREAMCHECK_TEST_FAULT_TRACE=1 (fault_trace.c).
 */
#ifndef SC_FAULT_TRACE_H
#define SC_FAULT_TRACE_H

#include <signal.h>

void sc_fault_trace_init(void);
/* From the handler of a fault the kernel raised (signals.c). */
void sc_fault_trace(int sig, const siginfo_t *si, const void *uc);

#endif /* SC_FAULT_TRACE_H */
