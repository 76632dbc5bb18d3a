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

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"
#include "rules.h"

/* Bump when a field changes meaning or disappears; adding fields is free.
   2: severity follows cost_ns (sc_report_judge); cost_ns, cost_basis and
   also added.
   3: measured mode: process.gpu (null when the process was not measured)
   and each finding's gpu_lost_ns (null when not measured); in a measured
   process cost_ns is gpu_lost_ns (cost_basis "gpu-timeline").
   4: findings priced by what their fix saves (cost_basis "replay",
   "replay-measured"); process.window_ns, model_ns, fixed_ns, busy_source.
   Version 1, 2 and 3 reports are still read. */
#define SC_SCHEMA_VERSION 4

/* One native frame: pc - 1 as module + offset, symbolized when possible. */
typedef struct sc_frame {
    char *module;      /* path of the ELF object; NULL if unknown */
    char *build_id;    /* its GNU build ID in lowercase hex; NULL if it has none */
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
    sc_frame *frames;  /* innermost first; the shim's own frames and NVIDIA's
                          libraries (sc_nvidia_library) are not here */
    size_t npy;
    sc_pyframe *py;    /* innermost first */
    char *thread_name; /* the name of a thread other than the main one that
                          reached it (pt_autograd_0); NULL if none */
} sc_callsite;

/* How a finding's cost was estimated (sc_cost_basis_name gives the JSON
   spelling).  Detect mode sees the host, not the GPU: for a serialization
   whose cost shows only on the GPU it says SC_COST_UNMEASURED, and
   --measure gives the cost from the GPU timeline. */
typedef enum sc_cost_basis {
    SC_COST_UNMEASURED = 0,  /* "unmeasured": seen, cost needs --measure */
    SC_COST_COPY_BLOCKED,    /* "copy-blocked": host time inside the copy, less the
                                wait for its stream's earlier work */
    SC_COST_HOST_BLOCKED,    /* "host-blocked": host time inside the calls */
    SC_COST_PENDING_BLOCKED, /* "blocked-while-pending": host time inside the calls
                                that found other streams busy (an upper bound) */
    SC_COST_GPU,             /* "gpu-timeline": measured on the GPU timeline */
    SC_COST_REPLAY,          /* "replay": what its fix saves, the run replayed with the
                                fix applied (libstreamcheck(7), PRICING) */
    SC_COST_REPLAY_MEASURED, /* "replay-measured": the same, the GPU's busy time measured */
    SC_NCOST_BASES
} sc_cost_basis;
const char *sc_cost_basis_name(sc_cost_basis b);
_Static_assert(SC_NRULES <= 32, "sc_finding.also has a bit per rule");
int sc_cost_basis_parse(const char *s, sc_cost_basis *out);   /* 0 or -1 */

/* Findings are aggregated per (process, rule, severity, api, call site,
   NVTX range). */
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
    uint64_t cost_ns;   /* what this finding cost the run, estimated as
                           cost_basis says; the ranking and severity follow it */
    sc_cost_basis basis;/* how cost_ns was estimated */
    uint32_t also;      /* bit per rule: other rules the same calls broke
                           (one call, one finding: the most specific rule) */
    unsigned process;   /* index into sc_report.procs */
    uint64_t window_ns; /* what its share is of, where not what its process's are of: the
                           active window of a finding of the set-up, before the loop; 0 */
    uint64_t together_ns; /* where other findings of its process have the same fix (pinning,
                           a wait moved, ...): what fixing all of them at once saves, which is
                           less than their costs added up where they overlap; 0 */
    uint64_t together_n;  /* how many findings that is (2 or more), with together_ns; 0 */
    int measured;       /* gpu_lost_ns is valid (measured mode saw these calls) */
    uint64_t gpu_lost_ns; /* measured mode: GPU time the calls cost, a union on
                           the device's timeline (libstreamcheck(7), Measured mode) */
    int device;         /* ordinal of the device the calls were made on (the
                           current context's); -1 when unknown */
    char *nvtx_range;   /* the innermost NVTX range the calls were in; NULL if none */
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

/* ---- measured mode (--measure): what the GPU did, per process ---- */
/* One stream's busy time (the union of its operations). */
typedef struct sc_gpu_stream {
    uint32_t device;
    uint32_t stream;    /* CUPTI stream id (cuStreamGetId) */
    uint64_t busy_ns;
    uint64_t ops;
} sc_gpu_stream;

