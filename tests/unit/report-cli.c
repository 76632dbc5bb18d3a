/* report-cli: `streamcheck report` without the launcher, for the tests:
 * report-cli ARGS... runs sc_cli_report with argv[0] = "report". */
#include "config.h"

#include "cli_report.h"

int main(int argc, char **argv)
{
    static char name[] = "report";
    argv[0] = name;
    return sc_cli_report(argc, argv);
}
