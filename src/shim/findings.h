/* findings.h: per-call-site aggregation of what the shim saw (mpiP style). */
#ifndef SC_FINDINGS_H
#define SC_FINDINGS_H

#include <stdint.h>

#include "aggkey.h"
#include "shim.h"

/* Redirect outcomes. */
enum {
    SC_RD_REDIRECTED = 1,
    SC_RD_CAPTURE,          /* a stream capture was in progress */
    SC_RD_BLOCKING,         /* blocking streams exist: the legacy stream orders them */
    SC_RD_EXPLICIT_LEGACY,  /* the program asked for cudaStreamLegacy by name */
    SC_RD_NO_ENTRY,         /* no per-thread entry point to call */
    SC_RD_NO_ORDER,         /* could not order it after the thread's own stream */
    SC_RD_UNTRACKED,        /* more threads than the order tracker follows (hb.h) */
    SC_RD_HANDOFF,          /* an order between threads no event could carry: kept on the legacy stream */
    SC_RD_NOUTCOMES
};
extern const char *const sc_redirect_outcomes[SC_RD_NOUTCOMES];

void sc_finding_add(sc_thread *t, const sc_hit *h, unsigned weight);
/* range: the innermost NVTX range of the calls (ranges.h); it is part of
   every table's key, so one call site in two ranges is two aggregates.
   rl: the call's record in the run log (runlog.h), 0 none. */
void sc_alloc_site_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, uint64_t bytes,
                       uint64_t blocked_ns, unsigned device, unsigned range, uint32_t rl);
void sc_redirect_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, unsigned outcome,
                     unsigned weight);   /* weight > 1: a sampled call standing for that many */
void sc_legacy_site_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, unsigned weight,
                        unsigned device, unsigned lid, unsigned range);   /* lid: the thread lifetime (hb.h) */

/* How detect mode prices a rule's findings, and one event's cost. */
unsigned sc_rule_cost_basis(unsigned rule);   /* an sc_cost_basis (report.h) */
uint64_t sc_rule_cost(unsigned rule, uint64_t blocked_ns, int pending);

void sc_aggs_foreach(int table, void (*fn)(const sc_agg_key *, const sc_agg_val *, void *), void *arg);

#endif
