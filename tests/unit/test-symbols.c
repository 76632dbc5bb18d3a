/* test-symbols: sc_report_symbolize names a report's frames from module +
 * offset after the fact: this test program's own functions, an inline
 * chain unfolded once, a module of another build or without a build ID
 * (when one is needed) left as it was, past the limit a frame's function
 * alone; and the symbol index names what libdw's dwfl_module_addrname
 * names, in libc, libdw and this program. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdint.h>
#include <stdio.h>
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
    /* Never looked up: its function from the symbol table (inner() is
       inlined into outer()), its module and offset kept, no line. */
    uint64_t off = d->callsites[0].frames[0].offset;
    ck_assert_int_eq(sc_report_symbolize(d, s, 0), 1);
    ck_assert_uint_eq(d->callsites[0].nframes, 1);
    ck_assert_ptr_nonnull(d->callsites[0].frames[0].function);
    ck_assert_str_eq(d->callsites[0].frames[0].function, "outer");
    ck_assert_ptr_null(d->callsites[0].frames[0].file);
    ck_assert_uint_eq(d->callsites[0].frames[0].line, 0);
    ck_assert_uint_eq(d->callsites[0].frames[0].offset, off);
    ck_assert_ptr_nonnull(d->callsites[0].frames[0].module);
    sc_report_free(c);
    sc_report_free(d);
    sc_symbols_close(s);
}
END_TEST

/* Past the limit, in a fresh sc_symbols (no module open yet): the frame
   gets its function alone and is late; where no symbol names the offset,
   the function it had (the shim's, from the dynamic symbol table) stays. */
START_TEST(late_frames_named)
{
    sc_symbols *s = sc_symbols_open(NULL);
    if (!s)
        return;
    outer();
    sc_symbols_limit(s, 1);
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
    sc_report *r = one_frame(seen_pc, NULL);
    const sc_frame *f0 = &r->callsites[0].frames[0];
    sc_symframe sf[4];
    int late = 0;
    ck_assert_uint_eq(sc_symbols_frame(s, f0->module, NULL, f0->offset, sf, 4, &late), 1);
    ck_assert_int_eq(late, 1);
    ck_assert_str_eq(sf[0].function, "outer");
    ck_assert_ptr_null(sf[0].file);
    ck_assert_uint_eq(sf[0].line, 0);
    free(sf[0].function);
    /* Asked again: still late, not taken for a frame looked up in full. */
    ck_assert_uint_eq(sc_symbols_frame(s, f0->module, NULL, f0->offset, sf, 4, &late), 1);
    ck_assert_int_eq(late, 1);
    ck_assert_ptr_null(sf[0].file);
    free(sf[0].function);
    /* Another build is not named, nor counted late. */
    ck_assert_uint_eq(sc_symbols_frame(s, f0->module, "00112233", f0->offset, sf, 4, &late), 0);
    ck_assert_int_eq(late, 0);
    sc_report_free(r);

    /* An offset no symbol names: one far past the end of the file. */
    uint64_t far = (uint64_t)1 << 46;
    r = one_frame(seen_pc, NULL);
    sc_frame *f = &r->callsites[0].frames[0];
    ck_assert_ptr_null(sc_symbols_symbol(s, f->module, far));
    f->offset = far;
    f->function = strdup("from_dladdr");
    ck_assert_int_eq(sc_report_symbolize(r, s, 0), 1);
    ck_assert_uint_eq(r->callsites[0].nframes, 1);
    ck_assert_str_eq(r->callsites[0].frames[0].function, "from_dladdr");
    ck_assert_uint_eq(r->callsites[0].frames[0].offset, far);
    sc_report_free(r);
    sc_symbols_close(s);
}
END_TEST

/* Labels without a size, two global and one local at one address, with no
   sized symbol around them (as in hand-written assembly): libdw names
   their address by the last global label, the bytes after it by the last
   label in its reading order, which reads the local ones last. */
__asm__(".text\n"
        ".globl sc_test_label_g1\n"
        ".globl sc_test_label_g2\n"
        "sc_test_label_g1:\n"
        "sc_test_label_local:\n"
        "sc_test_label_g2:\n"
        "nop\nnop\nnop\nnop\n");
extern char sc_test_label_g1[];

/* libdw itself, loaded here as symbols.c loads it, to compare with. */
typedef struct dwlib {
    Dwfl *(*begin)(const Dwfl_Callbacks *);
    Dwfl_Module *(*report_elf)(Dwfl *, const char *, const char *, int, GElf_Addr, bool);
    int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *);
    const char *(*addrname)(Dwfl_Module *, GElf_Addr);
    int (*getsymtab)(Dwfl_Module *);
    const char *(*getsym_info)(Dwfl_Module *, int, GElf_Sym *, GElf_Addr *, GElf_Word *, Elf **, Dwarf_Addr *);
    void (*end)(Dwfl *);
    Dwfl_Callbacks cb;
    char *debuginfo_path;
} dwlib;

