/* cli_report.h: `streamcheck report` (cli_report.c), which merges the JSON
 * reports of many processes, filters them and renders them again, and the
 * rule list of `--list-rules`. */
#ifndef SC_CLI_REPORT_H
#define SC_CLI_REPORT_H

#include <stdio.h>

/* `streamcheck report ...`; argv[0] is "report".  Returns the exit status. */
int sc_cli_report(int argc, char **argv);
/* The usage text of `streamcheck report`. */
void sc_cli_report_usage(FILE *out);
/* `--list-rules`: id, name, default severity and summary, aligned. */
void sc_print_rules(FILE *out);

#endif /* SC_CLI_REPORT_H */
