/* selftest.h: `streamcheck --selftest` (selftest.c). */
#ifndef SC_SELFTEST_H
#define SC_SELFTEST_H

/* Runs the installed test apps, each plainly and under the launcher, on
   this machine's GPU (on the simulator when there is none or simulate is
   set), prints a table and returns the launcher's exit status: 0 when every
   app passed or was skipped, 1 when one failed, 2 when the apps or the
   simulator cannot be found. */
int sc_cli_selftest(int simulate);

#endif /* SC_SELFTEST_H */