/* One device over the process's run: span is first operation start to last
   end; busy the union of all operations (kernels, copies, memsets); idle =
   span - busy; overlap the time with two or more operations at once, of
   which compute_copy has a kernel and a copy or memset, compute_compute two
   kernels or more. */
typedef struct sc_gpu_device {
    uint32_t device;
    uint64_t span_ns, busy_ns, idle_ns, overlap_ns;
    uint64_t overlap_compute_copy_ns, overlap_compute_compute_ns;
    uint64_t ops;
} sc_gpu_device;

typedef struct sc_gpu {
    /* sums over the devices (one device: that device's numbers) */
    uint64_t span_ns, busy_ns, idle_ns, overlap_ns;
    uint64_t overlap_compute_copy_ns, overlap_compute_compute_ns;
    uint64_t ops;        /* GPU operations recorded */
    uint64_t ops_kept;   /* of which kept in the timeline (sc_report.gpu_ops) */
    uint64_t dropped;    /* activity records CUPTI dropped (numbers are then low) */
    int handed_over;     /* the program's own profiler took CUPTI ... */
    uint64_t handed_over_ns;  /* ... this long into the run: the timeline ends there */
    int windowed;        /* recorded in a window of the run (--measure-window) ... */
    uint64_t window_start_ns, window_end_ns;   /* ... from, to (ns into the run); the
                                                  findings' GPU costs are scaled from it */
    sc_gpu_device *devices; size_t ndevices;
    sc_gpu_stream *streams; size_t nstreams;   /* by device, then stream */
} sc_gpu;
/* A device a process used (a context on it made calls). */
typedef struct sc_device_info {
    int ordinal;        /* CUDA device ordinal, as the process numbered it */
    char *name;         /* "NVIDIA H100 80GB HBM3"; NULL if not queried */
} sc_device_info;

typedef struct sc_process {
    char *exe;          /* path of the program */
    char *cmdline;      /* arguments joined with spaces; may be NULL */
    long pid;
    char *host;
    char *device;       /* "NVIDIA H100 80GB HBM3"; NULL if no device was queried */
    int driver_version; /* cuDriverGetVersion, e.g. 13000; 0 if unknown */
    int async_engines;  /* CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT; -1 if unknown */
    int max_connections;/* CUDA_DEVICE_MAX_CONNECTIONS in effect */
    char *mode;         /* "detect" or "redirect=per-thread (METHOD)" */
    int simulated;      /* ran on the streamcheck CPU simulator */
    double start_time;  /* seconds since the epoch */
    double end_time;
    uint64_t calls;     /* intercepted driver calls */
    uint64_t shim_ns;   /* time spent in streamcheck's own code (estimate) */
    uint64_t suppressed;/* findings dropped by --rules/--ignore/--suppressions */
    sc_gpu *gpu;        /* measured mode; NULL when the process was not measured */
    sc_device_info *devices; /* the devices it used, by ordinal; device above is
                                the first one's name */
    size_t ndevices;
    long rank;          /* its rank in a parallel job: RANK, OMPI_COMM_WORLD_RANK,
                           PMI_RANK, SLURM_PROCID or LOCAL_RANK; -1 if none */
    /* Redirect: orders between threads kept (the program synchronized two
       threads, and one's redirected work followed the other's). */
    uint64_t handoffs;      /* such hand-offs seen at a redirected call */
    uint64_t handoff_waits; /* event waits added for them (none where the work had finished) */
    /* --range: only what happened inside NVTX ranges of this name was
       reported, and the run time of its shares is the time inside them. */
    char *range;            /* NULL: the whole run */
    uint64_t range_ns;      /* time inside, the union over the threads */
    /* The pricing model (libstreamcheck(7), PRICING); 0 when there was none. */
    uint64_t window_ns;     /* the active window: its actors' first call to their last one's
                               end; shares are of it, or of the loop */
    uint64_t loop_ns;       /* the steady loop within it, where a hazard of every step showed
                               one (a long set-up before); 0: none.  Shares are of it */
    uint64_t model_ns;      /* that window replayed as it ran (how far the model is off) */
    uint64_t fixed_ns;      /* ... and replayed with every priced finding fixed */
    uint64_t held_ns;       /* a long run's: the first part of the window the model held (a
                               thread's calls reached the record's bound, or the replays'
                               budget), whose savings are extrapolated to the window; 0: all */
    char *busy_source;      /* where the model's GPU busy time came from: "sampled",
                               "measured" or "waits"; NULL: no model */
    long submitted;     /* calls that submitted work to a stream (kernels, host
                           functions, graphs, copies, memsets); 0: none (a
                           torchrun parent); -1 unknown (older reports) */
} sc_process;

