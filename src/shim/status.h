/* status.h: the status file each process leaves for the launcher
 * (status.c says what is in it).
 */
#ifndef SC_STATUS_H
#define SC_STATUS_H

#include <stddef.h>

struct sc_report;

/* The report's counts, then `why` on a line of its own unless empty
   ("ended signal 15", "partial snapshot"), then the errors noted. */
void sc_status_write(const struct sc_report *r, const char *why);
/* Async-signal-safe: no report could be written; why: "ended signal 11". */
void sc_status_noreport(const char *why);
/* An error every later status file of the process names ("static-cudart"):
   a word of the launcher's (status.c). */
void sc_status_error(const char *word);
/* These lines (each ending in a newline), then the errors noted, as the
   status file: the launcher's own lines (status.c lists them). */
void sc_status_lines(const char *lines);
/* After "state active" was written, and no report at exit: "state ended". */
void sc_status_ended(void);
/* This process image's file of the status directory with that suffix
   ("json": the report left to the launcher), named as its status file is
   (PID.json, PID-2.json), in path; *name points at its name there.  0, or
   -1 without a status directory. */
int sc_status_file(const char *suffix, char *path, size_t len, char **name);

#endif /* SC_STATUS_H */
