/* finish.h: the reports the program's processes left to the launcher
 * (finish.c). */
#ifndef SC_FINISH_H
#define SC_FINISH_H

#include "options.h"
#include "status.h"
#include "symbols.h"

/* What finishing the reports of one run needs. */
typedef struct sc_finish {
    const sc_options *opt;   /* the settings, as the processes read them */
    const char *cwd;         /* the launch directory: paths below it are shown relative */
    int quiet;               /* --log-level quiet: no "wrote" lines */
    sc_symbols *syms;        /* shared by the processes: each module read once */
    int syms_tried;
} sc_finish;

/* Finishes the report a process left unsymbolized (p->deferred), as its
   shim would have at exit: names its frames, applies the settings, writes
   the files asked for into the output folder and the text report (or the
   summary line) on stderr, and says each file it wrote.  p then holds the
   counts (state SC_PS_DONE).  0, or -1 after saying why the report could
   not be read. */
int sc_finish_report(sc_finish *f, sc_pstatus *p);
/* "streamcheck: wrote PATH", PATH relative to the launch directory when
   below it. */
void sc_finish_wrote(const sc_finish *f, const char *path);
void sc_finish_end(sc_finish *f);

#endif /* SC_FINISH_H */