/* ---- the GPU timeline of measured mode (the trace and HTML renderers).
   Times are ns since the start of their process (sc_process.start_time).
   Only the shim fills these (the JSON report does not carry them); a
   merged report has none.  Kept in start order per process. ---- */
typedef enum sc_gpu_op_kind { SC_GPU_KERNEL = 0, SC_GPU_MEMCPY, SC_GPU_MEMSET } sc_gpu_op_kind;
typedef enum sc_gpu_copy { SC_GPU_COPY_NONE = 0, SC_GPU_HTOD, SC_GPU_DTOH, SC_GPU_DTOD, SC_GPU_HTOH,
                           SC_GPU_COPY_OTHER } sc_gpu_copy;
typedef enum sc_gpu_mem { SC_GPU_MEM_UNKNOWN = 0, SC_GPU_MEM_PAGEABLE, SC_GPU_MEM_PINNED,
                          SC_GPU_MEM_DEVICE, SC_GPU_MEM_MANAGED, SC_GPU_MEM_OTHER } sc_gpu_mem;
typedef struct sc_gpu_op {
    unsigned process;
    uint32_t device, stream;
    uint8_t kind;          /* sc_gpu_op_kind */
    uint8_t copy;          /* sc_gpu_copy (memcpy) */
    uint8_t src, dst;      /* sc_gpu_mem of a memcpy's ends; memset: dst */
    uint32_t name;         /* kernels: index into sc_report.names; else 0 */
    int64_t start_ns, end_ns;
    uint64_t bytes;        /* copies and memsets */
    uint32_t correlation;  /* CUPTI correlation id: the API call that submitted it */
} sc_gpu_op;

/* A host thread's CUDA API call (CUPTI driver/runtime records). */
typedef struct sc_host_span {
    unsigned process;
    uint32_t thread;       /* CUPTI thread id */
    uint8_t runtime;       /* 1 runtime API, 0 driver API */
    uint32_t name;         /* index into sc_report.names */
    int64_t start_ns, end_ns;
    uint32_t correlation;
} sc_host_span;

/* A finding event at its call: when, on which thread, and the GPU operation
   it held back most (gpu_ops index, or -1). */
typedef struct sc_finding_mark {
    unsigned process;
    sc_rule_id rule;
    char callsite[17];
    uint32_t api;          /* index into sc_report.names */
    uint32_t thread;       /* CUPTI thread id of the calling thread */
    int64_t start_ns, end_ns;  /* the intercepted call */
    uint32_t correlation;  /* of the call's own GPU work (0: none) */
    long op;               /* the GPU operation it held back most, or -1 */
    uint64_t lost_ns;      /* this event's own measured cost */
} sc_finding_mark;

typedef struct sc_report {
    char *tool_version;
    sc_process *procs;       size_t nprocs;
    sc_api_count *counts;    size_t ncounts;
    sc_finding *findings;    size_t nfindings;
    sc_callsite *callsites;  size_t ncallsites;
    sc_redirect *redirects;  size_t nredirects;
    /* measured mode's timeline (see above); names[0] is "" */
    sc_gpu_op *gpu_ops;      size_t ngpu_ops;
    sc_host_span *host_spans; size_t nhost_spans;
    sc_finding_mark *marks;  size_t nmarks;
    char **names;            size_t nnames;
} sc_report;

/* Why an unmeasured finding has no GPU cost, for its Cost line: "run with
   --measure ..." unless its process ran in measured mode. */
const char *sc_unmeasured_why(const sc_report *r, const sc_finding *f);

/* Which findings fail a run (JUnit failures, `streamcheck report` exit
   status).  Zero is the default so that a zeroed sc_render_opts works. */
typedef enum sc_fail_level {
    SC_FAIL_DEFAULT = 0, /* JUnit: warning; the report tool: error */
    SC_FAIL_NOTE,
    SC_FAIL_WARNING,
    SC_FAIL_ERROR,
    SC_FAIL_NEVER,
} sc_fail_level;

