/* test-expect: the expectation file format and the exact checker. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "fixture.h"

static char err[512];

static sc_expect *parse(const char *text)
{
    return sc_expect_parse(text, strlen(text), "app.exp", err, sizeof err);
}

static void bad(const char *text, const char *want)
{
    sc_expect *e = parse(text);
    ck_assert_msg(e == NULL, "accepted: %s", text);
    ck_assert_msg(!strcmp(err, want), "message '%s', want '%s'", err, want);
}

/* Runs the check; returns its result and leaves the printed text in *out. */
static int check(const char *text, const sc_report *r, char **out)
{
    sc_expect *e = parse(text);
    ck_assert_msg(e != NULL, "%s", err);
    size_t len;
    FILE *f = open_memstream(out, &len);
    int rc = sc_expect_check(e, r, f);
    fclose(f);
    sc_expect_free(e);
    return rc;
}

/* Every finding of the fixture, exactly. */
static const char *const exact =
    "# the merged fixture: every finding of it, as many as it has, and the api counts\n"
    "  # an indented comment\n"
    "finding SC203 train.py:42 192\n"
    "finding device-alloc-sync app.cu:57 12\n"
    "finding SC101 - 2000\n"
    "finding SC402 /elsewhere/app.cu:57 3\n"
    "finding SC401 - 1\n"
    "finding SC201 data.py:17 10\n"
    "api cuLaunchKernel 4450\n"
    "api cuMemcpyDtoHAsync_v2 192\n"
    "api cuMemsetD8_v2 0\n";

START_TEST(exact_match)
{
    sc_report *r = fixture_merged();
    char *out;
    ck_assert_int_eq(check(exact, r, &out), 0);
    ck_assert_str_eq(out, "streamcheck: expectations met (6 finding lines, 3 api lines)\n");
    free(out);
    sc_report_free(r);
}
END_TEST

START_TEST(mismatches)
{
    sc_report *r = fixture_merged();
    char *out;
    /* a wrong count, a missing finding, an unexpected one, a wrong api count */
    const char *text = "finding SC203 train.py:42 128\n"
                       "finding SC301 app.cu:57 12\n"
                       "finding SC101 - 2000\n"
                       "finding SC402 app.cu:57 3\n"
                       "finding SC401 - 1\n"
                       "finding SC204 copy.cu:9 1\n"
                       "api cuLaunchKernel 4451\n";
    ck_assert_int_eq(check(text, r, &out), 1);
    ck_assert_str_eq(out, "streamcheck: the report does not meet app.exp ('-' expected, '+' found):\n"
                          "- finding SC203 train.py:42 128\n"
                          "+ finding SC203 train.py:42 192\n"
                          "- finding SC204 copy.cu:9 1\n"
                          "- api cuLaunchKernel 4451\n"
                          "+ api cuLaunchKernel 4450\n"
                          "+ finding SC201 data.py:17 10 device=1\n"
                          "streamcheck: expectations not met: 4 differences\n");
    free(out);
    sc_report_free(r);
}
END_TEST

START_TEST(no_findings_expected)
{
    sc_report *r = fixture_process_b();
    char *out;
    /* a file without finding lines demands a clean report */
    ck_assert_int_eq(check("# clean\napi cuMemcpyDtoH_v2 10\n", r, &out), 1);
    ck_assert_str_eq(out, "streamcheck: the report does not meet app.exp ('-' expected, '+' found):\n"
                          "+ finding SC203 train.py:42 64 device=0\n"
                          "+ finding SC201 data.py:17 10 device=1\n"
                          "streamcheck: expectations not met: 2 differences\n");
    free(out);
    sc_report_free(r);

    r = sc_report_new();
    ck_assert_int_eq(check("", r, &out), 0);
    free(out);
    /* an api line must hold even when the report has no such api */
    ck_assert_int_eq(check("api cuLaunchKernel 1\n", r, &out), 1);
    free(out);
    sc_report_free(r);
}
END_TEST

START_TEST(location_matching)
{
    sc_report *r = fixture_merged();
    char *out;
    /* any frame of the call site counts: main() at train.py:88 too */
    ck_assert_int_eq(check("finding SC203 train.py:88 192\n"
                           "finding SC301 app.cu:57 12\nfinding SC101 - 2000\nfinding SC402 app.cu:57 3\n"
                           "finding SC401 - 1\nfinding SC201 data.py:17 10\n",
                           r, &out), 0);
    free(out);
    /* '-' does not match a finding that has a source location */
    ck_assert_int_eq(check("finding SC203 - 192\n"
                           "finding SC301 app.cu:57 12\nfinding SC101 - 2000\nfinding SC402 app.cu:57 3\n"
                           "finding SC401 - 1\nfinding SC201 data.py:17 10\n",
                           r, &out), 1);
    ck_assert(strstr(out, "- finding SC203 - 192\n+ finding SC203 train.py:42 192\n") != NULL);
    free(out);
    /* a severity counts only findings of that severity: SC402 is a note */
    ck_assert_int_eq(check("finding SC203 train.py:88 192 warning\n"
                           "finding SC301 app.cu:57 12 error\nfinding SC101 - 2000\nfinding SC402 app.cu:57 3 note\n"
                           "finding SC401 - 1\nfinding SC201 data.py:17 10\n",
                           r, &out), 0);
    free(out);
    ck_assert_int_eq(check("finding SC203 train.py:88 192\n"
                           "finding SC301 app.cu:57 12\nfinding SC101 - 2000\nfinding SC402 app.cu:57 3 warning\n"
                           "finding SC401 - 1\nfinding SC201 data.py:17 10\n",
                           r, &out), 1);
    ck_assert(strstr(out, "- finding SC402 app.cu:57 3 warning\n+ finding SC402 app.cu:57 3\n") != NULL);
    free(out);
    sc_report_free(r);
}
END_TEST

