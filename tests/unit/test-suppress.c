/* test-suppress: the suppression file format, matching, --rules/--ignore
 * and the report filter. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "suppress.h"

static char err[512];

static sc_suppressions *parse(const char *text)
{
    return sc_suppress_parse(text, strlen(text), "my.supp", err, sizeof err);
}

static void bad(const char *text, const char *want)
{
    sc_suppressions *s = parse(text);
    ck_assert_msg(s == NULL, "accepted: %s", text);
    ck_assert_msg(!strcmp(err, want), "message '%s', want '%s'", err, want);
}

START_TEST(format)
{
    sc_suppressions *s = parse("# a comment\n"
                               "\n"
                               "   \t\n"
                               "SC203 train.py:42\r\n"
                               "pageable-async-copy   */vendor/*  \n"
                               "* libfoo.so\n"
                               "  # indented comment\n"
                               "sync-memcpy name with spaces.c:1");
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(sc_suppress_count(s), 4);
    sc_suppress_free(s);

    s = parse("");
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(sc_suppress_count(s), 0);
    sc_suppress_free(s);
}
END_TEST

START_TEST(bad_lines)
{
    bad("SC203 a.c:1\nSC999 b.c:2\n",
        "my.supp:2: unknown rule 'SC999' (an id such as SC203, a name such as pageable-async-copy, or '*'; "
        "see streamcheck --list-rules)");
    bad("\n\n# x\nSC203\n", "my.supp:4: expected 'RULE PATTERN', found only 'SC203'");
    bad("SC203   \n", "my.supp:1: expected 'RULE PATTERN', found only 'SC203'");
    char long_line[SC_SUPPRESS_MAX_LINE + 20];
    memset(long_line, 'x', sizeof long_line - 1);
    memcpy(long_line, "SC203 ", 6);
    long_line[sizeof long_line - 1] = '\0';
    bad(long_line, "my.supp:1: line longer than 4096 bytes");
    /* control characters in a quoted rule stay on one line */
    bad("SC\x1b[2J a.c\n", "my.supp:1: unknown rule 'SC?[2J' (an id such as SC203, a name such as "
        "pageable-async-copy, or '*'; see streamcheck --list-rules)");
}
END_TEST

START_TEST(bad_nul_length)
{
    /* A NUL inside the given length, not at its end. */
    const char text[] = "SC203 a\0b\n";
    sc_suppressions *s = sc_suppress_parse(text, sizeof text - 1, "n.supp", err, sizeof err);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err, "n.supp:1: NUL byte in line (not a text file?)");
}
END_TEST

START_TEST(load)
{
    char path[] = "/tmp/sc-supp-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "SC203 x\nSC204\n", 14), 14);
    close(fd);
    sc_suppressions *s = sc_suppress_load(path, err, sizeof err);
    ck_assert_ptr_null(s);
    char want[600];
    snprintf(want, sizeof want, "%s:2: expected 'RULE PATTERN', found only 'SC204'", path);
    ck_assert_str_eq(err, want);
    unlink(path);
    s = sc_suppress_load(path, err, sizeof err);
    ck_assert_ptr_null(s);
    ck_assert(strstr(err, "No such file or directory") != NULL);
}
END_TEST

/* Whether text suppresses the fixture finding of rule at call site id. */
static int hits(const char *text, sc_rule_id rule, const char *id)
{
    sc_report *r = fixture_merged();
    sc_suppressions *s = parse(text);
    ck_assert_msg(s != NULL, "%s", err);
    sc_finding f = {.rule = rule};
    snprintf(f.callsite, sizeof f.callsite, "%s", id);
    int m = sc_suppress_match(s, &f, sc_report_callsite(r, id));
    sc_suppress_free(s);
    sc_report_free(r);
    return m;
}

START_TEST(matching)
{
    const char *py = "9f3c2e1a5b7d4c60", *c = "0a1b2c3d4e5f6071", *lib = "1122334455667788";
    /* Python frames: file:line, basename:line, function, file */
    ck_assert(hits("SC203 train.py:42", SC_RULE_SC203, py));
    ck_assert(hits("SC203 /home/ci/proj/train.py:88", SC_RULE_SC203, py));
    ck_assert(hits("SC203 step", SC_RULE_SC203, py));
    ck_assert(hits("SC203 */proj/*.py", SC_RULE_SC203, py));
    ck_assert(!hits("SC203 train.py:43", SC_RULE_SC203, py));
    /* native frames: function glob, file:line, module basename and path */
    ck_assert(hits("pageable-async-copy at::native::*", SC_RULE_SC203, py));
    ck_assert(hits("SC203 Copy.cu:261", SC_RULE_SC203, py));
    ck_assert(hits("SC203 libtorch_python.so", SC_RULE_SC203, py));
    ck_assert(hits("SC203 /usr/lib/python3/*", SC_RULE_SC203, py));
    ck_assert(hits("SC301 app.cu:57", SC_RULE_SC301, c));
    ck_assert(hits("SC301 __libc_start_*", SC_RULE_SC301, c));
    ck_assert(hits("SC101 libfoo.so", SC_RULE_SC101, lib));
    ck_assert(hits("SC101 foo_*", SC_RULE_SC101, lib));
    /* the rule must match too; '*' matches every rule */
    ck_assert(!hits("SC201 train.py:42", SC_RULE_SC203, py));
    ck_assert(hits("* train.py:42", SC_RULE_SC203, py));
    ck_assert(hits("sc203 train.py:42", SC_RULE_SC203, py)); /* ids are case-insensitive */
    /* no call site: only '*' matches */
    ck_assert(hits("SC401 *", SC_RULE_SC401, ""));
    ck_assert(!hits("SC401 *.cu", SC_RULE_SC401, ""));
    ck_assert(!hits("SC401 app.cu:57", SC_RULE_SC401, ""));
    /* an empty set matches nothing */
    ck_assert(!hits("# nothing\n", SC_RULE_SC203, py));
}
END_TEST

