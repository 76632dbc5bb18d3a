/* finish.c: the launcher finishes the reports its program's processes left
 * in the status folder unsymbolized (status.h, "deferred"): it names their
 * frames from module + offset, applies the settings as the shim would have
 * (filter.c: the suppressions may match on what the frames now say), and
 * writes them where and as the user asked.  The program has exited by
 * then: its exit paid none of it (PyTorch processes paid 2 s each,
 * symbolizing inside the program).  The processes share one
 * symbolizer, so each library is read once for all ranks. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "filter.h"
#include "finish.h"
#include "report.h"

void sc_finish_wrote(const sc_finish *f, const char *path)
{
    size_t n = f->cwd ? strlen(f->cwd) : 0;
    if (f->quiet)
        return;
    if (n && !strncmp(path, f->cwd, n) && path[n] == '/')
        path += n + 1;
    fprintf(stderr, "%s: wrote %s\n", SC_PROG, path);
}

/* The files written, said after the text report, where a person looks. */
typedef struct wrote {
    const sc_finish *f;
    const char *dir;
    char **paths;
    size_t n;
} wrote;

static void on_file(void *arg, sc_format fmt, const char *path, int err, int fallback)
{
    wrote *w = arg;
    if (path) {
        char **p = realloc(w->paths, (w->n + 1) * sizeof *p);
        if (p && (p[w->n] = strdup(path)))
            w->n++;
        if (p)
            w->paths = p;
        return;
    }
    const char *what = sc_formats[sc_format_index(fmt)].label;
    fprintf(stderr, "%s: cannot write the %s report in '%s' (%s)%s\n", SC_PROG, what, w->dir, strerror(err),
            fallback ? "; writing it to stderr instead" : "");
}

static void name_frames(sc_finish *f, sc_report *r)
{
    if (!f->syms_tried) {
        f->syms = sc_symbols_open(NULL);
        f->syms_tried = 1;
    }
    sc_symbols_limit(f->syms, (unsigned long)f->opt->symbolize_ms);
    long late = sc_report_symbolize(r, f->syms, 0);
    if (late > 0)
        fprintf(stderr, "%s: symbolization stopped after %ld ms (STREAMCHECK_SYMBOLIZE_MS): %ld native frames "
                "of the least costly call sites are named from their module's symbol table only, "
                "without file:line\n", SC_PROG, f->opt->symbolize_ms, late);
}

int sc_finish_report(sc_finish *f, sc_pstatus *p)
{
    char err[1024];
    sc_report *r = sc_report_new();
    if (!r || sc_report_read_json(r, p->deferred, err, sizeof err) < 0 || !r->nprocs) {
        fprintf(stderr, "%s: the report of process %ld cannot be read: %s\n", SC_PROG, p->pid,
                r ? err : strerror(ENOMEM));
        sc_report_free(r);
        return -1;
    }
    name_frames(f, r);
    if (sc_report_apply_settings(r, f->opt, err, sizeof err))
        fprintf(stderr, "%s: %s; reporting without suppressions\n", SC_PROG, err);
    sc_render_opts o = sc_render_opts_for(f->opt, p->cwd ? p->cwd : f->cwd);
    char name[1024];
    if (p->name && *p->name && !strchr(p->name, '/'))
        snprintf(name, sizeof name, "%s", p->name);
    else
        sc_report_file_base(&r->procs[0], name, sizeof name);
    wrote w = {f, f->opt->output[0] ? f->opt->output : f->cwd ? f->cwd : ".", NULL, 0};
    int all = sc_report_write_outputs(r, f->opt->formats, &o, w.dir, name, stderr, on_file, &w) == 0;
    int again = 0;
    for (size_t i = 0; i < w.n; i++) {
        sc_finish_wrote(f, w.paths[i]);
        again |= p->snapshot && !strcmp(p->snapshot, w.paths[i]);
        free(w.paths[i]);
    }
    /* The finished report replaces the process's last --snapshot. */
    if (p->snapshot && all && !again)
        unlink(p->snapshot);
    free(w.paths);
    uint64_t e = 0, wn = 0, n = 0;
    sc_report_totals(r, &e, &wn, &n);
    p->state = SC_PS_DONE;
    p->errors = e, p->warnings = wn, p->notes = n, p->findings = e + wn + n;
    sc_report_free(r);
    return 0;
}

void sc_finish_end(sc_finish *f)
{
    sc_symbols_close(f->syms);
    f->syms = NULL;
}
