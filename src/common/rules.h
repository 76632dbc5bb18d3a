/* rules.h: the rule catalogue (rules.def) as C data. */
#ifndef SC_RULES_H
#define SC_RULES_H

#include <stddef.h>
#include <stdint.h>

typedef enum sc_severity {
    SC_SEV_NOTE = 0,
    SC_SEV_WARNING = 1,
    SC_SEV_ERROR = 2,
} sc_severity;

typedef enum sc_rule_id {
#define SC_RULE(ID, NAME, SEV, DOC, SUMMARY, DETAIL, ADVICE, BEFORE, AFTER) SC_RULE_##ID,
#include "rules.def"
#undef SC_RULE
    SC_NRULES
} sc_rule_id;

typedef struct sc_rule_info {
    const char *id;       /* "SC101" */
    const char *name;     /* "legacy-default-stream" */
    sc_severity severity; /* default */
    const char *doc;
    const char *summary;
    const char *detail;
    const char *advice;
    const char *before;
    const char *after;
} sc_rule_info;

extern const sc_rule_info sc_rules[SC_NRULES];

/* What the shim and the report do with a rule's findings (rules.def,
   SC_RULE_FACTS). */
enum {   /* COST: the values of sc_cost_basis (report.h) */
    SC_RULE_COST_UNMEASURED = 0,
    SC_RULE_COST_COPY_BLOCKED,
    SC_RULE_COST_HOST_BLOCKED,
    SC_RULE_COST_PENDING_BLOCKED,
};

enum {   /* HELD */
    SC_HELD_NO = 0,
    SC_HELD_READ,       /* a synchronization with nothing submitted since makes it a read */
    SC_HELD_HOST,       /* costs only if the host had more to submit right after */
    SC_HELD_BARRIER,    /* holds back only work submitted to other streams after it */
};

enum {   /* TRAITS */
    SC_RF_BARRIER = 1,  /* the call holds back other streams' later work */
    SC_RF_SAMPLED = 2,  /* its notes are sampled past a thread's first 256 */
    SC_RF_IDLE = 4,     /* a synchronization that found nothing to wait for */
};

enum {   /* FIX: how the fix changes the run (the pricing model, src/shim/pricing.h) */
    SC_FIX_NONE = 0,
    SC_FIX_NO_WAIT,     /* the wait goes */
    SC_FIX_PIN,         /* the copy is queued from pinned memory, at the pinned rate */
    SC_FIX_STREAM,      /* the wait is for the thread's own stream, not the device */
    SC_FIX_OWN_STREAM,  /* the thread's legacy-stream work goes to a stream of its own */
    SC_FIX_DROP,        /* the call goes (an allocation hoisted) */
    SC_FIX_PIPELINE,    /* the stream's pinned copies go to a stream per direction */
    SC_FIX_SPREAD,      /* a library handle's legacy-stream kernels go to the program's streams */
    SC_FIX_UNBARRIER,   /* the call's legacy-stream work goes to a stream of the thread's own */
    SC_FIX_NONBLOCK,    /* the streams created at the finding's site are created non-blocking */
    SC_FIX_QUEUES,      /* CUDA_DEVICE_MAX_CONNECTIONS=32: a hardware queue per busy stream */
};

typedef struct sc_rule_facts {
    uint8_t specificity;  /* lower: reported first when one call breaks several rules */
    uint8_t cost;         /* SC_RULE_COST_*: how detect mode prices a finding */
    uint8_t held;         /* SC_HELD_*: what decides the finding after the call */
    uint8_t traits;       /* SC_RF_* */
    uint8_t fix;          /* SC_FIX_*: how the pricing model applies its fix */
} sc_rule_facts;

extern const sc_rule_facts sc_rule_props[SC_NRULES];

/* By "SC101" or "legacy-default-stream" (case-insensitive); -1 if unknown. */
int sc_rule_lookup(const char *id_or_name);
const char *sc_severity_name(sc_severity s);          /* "note", "warning", "error" */
int sc_severity_parse(const char *s, sc_severity *out); /* 0 or -1 */

#endif /* SC_RULES_H */