START_TEST(rule_lists)
{
    unsigned char sel[SC_NRULES];
    ck_assert_int_eq(sc_rule_list_parse("SC101, pageable-async-copy ,sc702", "--rules", sel, err, sizeof err), 0);
    ck_assert(sel[SC_RULE_SC101] && sel[SC_RULE_SC203] && sel[SC_RULE_SC702]);
    ck_assert(!sel[SC_RULE_SC102]);
    ck_assert_int_eq(sc_rule_list_parse("SC101,SC999", "--rules", sel, err, sizeof err), -1);
    ck_assert_str_eq(err, "--rules: unknown rule 'SC999' (see streamcheck --list-rules)");
    ck_assert_int_eq(sc_rule_list_parse("SC101,,SC102", "--ignore", sel, err, sizeof err), -1);
    ck_assert_str_eq(err, "--ignore: empty rule name in 'SC101,,SC102'");
    ck_assert_int_eq(sc_rule_list_parse("", "--ignore", sel, err, sizeof err), -1);
}
END_TEST

START_TEST(filter)
{
    sc_report *r = fixture_merged();
    size_t n = r->nfindings, ncs = r->ncallsites;
    unsigned char ignore[SC_NRULES];
    ck_assert_int_eq(sc_rule_list_parse("SC203", "--ignore", ignore, err, sizeof err), 0);
    sc_filter f = {.ignore = ignore};
    ck_assert(sc_report_filter(r, &f) == 2);
    ck_assert_uint_eq(r->nfindings, n - 2);
    for (size_t i = 0; i < r->nfindings; i++)
        ck_assert_int_ne(r->findings[i].rule, SC_RULE_SC203);
    /* counted against the process of each dropped finding */
    ck_assert(r->procs[0].suppressed == 1 && r->procs[1].suppressed == 1);
    /* the PyTorch call site only SC203 used is gone; the unused one too */
    ck_assert_ptr_null(sc_report_callsite(r, "9f3c2e1a5b7d4c60"));
    ck_assert_ptr_null(sc_report_callsite(r, "00000000000000ff"));
    ck_assert_uint_eq(r->ncallsites, ncs - 2);
    /* one used only by a redirect stays */
    ck_assert_ptr_nonnull(sc_report_callsite(r, "deadbeefcafef00d"));

    /* --rules keeps only the listed rules */
    unsigned char only[SC_NRULES];
    ck_assert_int_eq(sc_rule_list_parse("SC301,SC402", "--rules", only, err, sizeof err), 0);
    sc_filter g = {.only = only};
    sc_report_filter(r, &g);
    ck_assert_uint_eq(r->nfindings, 2);

    /* suppressions */
    sc_suppressions *s = parse("device-alloc-sync app.cu:57\n");
    sc_filter h = {.supp = s};
    ck_assert(sc_report_filter(r, &h) == 1);
    ck_assert_uint_eq(r->nfindings, 1);
    ck_assert_int_eq(r->findings[0].rule, SC_RULE_SC402);
    /* nothing to drop: nothing changes */
    ck_assert(sc_report_filter(r, &h) == 0);
    sc_suppress_free(s);

    /* the suppressed count reaches the JSON and round-trips */
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    ck_assert_int_eq(sc_render_json(r, o, NULL), 0);
    fclose(o);
    ck_assert(strstr(buf, "\"suppressed\": 4") != NULL && strstr(buf, "\"suppressed\": 2") != NULL);
    free(buf);
    sc_report_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("suppress");
    TCase *tc = tcase_create("suppress");
    tcase_add_test(tc, format);
    tcase_add_test(tc, bad_lines);
    tcase_add_test(tc, bad_nul_length);
    tcase_add_test(tc, load);
    tcase_add_test(tc, matching);
    tcase_add_test(tc, rule_lists);
    tcase_add_test(tc, filter);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
