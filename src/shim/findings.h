/* findings.h: per-call-site aggregation of what the shim saw (mpiP style). */
#ifndef SC_FINDINGS_H
#define SC_FINDINGS_H

#include <stdint.h>

#include "sc.h"

typedef struct sc_agg_key {
    uint64_t site;
    uint16_t api;
    uint16_t rt;
    uint8_t rule;     /* findings: rule; redirects: outcome; alloc sites: 0 */
    uint8_t sev;
    uint8_t table;    /* SC_AGG_* */
    uint8_t pad;
} sc_agg_key;

typedef struct sc_agg_val {
    uint64_t count, blocked_ns, pending, bytes, lost_ns;
    uint64_t cost_ns;   /* what the events cost, as the rule's basis estimates it */
    uint32_t also;      /* other rules the same calls broke (bit per rule) */
    uint64_t sampled;   /* events counted by sampling (weight > 1) */
} sc_agg_val;

enum { SC_AGG_FINDING = 1, SC_AGG_ALLOC = 2, SC_AGG_REDIRECT = 3, SC_AGG_LEGACY = 4 };

/* Redirect outcomes. */
enum {
    SC_RD_REDIRECTED = 1,
    SC_RD_CAPTURE,          /* a stream capture was in progress */
    SC_RD_BLOCKING,         /* blocking streams exist: the legacy stream orders them */
    SC_RD_EXPLICIT_LEGACY,  /* the program asked for cudaStreamLegacy by name */
    SC_RD_NO_ENTRY,         /* no per-thread entry point to call */
    SC_RD_NO_ORDER,         /* could not order it after the thread's own stream */
    SC_RD_NOUTCOMES
};
extern const char *const sc_redirect_outcomes[SC_RD_NOUTCOMES];

/* How detect mode prices a rule's findings, and one event's cost. */
unsigned sc_rule_cost_basis(unsigned rule);   /* an sc_cost_basis (report.h) */
uint64_t sc_rule_cost(unsigned rule, uint64_t blocked_ns, int pending);

void sc_aggs_foreach(int table, void (*fn)(const sc_agg_key *, const sc_agg_val *, void *), void *arg);

/* Measured mode (measure.c, measure.h) learns which aggregate each event
   was counted in.  Declared here because findings.c calls it and
   measure.h includes this header (the includes of src/shim have no
   cycle). */
extern SC_TLS uint32_t sc_measure_tls_mid;   /* the current call's event, 0: none */
void sc_measure_commit(uint32_t mid, const sc_agg_key *k, uint32_t also, unsigned weight);

#endif