/* Options a renderer honours. */
typedef struct sc_render_opts {
    int color;          /* text: ANSI colour */
    unsigned max_frames;/* text: frames shown per call site (0 = 4) */
    int verbose;        /* text: also list per-library api counts */
    const char *srcroot;/* the source root: SARIF artifact URIs below it are
                           relative to it (uriBaseId SRCROOT), and the text
                           report shows paths below it relative; a relative
                           one is taken from the current directory; NULL:
                           none */
    sc_fail_level fail_on; /* JUnit: lowest severity that fails a test case */
    unsigned top;       /* text: findings shown in full (0 = 10); the rest get
                           one line per rule.  SC_TOP_ALL shows all. */
} sc_render_opts;
#define SC_TOP_DEFAULT 10
#define SC_TOP_ALL 0xffffffffu

/* When a finding is worth fixing (sc_report_judge). */
typedef struct sc_judge_opts {
    uint64_t min_cost_ns;   /* a warning costs at least this much (1 ms) */
    unsigned min_share_bp;  /* ... and this share of its process's run time,
                               in hundredths of a percent (50 = 0.5%) */
} sc_judge_opts;
#define SC_JUDGE_DEFAULTS {1000000, 50}

/* ---- the model (report.c) ---- */
sc_report *sc_report_new(void);
void sc_report_free(sc_report *r);
const sc_callsite *sc_report_callsite(const sc_report *r, const char *id);
/* Index of a call site, or -1. */
long sc_report_callsite_index(const sc_report *r, const char *id);
/* Building a report.  Each appends a zeroed entry (but a process's rank
   and a finding's device are -1: unknown) and returns it, or NULL with
   errno set.  The pointer is valid until the next append to the same
   array. */
sc_process *sc_report_add_process(sc_report *r);
sc_finding *sc_report_add_finding(sc_report *r);
sc_redirect *sc_report_add_redirect(sc_report *r);
/* A new call site with this id (16 hex digits); NULL with EEXIST if the
   report has one already. */
sc_callsite *sc_report_add_callsite(sc_report *r, const char *id);
/* Adds calls to the (library, api) row, creating it for process. */
int sc_report_add_count(sc_report *r, const char *library, const char *api, uint64_t calls,
                        unsigned process);
/* Adds a device the process used (the name is copied), keeping the list
   ordered by ordinal and each ordinal once.  0 or -1. */
int sc_process_add_device(sc_process *p, int ordinal, const char *name);
/* The name of a process's device by ordinal, or NULL. */
const char *sc_process_device_name(const sc_process *p, int ordinal);
/* Append a frame; strings are copied, NULL stays NULL.  0 or -1. */
int sc_callsite_add_frame(sc_callsite *cs, const char *module, uint64_t offset,
                          const char *function, const char *file, unsigned line);
int sc_callsite_add_pyframe(sc_callsite *cs, const char *file, unsigned line,
                            const char *function);
/* Free what an entry owns (not the entry itself). */
void sc_finding_clear(sc_finding *f);
void sc_callsite_clear(sc_callsite *cs);
/* Deep copy and free of a process's gpu block. */
sc_gpu *sc_gpu_dup(const sc_gpu *g);
void sc_gpu_free(sc_gpu *g);
/* Calls per api summed over libraries and processes, calls descending,
   then by name.  A malloc'd array for the caller to free (the names point
   into r), or NULL on ENOMEM. */
typedef struct sc_api_total {
    const char *api;
    uint64_t calls;
} sc_api_total;
sc_api_total *sc_api_totals(const sc_report *r, size_t *n);

/* ---- order and merge (report_sort.c, report_merge.c) ---- */
/* Sorts findings by severity (errors first), then grouped by call site
   with the sites ranked by their findings' summed cost, then cost, pending
   events, count, rule, then every other field; api counts (calls desc, api, library), call sites (in the
   order findings, then redirects, first name them; the rest by id) and
   redirects (api, call-site order, outcome, process), so every renderer
   prints in the same, reproducible order.  Processes keep their order:
   findings refer to them by index. */
void sc_report_sort(sc_report *r);
/* Appends src to dst: processes are appended and the findings and redirects
   of src keep their process, renumbered past dst's; a call site whose id dst
   already has is kept once; api counts are summed per (library, api) across
   processes -- per-process rows are not kept, and a summed row keeps the
   process of the first report that had it.  Returns 0, or -1 with errno set
   and dst unchanged. */
