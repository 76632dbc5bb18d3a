/* fuzz-suppress: the suppressions parser and matcher, and the expectation
 * file parser and checker (both line formats), for libFuzzer (make fuzz) and
 * for the corpus replay in make check (replay.c).  The same input is read
 * as both formats; what parses is applied to the fixture report. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "fixture.h"
#include "suppress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz-suppress: property violated: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sc_report *fixture;
    char err[512];
    if (!fixture)
        fixture = fixture_merged();

    sc_suppressions *s = sc_suppress_parse((const char *)data, size, "f.supp", err, sizeof err);
    if (!s) {
        must(!strncmp(err, "f.supp:", 7), "a suppression error says FILE:LINE");
        must(!strchr(err, '\n'), "a suppression error is one line");
    } else {
        sc_report *r = fixture_merged();
        size_t before = r->nfindings;
        uint64_t matched = 0;
        for (size_t i = 0; i < r->nfindings; i++)
            matched += sc_suppress_match(s, &r->findings[i], sc_report_callsite(r, r->findings[i].callsite));
        sc_filter f = {.supp = s};
        uint64_t dropped = sc_report_filter(r, &f);
        must(dropped == matched && r->nfindings == before - dropped, "the filter drops what matches");
        sc_report_free(r);
        sc_suppress_free(s);
    }

    sc_expect *e = sc_expect_parse((const char *)data, size, "f.exp", err, sizeof err);
    if (!e) {
        must(!strncmp(err, "f.exp:", 6), "an expectation error says FILE:LINE");
        must(!strchr(err, '\n'), "an expectation error is one line");
    } else {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        int rc = sc_expect_check(e, fixture, m);
        fclose(m);
        must(rc == 0 || rc == 1, "the checker decides");
        must(len > 0 && buf[len - 1] == '\n', "the checker prints a verdict");
        free(buf);
        sc_expect_free(e);
    }
    return 0;
}
