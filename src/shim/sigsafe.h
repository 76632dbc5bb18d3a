/* sigsafe.h: strings built where only async-signal-safe code may run (a
 * signal handler, a fault's trace, the status file a dying process
 * writes): appended into a NUL-ended buffer, cut at its length, with no
 * allocation and no stdio.
 */
#ifndef SC_SIGSAFE_H
#define SC_SIGSAFE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Appends s to buf (of len bytes, NUL-ended). */
static inline void sc_ss_put(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    while (*s && n + 1 < len)
        buf[n++] = *s++;
    buf[n] = 0;
}

/* Appends v in decimal (0 or more), or in hexadecimal with 0x. */
static inline void sc_ss_put_num(char *buf, size_t len, uint64_t v, int hex)
{
    char d[24];
    int i = (int)sizeof d - 1;
    d[i] = 0;
    do
        d[--i] = "0123456789abcdef"[hex ? v % 16 : v % 10];
    while ((v /= hex ? 16 : 10) && i > 2);
    if (hex) {
        d[--i] = 'x';
        d[--i] = '0';
    }
    sc_ss_put(buf, len, d + i);
}

#endif /* SC_SIGSAFE_H */