int sc_report_merge(sc_report *dst, const sc_report *src);

/* ---- cost and severity (judge.c) ---- */
/* Severity from cost: a finding the shim made a warning stays one only if
   it is worth fixing.  With a cost (any basis but unmeasured) that is
   cost_ns >= min_cost_ns and >= min_share_bp of its process's run time
   (a predicted saving: or its together_ns, fixed with the others of its
   fix, where its own saving is a 2n-th of that or more); without one (a
   serialization detect mode cannot price), only when other work was really
   pending (pending > 0).
   Otherwise it becomes a note.
   Errors and notes are left as they are. */
void sc_report_judge(sc_report *r, const sc_judge_opts *j);
/* Estimated cost of the warnings (and errors) of a report, summed (a
   measured SC102 is not added: its time is its commands' findings'; a
   predicted saving that a larger one at the same call site holds, two rules
   of one call whose fixes remove the same wait, is not added either; the
   findings one fix changes together, all of them counted, add what they
   save at once, their together_ns, not their savings). */
uint64_t sc_report_cost(const sc_report *r);
/* The same for process `process` alone (-1: every process). */
uint64_t sc_report_cost_of(const sc_report *r, long process);
/* Run time of a process in ns, what the shares of its costs are of (0
   when unknown): with --range, the time inside the range
   (sc_process.range_ns).  sc_process_span_ns: start to end, always. */
uint64_t sc_process_run_ns(const sc_process *p);
uint64_t sc_process_span_ns(const sc_process *p);
/* What a process's shares are of: its steady loop when the pricing model
   recognized one, else its active window when the model had one, else its
   run time (with --range, the time inside); and those words. */
uint64_t sc_process_window_ns(const sc_process *p);
const char *sc_process_window_name(const sc_process *p);
/* What a finding's share is of (its own window, a set-up finding's, or
   its process's), and those words; 0 and "" without its process. */
uint64_t sc_finding_window_ns(const sc_report *r, const sc_finding *f);
const char *sc_finding_window_name(const sc_report *r, const sc_finding *f);
/* Whether a cost is a predicted saving (SC_COST_REPLAY*). */
int sc_cost_is_replay(sc_cost_basis b);
/* Totals by severity over all findings. */
void sc_report_totals(const sc_report *r, uint64_t *errors, uint64_t *warnings, uint64_t *notes);
/* The one line CI greps, without a newline:
   "streamcheck: N findings (E errors, W warnings, I notes)".  N counts
   findings entries (aggregates per process, rule, api and call site), not
   events; the words stay plural for every N so one pattern matches. */
void sc_summary_line(const sc_report *r, char *buf, size_t len);
/* Parses "error", "warning", "note" or "never".  0 or -1. */
int sc_fail_level_parse(const char *s, sc_fail_level *out);
/* Whether a finding of severity s fails at level l (l already resolved,
   not SC_FAIL_DEFAULT). */
int sc_severity_fails(sc_severity s, sc_fail_level l);

/* ---- call sites by id (idmap.c) ---- */
/* Call sites by id in O(1): an open-addressing table of indices into a
   call-site array (merging thousands of ranks stays linear). */
typedef struct sc_idmap {
    size_t *slot;       /* index + 1; 0 = empty */
    size_t cap, n;
} sc_idmap;
/* Room for n ids.  0 or -1 (ENOMEM). */
int sc_idmap_init(sc_idmap *m, size_t n);
/* Adds cs[idx]; -1 with EEXIST when its id is there already (the first one
   stays), ENOSPC when more than n were added. */
int sc_idmap_add(sc_idmap *m, const sc_callsite *cs, size_t idx);
long sc_idmap_find(const sc_idmap *m, const sc_callsite *cs, const char *id);
void sc_idmap_free(sc_idmap *m);

/* ---- frames and paths (frames.c) ---- */
/* Whether an ELF object (path or basename) is one of NVIDIA's CUDA
   libraries: the driver and runtime, cuDNN, cuBLAS(Lt), cuFFT, cuSPARSE(Lt),
   cuRAND, cuSOLVER, NCCL, NVRTC, nvJitLink, CUPTI, cuTENSOR, by basename
   prefix (libcudnn_engines_precompiled.so.9), or anything of pip's
   site-packages/nvidia/. */
