/* price.h: the report's findings priced by what their fixes would save
 * (price.c glues the recorded run, the GPU's busy time and this machine's
 * copy rates to the pricing model, pricing.h). */
#ifndef SC_PRICE_H
#define SC_PRICE_H

#include <stdint.h>

struct sc_agg_key;

/* Where the model's GPU busy time came from. */
enum { SC_PRICE_WAITS = 0, SC_PRICE_SAMPLED, SC_PRICE_MEASURED };

/* Builds and replays the model, once, at report time. */
void sc_price_run(void);
/* What fixing the aggregate would save: 1 and *saving, or 0 when the
   model does not price it (its rule's fix is not modelled, or no model). */
int sc_price_of(const struct sc_agg_key *k, uint64_t *saving);
/* 1 where the aggregate is an SC102 of a site whose first SC102 finding
   carries the price of their one fix (the stream created non-blocking):
   sc_price_of gives it 0, so that one fix is one warning. */
int sc_price_alias(const struct sc_agg_key *k);
/* The waits right after the aggregate's calls that its fix took along in
   that price, which found the GPU drained by them (a step's accuracy
   .item() after its loss.item(), SC403): 0 where none. */
uint32_t sc_price_shadowed(const struct sc_agg_key *k);
/* A call site of fewer calls than this is no loop's: an SC403 candidate
   there is not reported, a pinning fix there not priced (price.c). */
#define SC_FEW_CALLS 3
/* A candidate of `rule` (SC403, SC703) is reported, and fixed in the
   "everything fixed" prediction, only where its fix saves this share
   (hundredths of a percent) of the time its share is of, and --warn-cost;
   0 for the other rules.  SC703, a restructuring, at least 5%. */
#define SC703_MIN_BP 500
unsigned sc_price_keep_bp(unsigned rule);
/* Where other kept findings share k's fix: what fixing all of them at
   once saves, and how many they are (k's included); 0 when none does. */
int sc_price_together(const struct sc_agg_key *k, uint64_t *saving, uint32_t *n);
/* Whether the model priced the aggregate k at its bar or more (the report
   keeps it; "everything fixed" fixes it): 0 below it, or unpriced; 1 for
   one whose calls all came after the part of a long run the model held,
   which it could not judge (the report keeps it at its other cost). */
int sc_price_keeps(const struct sc_agg_key *k);
/* What moving every racing thread's legacy-stream work to streams of
   their own would save (SC103, all its call sites together). */
uint64_t sc_price_sc103(void);
/* The active window the shares are of, the run replayed as it was and
   with every finding fixed, and where the GPU's busy time came from:
   1, or 0 when there is no model. */
int sc_price_window(uint64_t *window, uint64_t *model, uint64_t *fixed, int *source);
/* The steady loop the shares are of where one is recognized (pricing.h,
   sc_pr_price), else 0. */
uint64_t sc_price_loop(void);
/* In a long run, where a thread's log reached its bound: the part of the
   window the model held (the rest is extrapolated), else 0. */
uint64_t sc_price_held(void);
/* 1 where the aggregate k's calls all came before the steady loop or after
   it (a finding of the set-up or the teardown, whose share stays of the
   window). */
int sc_price_off_loop(const struct sc_agg_key *k);

#endif
