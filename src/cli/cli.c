/* cli.c: the streamcheck launcher.
 *
 *   streamcheck [options] [--] program [args...]
 *   streamcheck report [options] FILE.json...
 *   streamcheck --selftest [--simulate]
 *   streamcheck --list-rules | --version | --help
 *
 * It never loads CUDA itself.  It turns its options into STREAMCHECK_*
 * variables (args.c), preloads libstreamcheck.so (found relative to the
 * launcher, so an installed tree can be moved: locate.c), runs the program,
 * passes its exit status through, and applies --fail-on to the counts each
 * process leaves in a private status directory (run.c).  Bad options exit 2
 * before the program starts.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli_report.h"
#include "report.h"
#include "run.h"
#include "selftest.h"

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "report"))
        return sc_cli_report(argc - 1, argv + 1);

    sc_launch l;
    int prog = argc;
    int rc = sc_launch_parse(argc, argv, &l, &prog);
    if (rc >= 0)
        return rc;
    if (l.selftest)
        return sc_cli_selftest(l.simulate);
    if (prog >= argc) {
        fprintf(stderr, "%s: no program to run (see streamcheck --help)\n", SC_PROG);
        return 2;
    }
    return sc_cli_run(argv + prog, &l);
}