int sc_nvidia_library(const char *path);
/* The C/C++ runtime (libc, ld.so, libstdc++, libgcc_s): never primary
   while another frame will do. */
int sc_system_library(const char *path);
/* nvcc's launch glue of kernel<<<...>>>: a frame in CUDA's crt/ headers or
   cuda_runtime.h, a __device_stub__ function, or the generated
   tmpxft_*.stub.c / *.cudafe1.stub.c. */
int sc_frame_is_launch_glue(const sc_frame *f);
/* The primary native frame, the one the call site is shown at: the first
   frame that is not NVIDIA's, not launch glue, not the kernel's host-side
   wrapper (the frame right after a __device_stub__K frame whose function is
   K), and not the C runtime's, preferring one with file and line; failing
   that the first not NVIDIA's nor glue, else 0.  -1 when there are no native
   frames.  A pure function of the frames. */
long sc_callsite_primary(const sc_callsite *cs);
/* The frame a call site is shown at (its location in every format): the
   innermost Python frame of the program's own with file and line (not an
   installed package's nor the standard library's: sc_pyframe_is_library),
   else the innermost Python frame with them, else the primary native frame
   if it has them, else the innermost Python frame, else the primary native
   frame.  Sets *py to say which array the index is in; -1 when the call
   site has no frames. */
long sc_callsite_shown(const sc_callsite *cs, int *py);
/* When a call site is shown at a Python frame of the program's own, the
   library frame that made the call beside it: the innermost Python frame
   inner to it that is an installed package's or the standard library's
   (Lightning's batch_to under the user's tr.fit(...)).  Its index in py,
   or -1. */
long sc_callsite_via(const sc_callsite *cs);
/* Whether a Python file is an installed package's (site-packages,
   dist-packages) or the standard library's (lib/python3.X, lib64/python3.X,
   <frozen ...>), not the program's own. */
int sc_pyframe_is_library(const char *file);
/* Its path inside site-packages (lightning/fabric/utilities/apply_func.py)
   or the standard library (contextlib.py); else file itself. */
const char *sc_pyframe_libpath(const char *file);
/* Whether a native frame is the program's: not NVIDIA's, not the C
   runtime's, not launch glue. */
int sc_frame_is_programs(const sc_frame *f);
/* Removes "." and "dir/.." components and repeated slashes, in place
   (lexically: symbolic links are not looked at). */
void sc_path_normalize(char *path);
/* A source root: the directory (made absolute from the current one and
   normalized) and, when different, its real path. */
typedef struct sc_srcroot sc_srcroot;
struct sc_srcroot {
    char *lex, *real;
};
/* 0, or -1 (ENOMEM, or no current directory); dir NULL or "": no root. */
int sc_srcroot_init(sc_srcroot *r, const char *dir);
void sc_srcroot_free(sc_srcroot *r);
/* The part of an absolute file path below the root (lexically, or through
   symbolic links when the file exists here: then copied into buf), or
   NULL. */
const char *sc_srcroot_rel(const sc_srcroot *r, const char *file, char *buf, size_t len);
/* That, or the file itself when it is not below the root. */
const char *sc_srcroot_show(const sc_srcroot *r, const char *file, char *buf, size_t len);
/* The last path component (the string itself when it has no '/'). */
const char *sc_basename(const char *path);

/* ---- formatting helpers (format.c) ---- */
/* The frame a person would open: the innermost Python frame with file and
   line, else the primary native frame (sc_callsite_primary) when it has
   them.  Returns 0 and fills the pointers (function may be NULL), or -1. */
int sc_callsite_source(const sc_callsite *cs, const char **file, unsigned *line,
                       const char **function);
/* One line about a finding's numbers: "cudaMemcpyAsync -> cuMemcpyDtoHAsync_v2:
   128 calls, host blocked 45.210 ms, other streams busy at 96 of 128,
   est. time lost <= 33.900 ms (upper bound), 512.0 MiB". */
void sc_finding_line(const sc_finding *f, char *buf, size_t len);
/* Where other findings share f's fix (together_n 2 or more): "fixed with the
   1 other finding whose fix is the same, they save 32.277 ms at once, not
   their savings added up", and 1; else "" and 0. */
int sc_together_phrase(const sc_finding *f, char *buf, size_t len);
/* Where a finding happened, for one line: the source frame as
   sc_callsite_source picks it ("train.py:42 in step()", "main (app.cu:42)"),
   else the innermost frame, else "no call site". */
