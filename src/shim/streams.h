/* streams.h: the created streams the shim knows (streams.c), a table read
 * without locks; sc_stream_lookup is the fast path's, with a one-entry
 * cache per thread.
 */
#ifndef SC_STREAMS_H
#define SC_STREAMS_H

#include "thread.h"

sc_stream *sc_stream_find(CUstream h);
sc_stream *sc_stream_learn(CUstream h);     /* create a record for a stream created behind our back */
sc_stream *sc_stream_add(CUstream h, CUcontext ctx, unsigned flags, int prio, uint64_t site);
void sc_stream_remove(CUstream h);
void sc_streams_foreach(void (*fn)(sc_stream *, void *), void *arg);
static inline sc_stream *sc_stream_lookup(sc_thread *t, CUstream h)
{
    if (SC_LIKELY(t->last_handle == h && t->last_rec))
        return t->last_rec;
    sc_stream *r = sc_stream_find(h);
    if (r) {
        t->last_handle = h;
        t->last_rec = r;
    }
    return r;
}

#endif /* SC_STREAMS_H */
