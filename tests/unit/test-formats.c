/* test-formats: the table of report formats (src/common/formats.def), its
 * one parser of format lists -- what STREAMCHECK_FORMAT, --format and
 * `streamcheck report --format` accept -- and the renderer of every row. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "formats.h"
#include "options.h"
#include "report.h"

static char err[512];

static unsigned parse(const char *s)
{
    unsigned bits = 0xdead;
    ck_assert_msg(sc_formats_parse(s, &bits, err, sizeof err) == 0, "'%s' rejected: %s", s, err);
    return bits;
}

static void rejects(const char *s, const char *want)
{
    unsigned bits = 0xdead;
    ck_assert_msg(sc_formats_parse(s, &bits, err, sizeof err) == -1, "'%s' accepted", s);
    ck_assert_msg(!strcmp(err, want), "'%s': message '%s', want '%s'", s, err, want);
    ck_assert_uint_eq(bits, 0xdead);
}

#define ALL (SC_FMT_TEXT | SC_FMT_JSON | SC_FMT_SARIF | SC_FMT_JUNIT | SC_FMT_HTML | SC_FMT_MD)

START_TEST(names)
{
    ck_assert_uint_eq(parse("text"), SC_FMT_TEXT);
    ck_assert_uint_eq(parse("text,json,sarif,junit,trace,html,md"), ALL | SC_FMT_TRACE);
    /* what only the report tool took: all, xml */
    ck_assert_uint_eq(parse("all"), ALL);
    ck_assert_uint_eq(parse("xml"), SC_FMT_JUNIT);
    ck_assert_uint_eq(parse("all,trace"), ALL | SC_FMT_TRACE);
    /* what only the settings took: any case, blanks, empty items, trace */
    ck_assert_uint_eq(parse("TEXT,Html"), SC_FMT_TEXT | SC_FMT_HTML);
    ck_assert_uint_eq(parse("ALL"), ALL);
    ck_assert_uint_eq(parse("XmL"), SC_FMT_JUNIT);
    ck_assert_uint_eq(parse(" json , sarif\t"), SC_FMT_JSON | SC_FMT_SARIF);
    ck_assert_uint_eq(parse("json,,text,"), SC_FMT_JSON | SC_FMT_TEXT);
    ck_assert_uint_eq(parse("trace"), SC_FMT_TRACE);
    ck_assert_uint_eq(parse("junit,xml"), SC_FMT_JUNIT);
    ck_assert_uint_eq(parse("Markdown"), SC_FMT_MD);
    ck_assert_uint_eq(parse("md,markdown"), SC_FMT_MD);
}
END_TEST

/* What every message of a bad list ends with: the formats of formats.def. */
#define EXPECTED "(expected text, json, sarif, junit (or xml), trace, html, md (or markdown) or all)"

START_TEST(errors)
{
    rejects("pdf", "unknown format 'pdf' " EXPECTED);
    rejects("text,htm", "unknown format 'htm' " EXPECTED);
    rejects("text ,  bad thing ", "unknown format 'bad thing' " EXPECTED);
    rejects("", "no format given " EXPECTED);
    rejects(" , ,", "no format given " EXPECTED);
    rejects("texts", "unknown format 'texts' " EXPECTED);
    rejects("alll", "unknown format 'alll' " EXPECTED);
    /* a long item is quoted cut, so the message stays one short line */
    char longer[300];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    unsigned bits;
    ck_assert_int_eq(sc_formats_parse(longer, &bits, err, sizeof err), -1);
    ck_assert_msg(!strncmp(err, "unknown format 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' (", 58), "%s", err);
}
END_TEST

/* STREAMCHECK_FORMAT and --format go through sc_option_check. */
START_TEST(setting)
{
    ck_assert_int_eq(sc_option_check(SC_OPT_FORMAT, "All,XML", err, sizeof err), 0);
    ck_assert_int_eq(sc_option_check(SC_OPT_FORMAT, "Trace", err, sizeof err), 0);
    ck_assert_int_eq(sc_option_check(SC_OPT_FORMAT, "htm", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "STREAMCHECK_FORMAT: unknown format 'htm' (expected ") != NULL, "%s", err);
}
END_TEST

START_TEST(table)
{
    static const struct { sc_format f; const char *ext; } want[] = {
        {SC_FMT_TEXT, "txt"}, {SC_FMT_JSON, "json"}, {SC_FMT_SARIF, "sarif"},
        {SC_FMT_JUNIT, "xml"}, {SC_FMT_TRACE, "trace.json"}, {SC_FMT_HTML, "html"},
        {SC_FMT_MD, "md"},
    };
    ck_assert_int_eq(SC_NFORMATS, 7);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        ck_assert_int_eq(sc_format_index(want[i].f), (int)i);
        ck_assert_str_eq(sc_format_ext(want[i].f), want[i].ext);
        ck_assert_str_eq(sc_formats[i].ext, want[i].ext);
        ck_assert_ptr_nonnull(sc_formats[i].description);
    }
    ck_assert_int_eq(sc_format_index((sc_format)0), -1);
    ck_assert_int_eq(sc_format_index((sc_format)(SC_FMT_TEXT | SC_FMT_JSON)), -1);
    ck_assert_ptr_null(sc_format_ext((sc_format)(1u << SC_NFORMATS)));
}
END_TEST

/* Every row of the table renders through sc_render; anything else is
   EINVAL. */
START_TEST(every_row_renders)
{
    sc_report *r = fixture_merged();
    for (int i = 0; i < SC_NFORMATS; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        ck_assert_msg(sc_render(r, sc_formats[i].format, f, NULL) == 0, "%s", sc_formats[i].name);
        fclose(f);
        ck_assert_msg(len > 0, "%s wrote nothing", sc_formats[i].name);
        free(buf);
    }
    errno = 0;
    ck_assert_int_eq(sc_render(r, (sc_format)(SC_FMT_TEXT | SC_FMT_JSON), stdout, NULL), -1);
    ck_assert_int_eq(errno, EINVAL);
    sc_report_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, names);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, setting);
    tcase_add_test(tc, table);
    tcase_add_test(tc, every_row_renders);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