void sc_callsite_where(const sc_callsite *cs, char *buf, size_t len);
/* "step (train.py:42)" style renderings; the _in forms show
   a file below the source root relative to it (root may be NULL). */
void sc_frame_format(const sc_frame *f, char *buf, size_t len);
void sc_pyframe_format(const sc_pyframe *f, char *buf, size_t len);
void sc_frame_format_in(const sc_frame *f, const sc_srcroot *root, char *buf, size_t len);
void sc_pyframe_format_in(const sc_pyframe *f, const sc_srcroot *root, char *buf, size_t len);
void sc_callsite_where_in(const sc_callsite *cs, const sc_srcroot *root, char *buf, size_t len);
/* "via lightning/fabric/utilities/apply_func.py:103 in batch_to()" for the
   library frame of sc_callsite_via, "" when there is none. */
void sc_callsite_via_format(const sc_callsite *cs, char *buf, size_t len);
/* "850 ns", "4.210 us", "45.210 ms", "12.500 s"; no locale involved. */
void sc_format_ns(uint64_t ns, char *buf, size_t len);
/* A wall-clock time in seconds as "2024-06-01 12:00:00 UTC", a driver
   version (13000) as "13.0"; "unknown" when not set.  sc_or_unknown: s, or
   "unknown" when NULL or empty. */
void sc_format_time(double t, char *buf, size_t len);
void sc_format_driver(int v, char *buf, size_t len);
const char *sc_or_unknown(const char *s);
/* "512 B", "64.0 KiB", "512.0 MiB". */
void sc_format_bytes(uint64_t bytes, char *buf, size_t len);
/* "GPU: busy 1.200 s (80.0%), overlap 300.000 ms (20.0%), idle ..." without
   a newline. */
void sc_gpu_line(const sc_gpu *g, char *buf, size_t len);
/* A renderer's last step: 0, or -1 with errno (EIO unless set) when
   writing to out failed. */
int sc_render_done(FILE *out);
/* A share in hundredths of a percent, "0.29%" (0 of nothing is "0.00%"). */
void sc_format_share(uint64_t part, uint64_t whole, char *buf, size_t len);
/* What the warnings and errors cost in all, as the text report's header
   says it: "36.800 ms (0.29% of run time) in 3 warnings" (" (all
   processes)" for several).  0, or -1 when there is none ("none: no
   finding is worth fixing in this run"). */
int sc_report_cost_format(const sc_report *r, char *buf, size_t len);
/* The pricing model's prediction with every priced finding fixed: "1.100 s
   predicted (8.00% less) with every priced finding fixed".  0, or -1 (buf
   "") when the process had no model or it predicts less than 0.1%. */
int sc_process_fixed_format(const sc_process *p, char *buf, size_t len);
/* The distinct values of a per-process string, in process order: each of
   the first `max` is handed to each(value, its rank, arg); returns how
   many there are in all. */
size_t sc_report_distinct_each(const sc_report *r, const char *(*get)(const sc_process *), size_t max,
                               void (*each)(const char *v, size_t k, void *arg), void *arg);
/* The same, comma-separated, the first four of them ("..., ... (7 in all)"
   when there are more). */
void sc_report_distinct(const sc_report *r, const char *(*get)(const sc_process *), char *buf, size_t len);
/* Seconds (sc_process times) as integer microseconds, rounded. */
int64_t sc_seconds_to_micro(double t);
/* Replaces control characters with '?', so that an error message quoting
   input stays one printable line. */
void sc_one_line(char *s);
/* "WHERE: message" into err (when there is room), made one line: the
   parse errors of the expectation and suppression files. */
