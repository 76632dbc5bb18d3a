/* test_touch.c: the first touch of a read-back's destination
 * (src/shim/touch.c) on mappings of this process: which ranges it calls
 * cold, that faulting them in writes no byte, and errno kept.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "touch.h"

#define LEN ((size_t)4 << 20)

static unsigned char *map(void)
{
    void *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(p, MAP_FAILED);
    /* this test asks about 4 KiB pages: no huge page filled at the first write */
    madvise(p, LEN, MADV_NOHUGEPAGE);
    return p;
}

/* Whether the system can populate writable (Linux 5.14): a page of a fresh
   mapping, asked for directly. */
static int populate_works(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int ok = p != MAP_FAILED && madvise(p, (size_t)ps, 23 /* MADV_POPULATE_WRITE */) == 0;
    if (p != MAP_FAILED)
        munmap(p, (size_t)ps);
    return ok;
}

START_TEST(fresh_pages_are_cold)
{
    unsigned char *p = map();
    errno = 1234;
    ck_assert_int_eq(sc_touch_cold(p, LEN), 1);
    ck_assert_int_eq(errno, 1234);
    /* below the size worth asking about: never cold */
    ck_assert_int_eq(sc_touch_cold(p, SC_TOUCH_MIN - 1), 0);
    /* written, every page resident: not cold */
    memset(p, 7, LEN);
    ck_assert_int_eq(sc_touch_cold(p, LEN), 0);
    /* one page given back: cold again (an unaligned range over it too) */
    long ps = sysconf(_SC_PAGESIZE);
    madvise(p + LEN / 2, (size_t)ps, MADV_DONTNEED);
    ck_assert_int_eq(sc_touch_cold(p + 100, LEN - 200), 1);
    munmap(p, LEN);
}
END_TEST

START_TEST(populate_writes_nothing)
{
    if (!populate_works())
        return;   /* before Linux 5.14: sc_touch_populate says 0 and does nothing */
    unsigned char *p = map();
    long ps = sysconf(_SC_PAGESIZE);
    /* every other page written, a pattern the fault-in must keep */
    for (size_t i = 0; i < LEN; i += 2 * (size_t)ps)
        memset(p + i, (int)(i / (size_t)ps % 251) + 1, (size_t)ps);
    ck_assert_int_eq(sc_touch_cold(p, LEN), 1);
    errno = 4321;
    uint64_t ns = sc_touch_populate(p + 10, LEN - 20);
    ck_assert_int_eq(errno, 4321);
    ck_assert_uint_gt(ns, 0);
    ck_assert_int_eq(sc_touch_cold(p, LEN), 0);   /* all resident now */
    for (size_t i = 0; i < LEN; i += (size_t)ps) {
        unsigned char want = (i / (size_t)ps) % 2 ? 0 : (unsigned char)((i / (size_t)ps % 251) + 1);
        ck_assert_uint_eq(p[i], want);
        ck_assert_uint_eq(p[i + (size_t)ps - 1], want);
    }
    munmap(p, LEN);
}
END_TEST

/* A range with a hole (its second half unmapped): mincore fails on it, and
   the range is left alone, though its first half is fresh. */
START_TEST(unmapped_range_left_alone)
{
    unsigned char *p = map();
    munmap(p + LEN / 2, LEN / 2);
    ck_assert_int_eq(sc_touch_cold(p, LEN / 2), 1);
    errno = 99;
    ck_assert_int_eq(sc_touch_cold(p, LEN), 0);
    ck_assert_int_eq(errno, 99);
    munmap(p, LEN / 2);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("touch");
    TCase *tc = tcase_create("touch");
    tcase_add_test(tc, fresh_pages_are_cold);
    tcase_add_test(tc, populate_writes_nothing);
    tcase_add_test(tc, unmapped_range_left_alone);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
