/* test-json: the strict JSON parser and the writer (src/common/json.c). */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static char err[512];

static sc_json *parse(const char *s)
{
    return sc_json_parse(s, strlen(s), NULL, err, sizeof err);
}

/* Parses s, which must fail with a message starting with want. */
static void rejects(const char *s, const char *want)
{
    sc_json *v = parse(s);
    ck_assert_msg(v == NULL, "accepted invalid JSON: %s", s);
    ck_assert_msg(!strncmp(err, want, strlen(want)), "input %s: message '%s', want '%s...'", s, err, want);
}

START_TEST(valid_values)
{
    static const char *const ok[] = {
        "{}", "[]", "\"\"", "0", "-0", "1.5", "-1e10", "2E+3", "3e-2", "true", "false", "null",
        " \t\r\n{ \"a\" : [ 1 , 2 , { } , [ ] ] } \n", "[[[[[[[[[[]]]]]]]]]]",
        "{\"a\":{\"b\":{\"c\":null}},\"d\":\"e\"}", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sc_json *v = parse(ok[i]);
        ck_assert_msg(v != NULL, "rejected %s: %s", ok[i], err);
        sc_json_free(v);
    }
}
END_TEST

START_TEST(structure)
{
    sc_json *v = parse("{\"name\": \"x\", \"list\": [1, \"two\", null], \"obj\": {\"k\": true}}");
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->type, SC_JSON_OBJECT);
    ck_assert_uint_eq(v->len, 3);
    /* members keep input order */
    ck_assert_str_eq(v->members[0].key, "name");
    ck_assert_str_eq(v->members[2].key, "obj");
    const sc_json *l = sc_json_get(v, "list");
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(l->type, SC_JSON_ARRAY);
    ck_assert_uint_eq(l->len, 3);
    ck_assert_int_eq(l->items[1].type, SC_JSON_STRING);
    ck_assert_str_eq(l->items[1].s, "two");
    ck_assert_int_eq(l->items[2].type, SC_JSON_NULL);
    ck_assert_int_eq(sc_json_get(sc_json_get(v, "obj"), "k")->type, SC_JSON_TRUE);
    ck_assert_ptr_null(sc_json_get(v, "missing"));
    ck_assert_ptr_null(sc_json_get(l, "name")); /* not an object */
    /* positions */
    ck_assert_uint_eq(l->line, 1);
    ck_assert_uint_eq(l->col, 23);
    sc_json_free(v);
}
END_TEST

START_TEST(escapes)
{
    sc_json *v = parse("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u00e9 \\u20AC \\ud83d\\ude00 \\u0041\"");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v->s, "q\" b\\ s/ \b\f\n\r\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 A");
    sc_json_free(v);

    /* \u0000 is valid JSON: kept, and the length says so */
    v = parse("\"a\\u0000b\"");
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(v->len, 3);
    ck_assert_int_eq(memcmp(v->s, "a\0b", 3), 0);
    sc_json_free(v);
}
END_TEST

START_TEST(invalid)
{
    rejects("", "1:1: unexpected end of input");
    rejects("   \n ", "2:2: unexpected end of input");
    rejects("{", "1:2: expected a string key");
    rejects("{\"a\" 1}", "1:6: expected ':'");
    rejects("{\"a\":1,}", "1:8: expected a string key");
    rejects("[1,]", "1:4: expected a value");
    rejects("[1 2]", "1:4: expected ',' or ']'");
    rejects("{'a':1}", "1:2: expected a string key");
    rejects("01", "1:1: numbers must not have leading zeros");
    rejects("1.", "1:3: expected a digit after '.'");
    rejects(".5", "1:1: expected a value");
    rejects("-", "1:2: expected a digit");
    rejects("+1", "1:1: expected a value");
    rejects("1e", "1:3: expected a digit in the exponent");
    rejects("NaN", "1:1: expected a value");
    rejects("Infinity", "1:1: expected a value");
    rejects("tru", "1:1: invalid literal (expected 'true')");
    rejects("nul", "1:1: invalid literal");
    rejects("true false", "1:6: trailing data");
    rejects("{} /* c */", "1:4: trailing data");
    rejects("\"abc", "1:1: unterminated string");
    rejects("\"a\nb\"", "1:3: control character U+000A");
    rejects("\"\\x\"", "1:2: invalid escape");
    rejects("\"\\u12zz\"", "1:6: \\u escape needs four hex digits");
    rejects("\"\\u123", "1:4: truncated \\u escape");
    rejects("\"\\udc00\"", "1:2: lone low surrogate \\uDC00");
    rejects("\"\\ud800\"", "1:2: high surrogate \\uD800 not followed");
    rejects("\"\\ud800\\u0041\"", "1:2: high surrogate");
    rejects("\"\xc0\x80\"", "1:2: invalid UTF-8");      /* overlong NUL */
    rejects("\"\xed\xa0\x80\"", "1:2: invalid UTF-8");  /* UTF-8-encoded surrogate */
    rejects("\"\xf5\x80\x80\x80\"", "1:2: invalid UTF-8"); /* above U+10FFFF */
    rejects("\"\xe2\x82\"", "1:2: invalid UTF-8");      /* truncated */
    rejects("\"\x80\"", "1:2: invalid UTF-8");          /* stray continuation */
    rejects("\xef\xbb\xbf{}", "1:1: byte order mark");
    rejects("{\"a\":1,\"b\":2,\"a\":3}", "1:14: duplicate key \"a\"");
    rejects("{\n  \"count\": tru\n}", "2:12: invalid literal");
    rejects("[1,\n 2,\n x]", "3:2: expected a value, found 'x'");
    rejects("\x01", "1:1: expected a value, found byte 0x01");
}
END_TEST