void sc_parse_error(char *err, size_t errlen, const char *where, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
/* Space or tab, or another blank that may end a line (\r, \v, \f). */
static inline int sc_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* ---- input files (readfile.c) ---- */
/* Reads a whole file (at most max bytes) into a NUL-terminated malloc'd
   buffer.  0, or -1 with "PATH: reason" in err. */
int sc_read_file(const char *path, size_t max, char **buf, size_t *len, char *err, size_t errlen);

/* ---- renderers: sc_render_<ID> for each row of formats.def, all of one
   type.  Each takes options (NULL: defaults) and returns 0, or -1 with
   errno set. ---- */
typedef int sc_renderer(const sc_report *r, FILE *out, const sc_render_opts *o);
/* The report for a person (report_text.c): the findings ranked by cost,
   the first o->top of them in full. */
sc_renderer sc_render_text;
/* The versioned JSON report (report_json.c); no options. */
sc_renderer sc_render_json;
/* SARIF 2.1.0 (report_sarif.c); uses o->srcroot. */
sc_renderer sc_render_sarif;
/* JUnit XML (report_junit.c): a test case per rule; uses o->fail_on and
   o->srcroot. */
sc_renderer sc_render_junit;
/* Chrome trace event format (report_trace.c; Perfetto, chrome://tracing):
   a process per device with a track per stream, a process per host
   process with a track per thread and API layer, findings as instant
   events with flow arrows to the GPU operation they held back
   (libstreamcheck(7), Trace); no options. */
sc_renderer sc_render_trace;
/* One self-contained HTML page (report_html.c): inline CSS, SVG and a small
   script, no reference outside the file; in measured mode an SVG timeline
   per device.  Uses o->srcroot (paths, and the source lines around each
   call site when the file is readable where the page is written). */
sc_renderer sc_render_html;

/* GitHub-flavoured Markdown (report_md.c) for a CI job summary or a merge
   request: the counts, one line about the run, a table of the findings
   with what fixing each saves and what to do; uses o->srcroot. */
sc_renderer sc_render_md;

/* ---- rendering and writing (render.c, report_write.c) ---- */
/* Renders one format (a single sc_format bit) through its renderer;
   -1 with EINVAL for anything else. */
int sc_render(const sc_report *r, sc_format fmt, FILE *out, const sc_render_opts *o);
/* Writes DIR/NAME.streamcheck.<ext> (sc_format_ext) through a temporary
   file in DIR and rename(2), rendering with o (NULL: defaults).  Returns 0,
   or -1 with errno set; the path written goes to path_out when not NULL. */
int sc_report_write_named(const sc_report *r, sc_format fmt, const sc_render_opts *o,
                          const char *dir, const char *name, char *path_out, size_t path_len);
/* The same as DIR/<exe>.<pid>.streamcheck.<ext>, with defaults. */
int sc_report_write_file(const sc_report *r, sc_format fmt, const char *dir,
                         const char *exe_base, long pid, char *path_out, size_t path_len);
/* The same, but never over a file that is there: the first free name of
   NAME-2, NAME-3, ... instead (EEXIST after NAME-999).  A process's own
   reports are written so: ranks in PID namespaces of their own share
   PIDs, and a rerun must not replace the last run's report. */
int sc_report_write_new(const sc_report *r, sc_format fmt, const sc_render_opts *o,
                        const char *dir, const char *name, char *path_out, size_t path_len);
/* The base name of a process's report files, EXE.HOST.PID[.rRANK].STAMP:
   its program's file name ("program" when unknown), host, PID, rank in a
   parallel job when it has one, and start (UTC, YYYYMMDD-HHMMSS); a part
   the process does not have is left out. */
void sc_report_file_base(const sc_process *p, char *buf, size_t len);
/* What became of one file of sc_report_write_outputs: written to path, or
   not (path NULL, err an errno), and then, with fallback, rendered to the
   text stream instead. */
typedef void (*sc_wrote_fn)(void *arg, sc_format fmt, const char *path, int err, int fallback);
/* A process's report as the user asked for it: each file format of formats
   (text aside) written into dir as NAME.streamcheck.EXT, never over another
   file (sc_report_write_new), done told of each, one that cannot be
   written rendered to text instead where its format allows (formats.def,
   TERM); then the text report on text when formats has it, else the
   summary line CI greps.  0, or -1 when a file could not be written. */
int sc_report_write_outputs(const sc_report *r, unsigned formats, const sc_render_opts *o, const char *dir,
                            const char *name, FILE *text, sc_wrote_fn done, void *arg);

/* ---- reader (report_read.c): parses a JSON report and merges it into r.
   Returns 0, or -1 with a one-line reason in err (file name included).
   On error r is unchanged. */
int sc_report_read_json(sc_report *r, const char *path, char *err, size_t errlen);
/* The same for a report already in memory; name is used in messages. */
int sc_report_parse_json(sc_report *r, const char *text, size_t len, const char *name,
                         char *err, size_t errlen);

#endif /* SC_REPORT_H */
