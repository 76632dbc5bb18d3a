/* src/sim/drv_graph.c: stream capture and captured graphs.
 *
 * While a stream captures, its operations are recorded instead of run
 * (CUDA Driver API, cuStreamBeginCapture).  The graph is the recorded
 * operations in host submission order, a valid topological order of the
 * real graph; launching it queues one stream operation that replays them.
 * Streams that wait on an event recorded in the capture join it, as in
 * CUDA's fork/join pattern.  Rules enforced, from the CUDA Programming
 * Guide ("Prohibited and Unhandled Operations") and
 * cuThreadExchangeStreamCaptureMode:
 *  - the legacy stream cannot be captured, and using it while a blocking
 *    stream captures fails with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
 *  - synchronizing or querying a capturing stream fails with
 *    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
 *  - potentially unsafe calls (synchronous allocation) fail with
 *    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED under the thread's capture
 *    interaction mode;
 *  - a violation invalidates the capture; cuStreamEndCapture then returns
 *    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and no graph;
 *  - an event recorded in a capture is a point of the graph: querying or
 *    synchronizing it fails with CUDA_ERROR_CAPTURED_EVENT and invalidates
 *    the capture, and once the capture is invalidated or over such an
 *    event is CUDA_ERROR_INVALID_VALUE until recorded again (the last two
 *    as measured on the CUDA 13.0 driver).
 * Not modelled: unjoined-fork detection, capture into an existing graph,
 * graph node APIs. */
#include "config.h"

#include "sim/drv_api.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

static __thread CUstreamCaptureMode tls_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

/* Graphs and executable graphs the program has not destroyed. */
static pthread_mutex_t graphs_mu = PTHREAD_MUTEX_INITIALIZER;
static struct CUgraph_st *graphs;
static struct CUgraphExec_st *execs;

#define LIST_PUSH(head, x)                                                    \
    do {                                                                      \
        pthread_mutex_lock(&graphs_mu);                                       \
        (x)->prev = NULL;                                                     \
        (x)->next = (head);                                                   \
        if (head)                                                             \
            (head)->prev = (x);                                               \
        (head) = (x);                                                         \
        pthread_mutex_unlock(&graphs_mu);                                     \
    } while (0)
#define LIST_REMOVE(head, x)                                                  \
    do {                                                                      \
        pthread_mutex_lock(&graphs_mu);                                       \
        if ((x)->prev)                                                        \
            (x)->prev->next = (x)->next;                                      \
        else                                                                  \
            (head) = (x)->next;                                               \
        if ((x)->next)                                                        \
            (x)->next->prev = (x)->prev;                                      \
        pthread_mutex_unlock(&graphs_mu);                                     \
    } while (0)

static bool stream_blocking(const struct CUstream_st *s)
{
    return s->kind != SCSIM_STREAM_LEGACY &&
           !(s->flags & CU_STREAM_NON_BLOCKING);
}

/* Adds s to c; cap_mu held. */
static bool join_locked(scsim_capture *c, struct CUstream_st *s)
{
    if (c->nmembers == sizeof c->members / sizeof c->members[0])
        return false;
    c->members[c->nmembers++] = s;
    s->cap = c;
    if (stream_blocking(s))
        atomic_fetch_add(&scsim_g.blocking_capturing, 1);
    return true;
}

static void release_works(scsim_work *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        scsim_work_release(&w[i]);
    free(w);
}

uint64_t scsim_capture_id_of(struct CUstream_st *s)
{
    pthread_mutex_lock(&scsim_g.cap_mu);
    uint64_t id = s->cap ? s->cap->id : 0;
    pthread_mutex_unlock(&scsim_g.cap_mu);
    return id;
}

int scsim_capture_state(uint64_t id)
{
    if (!id || atomic_load(&scsim_g.ncaptures) == 0)
        return 0;
    int st = 0;
    pthread_mutex_lock(&scsim_g.cap_mu);
    for (scsim_capture *c = scsim_g.captures; c; c = c->next)
        if (c->id == id)
            st = c->invalidated ? 2 : 1;
    pthread_mutex_unlock(&scsim_g.cap_mu);
    return st;
}

