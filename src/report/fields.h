/* fields.h: the members of each object of the JSON report, one list per
 * object, in the order the JSON report writes them (libstreamcheck(7), JSON
 * report).  The writer (report_json.c), the reader (report_read.c) and the
 * copies and frees of the model (report.c, for sc_report_merge) expand the
 * lists, so a plain member -- a number, a string, a boolean -- is named
 * once, here.  What is not plain (a nested object, an array, a rule id, a
 * derived member) is a hook: each of those files has a function per hook,
 * write_OBJ_KEY and read_OBJ_KEY, called where the row stands.
 *
 *   F(OBJ, KEY, KIND, MEMBER, SINCE)  a plain member: "KEY" in the JSON,
 *                                     MEMBER of the C struct, read as KIND
 *                                     from schema version SINCE on
 *   H(OBJ, KEY, SINCE)                a hook
 *
 * Adding a plain member: a row here (and the member in report.h).  Adding
 * to a version-1 object is free; a member readers must find bumps
 * SC_SCHEMA_VERSION and gets that version as SINCE, or is optional
 * (U64_OPT, INT_NULL, LONG_NULL, LONG_OPT, STR_OPT). */
#ifndef SC_FIELDS_H
#define SC_FIELDS_H

/* The kinds, and whether a member of the kind is an owned string (STRING:
   copied and freed with its entry) or a value (VALUE: copied with it).
     STR        char *, a string
     STR_NULL   char *, a string or null
     STR_OPT    char *, a string, or absent for NULL
     STR_NULL_OPT  char *, a string or null, absent in older reports (NULL)
     ID         char[17], a call-site id, or null for ""
     U64        uint64_t
     U64_OPT    uint64_t, absent in older reports (0)
     U64_NZ     uint64_t, absent for 0
     U32        uint32_t
     UINT       unsigned
     INT        int
     NAT        int, 0 or more
     LONG       long
     INT_NULL   int, 0 or more, or null (also when absent) for -1
     LONG_NULL  long, 0 or more, or null (also when absent) for -1
     LONG_OPT   long, 0 or more, or absent for -1
     BOOL       int, true or false
     TIME       double seconds since the epoch, as a decimal with 6 places
     PROCESS    unsigned, the index of one of the report's processes */
#define SC_FK_CLASS_STR STRING
#define SC_FK_CLASS_STR_NULL STRING
#define SC_FK_CLASS_STR_OPT STRING
#define SC_FK_CLASS_STR_NULL_OPT STRING
#define SC_FK_CLASS_ID VALUE
#define SC_FK_CLASS_U64 VALUE
#define SC_FK_CLASS_U64_OPT VALUE
#define SC_FK_CLASS_U64_NZ VALUE
#define SC_FK_CLASS_U32 VALUE
#define SC_FK_CLASS_UINT VALUE
#define SC_FK_CLASS_INT VALUE
#define SC_FK_CLASS_NAT VALUE
#define SC_FK_CLASS_LONG VALUE
#define SC_FK_CLASS_INT_NULL VALUE
#define SC_FK_CLASS_LONG_NULL VALUE
#define SC_FK_CLASS_LONG_OPT VALUE
#define SC_FK_CLASS_BOOL VALUE
#define SC_FK_CLASS_TIME VALUE
#define SC_FK_CLASS_PROCESS VALUE
/* SC_FK_APPLY(PREFIX, KIND, args): PREFIX##STRING(args) or
   PREFIX##VALUE(args), by KIND's class. */
#define SC_FK_PASTE(a, b) a##b
#define SC_FK_PICK(prefix, cls) SC_FK_PASTE(prefix, cls)
#define SC_FK_APPLY(prefix, kind) SC_FK_PICK(prefix, SC_FK_CLASS_##kind)

/* processes[] (sc_process); "index" is its place in the array. */
#define SC_PROCESS_FIELDS(F, H)                                      \
    H(process, index, 1)                                             \
    F(process, exe, STR_NULL, exe, 1)                                \
    F(process, cmdline, STR_NULL, cmdline, 1)                        \
    F(process, pid, LONG, pid, 1)                                    \
    F(process, host, STR_NULL, host, 1)                              \
    F(process, device, STR_NULL, device, 1)                          \
    F(process, driver_version, INT, driver_version, 1)              \
    F(process, async_engines, INT, async_engines, 1)                \
    F(process, max_connections, INT, max_connections, 1)            \
    F(process, mode, STR_NULL, mode, 1)                              \
    F(process, simulated, BOOL, simulated, 1)                        \
    F(process, start_time, TIME, start_time, 1)                      \
    F(process, end_time, TIME, end_time, 1)                          \
    F(process, calls, U64, calls, 1)                                 \
    F(process, shim_ns, U64, shim_ns, 1)                             \
    F(process, suppressed, U64, suppressed, 1)                       \
    H(process, gpu, 3)                                               \
    H(process, devices, 1)                                           \
    F(process, rank, LONG_NULL, rank, 1)                             \
    F(process, handoffs, U64_OPT, handoffs, 1)                       \
    F(process, handoff_waits, U64_OPT, handoff_waits, 1)             \
    F(process, nvtx_range, STR_OPT, range, 1)                        \
    F(process, nvtx_range_ns, U64_NZ, range_ns, 1)                   \
    F(process, window_ns, U64_OPT, window_ns, 4)                     \
    F(process, loop_ns, U64_NZ, loop_ns, 4)                          \
    F(process, model_ns, U64_OPT, model_ns, 4)                       \
    F(process, fixed_ns, U64_OPT, fixed_ns, 4)                       \
    F(process, model_held_ns, U64_NZ, held_ns, 4)                    \
    F(process, busy_source, STR_OPT, busy_source, 4)                 \
    F(process, submitted, LONG_OPT, submitted, 1)

