/* options.h: STREAMCHECK_* settings (options.def), from the environment and
 * an optional file named by STREAMCHECK_CONFIG; the environment wins. */
#ifndef SC_OPTIONS_H
#define SC_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "formats.h"   /* sc_format: the values of STREAMCHECK_FORMAT and --format */

typedef enum sc_opt_id {
#define SC_OPT(NAME, MEMBER, TYPE, DEF, ACCEPTS, HELP, FLAG) SC_OPT_##NAME,
#include "options.def"
#undef SC_OPT
    SC_NOPTS
} sc_opt_id;

/* A PATH setting's value: a string of fewer than SC_OPT_PATH_MAX bytes. */
#define SC_OPT_PATH_MAX 4096
typedef char sc_opt_path[SC_OPT_PATH_MAX];

/* A WINDOW setting's value: START:LENGTH seconds, or START: to the end
   (length 0); set is 0 for none (an empty value). */
typedef struct sc_opt_window { int set; double start, length; } sc_opt_window;

/* The C type of each TYPE of options.def. */
#define SC_OPT_CTYPE_BOOL int
#define SC_OPT_CTYPE_INT(min, max) long
#define SC_OPT_CTYPE_ENUM(...) int
#define SC_OPT_CTYPE_FORMATS unsigned
#define SC_OPT_CTYPE_RULES unsigned long long
#define SC_OPT_CTYPE_PATH sc_opt_path
#define SC_OPT_CTYPE_TEXT sc_opt_path
#define SC_OPT_CTYPE_WINDOW sc_opt_window

/* The values of REDIRECT_METHOD: the order of its ENUM in options.def.
   LOG_LEVEL's are SC_LOG_* (sc.h), in the same way. */
#define SC_RDM_ENTRY 0         /* call the per-thread (_ptsz/_ptds) entry point */
#define SC_RDM_HANDLE 1        /* pass CU_STREAM_PER_THREAD */
#define SC_RDM_STREAM 2        /* pass a blocking stream the shim made for the thread */

/* One member per row of options.def (what each holds is said there), and
   where each value came from. */
typedef struct sc_options {
#define SC_OPT(NAME, MEMBER, TYPE, DEF, ACCEPTS, HELP, FLAG) SC_OPT_CTYPE_##TYPE MEMBER;
#include "options.def"
#undef SC_OPT
    const char *source[SC_NOPTS]; /* "default", "environment" or the config file */
} sc_options;

typedef enum sc_opt_type {
    SC_OPT_T_BOOL, SC_OPT_T_INT, SC_OPT_T_ENUM, SC_OPT_T_FORMATS, SC_OPT_T_RULES, SC_OPT_T_PATH,
    SC_OPT_T_WINDOW,
} sc_opt_type;

/* A row of options.def. */
typedef struct sc_option_info {
    const char *name;          /* "STACK_DEPTH" */
    size_t offset;             /* of its member in sc_options */
    sc_opt_type type;
    long min, max;             /* INT */
    const char *const *values; /* ENUM: the names, NULL ended; the value is the index */
    const char *def;
    const char *accepts;
    const char *help;
    const char *flag;          /* the launcher's --FLAG; NULL: none */
    const char *flag_arg;      /* its value's name in --help; NULL: it takes none and sets 1 */
    const char *flag_help;     /* its --help text, lines split by '\n' */
    int internal;              /* set by the launcher: not read from a config file */
} sc_option_info;

extern const sc_option_info sc_option_table[SC_NOPTS];

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
