/* options.h: STREAMCHECK_* settings (options.def), from the environment and
 * an optional file named by STREAMCHECK_CONFIG; the environment wins. */
#ifndef SC_OPTIONS_H
#define SC_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "formats.h"   /* sc_format: the values of STREAMCHECK_FORMAT and --format */

typedef enum sc_opt_id {
#define SC_OPT(NAME, TYPE, DEF, ACCEPTS, HELP) SC_OPT_##NAME,
#include "options.def"
#undef SC_OPT
    SC_NOPTS
} sc_opt_id;

typedef struct sc_options {
    int disable;
    char output[4096];
    unsigned formats;          /* sc_format bits */
    int stack_depth;
    int python_depth;
    int log_level;             /* SC_LOG_* (sc.h) */
    int dump_config;
    int profile;               /* STREAMCHECK_PROFILE: the phase table at exit */
    int redirect;              /* 0 off, 1 per-thread */
    int measure;               /* measured mode (CUPTI); also on with SC_FMT_TRACE */
#define SC_RDM_ENTRY 0         /* call the per-thread (_ptsz/_ptds) entry point */
#define SC_RDM_HANDLE 1        /* pass CU_STREAM_PER_THREAD */
#define SC_RDM_STREAM 2        /* pass a blocking stream the shim made for the thread */
    int redirect_method;       /* SC_RDM_ENTRY, SC_RDM_HANDLE or SC_RDM_STREAM */
    unsigned long long rules;  /* bit per rule; 0 = all */
    unsigned long long ignore; /* bit per rule */
    char suppressions[4096];
    char source_root[4096];    /* "": the current directory when the report is written */
    long alloc_loop_min;
    long sync_frequent;
    long top;                  /* text report: findings shown in full; 0 = all */
    long symbolize_ms;         /* exit: time limit for libdw; 0 = none */
    long warn_cost_us;         /* a warning costs at least this (sc_judge_opts) */
    long warn_share_bp;        /* ... and this share of the run, 1/100 % */
    char status_dir[4096];
    const char *source[SC_NOPTS]; /* "default", "environment" or the config file */
} sc_options;

/* Loads defaults, then STREAMCHECK_CONFIG, then the environment.  Bad values
   are reported (once, one line each, naming the variable and what it
   accepts) through warn(), and the default is kept. */
void sc_options_load(sc_options *o, void (*warn)(const char *msg));

/* Validates one value; 0 if fine, else -1 and a one-line reason in err. */
int sc_option_check(sc_opt_id id, const char *value, char *err, size_t errlen);
int sc_option_lookup(const char *name);   /* "FORMAT" or "STREAMCHECK_FORMAT"; -1 if unknown */
const char *sc_option_name(sc_opt_id id); /* "FORMAT" */
void sc_options_dump(const sc_options *o, FILE *out);

/* Parses "SC101,blocking-stream" into rule bits; -1 on an unknown rule. */
int sc_rules_parse(const char *s, unsigned long long *out, char *err, size_t errlen);

#endif /* SC_OPTIONS_H */