START_TEST(duplicates_many)
{
    /* Enough keys for the sorted check; the duplicate is far apart. */
    char buf[8192];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{");
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "\"k%d\":%d,", i, i);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "\"k7\":0}");
    sc_json *v = parse(buf);
    ck_assert_ptr_null(v);
    ck_assert_msg(strstr(err, "duplicate key \"k7\"") != NULL, "%s", err);
}
END_TEST

START_TEST(limits)
{
    char deep[300];
    size_t d;
    /* 64 levels pass, 65 do not */
    for (d = 0; d < 64; d++)
        deep[d] = '[';
    for (size_t i = 0; i < 64; i++)
        deep[d++] = ']';
    deep[d] = '\0';
    sc_json *v = parse(deep);
    ck_assert_msg(v != NULL, "%s", err);
    sc_json_free(v);
    memmove(deep + 1, deep, strlen(deep) + 1);
    deep[0] = '[';
    strcat(deep, "]");
    rejects(deep, "1:65: nesting deeper than 64 levels");

    sc_json_limits lim = {.max_depth = 2, .max_size = 10};
    v = sc_json_parse("[[1]]", 5, &lim, err, sizeof err);
    ck_assert_ptr_nonnull(v);
    sc_json_free(v);
    v = sc_json_parse("[[[1]]]", 7, &lim, err, sizeof err);
    ck_assert_ptr_null(v);
    v = sc_json_parse("[1,2,3,4,5,6]", 13, &lim, err, sizeof err);
    ck_assert_ptr_null(v);
    ck_assert_str_eq(err, "input is 13 bytes, more than the limit of 10");

    char num[80];
    memset(num, '1', 65);
    num[65] = '\0';
    rejects(num, "1:1: number longer than 64 characters");
}
END_TEST

START_TEST(numbers)
{
    uint64_t u;
    int64_t i;
    sc_json *v = parse("[18446744073709551615, 18446744073709551616, -1, 1.0, 1e2, "
                       "-9223372036854775808, 9223372036854775808, 0]");
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(sc_json_u64(&v->items[0], &u), 0);
    ck_assert(u == UINT64_MAX);
    ck_assert_int_eq(sc_json_u64(&v->items[1], &u), -1); /* overflow */
    ck_assert_int_eq(sc_json_u64(&v->items[2], &u), -1); /* negative */
    ck_assert_int_eq(sc_json_u64(&v->items[3], &u), -1); /* fraction */
    ck_assert_int_eq(sc_json_u64(&v->items[4], &u), -1); /* exponent */
    ck_assert_int_eq(sc_json_i64(&v->items[2], &i), 0);
    ck_assert(i == -1);
    ck_assert_int_eq(sc_json_i64(&v->items[5], &i), 0);
    ck_assert(i == INT64_MIN);
    ck_assert_int_eq(sc_json_i64(&v->items[6], &i), -1);
    ck_assert_int_eq(sc_json_u64(&v->items[7], &u), 0);
    ck_assert(u == 0);
    ck_assert_int_eq(sc_json_u64(NULL, &u), -1);
    sc_json_free(v);

    v = parse("[1717243200.25, 0.0000005, 0.00000049, 1e3, -1.5, 3, 0.1234565]");
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(sc_json_micro(&v->items[0], &i), 0);
    ck_assert(i == 1717243200250000);
    ck_assert_int_eq(sc_json_micro(&v->items[1], &i), 0);
    ck_assert(i == 1); /* half rounds away from zero */
    ck_assert_int_eq(sc_json_micro(&v->items[2], &i), 0);
    ck_assert(i == 0);
    ck_assert_int_eq(sc_json_micro(&v->items[3], &i), -1);
    ck_assert_int_eq(sc_json_micro(&v->items[4], &i), 0);
    ck_assert(i == -1500000);
    ck_assert_int_eq(sc_json_micro(&v->items[5], &i), 0);
    ck_assert(i == 3000000);
    ck_assert_int_eq(sc_json_micro(&v->items[6], &i), 0);
    ck_assert(i == 123457);
    sc_json_free(v);
}
END_TEST