/* processes[].devices[] (sc_device_info) */
#define SC_DEVICE_FIELDS(F, H)                                       \
    F(device, ordinal, NAT, ordinal, 1)                              \
    F(device, name, STR_NULL, name, 1)

/* processes[].gpu (sc_gpu): null unless measured */
#define SC_GPU_FIELDS(F, H)                                          \
    F(gpu, span_ns, U64, span_ns, 3)                                 \
    F(gpu, busy_ns, U64, busy_ns, 3)                                 \
    F(gpu, idle_ns, U64, idle_ns, 3)                                 \
    F(gpu, overlap_ns, U64, overlap_ns, 3)                           \
    F(gpu, overlap_compute_copy_ns, U64, overlap_compute_copy_ns, 3) \
    F(gpu, overlap_compute_compute_ns, U64, overlap_compute_compute_ns, 3) \
    F(gpu, ops, U64, ops, 3)                                         \
    F(gpu, ops_kept, U64, ops_kept, 3)                               \
    F(gpu, dropped_records, U64, dropped, 3)                         \
    H(gpu, handed_over_ns, 3)                                        \
    H(gpu, measure_window, 4)                                        \
    H(gpu, devices, 3)                                               \
    H(gpu, streams, 3)

/* processes[].gpu.devices[] (sc_gpu_device) */
#define SC_GPU_DEVICE_FIELDS(F, H)                                   \
    F(gpu_device, device, U32, device, 3)                            \
    F(gpu_device, span_ns, U64, span_ns, 3)                          \
    F(gpu_device, busy_ns, U64, busy_ns, 3)                          \
    F(gpu_device, idle_ns, U64, idle_ns, 3)                          \
    F(gpu_device, overlap_ns, U64, overlap_ns, 3)                    \
    F(gpu_device, overlap_compute_copy_ns, U64, overlap_compute_copy_ns, 3) \
    F(gpu_device, overlap_compute_compute_ns, U64, overlap_compute_compute_ns, 3) \
    F(gpu_device, ops, U64, ops, 3)

/* processes[].gpu.streams[] (sc_gpu_stream) */
#define SC_GPU_STREAM_FIELDS(F, H)                                   \
    F(gpu_stream, device, U32, device, 3)                            \
    F(gpu_stream, stream, U32, stream, 3)                            \
    F(gpu_stream, busy_ns, U64, busy_ns, 3)                          \
    F(gpu_stream, ops, U64, ops, 3)

/* findings[] (sc_finding) */
#define SC_FINDING_FIELDS(F, H)                                      \
    H(finding, rule, 1)                                              \
    H(finding, name, 1)                                              \
    H(finding, severity, 1)                                          \
    F(finding, api, STR_NULL, api, 1)                                \
    F(finding, driver_api, STR_NULL, driver_api, 1)                  \
    F(finding, count, U64, count, 1)                                 \
    F(finding, blocked_ns, U64, blocked_ns, 1)                       \
    F(finding, pending, U64, pending, 1)                             \
    F(finding, bytes, U64, bytes, 1)                                 \
    F(finding, lost_ns, U64, lost_ns, 1)                             \
    F(finding, cost_ns, U64, cost_ns, 2)                             \
    H(finding, cost_basis, 2)                                        \
    H(finding, also, 2)                                              \
    F(finding, callsite, ID, callsite, 1)                            \
    F(finding, nvtx_range, STR_NULL_OPT, nvtx_range, 1)              \
    F(finding, detail, STR_NULL, detail, 1)                          \
    F(finding, process, PROCESS, process, 1)                         \
    F(finding, window_ns, U64_NZ, window_ns, 4)                      \
    F(finding, together_ns, U64_NZ, together_ns, 4)                  \
    F(finding, together_findings, U64_NZ, together_n, 4)             \
    H(finding, gpu_lost_ns, 3)                                       \
    F(finding, device, INT_NULL, device, 1)

/* callsites[] (sc_callsite); "primary" and "via" are derived from the
   frames */
#define SC_CALLSITE_FIELDS(F, H)                                     \
    H(callsite, id, 1)                                               \
    F(callsite, thread_name, STR_OPT, thread_name, 1)                \
    H(callsite, primary, 1)                                          \
    H(callsite, via, 1)                                              \
    H(callsite, frames, 1)                                           \
    H(callsite, python, 1)

/* callsites[].frames[] (sc_frame) */
#define SC_FRAME_FIELDS(F, H)                                        \
    F(frame, module, STR_NULL, module, 1)                            \
    F(frame, build_id, STR_OPT, build_id, 1)                         \
    H(frame, offset, 1)                                              \
    F(frame, function, STR_NULL, function, 1)                        \
    F(frame, file, STR_NULL, file, 1)                                \
    F(frame, line, UINT, line, 1)

/* callsites[].python[] (sc_pyframe) */
#define SC_PYFRAME_FIELDS(F, H)                                      \
    F(pyframe, file, STR_NULL, file, 1)                              \
    F(pyframe, line, UINT, line, 1)                                  \
    F(pyframe, function, STR_NULL, function, 1)

/* redirects[] (sc_redirect) */
#define SC_REDIRECT_FIELDS(F, H)                                     \
    F(redirect, api, STR, api, 1)                                    \
    F(redirect, callsite, ID, callsite, 1)                           \
    F(redirect, outcome, STR, outcome, 1)                            \
    F(redirect, count, U64, count, 1)                                \
    F(redirect, process, PROCESS, process, 1)

#endif /* SC_FIELDS_H */
