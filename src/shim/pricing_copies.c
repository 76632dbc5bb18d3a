/* pricing_copies.c: how a thread's copies reuse their device buffers
 * (pricing.h, sc_pr_plan_copies), which decides what copy streams may
 * overlap when the pricing model moves a stream's copies off it (SC703).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "pricing.h"

/* What ties a thread's copies to its stream's order once they go to copy
   streams (SC_PR_FIX_PIPELINE): the buffers they reuse.  Each copy's prev
   is the thread's latest earlier copy whose device range overlaps its own.
   An upload must wait for what last used its buffer: a download from it,
   or the kernels of the piece the buffer held, those queued after that
   upload and before the next upload (pricing.c, piped_copy).  A download
   whose buffer a later copy uses again must be done before the kernels
   that write the buffer anew: where that copy is a download, those queued after the last
   upload before it, or right after the first download where no upload
   comes between (war_head: the call after which the stream's work waits
   for it); where it is an upload, the upload waits for the download, and
   the kernels after it for the upload.
   Sorted by start, each range is compared with the RANGE_SCAN ranges that
   begin next (a buffer reused at one address, as PyTorch's caching
   allocator hands a batch's, is its neighbour). */
#define RANGE_SCAN 16
typedef struct rng { uint64_t a, b; int32_t i; } rng;

static int cmp_rng(const void *pa, const void *pb)
{
    const rng *a = pa, *b = pb;
    return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->i > b->i) - (a->i < b->i);
}

int sc_pr_is_copy(const sc_pr_call *c)
{
    return (c->dir == SC_PR_H2D || c->dir == SC_PR_D2H) &&
           (c->what == SC_PR_SUBMIT || c->what == SC_PR_COPY_PAGEABLE || c->what == SC_PR_COPY_SYNC);
}

/* An upload of a thread's, by stream and place. */
typedef struct upk { uint32_t st; int32_t i; } upk;

static int cmp_upk(const void *pa, const void *pb)
{
    const upk *a = pa, *b = pb;
    return a->st != b->st ? (a->st > b->st) - (a->st < b->st) : (a->i > b->i) - (a->i < b->i);
}

/* The last upload on stream st placed after `after` and before `before`, or -1. */
static int32_t upload_between(const upk *u, size_t n, uint32_t st, int32_t after, int32_t before)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {   /* the first (st, before) or later */
        size_t mid = (lo + hi) / 2;
        if (u[mid].st < st || (u[mid].st == st && u[mid].i < before))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && u[lo - 1].st == st && u[lo - 1].i > after ? u[lo - 1].i : -1;
}

sc_pr_reuse *sc_pr_plan_copies(const sc_pr_thread *th)
{
    size_t n = 0, nups = 0;
    sc_pr_reuse *w = malloc((th->n + 1) * sizeof *w);
    rng *v = malloc((th->n + 1) * sizeof *v);
    int32_t *next = malloc((th->n + 1) * sizeof *next);
    upk *ups = malloc((th->n + 1) * sizeof *ups);
    int rc = !w || !v || !next || !ups ? -1 : 0;
    for (size_t i = 0; !rc && i < th->n; i++) {
        const sc_pr_call *c = &th->calls[i];
        w[i].prev = -1;
        w[i].war_head = w[i].war_link = -1;
        next[i] = -1;
        if (!sc_pr_is_copy(c))
            continue;
        if (c->dir == SC_PR_H2D)
            ups[nups++] = (upk){c->stream, (int32_t)i};
        if (c->dev && c->bytes)
            v[n++] = (rng){c->dev, c->dev + c->bytes, (int32_t)i};
        else
            w[i].prev = -2;
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_rng);
    if (nups)
        qsort(ups, nups, sizeof *ups, cmp_upk);
    for (size_t j = 0; j < n; j++)
        for (size_t k = j + 1; k < n && v[k].a < v[j].b && k - j <= RANGE_SCAN; k++) {
            int32_t early = v[j].i < v[k].i ? v[j].i : v[k].i, late = v[j].i < v[k].i ? v[k].i : v[j].i;
            if (w[late].prev != -2 && early > w[late].prev)
                w[late].prev = early;
            if (next[early] < 0 || late < next[early])
                next[early] = late;
        }
    for (size_t i = 0; !rc && i < th->n; i++) {
        if (!sc_pr_is_copy(&th->calls[i]) || th->calls[i].dir != SC_PR_D2H)
            continue;
        int32_t at = -1;
        if (w[i].prev == -2) {
            at = (int32_t)i;
        } else if (next[i] >= 0 && th->calls[next[i]].dir == SC_PR_D2H) {
            /* read again without an upload into it: the kernels that wrote it
               anew came after the last upload of its stream between the two
               reads (an upload into it waits for this download itself) */
            int32_t u = upload_between(ups, nups, th->calls[i].stream, (int32_t)i, next[i]);
            at = u >= 0 ? u : (int32_t)i;
        }
        if (at >= 0) {
            w[i].war_link = w[at].war_head;
            w[at].war_head = (int32_t)i;
        }
    }
    free(v);
    free(next);
    free(ups);
    if (rc) {
        free(w);
        return NULL;
    }
    return w;
}