static int dwlib_open(dwlib *d)
{
    void *h = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return -1;
    memset(d, 0, sizeof *d);
    *(void **)&d->begin = dlsym(h, "dwfl_begin");
    *(void **)&d->report_elf = dlsym(h, "dwfl_report_elf");
    *(void **)&d->report_end = dlsym(h, "dwfl_report_end");
    *(void **)&d->addrname = dlsym(h, "dwfl_module_addrname");
    *(void **)&d->getsymtab = dlsym(h, "dwfl_module_getsymtab");
    *(void **)&d->getsym_info = dlsym(h, "dwfl_module_getsym_info");
    *(void **)&d->end = dlsym(h, "dwfl_end");
    *(void **)&d->cb.find_elf = dlsym(h, "dwfl_build_id_find_elf");
    *(void **)&d->cb.find_debuginfo = dlsym(h, "dwfl_standard_find_debuginfo");
    *(void **)&d->cb.section_address = dlsym(h, "dwfl_offline_section_address");
    d->cb.debuginfo_path = &d->debuginfo_path;
    return d->begin && d->report_elf && d->report_end && d->addrname && d->getsymtab && d->getsym_info && d->end &&
                   d->cb.find_elf && d->cb.find_debuginfo && d->cb.section_address
               ? 0
               : -1;
}

static int names_equal(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Whether the index names a as libdw does; counts a difference in *bad. */
static int compare_one(sc_symbols *s, const dwlib *d, Dwfl_Module *mod, const char *path, uint64_t a, long *bad)
{
    const char *want = d->addrname(mod, a), *got = sc_symbols_symbol(s, path, a);
    if (!names_equal(want, got) && ++*bad <= 10)
        fprintf(stderr, "%s +0x%llx: libdw %s, index %s\n", path, (unsigned long long)a, want ? want : "(none)",
                got ? got : "(none)");
    return want != NULL;
}

/* Compares the index with dwfl_module_addrname at offsets around the
   starts and ends of every 7th symbol of path's table, every 4 KiB from
   its lowest symbol to its highest, and at the nat offsets of at; returns
   how many offsets libdw named, and counts the differences in *bad. */
static long compare_names(sc_symbols *s, const dwlib *d, const char *path, const uint64_t *at, size_t nat,
                          long *bad)
{
    Dwfl *dwfl = d->begin(&d->cb);
    ck_assert_ptr_nonnull(dwfl);
    Dwfl_Module *mod = d->report_elf(dwfl, "m", path, -1, 0, true);
    ck_assert_int_eq(d->report_end(dwfl, NULL, NULL), 0);
    ck_assert_ptr_nonnull(mod);
    int n = d->getsymtab(mod);
    long named = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr v;
        GElf_Word shndx;
        if (!d->getsym_info(mod, i, &sym, &v, &shndx, NULL, NULL) || sym.st_shndx == SHN_UNDEF)
            continue;
        lo = v && v < lo ? v : lo;
        hi = v > hi ? v : hi;
        if (i % 7)
            continue;
        uint64_t near[] = {v - 1, v, v + 1, v + sym.st_size / 2, v + sym.st_size - 1, v + sym.st_size,
                           v + sym.st_size + 1};
        for (size_t k = 0; k < sizeof near / sizeof near[0]; k++)
            named += compare_one(s, d, mod, path, near[k], bad);
    }
    for (uint64_t a = lo; lo < hi && a <= hi + 4096; a += 4096)
        named += compare_one(s, d, mod, path, a, bad);
    for (size_t k = 0; k < nat; k++)
        named += compare_one(s, d, mod, path, at[k], bad);
    d->end(dwfl);
    return named;
}

START_TEST(index_names_as_libdw)
{
    sc_symbols *s = sc_symbols_open(NULL);
    dwlib d;
    if (!s || dwlib_open(&d))
        return;
    /* libc (with its full table where its debug file is installed: locals,
       aliases, assembly labels without a size), libdw (its dynamic symbols
       alone, as PyTorch's libraries have) and this program. */
    Dl_info libc, libdw;
    ck_assert(dladdr(dlsym(RTLD_DEFAULT, "gnu_get_libc_version"), &libc) != 0);
    ck_assert(dladdr((void *)d.addrname, &libdw) != 0);
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert(k > 0);
    exe[k] = 0;
    const char *paths[] = {libc.dli_fname, libdw.dli_fname, exe};
    Dl_info self;
    ck_assert(dladdr(sc_test_label_g1, &self) != 0);
    uint64_t label = (uint64_t)(sc_test_label_g1 - (char *)self.dli_fbase);
    uint64_t labels[] = {label, label + 1, label + 3};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        int own = i == sizeof paths / sizeof paths[0] - 1;
        long bad = 0, named = compare_names(s, &d, paths[i], own ? labels : NULL, own ? 3 : 0, &bad);
        ck_assert_msg(bad == 0, "%s: %ld offsets named otherwise than by libdw", paths[i], bad);
        ck_assert_msg(named >= 100, "%s: libdw named only %ld offsets", paths[i], named);
    }
    const char *at = sc_symbols_symbol(s, exe, label), *after = sc_symbols_symbol(s, exe, label + 1);
    ck_assert_ptr_nonnull(at);
    ck_assert_ptr_nonnull(after);
    ck_assert(!strncmp(at, "sc_test_label_g", 15));
    ck_assert_str_eq(after, "sc_test_label_local");
    sc_symbols_close(s);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("symbols");
    TCase *tc = tcase_create("symbols");
    tcase_set_timeout(tc, 30);   /* libdw searches libc's table for each of about 10000 offsets */
    tcase_add_test(tc, own_frames);
    tcase_add_test(tc, other_builds_left_alone);
    tcase_add_test(tc, frames_shared_by_sites);
    tcase_add_test(tc, late_frames_named);
    tcase_add_test(tc, index_names_as_libdw);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
