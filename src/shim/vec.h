/* vec.h: arrays for measured mode (cupti_session.c, measure.c, timeline.c):
 * growable ones, and a binary search over sorted ones.
 *
 *   SC_VEC(int) v = {0};
 *   if (!SC_VEC_PUSH(v, 7)) ... out of memory; v unchanged ...
 *   size_t first7 = SC_FIRST(m, 0, v.n, v.v[m] < 7);
 *   free(v.v);
 */
#ifndef SC_VEC_H
#define SC_VEC_H

#include <stdlib.h>
#include <string.h>

#define SC_VEC(T) struct { T *v; size_t n, cap; }

/* Room for one element more in the array *pv of n, cap elements of size
   elt (doubling, from 1024): 1, or 0 when out of memory (nothing changed). */
static inline int sc_vec_grow(void *pv, size_t n, size_t *cap, size_t elt)
{
    if (n < *cap)
        return 1;
    void *v;
    memcpy(&v, pv, sizeof v);
    size_t nc = *cap ? *cap * 2 : 1024;
    void *p = realloc(v, nc * elt);
    if (!p)
        return 0;
    memcpy(pv, &p, sizeof p);
    *cap = nc;
    return 1;
}

/* Appends x: 1, or 0 when out of memory. */
#define SC_VEC_PUSH(vec, x) \
    (sc_vec_grow(&(vec).v, (vec).n, &(vec).cap, sizeof *(vec).v) ? ((vec).v[(vec).n++] = (x), 1) : 0)

/* The first index m of [lo, hi) where the condition `before` (an
   expression of m) stops holding, or hi; it must hold on a prefix of the
   range and nowhere after it. */
#define SC_FIRST(m, lo, hi, before)                        \
    ({                                                     \
        size_t sc_lo_ = (lo), sc_hi_ = (hi);               \
        while (sc_lo_ < sc_hi_) {                          \
            size_t m = sc_lo_ + (sc_hi_ - sc_lo_) / 2;     \
            if (before)                                    \
                sc_lo_ = m + 1;                            \
            else                                           \
                sc_hi_ = m;                                \
        }                                                  \
        sc_lo_;                                            \
    })

#endif /* SC_VEC_H */