static char *render(void (*fn)(sc_jw *), int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    sc_jw w;
    sc_jw_init(&w, f);
    fn(&w);
    *rc = sc_jw_finish(&w);
    fclose(f);
    return buf;
}

static void doc(sc_jw *w)
{
    sc_jw_begin_object(w);
    sc_jw_key(w, "s");
    sc_jw_string(w, "a\"b\\c\n\t\x01/\xc3\xa9\xff");
    sc_jw_key(w, "n");
    sc_jw_string(w, NULL);
    sc_jw_key(w, "u");
    sc_jw_u64(w, UINT64_MAX);
    sc_jw_key(w, "i");
    sc_jw_i64(w, -5);
    sc_jw_key(w, "t");
    sc_jw_micro(w, -1500001);
    sc_jw_key(w, "a");
    sc_jw_begin_array(w);
    sc_jw_bool(w, 1);
    sc_jw_begin_object(w);
    sc_jw_end_object(w);
    sc_jw_begin_array(w);
    sc_jw_end_array(w);
    sc_jw_end_array(w);
    sc_jw_end_object(w);
}

START_TEST(writer)
{
    int rc;
    char *s = render(doc, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "{\n"
                        "  \"s\": \"a\\\"b\\\\c\\n\\t\\u0001/\xc3\xa9\xef\xbf\xbd\",\n"
                        "  \"n\": null,\n"
                        "  \"u\": 18446744073709551615,\n"
                        "  \"i\": -5,\n"
                        "  \"t\": -1.500001,\n"
                        "  \"a\": [\n"
                        "    true,\n"
                        "    {},\n"
                        "    []\n"
                        "  ]\n"
                        "}\n");
    /* What the writer writes, the parser reads back. */
    sc_json *v = parse(s);
    ck_assert_msg(v != NULL, "%s", err);
    ck_assert_str_eq(sc_json_get(v, "s")->s, "a\"b\\c\n\t\x01/\xc3\xa9\xef\xbf\xbd");
    int64_t t;
    ck_assert_int_eq(sc_json_micro(sc_json_get(v, "t"), &t), 0);
    ck_assert(t == -1500001);
    sc_json_free(v);
    free(s);
}
END_TEST

static void unbalanced(sc_jw *w)
{
    sc_jw_begin_object(w);
    sc_jw_key(w, "a");
}

static void value_without_key(sc_jw *w)
{
    sc_jw_begin_object(w);
    sc_jw_u64(w, 1);
    sc_jw_end_object(w);
}

START_TEST(writer_misuse)
{
    int rc;
    free(render(unbalanced, &rc));
    ck_assert_int_eq(rc, -1);
    free(render(value_without_key, &rc));
    ck_assert_int_eq(rc, -1);
}
END_TEST

START_TEST(utf8_decode)
{
    uint32_t cp;
    ck_assert_uint_eq(sc_utf8_decode((const unsigned char *)"\xf4\x8f\xbf\xbf", 4, &cp), 4);
    ck_assert_uint_eq(cp, 0x10ffff);
    ck_assert_uint_eq(sc_utf8_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);
    ck_assert_uint_eq(sc_utf8_decode((const unsigned char *)"\xe0\x9f\xbf", 3, &cp), 0); /* overlong */
    ck_assert_uint_eq(sc_utf8_decode((const unsigned char *)"\xc3\xa9", 1, &cp), 0);     /* short */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, valid_values);
    tcase_add_test(tc, structure);
    tcase_add_test(tc, escapes);
    tcase_add_test(tc, invalid);
    tcase_add_test(tc, duplicates_many);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, numbers);
    tcase_add_test(tc, writer);
    tcase_add_test(tc, writer_misuse);
    tcase_add_test(tc, utf8_decode);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