void scsim_capture_invalidate_id(uint64_t id)
{
    pthread_mutex_lock(&scsim_g.cap_mu);
    for (scsim_capture *c = scsim_g.captures; c; c = c->next)
        if (c->id == id)
            c->invalidated = true;
    pthread_mutex_unlock(&scsim_g.cap_mu);
}

void scsim_capture_invalidate_stream(struct CUstream_st *s)
{
    pthread_mutex_lock(&scsim_g.cap_mu);
    if (s->cap)
        s->cap->invalidated = true;
    pthread_mutex_unlock(&scsim_g.cap_mu);
}

CUresult scsim_capture_check_unsafe(void)
{
    pthread_t self = pthread_self();
    bool prohibited = false;
    pthread_mutex_lock(&scsim_g.cap_mu);
    for (scsim_capture *c = scsim_g.captures; c; c = c->next) {
        bool mine = pthread_equal(c->thread, self);
        bool forbids;
        switch (tls_mode) {
        case CU_STREAM_CAPTURE_MODE_GLOBAL:
            forbids = (mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
                      (!mine && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL);
            break;
        case CU_STREAM_CAPTURE_MODE_THREAD_LOCAL:
            forbids = mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED;
            break;
        default:
            forbids = false;
            break;
        }
        if (forbids) {
            c->invalidated = true;
            prohibited = true;
        }
    }
    pthread_mutex_unlock(&scsim_g.cap_mu);
    return prohibited ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

CUresult scsim_capture_check_any(void)
{
    bool any = false;
    pthread_mutex_lock(&scsim_g.cap_mu);
    for (scsim_capture *c = scsim_g.captures; c; c = c->next) {
        c->invalidated = true;
        any = true;
    }
    pthread_mutex_unlock(&scsim_g.cap_mu);
    return any ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

CUresult scsim_capture_check_legacy(bool invalidate)
{
    if (atomic_load(&scsim_g.blocking_capturing) == 0)
        return CUDA_SUCCESS;
    if (invalidate) {
        pthread_mutex_lock(&scsim_g.cap_mu);
        for (scsim_capture *c = scsim_g.captures; c; c = c->next)
            for (size_t i = 0; i < c->nmembers; i++)
                if (stream_blocking(c->members[i]))
                    c->invalidated = true;
        pthread_mutex_unlock(&scsim_g.cap_mu);
    }
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
}

int scsim_capture_record(struct CUstream_st *s, const scsim_work *w,
                         bool capturable, CUresult *err)
{
    pthread_mutex_lock(&scsim_g.cap_mu);
    scsim_capture *c = s->cap;
    int rc = 0;
    if (!c)
        goto out;
    rc = -1;
    if (c->invalidated) {
        *err = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        goto out;
    }
    if (!capturable) {
        c->invalidated = true;
        *err = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        goto out;
    }
    if (c->n == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 16;
        scsim_work *nw = realloc(c->works, ncap * sizeof *nw);
        if (!nw) {
            *err = CUDA_ERROR_OUT_OF_MEMORY;
            goto out;
        }
        c->works = nw;
        c->cap = ncap;
    }
    c->works[c->n++] = *w;
    rc = 1;
out:
    pthread_mutex_unlock(&scsim_g.cap_mu);
    return rc;
}

CUresult scsim_capture_wait_event(struct CUstream_st *s, uint64_t ev_cap_id,
                                  bool *handled)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&scsim_g.cap_mu);
    scsim_capture *ec = NULL;
    for (scsim_capture *c = scsim_g.captures; c && ev_cap_id; c = c->next)
        if (c->id == ev_cap_id)
            ec = c;
    scsim_capture *sc = s->cap;
    if (sc) {
        *handled = true;
        if (ec == sc) {
            /* Ordering inside one capture: the graph is already linear. */
        } else if (ec) {
            /* Would merge two capture sequences. */
            sc->invalidated = ec->invalidated = true;
            r = CUDA_ERROR_STREAM_CAPTURE_MERGE;
        } else {
            /* A dependency on work outside the capture. */
            sc->invalidated = true;
            r = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
        }
    } else if (ec) {
        /* Fork: the stream joins the capture of the event. */
        *handled = true;
        if (!join_locked(ec, s)) {
            ec->invalidated = true;
            r = CUDA_ERROR_NOT_SUPPORTED;
        } else if (ec->invalidated) {
            r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        }
    }
    pthread_mutex_unlock(&scsim_g.cap_mu);
    return r;
}

/* ---------------------------------------------------------- entry points --- */

static CUresult begin_capture(CUstream hs, CUstreamCaptureMode mode, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    /* "Capture may not be initiated if stream is CU_STREAM_LEGACY." */
    if (s->kind == SCSIM_STREAM_LEGACY)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    scsim_capture *c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->id = atomic_fetch_add(&scsim_g.next_capture_id, 1);
    c->mode = mode;
    c->thread = pthread_self();
    c->origin = s;
    pthread_mutex_lock(&scsim_g.cap_mu);
    if (s->cap) {
        pthread_mutex_unlock(&scsim_g.cap_mu);
        free(c);
        return CUDA_ERROR_ILLEGAL_STATE;
    }
    join_locked(c, s);
    c->next = scsim_g.captures;
    scsim_g.captures = c;
    atomic_fetch_add(&scsim_g.ncaptures, 1);
    pthread_mutex_unlock(&scsim_g.cap_mu);
    SCSIM_TRACE("begin capture %llu on stream %llu (mode %d)",
                (unsigned long long)c->id, s->id, (int)mode);
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
    return begin_capture(hStream, mode, false);
}

CUresult scsim_cuStreamBeginCapture_v2_ptsz(CUstream hStream,
                                            CUstreamCaptureMode mode)
{
    return begin_capture(hStream, mode, true);
}

static CUresult end_capture(CUstream hs, CUgraph *phGraph, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phGraph)
        return CUDA_ERROR_INVALID_VALUE;
    *phGraph = NULL;
    pthread_mutex_lock(&scsim_g.cap_mu);
    scsim_capture *c = s->cap;
    if (!c) {
        pthread_mutex_unlock(&scsim_g.cap_mu);
        return CUDA_ERROR_ILLEGAL_STATE;
    }
    if (c->origin != s) {
        c->invalidated = true;
        pthread_mutex_unlock(&scsim_g.cap_mu);
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    }
    /* From another thread, a non-relaxed capture still ends (the stream
     * is no longer capturing afterwards; measured on the driver), but
     * fails with CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD and no graph. */
    bool wrong_thread = c->mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
                        !pthread_equal(c->thread, pthread_self());
    for (size_t i = 0; i < c->nmembers; i++) {
        if (stream_blocking(c->members[i]))
            atomic_fetch_sub(&scsim_g.blocking_capturing, 1);
        c->members[i]->cap = NULL;
    }
    for (scsim_capture **pp = &scsim_g.captures; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    atomic_fetch_sub(&scsim_g.ncaptures, 1);
    pthread_mutex_unlock(&scsim_g.cap_mu);
    SCSIM_TRACE("end capture %llu: %zu operations%s",
                (unsigned long long)c->id, c->n,
                c->invalidated ? ", invalidated" : "");

    if (wrong_thread || c->invalidated) {
        release_works(c->works, c->n);
        free(c);
        return wrong_thread ? CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD
                            : CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    struct CUgraph_st *g = malloc(sizeof *g);
    scsim_body *b = malloc(sizeof *b + c->n * sizeof(scsim_work));
    if (!g || !b) {
        free(g);
        free(b);
        release_works(c->works, c->n);
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    atomic_init(&b->refs, 1);
    b->n = c->n;
    if (c->n)
        memcpy(b->w, c->works, c->n * sizeof(scsim_work));
    free(c->works);
    free(c);
    g->magic = SCSIM_MAGIC_GRAPH;
    g->body = b;
    LIST_PUSH(graphs, g);
    *phGraph = g;
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    return end_capture(hStream, phGraph, false);
}

CUresult scsim_cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
    return end_capture(hStream, phGraph, true);
}

/* cuStreamIsCapturing on the legacy stream while a blocking stream
 * captures returns CUDA_ERROR_STREAM_CAPTURE_IMPLICIT without
 * invalidating the capture. */
static CUresult is_capturing(CUstream hs, CUstreamCaptureStatus *st, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!st)
        return CUDA_ERROR_INVALID_VALUE;
    if (s->kind == SCSIM_STREAM_LEGACY) {
        r = scsim_capture_check_legacy(false);
        if (r != CUDA_SUCCESS)
            return r;
    }
    pthread_mutex_lock(&scsim_g.cap_mu);
    *st = !s->cap                 ? CU_STREAM_CAPTURE_STATUS_NONE
          : s->cap->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    pthread_mutex_unlock(&scsim_g.cap_mu);
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamIsCapturing(CUstream hStream,
                                   CUstreamCaptureStatus *captureStatus)
{
    return is_capturing(hStream, captureStatus, false);
}

CUresult scsim_cuStreamIsCapturing_ptsz(CUstream hStream,
                                        CUstreamCaptureStatus *captureStatus)
{
    return is_capturing(hStream, captureStatus, true);
}

CUresult scsim_cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!mode || (unsigned)*mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    CUstreamCaptureMode old = tls_mode;
    tls_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------- graphs --- */


void scsim_body_unref(scsim_body *b)
{
    if (atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    for (size_t i = 0; i < b->n; i++)
        scsim_work_release(&b->w[i]);
    free(b);
}

static struct CUgraph_st *graph_check(CUgraph g)
{
    return g && g->magic == SCSIM_MAGIC_GRAPH ? g : NULL;
}

static struct CUgraphExec_st *exec_check(CUgraphExec e)
{
    return e && e->magic == SCSIM_MAGIC_EXEC ? e : NULL;
}

CUresult scsim_cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec,
                                           CUgraph hGraph,
                                           unsigned long long flags)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUgraph_st *g = graph_check(hGraph);
    if (!phGraphExec || !g)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned long long known =
        CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
        CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
        CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
        CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    if (flags & ~known)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUgraphExec_st *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_init(&e->mu, NULL);
    atomic_fetch_add(&g->body->refs, 1);
    e->body = g->body;
    e->magic = SCSIM_MAGIC_EXEC;
    LIST_PUSH(execs, e);
    *phGraphExec = e;
    return CUDA_SUCCESS;
}

/* cuGraphLaunch: one stream operation; launches of the same executable
 * graph are ordered, as "each launch is ordered behind both any previous
 * work in hStream and any previous launches of hGraphExec". */
static CUresult graph_launch(CUgraphExec he, CUstream hs, bool pt)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUgraphExec_st *e = exec_check(he);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    scsim_work w = {.kind = SCSIM_W_GRAPH};
    w.u.graph.body = e->body;
    atomic_fetch_add(&e->body->refs, 1);
    pthread_mutex_lock(&e->mu);
    scsim_dep last = e->last;
    uint64_t seq;
    bool captured;
    r = scsim_submit(s, &w, last.s ? &last : NULL, last.s ? 1 : 0, true,
                     &seq, &captured);
    if (r == CUDA_SUCCESS && !captured)
        e->last = (scsim_dep){s, seq};
    pthread_mutex_unlock(&e->mu);
    if (r != CUDA_SUCCESS)
        scsim_body_unref(e->body);
    return r;
}

CUresult scsim_cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    SCSIM_API(cuGraphLaunch);
    return SCSIM_API_RET(graph_launch(hGraphExec, hStream, false));
}

CUresult scsim_cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    SCSIM_API(cuGraphLaunch_ptsz);
    return SCSIM_API_RET(graph_launch(hGraphExec, hStream, true));
}

CUresult scsim_cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUgraphExec_st *e = exec_check(hGraphExec);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    e->magic = 0;
    LIST_REMOVE(execs, e);
    scsim_body_unref(e->body);
    pthread_mutex_destroy(&e->mu);
    free(e);
    return CUDA_SUCCESS;
}

CUresult scsim_cuGraphDestroy(CUgraph hGraph)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUgraph_st *g = graph_check(hGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    g->magic = 0;
    LIST_REMOVE(graphs, g);
    scsim_body_unref(g->body);
    free(g);
    return CUDA_SUCCESS;
}
