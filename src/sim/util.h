/* src/sim/util.h: small helpers shared by the three simulator libraries.
 *
 * Each library links its own (hidden) copy, so nothing here keeps state
 * that the libraries would need to share. */
#ifndef SC_SIM_UTIL_H
#define SC_SIM_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Exported CUDA names; everything else is hidden (-fvisibility=hidden). */
#define SCSIM_EXPORT __attribute__((visibility("default")))

/* Prints "streamcheck-sim[PID]: <message>\n" on stderr with one write(2),
 * so lines from concurrent threads do not interleave. */
void scsim_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Like scsim_msg, but only the first time *once is seen clear. */
void scsim_msg_once(atomic_int *once, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The value of an integer environment variable, or def when it is unset
 * or not a number. */
long scsim_env_long(const char *name, long def);

/* STREAMCHECK_SIM_TRACE=1: trace simulated operations on stderr. */
bool scsim_tracing(void);
#define SCSIM_TRACE(...)                                                      \
    do {                                                                      \
        if (scsim_tracing())                                                  \
            scsim_msg("trace: " __VA_ARGS__);                                 \
    } while (0)

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t scsim_now_ns(void);

/* Sleeps until CLOCK_MONOTONIC reaches deadline_ns (restarts on EINTR). */
void scsim_sleep_until(uint64_t deadline_ns);

/* Reports a call of an exported function the simulator does not model:
 * prints "NAME is not supported by the simulator" once per name. */
void scsim_report_unsupported(atomic_int *once, const char *name);

#endif /* SC_SIM_UTIL_H */
