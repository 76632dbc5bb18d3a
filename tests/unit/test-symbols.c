/* test-symbols: sc_report_symbolize names a report's frames from module +
 * offset after the fact: this test program's own functions, an inline
 * chain unfolded once, a module of another build or without a build ID
 * (when one is needed) left as it was. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "symbols.h"

static uintptr_t seen_pc;

/* Where it was called from: the call instruction inside inner(). */
__attribute__((noinline)) static void record(void)
{
    seen_pc = (uintptr_t)__builtin_return_address(0) - 1;
    __asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) void inner(void)
{
    record(); /* LINE_INNER */
}

__attribute__((noinline)) static void outer(void)
{
    inner(); /* LINE_OUTER */
    __asm__ volatile("" ::: "memory");
}

/* The line of this file holding marker. */
static unsigned line_of(const char *marker)
{
    FILE *f = fopen(__FILE__, "r");
    char buf[512];
    unsigned n = 0, found = 0;
    while (f && !found && fgets(buf, sizeof buf, f)) {
        n++;
        if (strstr(buf, marker) && !strstr(buf, "line_of"))
            found = n;
    }
    if (f)
        fclose(f);
    return found;
}

/* A report with one call site whose one frame is pc in this program. */
static sc_report *one_frame(uintptr_t pc, const char *build_id)
{
    Dl_info info;
    ck_assert(dladdr((void *)pc, &info) != 0);
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert(k > 0);
    exe[k] = 0;
    sc_report *r = sc_report_new();
    sc_callsite *cs = sc_report_add_callsite(r, "00000000000000aa");
    ck_assert_ptr_nonnull(cs);
    ck_assert_int_eq(sc_callsite_add_frame(cs, exe, pc - (uintptr_t)info.dli_fbase, NULL, NULL, 0), 0);
    cs->frames[0].build_id = build_id ? strdup(build_id) : NULL;
    return r;
}

START_TEST(own_frames)
{
    sc_symbols *s = sc_symbols_open(NULL);
    if (!s)
        return;   /* no libdw here: nothing to name frames with */
    outer();
    sc_report *r = one_frame(seen_pc, NULL);
    ck_assert_int_eq(sc_report_symbolize(r, s, 0), 0);
    const sc_callsite *cs = &r->callsites[0];
    ck_assert_uint_eq(cs->nframes, 2);
    ck_assert_str_eq(cs->frames[0].function, "inner");
    ck_assert_uint_eq(cs->frames[0].line, line_of("LINE_INNER"));
    ck_assert_str_eq(cs->frames[1].function, "outer");
    ck_assert_uint_eq(cs->frames[1].line, line_of("LINE_OUTER"));
    for (int i = 0; i < 2; i++) {
        ck_assert_ptr_nonnull(cs->frames[i].file);
        ck_assert_str_eq(sc_basename(cs->frames[i].file), "test-symbols.c");
        ck_assert_uint_eq(cs->frames[i].offset, cs->frames[0].offset);
    }
    /* Again: the chain has its lines, nothing is unfolded twice. */
    ck_assert_int_eq(sc_report_symbolize(r, s, 0), 0);
    ck_assert_uint_eq(r->callsites[0].nframes, 2);
    sc_report_free(r);
    sc_symbols_close(s);
}
END_TEST

START_TEST(other_builds_left_alone)
{
    sc_symbols *s = sc_symbols_open(NULL);
    if (!s)
        return;
    outer();
    /* Another build of the same path (rebuilt since, another machine). */
    sc_report *r = one_frame(seen_pc, "00112233445566778899aabbccddeeff00112233");
    ck_assert_int_eq(sc_report_symbolize(r, s, 0), 0);
    ck_assert_uint_eq(r->callsites[0].nframes, 1);
    ck_assert_ptr_null(r->callsites[0].frames[0].file);
    sc_report_free(r);
    /* A frame without a build ID, when one is needed. */
    r = one_frame(seen_pc, NULL);
    ck_assert_int_eq(sc_report_symbolize(r, s, 1), 0);
    ck_assert_ptr_null(r->callsites[0].frames[0].file);
    sc_report_free(r);
    /* Past the limit: left as it was, and counted. */
    sc_symbols_close(s);
    s = sc_symbols_open(NULL);
    sc_symbols_limit(s, 1);
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
    r = one_frame(seen_pc, NULL);
    ck_assert_int_eq(sc_report_symbolize(r, s, 0), 1);
    ck_assert_ptr_null(r->callsites[0].frames[0].file);
    sc_report_free(r);
    sc_symbols_close(s);
}
END_TEST

/* Call sites that share a frame: it is read once and each gets its own
   copy of the chain; past the limit, a frame looked up before is still
   named, one never looked up is not (and is counted). */
START_TEST(frames_shared_by_sites)
{
    sc_symbols *s = sc_symbols_open(NULL);
    if (!s)
        return;
    outer();
    sc_report *a = one_frame(seen_pc, NULL), *b = one_frame(seen_pc, NULL);
    ck_assert_int_eq(sc_report_symbolize(a, s, 0), 0);
    ck_assert_int_eq(sc_report_symbolize(b, s, 0), 0);
    for (int i = 0; i < 2; i++) {
        const sc_frame *fa = &a->callsites[0].frames[i], *fb = &b->callsites[0].frames[i];
        ck_assert_uint_eq(b->callsites[0].nframes, 2);
        ck_assert_str_eq(fa->function, fb->function);
        ck_assert_str_eq(fa->file, fb->file);
        ck_assert_uint_eq(fa->line, fb->line);
        ck_assert_ptr_ne(fa->function, fb->function);   /* each report owns its strings */
        ck_assert_ptr_ne(fa->file, fb->file);
    }
    ck_assert_str_eq(b->callsites[0].frames[1].function, "outer");
    sc_report_free(a);
    sc_report_free(b);
    sc_symbols_limit(s, 1);
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
    sc_report *c = one_frame(seen_pc, NULL), *d = one_frame(seen_pc + 1, NULL);
    ck_assert_int_eq(sc_report_symbolize(c, s, 0), 0);
    ck_assert_uint_eq(c->callsites[0].nframes, 2);
    ck_assert_uint_eq(c->callsites[0].frames[0].line, line_of("LINE_INNER"));
    ck_assert_int_eq(sc_report_symbolize(d, s, 0), 1);
    ck_assert_ptr_null(d->callsites[0].frames[0].file);
    sc_report_free(c);
    sc_report_free(d);
    sc_symbols_close(s);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("symbols");
    TCase *tc = tcase_create("symbols");
    tcase_add_test(tc, own_frames);
    tcase_add_test(tc, other_builds_left_alone);
    tcase_add_test(tc, frames_shared_by_sites);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
