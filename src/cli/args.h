/* args.h: the launcher's command line (args.c): the long options of the
 * settings (options.def) and its own (args.def), and --help made of both. */
#ifndef SC_ARGS_H
#define SC_ARGS_H

#include "options.h"

#define SC_PROG "streamcheck"   /* the launcher's name in its messages */

/* What the command line asks for. */
typedef struct sc_launch {
    int simulate;                /* --simulate */
    int selftest;                /* --selftest */
    int fail_on;                 /* -1 never, else an sc_severity */
    int fail_on_given;           /* --fail-on was given */
    int error_exitcode;
    int error_exitcode_given;    /* --error-exitcode was given */
    const char *set[SC_NOPTS];   /* STREAMCHECK_* values to export */
} sc_launch;

/* Parses the options before the program's name into l.  Returns -1 with
   the program's argv at argv + *prog (*prog == argc: none given), or the
   launcher's exit status when it is done: 0 after --help, --version or
   --list-rules.  A bad option or value is said in one line on stderr and
   exits 2. */
int sc_launch_parse(int argc, char **argv, sc_launch *l, int *prog);

#endif /* SC_ARGS_H */
