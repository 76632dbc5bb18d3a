/* run.h: runs the program under the shim (run.c). */
#ifndef SC_RUN_H
#define SC_RUN_H

#include "args.h"

/* Runs argv (NULL ended, argv[0] looked up in PATH) with the shim
   preloaded and the settings of l exported.  Returns the program's exit
   status, l->error_exitcode when its findings reach l->fail_on, 127 or 126
   when it cannot be run, 2 when the shim or the simulator is missing. */
int sc_cli_run(char **argv, const sc_launch *l);

#endif /* SC_RUN_H */
