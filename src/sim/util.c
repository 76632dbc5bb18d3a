/* src/sim/util.c: messages, environment, clocks. */
#include "config.h"

#include "sim/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void vmsg(const char *fmt, va_list ap)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "streamcheck-sim[%ld]: ", (long)getpid());
    if (n < 0 || (size_t)n >= sizeof buf)
        return;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    /* One write keeps concurrent messages whole; a short write to a full
     * pipe only loses the tail of a diagnostic. */
    ssize_t w;
    do
        w = write(STDERR_FILENO, buf, len);
    while (w < 0 && errno == EINTR);
}

void scsim_msg(const char *fmt, ...)
{
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
    errno = saved;
}

void scsim_msg_once(atomic_int *once, const char *fmt, ...)
{
    if (atomic_exchange(once, 1))
        return;
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
    errno = saved;
}

long scsim_env_long(const char *name, long def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    errno = 0;
    long r = strtol(v, &end, 10);
    if (errno || *end)
        return def;
    return r;
}

bool scsim_tracing(void)
{
    /* Read once: the variable is for debugging sessions, not toggled at
     * run time. 0 = unknown, 1 = off, 2 = on. */
    static atomic_int state;
    int s = atomic_load_explicit(&state, memory_order_relaxed);
    if (s == 0) {
        s = scsim_env_long("STREAMCHECK_SIM_TRACE", 0) ? 2 : 1;
        atomic_store_explicit(&state, s, memory_order_relaxed);
    }
    return s == 2;
}

uint64_t scsim_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void scsim_sleep_until(uint64_t deadline_ns)
{
    struct timespec ts = {
        .tv_sec = (time_t)(deadline_ns / 1000000000u),
        .tv_nsec = (long)(deadline_ns % 1000000000u),
    };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

void scsim_report_unsupported(atomic_int *once, const char *name)
{
    scsim_msg_once(once, "%s is not supported by the simulator", name);
}
