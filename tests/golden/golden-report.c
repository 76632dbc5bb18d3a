/* golden-report: renders the fixture report (fixture.c) to standard output,
 * for the golden tests and 'make update-golden'.
 *
 *     golden-report CASE FORMAT
 *     CASE    single (process A) | b (process B) | merged | empty
 *     FORMAT  text | text-verbose | json | sarif | junit | junit-never
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "report.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: golden-report single|b|merged|empty FORMAT\n");
        return 2;
    }
    sc_report *r;
    if (!strcmp(argv[1], "single"))
        r = fixture_process_a();
    else if (!strcmp(argv[1], "b"))
        r = fixture_process_b();
    else if (!strcmp(argv[1], "merged"))
        r = fixture_merged();
    else if (!strcmp(argv[1], "empty")) {
        r = fixture_check(sc_report_new());
        r->tool_version = fixture_check(strdup("0.1.0-golden"));
        sc_process *p = fixture_check(sc_report_add_process(r));
        p->pid = 1;
        p->async_engines = -1;
        p->simulated = 1;
    } else {
        fprintf(stderr, "golden-report: unknown case '%s'\n", argv[1]);
        return 2;
    }

    sc_render_opts o = {0};
    const char *f = argv[2];
    int rc;
    if (!strcmp(f, "text"))
        rc = sc_render_text(r, stdout, &o);
    else if (!strcmp(f, "text-verbose")) {
        o.verbose = 1;
        o.max_frames = 8;
        rc = sc_render_text(r, stdout, &o);
    } else if (!strcmp(f, "json"))
        rc = sc_render_json(r, stdout);
    else if (!strcmp(f, "sarif")) {
        o.srcroot = "/home/ci/proj/";
        rc = sc_render(r, SC_FMT_SARIF, stdout, &o);
    } else if (!strcmp(f, "junit"))
        rc = sc_render_junit(r, stdout);
    else if (!strcmp(f, "junit-never")) {
        o.fail_on = SC_FAIL_NEVER;
        rc = sc_render(r, SC_FMT_JUNIT, stdout, &o);
    } else {
        fprintf(stderr, "golden-report: unknown format '%s'\n", f);
        rc = 2;
    }
    sc_report_free(r);
    if (rc == -1)
        perror("golden-report");
    return rc ? 1 : 0;
}
