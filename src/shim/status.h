/* status.h: the status file each process leaves for the launcher
 * (status.c says what is in it).
 */
#ifndef SC_STATUS_H
#define SC_STATUS_H

struct sc_report;

/* The report's counts, then `why` on a line of its own unless empty
   ("ended signal 15", "partial snapshot"), then the errors noted. */
void sc_status_write(const struct sc_report *r, const char *why);
/* Async-signal-safe: no report could be written; why: "ended signal 11". */
void sc_status_noreport(const char *why);
/* An error every later status file of the process names ("static-cudart"):
   a word of the launcher's (status.c). */
void sc_status_error(const char *word);

#endif /* SC_STATUS_H */
