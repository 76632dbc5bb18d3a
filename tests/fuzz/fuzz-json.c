/* fuzz-json: the JSON parser and the report reader, for libFuzzer (make
 * fuzz) and for the corpus replay in make check (replay.c).
 *
 * Beyond "no crash, no leak, no undefined behaviour" it checks properties:
 * every rejection says why, in one line; and a report the reader accepts
 * renders to JSON that reads back and renders to the same bytes, and
 * renders in every other format. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz-json: property violated: %s\n", what);
        abort();
    }
}

static char *render(const sc_report *r, sc_format f, size_t *len)
{
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    must(m != NULL, "open_memstream");
    sc_render_opts o = {.srcroot = "/src", .verbose = 1};
    must(sc_render(r, f, m, &o) == 0, "rendering an accepted report succeeds");
    fclose(m);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    const char *text = (const char *)data;

    sc_json *v = sc_json_parse(text, size, NULL, err, sizeof err);
    must(v || (err[0] && !strchr(err, '\n')), "a parse error has a one-line message");
    sc_json_free(v);

    sc_report *r = sc_report_new();
    must(r != NULL, "sc_report_new");
    if (sc_report_parse_json(r, text, size, "fuzz.json", err, sizeof err) != 0) {
        must(!strncmp(err, "fuzz.json: ", 11), "a reader error names the file");
        must(!strchr(err, '\n'), "a reader error is one line");
        sc_report_free(r);
        return 0;
    }
    size_t n1, n2, n;
    char *j1 = render(r, SC_FMT_JSON, &n1);
    sc_report *back = sc_report_new();
    must(sc_report_parse_json(back, j1, n1, "again.json", err, sizeof err) == 0, "rendered JSON reads back");
    char *j2 = render(back, SC_FMT_JSON, &n2);
    must(n1 == n2 && !memcmp(j1, j2, n1), "render -> read -> render is the identity");
    for (sc_format f = SC_FMT_TEXT; f <= SC_FMT_JUNIT; f <<= 1)
        if (f != SC_FMT_JSON)
            free(render(r, f, &n));
    /* sorting and merging an accepted report must hold up too */
    sc_report_sort(back);
    must(sc_report_merge(back, r) == 0, "merge");
    sc_report_sort(back);
    free(render(back, SC_FMT_TEXT, &n));
    free(j1);
    free(j2);
    sc_report_free(back);
    sc_report_free(r);
    return 0;
}