/* device=N: only findings made on that device (the merged fixture's rank 1
   copied on device 1, its other finding is device 0's). */
START_TEST(device_matching)
{
    sc_report *r = fixture_merged();
    char *out;
    ck_assert_int_eq(check("finding SC203 train.py:88 192\n"
                           "finding SC301 app.cu:57 12\nfinding SC101 - 2000\nfinding SC402 app.cu:57 3\n"
                           "finding SC401 - 1\nfinding SC201 data.py:17 10 device=1\n",
                           r, &out), 0);
    free(out);
    ck_assert_int_eq(check("finding SC203 train.py:88 128 device=0\nfinding SC203 train.py:88 64 device=1\n"
                           "finding SC301 app.cu:57 12\nfinding SC101 - 2000\nfinding SC402 app.cu:57 3\n"
                           "finding SC401 - 1\nfinding SC201 data.py:17 10 warning device=0\n",
                           r, &out), 1);
    ck_assert(strstr(out, "- finding SC203 train.py:88 64 device=1\n") != NULL);
    ck_assert(strstr(out, "- finding SC201 data.py:17 10 warning device=0\n") != NULL);
    /* An unexpected finding of a process with several devices says which. */
    ck_assert(strstr(out, "+ finding SC201 data.py:17 10 device=1\n") != NULL);
    free(out);
    sc_report_free(r);
}
END_TEST

START_TEST(bad_lines)
{
    bad("finding SC203 a.cu:1\n", "app.exp:1: expected 'finding RULE FILE:LINE COUNT [SEVERITY] [device=N]' or 'finding RULE - COUNT [SEVERITY] [device=N]'");
    bad("finding SC203 a.cu:1 3 loud\n", "app.exp:1: 'loud' is not error, warning or note");
    bad("\nfinding SC999 a.cu:1 1\n", "app.exp:2: unknown rule 'SC999' (see streamcheck --list-rules)");
    bad("finding SC203 a.cu 1\n", "app.exp:1: 'a.cu' is not FILE:LINE (or '-' for no source location)");
    bad("finding SC203 a.cu:0 1\n", "app.exp:1: 'a.cu:0' is not FILE:LINE (or '-' for no source location)");
    bad("finding SC203 :5 1\n", "app.exp:1: ':5' is not FILE:LINE (or '-' for no source location)");
    bad("finding SC203 dir/:5 1\n", "app.exp:1: 'dir/' has no file name");
    bad("finding SC203 a.cu:1 -1\n", "app.exp:1: count '-1' is not a non-negative integer");
    bad("api cuLaunchKernel\n", "app.exp:1: expected 'api NAME COUNT'");
    bad("api cuLaunchKernel x\n", "app.exp:1: count 'x' is not a non-negative integer");
    bad("expect SC203 a.cu:1 1\n", "app.exp:1: unknown directive 'expect' (expected 'finding' or 'api')");
    bad("finding SC203 a.cu:1 1\nfinding pageable-async-copy dir/a.cu:1 2\n", "app.exp:2: repeats line 1");
    bad("api x 1\napi x 2\n", "app.exp:2: repeats line 1");
    bad("finding SC203 a.cu:1 1 note device=1 more\n", "app.exp:1: too many fields");
    bad("finding SC203 a.cu:1 1 extra\n", "app.exp:1: 'extra' is not error, warning or note");
    bad("finding SC203 a.cu:1 1 device=x\n", "app.exp:1: 'device=x' is not device=ORDINAL (once)");
    bad("finding SC203 a.cu:1 1 device=1 device=2\n", "app.exp:1: 'device=2' is not device=ORDINAL (once)");
    bad("finding SC203 a.cu:1 1 note warning\n", "app.exp:1: 'warning' is not error, warning or note");
    bad("finding SC203 a.cu:1 1 device=0\nfinding SC203 a.cu:1 2\n", "app.exp:2: repeats line 1");
    const char nul[] = "api x 1\nap\0i y 2\n";
    ck_assert_ptr_null(sc_expect_parse(nul, sizeof nul - 1, "n.exp", err, sizeof err));
    ck_assert_str_eq(err, "n.exp:2: NUL byte in line (not a text file?)");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("expect");
    TCase *tc = tcase_create("expect");
    tcase_add_test(tc, exact_match);
    tcase_add_test(tc, mismatches);
    tcase_add_test(tc, no_findings_expected);
    tcase_add_test(tc, location_matching);
    tcase_add_test(tc, device_matching);
    tcase_add_test(tc, bad_lines);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
