/* report.h: the report data model.
 *
 * The shim fills one sc_report at process exit and renders it; the
 * `streamcheck report` tool reads JSON reports back into the same model,
 * merges several (one per process, e.g. all ranks of a Slurm job) and renders
 * them again.  Every renderer takes only this model, so a merged report and a
 * live one look the same.
 *
 * Strings are owned by the report (malloc'd; freed by sc_report_free).
 */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rules.h"

/* Bump when a field changes meaning or disappears; adding fields is free. */
#define SC_SCHEMA_VERSION 1

typedef enum sc_format {
    SC_FMT_TEXT = 1 << 0,
    SC_FMT_JSON = 1 << 1,
    SC_FMT_SARIF = 1 << 2,
    SC_FMT_JUNIT = 1 << 3,
} sc_format;

/* One native frame: pc - 1 as module + offset, symbolized when possible. */
typedef struct sc_frame {
    char *module;      /* path of the ELF object; NULL if unknown */
    uint64_t offset;   /* (pc - 1) - load base of module */
    char *function;    /* demangled or raw symbol; NULL if unknown */
    char *file;        /* source file; NULL if no debug info */
    unsigned line;     /* 0 if unknown */
} sc_frame;

/* One Python frame (innermost first), captured while the thread held the GIL. */
typedef struct sc_pyframe {
    char *file;
    unsigned line;
    char *function;
} sc_pyframe;

typedef struct sc_callsite {
    char id[17];       /* 16 lowercase hex digits: stable hash of the frames */
    size_t nframes;
    sc_frame *frames;  /* innermost first; the shim's own frames are not here */
    size_t npy;
    sc_pyframe *py;    /* innermost first */
} sc_callsite;

/* Findings are aggregated per (process, rule, severity, api, call site). */
typedef struct sc_finding {
    sc_rule_id rule;
    sc_severity severity;
    char *api;          /* runtime API when known (cudaMemcpyAsync), else the driver one */
    char *driver_api;   /* driver entry point (cuMemcpyDtoHAsync_v2); may equal api */
    char callsite[17];  /* id into sc_report.callsites; "" when none */
    char *detail;       /* one line about this aggregate; may be NULL */
    uint64_t count;     /* events */
    uint64_t blocked_ns;/* host time spent inside the intercepted calls, summed */
    uint64_t pending;   /* events at which another stream had unfinished work */
    uint64_t bytes;     /* bytes moved or allocated, summed, when meaningful */
    uint64_t lost_ns;   /* upper bound of time lost: blocked_ns of the events
                           that found other work pending */
    unsigned process;   /* index into sc_report.procs */
} sc_finding;

/* Driver calls seen, per calling library. */
typedef struct sc_api_count {
    char *library;      /* soname or basename of the caller's ELF object */
    char *api;          /* driver entry point as exported (cuLaunchKernel, cuMemcpyHtoDAsync_v2_ptsz) */
    uint64_t calls;
    unsigned process;
} sc_api_count;

/* What redirect mode did, per (api, call site, outcome). */
typedef struct sc_redirect {
    char *api;
    char callsite[17];
    char *outcome;      /* "redirected", or the reason it was not ("capture-active", ...) */
    uint64_t count;
    unsigned process;
} sc_redirect;

typedef struct sc_process {
    char *exe;          /* path of the program */
    char *cmdline;      /* arguments joined with spaces; may be NULL */
    long pid;
    char *host;
    char *device;       /* "NVIDIA H100 80GB HBM3"; NULL if no device was queried */
    int driver_version; /* cuDriverGetVersion, e.g. 13000; 0 if unknown */
    int async_engines;  /* CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT; -1 if unknown */
    int max_connections;/* CUDA_DEVICE_MAX_CONNECTIONS in effect */
    char *mode;         /* "detect" or "redirect=per-thread" */
    int simulated;      /* ran on the streamcheck CPU simulator */
    double start_time;  /* seconds since the epoch */
    double end_time;
    uint64_t calls;     /* intercepted driver calls */
    uint64_t shim_ns;   /* time spent in streamcheck's own code (estimate) */
    uint64_t suppressed;/* findings dropped by --rules/--ignore/--suppressions */
} sc_process;

typedef struct sc_report {
    char *tool_version;
    sc_process *procs;       size_t nprocs;
    sc_api_count *counts;    size_t ncounts;
    sc_finding *findings;    size_t nfindings;
    sc_callsite *callsites;  size_t ncallsites;
    sc_redirect *redirects;  size_t nredirects;
} sc_report;

/* Options a renderer honours. */
typedef struct sc_render_opts {
    int color;          /* text: ANSI colour */
    unsigned max_frames;/* text: frames shown per call site (0 = 4) */
    int verbose;        /* text: also list per-library api counts */
} sc_render_opts;

/* ---- model (report.c) ---- */
sc_report *sc_report_new(void);
void sc_report_free(sc_report *r);
const sc_callsite *sc_report_callsite(const sc_report *r, const char *id);
/* Sorts findings (severity, then count), counts and callsites, so every
   renderer prints in the same, reproducible order. */
void sc_report_sort(sc_report *r);
/* Appends src to dst, renumbering processes and merging identical call sites. */
int sc_report_merge(sc_report *dst, const sc_report *src);
/* Totals by severity over all findings. */
void sc_report_totals(const sc_report *r, uint64_t *errors, uint64_t *warnings, uint64_t *notes);

/* ---- renderers; each returns 0 or -1 with errno set ---- */
int sc_render_text(const sc_report *r, FILE *out, const sc_render_opts *o);
int sc_render_json(const sc_report *r, FILE *out);
int sc_render_sarif(const sc_report *r, FILE *out);
int sc_render_junit(const sc_report *r, FILE *out);

/* The one line CI greps, without a newline:
   "streamcheck: N findings (E errors, W warnings, I notes)" */
void sc_summary_line(const sc_report *r, char *buf, size_t len);

/* Writes DIR/<exe>.<pid>.streamcheck.<ext> through a temporary file and
   rename(2).  Returns 0, or -1 with errno set; the path written goes to
   path_out when not NULL. */
int sc_report_write_file(const sc_report *r, sc_format fmt, const char *dir,
                         const char *exe_base, long pid, char *path_out, size_t path_len);

/* ---- reader (report_read.c): parses a JSON report and merges it into r.
   Returns 0, or -1 with a one-line reason in err (file name included). */
int sc_report_read_json(sc_report *r, const char *path, char *err, size_t errlen);

#endif /* SC_REPORT_H */
