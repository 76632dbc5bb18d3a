/* aggkey.h: the key and the sums of one aggregate of findings (findings.c
 * keeps them; measure.c prices them).  A header of its own so that both can
 * include it without including each other. */
#ifndef SC_AGGKEY_H
#define SC_AGGKEY_H

#include <stdint.h>

typedef struct sc_agg_key {
    uint64_t site;
    uint16_t api;
    uint16_t rt;
    uint8_t rule;     /* findings: rule; redirects: outcome; alloc sites: 0;
                         legacy sites: with sev, the thread lifetime (hb.h) */
    uint8_t sev;
    uint8_t table;    /* SC_AGG_* */
    uint8_t device;   /* ordinal of the call's device; SC_DEV_UNKNOWN (0xff) */
    uint32_t range;   /* the innermost NVTX range the calls were in (ranges.h) */
    uint32_t spare;   /* 0: the key has no padding, so keys compare with memcmp */
} sc_agg_key;

typedef struct sc_agg_val {
    uint64_t count, blocked_ns, pending, bytes, lost_ns;
    uint64_t cost_ns;   /* what the events cost, as the rule's basis estimates it */
    uint32_t also;      /* other rules the same calls broke (bit per rule) */
    uint64_t sampled;   /* events counted by sampling (weight > 1) */
} sc_agg_val;

enum { SC_AGG_FINDING = 1, SC_AGG_ALLOC = 2, SC_AGG_REDIRECT = 3, SC_AGG_LEGACY = 4 };

#endif
