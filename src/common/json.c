/* json.c: strict JSON parser and deterministic writer (see json.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Numbers longer than this are not counters or times; refusing them keeps
   a hostile file from making us copy megabytes of digits. */
#define SC_JSON_MAX_NUMBER 64

size_t sc_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0)
        return 0;
    unsigned char c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        len = 2; v = c & 0x1f; min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3; v = c & 0x0f; min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4; v = c & 0x07; min = 0x10000;
    } else {
        return 0; /* continuation byte, 0xc0/0xc1 overlongs, 0xf5.. */
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

/* ------------------------------------------------------------ parser --- */

typedef struct parser {
    const char *p, *end;
    const char *line_start;
    unsigned line;
    size_t max_depth;
    char *err;
    size_t errlen;
    int failed;
} parser;

static unsigned col_of(const parser *ps, const char *at)
{
    return (unsigned)(at - ps->line_start) + 1;
}

__attribute__((format(printf, 3, 4)))
static void fail_at(parser *ps, const char *at, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    if (!ps->err || !ps->errlen)
        return;
    int n = snprintf(ps->err, ps->errlen, "%u:%u: ", ps->line, col_of(ps, at));
    if (n < 0 || (size_t)n >= ps->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* What stands at p, for messages: 'x', end of input, or byte 0xNN. */
static const char *describe(const parser *ps, const char *p, char *buf, size_t len)
{
    if (p >= ps->end)
        return "end of input";
    unsigned char c = (unsigned char)*p;
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", c);
    return buf;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->line_start = ps->p + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        ps->p++;
    }
}

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static int buf_put(buf *b, const void *data, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, data, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

static size_t utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static int hex4(parser *ps, const char *at, uint32_t *out)
{
    uint32_t v = 0;
    if (ps->end - at < 4) {
        fail_at(ps, at, "truncated \\u escape");
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        char c = at[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else {
            fail_at(ps, at + i, "\\u escape needs four hex digits");
            return -1;
        }
    }
    *out = v;
    return 0;
}

/* A \u escape (its backslash at esc, ps->p after the 'u'), with the low
   half of a surrogate pair after it, appended to b as UTF-8; 0, or -1
   after fail_at. */
static int parse_unicode_escape(parser *ps, const char *esc, buf *b)
{
    uint32_t cp, lo;
    if (hex4(ps, ps->p, &cp) < 0)
        return -1;
    ps->p += 4;
    if (cp >= 0xdc00 && cp <= 0xdfff) {
        fail_at(ps, esc, "lone low surrogate \\u%04X", (unsigned)cp);
        return -1;
    }
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u') {
            fail_at(ps, esc, "high surrogate \\u%04X not followed by a low surrogate", (unsigned)cp);
            return -1;
        }
        if (hex4(ps, ps->p + 2, &lo) < 0)
            return -1;
        if (lo < 0xdc00 || lo > 0xdfff) {
            fail_at(ps, esc, "high surrogate \\u%04X not followed by a low surrogate", (unsigned)cp);
            return -1;
        }
        ps->p += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    char u[4];
    if (buf_put(b, u, utf8_encode(cp, u)) < 0) {
        fail_at(ps, ps->p, "out of memory");
        return -1;
    }
    return 0;
}

/* The escape whose backslash is at ps->p, appended to b decoded; 0, or -1
   after fail_at. */
static int parse_escape(parser *ps, buf *b)
{
    /* Pairs: the letter after the backslash, the character it stands for. */
    static const char simple[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
    const char *esc = ps->p++;
    if (ps->p >= ps->end) {
        fail_at(ps, esc, "unterminated string");
        return -1;
    }
    char e = *ps->p++;
    if (e == 'u')
        return parse_unicode_escape(ps, esc, b);
    for (const char *p = simple; *p; p += 2)
        if (*p == e) {
            if (buf_put(b, p + 1, 1) < 0) {
                fail_at(ps, ps->p, "out of memory");
                return -1;
            }
            return 0;
        }
    char d[16];
    fail_at(ps, esc, "invalid escape '\\' followed by %s", describe(ps, ps->p - 1, d, sizeof d));
    return -1;
}

/* Parses a string starting at the opening quote; fills s/len. */
static int parse_string(parser *ps, char **s, size_t *len)
{
    buf b = {0};
    const char *open = ps->p++;
    for (;;) {
        const char *run = ps->p;
        /* Copy plain ASCII in runs. */
        while (ps->p < ps->end) {
            unsigned char c = (unsigned char)*ps->p;
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
                break;
            ps->p++;
        }
        if (ps->p > run && buf_put(&b, run, (size_t)(ps->p - run)) < 0)
            goto nomem;
        if (ps->p >= ps->end) {
            fail_at(ps, open, "unterminated string");
            goto fail;
        }
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"') {
            ps->p++;
            break;
        }
        if (c < 0x20) {
            fail_at(ps, ps->p, "control character U+%04X in string (must be escaped)", c);
            goto fail;
        }
        if (c >= 0x80) {
            uint32_t cp;
            size_t n = sc_utf8_decode((const unsigned char *)ps->p, (size_t)(ps->end - ps->p), &cp);
            if (!n) {
                fail_at(ps, ps->p, "invalid UTF-8 in string");
                goto fail;
            }
            if (buf_put(&b, ps->p, n) < 0)
                goto nomem;
            ps->p += n;
            continue;
        }
        if (parse_escape(ps, &b) < 0)
            goto fail;
    }
    if (!b.s && buf_put(&b, "", 0) < 0)
        goto nomem;
    *s = b.s;
    *len = b.len;
    return 0;
nomem:
    fail_at(ps, ps->p, "out of memory");
fail:
    free(b.s);
    return -1;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int parse_number(parser *ps, sc_json *v)
{
    const char *start = ps->p, *p = ps->p, *end = ps->end;
    char d[16];
    if (p < end && *p == '-')
        p++;
    if (p >= end || !is_digit(*p)) {
        fail_at(ps, p, "expected a digit, found %s", describe(ps, p, d, sizeof d));
        return -1;
    }
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p)) {
            fail_at(ps, start, "numbers must not have leading zeros");
            return -1;
        }
    } else {
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p)) {
            fail_at(ps, p, "expected a digit after '.', found %s", describe(ps, p, d, sizeof d));
            return -1;
        }
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p)) {
            fail_at(ps, p, "expected a digit in the exponent, found %s", describe(ps, p, d, sizeof d));
            return -1;
        }
        while (p < end && is_digit(*p))
            p++;
    }
    size_t n = (size_t)(p - start);
    if (n > SC_JSON_MAX_NUMBER) {
        fail_at(ps, start, "number longer than %d characters", SC_JSON_MAX_NUMBER);
        return -1;
    }
    v->s = malloc(n + 1);
    if (!v->s) {
        fail_at(ps, start, "out of memory");
        return -1;
    }
    memcpy(v->s, start, n);
    v->s[n] = '\0';
    v->len = n;
    v->type = SC_JSON_NUMBER;
    ps->p = p;
    return 0;
}

static void free_value(sc_json *v);

static int parse_value(parser *ps, sc_json *v, size_t depth);

static int key_cmp(const sc_json_member *a, const sc_json_member *b)
{
    size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
    int c = memcmp(a->key, b->key, n);
    if (c)
        return c;
    return (a->keylen > b->keylen) - (a->keylen < b->keylen);
}

static int key_cmp_ptr(const void *a, const void *b)
{
    return key_cmp(*(const sc_json_member *const *)a, *(const sc_json_member *const *)b);
}

/* Duplicate keys make "which one wins" implementation-defined (RFC 8259
   §4); a report with two "count" members is corrupt, so refuse it. */
static int check_duplicates(parser *ps, sc_json *obj)
{
    size_t n = obj->len;
    if (n < 2)
        return 0;
    const sc_json_member **idx = malloc(n * sizeof *idx);
    if (!idx) {
        fail_at(ps, ps->p, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = &obj->members[i];
    qsort(idx, n, sizeof *idx, key_cmp_ptr);
    int rc = 0;
    for (size_t i = 1; i < n; i++)
        if (!key_cmp(idx[i - 1], idx[i])) {
            /* Report the later occurrence, which is where the reader trips. */
            const sc_json_member *m = idx[i] > idx[i - 1] ? idx[i] : idx[i - 1];
            ps->failed = 0;
            if (ps->err && ps->errlen)
            {
                snprintf(ps->err, ps->errlen, "%u:%u: duplicate key \"%.60s\" in object",
                         m->line, m->col, m->key);
                /* keep the message one printable line */
                for (char *p = ps->err; *p; p++)
                    if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = '?';
            }
            ps->failed = 1;
            rc = -1;
            break;
        }
    free(idx);
    return rc;
}

static int parse_array(parser *ps, sc_json *v, size_t depth)
{
    size_t cap = 0;
    char d[16];
    v->type = SC_JSON_ARRAY;
    ps->p++; /* [ */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return 0;
    }
    for (;;) {
        if (v->len == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            sc_json *items = realloc(v->items, ncap * sizeof *items);
            if (!items) {
                fail_at(ps, ps->p, "out of memory");
                return -1;
            }
            v->items = items;
            cap = ncap;
        }
        sc_json *item = &v->items[v->len];
        memset(item, 0, sizeof *item);
        if (parse_value(ps, item, depth + 1) < 0) {
            free_value(item);
            return -1;
        }
        v->len++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return 0;
        }
        fail_at(ps, ps->p, "expected ',' or ']' in array, found %s", describe(ps, ps->p, d, sizeof d));
        return -1;
    }
}

static int parse_object(parser *ps, sc_json *v, size_t depth)
{
    size_t cap = 0;
    char d[16];
    v->type = SC_JSON_OBJECT;
    ps->p++; /* { */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return 0;
    }
    for (;;) {
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != '"') {
            fail_at(ps, ps->p, "expected a string key in object, found %s",
                    describe(ps, ps->p, d, sizeof d));
            return -1;
        }
        if (v->len == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            sc_json_member *m = realloc(v->members, ncap * sizeof *m);
            if (!m) {
                fail_at(ps, ps->p, "out of memory");
                return -1;
            }
            v->members = m;
            cap = ncap;
        }
        sc_json_member *m = &v->members[v->len];
        memset(m, 0, sizeof *m);
        m->line = ps->line;
        m->col = col_of(ps, ps->p);
        if (parse_string(ps, &m->key, &m->keylen) < 0)
            return -1;
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
            fail_at(ps, ps->p, "expected ':' after object key, found %s",
                    describe(ps, ps->p, d, sizeof d));
            free(m->key);
            return -1;
        }
        ps->p++;
        if (parse_value(ps, &m->value, depth + 1) < 0) {
            free(m->key);
            free_value(&m->value);
            return -1;
        }
        v->len++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return check_duplicates(ps, v);
        }
        fail_at(ps, ps->p, "expected ',' or '}' in object, found %s", describe(ps, ps->p, d, sizeof d));
        return -1;
    }
}

static int literal(parser *ps, const char *word, sc_json_type t, sc_json *v)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) {
        fail_at(ps, ps->p, "invalid literal (expected '%s')", word);
        return -1;
    }
    ps->p += n;
    v->type = t;
    return 0;
}

static int parse_value(parser *ps, sc_json *v, size_t depth)
{
    char d[16];
    skip_ws(ps);
    v->line = ps->line;
    v->col = col_of(ps, ps->p);
    if (ps->p >= ps->end) {
        fail_at(ps, ps->p, "unexpected end of input, expected a value");
        return -1;
    }
    char c = *ps->p;
    if ((c == '[' || c == '{') && depth >= ps->max_depth) {
        fail_at(ps, ps->p, "nesting deeper than %zu levels", ps->max_depth);
        return -1;
    }
    switch (c) {
    case '{': return parse_object(ps, v, depth);
    case '[': return parse_array(ps, v, depth);
    case '"':
        v->type = SC_JSON_STRING;
        return parse_string(ps, &v->s, &v->len);
    case 't': return literal(ps, "true", SC_JSON_TRUE, v);
    case 'f': return literal(ps, "false", SC_JSON_FALSE, v);
    case 'n': return literal(ps, "null", SC_JSON_NULL, v);
    default:
        if (c == '-' || is_digit(c))
            return parse_number(ps, v);
        fail_at(ps, ps->p, "expected a value, found %s", describe(ps, ps->p, d, sizeof d));
        return -1;
    }
}

sc_json *sc_json_parse(const char *text, size_t len, const sc_json_limits *lim,
                       char *err, size_t errlen)
{
    size_t max_size = lim && lim->max_size ? lim->max_size : SC_JSON_MAX_SIZE;
    size_t max_depth = lim && lim->max_depth ? lim->max_depth : SC_JSON_MAX_DEPTH;
    if (err && errlen)
        err[0] = '\0';
    if (len > max_size) {
        if (err && errlen)
            snprintf(err, errlen, "input is %zu bytes, more than the limit of %zu", len, max_size);
        return NULL;
    }
    parser ps = {
        .p = text, .end = text + len, .line_start = text, .line = 1,
        .max_depth = max_depth, .err = err, .errlen = errlen,
    };
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
        fail_at(&ps, text, "byte order mark at the start (JSON must not have one)");
        return NULL;
    }
    sc_json *root = calloc(1, sizeof *root);
    if (!root) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (parse_value(&ps, root, 0) < 0) {
        sc_json_free(root);
        return NULL;
    }
    skip_ws(&ps);
    if (ps.p < ps.end) {
        char d[16];
        fail_at(&ps, ps.p, "trailing data after the JSON value: %s", describe(&ps, ps.p, d, sizeof d));
        sc_json_free(root);
        return NULL;
    }
    return root;
}

static void free_value(sc_json *v)
{
    if (!v)
        return;
    free(v->s);
    if (v->type == SC_JSON_ARRAY)
        for (size_t i = 0; i < v->len; i++)
            free_value(&v->items[i]);
    if (v->type == SC_JSON_OBJECT)
        for (size_t i = 0; i < v->len; i++) {
            free(v->members[i].key);
            free_value(&v->members[i].value);
        }
    free(v->items);
    free(v->members);
}

void sc_json_free(sc_json *root)
{
    free_value(root);
    free(root);
}

const sc_json *sc_json_get(const sc_json *obj, const char *key)
{
    if (!obj || obj->type != SC_JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < obj->len; i++)
        if (obj->members[i].keylen == n && !memcmp(obj->members[i].key, key, n))
            return &obj->members[i].value;
    return NULL;
}

const char *sc_json_type_desc(sc_json_type t)
{
    switch (t) {
    case SC_JSON_NULL: return "null";
    case SC_JSON_FALSE:
    case SC_JSON_TRUE: return "a boolean";
    case SC_JSON_NUMBER: return "a number";
    case SC_JSON_STRING: return "a string";
    case SC_JSON_ARRAY: return "an array";
    case SC_JSON_OBJECT: return "an object";
    }
    return "a value";
}

/* Digits of s as a uint64; -1 on overflow or a non-digit. */
static int digits_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (!is_digit(*s))
            return -1;
        unsigned dg = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - dg) / 10)
            return -1;
        v = v * 10 + dg;
    }
    *out = v;
    return 0;
}

int sc_json_u64(const sc_json *v, uint64_t *out)
{
    if (!v || v->type != SC_JSON_NUMBER)
        return -1;
    return digits_u64(v->s, out);
}

int sc_json_i64(const sc_json *v, int64_t *out)
{
    uint64_t m;
    if (!v || v->type != SC_JSON_NUMBER)
        return -1;
    int neg = v->s[0] == '-';
    if (digits_u64(v->s + neg, &m) < 0)
        return -1;
    if (neg) {
        if (m > (uint64_t)INT64_MAX + 1)
            return -1;
        *out = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
    } else {
        if (m > (uint64_t)INT64_MAX)
            return -1;
        *out = (int64_t)m;
    }
    return 0;
}

int sc_json_micro(const sc_json *v, int64_t *out)
{
    if (!v || v->type != SC_JSON_NUMBER)
        return -1;
    const char *s = v->s;
    int neg = *s == '-';
    s += neg;
    uint64_t whole = 0, frac = 0;
    for (; is_digit(*s); s++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.') {
        s++;
        int n = 0;
        for (; is_digit(*s); s++, n++) {
            if (n < 6)
                frac = frac * 10 + (uint64_t)(*s - '0');
            else if (n == 6 && *s >= '5')
                frac++; /* round half away from zero; later digits cannot undo it */
        }
        for (; n < 6; n++)
            frac *= 10;
    }
    if (*s) /* exponent */
        return -1;
    if (whole > (uint64_t)INT64_MAX / 1000000)
        return -1;
    uint64_t m = whole * 1000000 + frac; /* frac <= 1000000: fits */
    if (m > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)m : (int64_t)m;
    return 0;
}

/* ------------------------------------------------------------ writer --- */

void sc_json_escape(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *run = p;
    while (*p) {
        unsigned char c = *p;
        const char *rep = NULL;
        char ubuf[8];
        size_t adv = 1;
        if (c == '"')
            rep = "\\\"";
        else if (c == '\\')
            rep = "\\\\";
        else if (c == '\n')
            rep = "\\n";
        else if (c == '\t')
            rep = "\\t";
        else if (c == '\r')
            rep = "\\r";
        else if (c == '\b')
            rep = "\\b";
        else if (c == '\f')
            rep = "\\f";
        else if (c < 0x20) {
            snprintf(ubuf, sizeof ubuf, "\\u%04x", c);
            rep = ubuf;
        } else if (c >= 0x80) {
            uint32_t cp;
            size_t n = sc_utf8_decode(p, strnlen((const char *)p, 4), &cp);
            if (n) {
                p += n;
                continue;
            }
            rep = "\xef\xbf\xbd"; /* U+FFFD for a byte that is not UTF-8 */
        }
        if (rep) {
            if (p > run)
                fwrite(run, 1, (size_t)(p - run), out);
            fputs(rep, out);
            p += adv;
            run = p;
        } else {
            p++;
        }
    }
    if (p > run)
        fwrite(run, 1, (size_t)(p - run), out);
}

void sc_jw_init(sc_jw *w, FILE *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

static void jw_indent(sc_jw *w)
{
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->out);
}

/* Comma and indentation before an array element or a top-level value. */
static void jw_pre_value(sc_jw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0)
        return;
    if (w->count[w->depth - 1] & 1)
        w->bad = 1; /* a value directly inside an object, without a key */
    if (w->count[w->depth - 1] & 2)
        fputc(',', w->out);
    w->count[w->depth - 1] |= 2;
    jw_indent(w);
}

/* count[] packs two bits per level: 1 = this level is an object,
   2 = it already has an entry. */
static void jw_push(sc_jw *w, int is_object)
{
    if (w->depth >= SC_JW_MAX_DEPTH) {
        w->bad = 1;
        return;
    }
    w->count[w->depth++] = (unsigned char)(is_object ? 1 : 0);
}

static void jw_pop(sc_jw *w, int is_object, char close)
{
    if (w->depth == 0 || w->after_key || (w->count[w->depth - 1] & 1) != (is_object ? 1 : 0)) {
        w->bad = 1;
        return;
    }
    int had = w->count[w->depth - 1] & 2;
    w->depth--;
    if (had)
        jw_indent(w);
    fputc(close, w->out);
}

void sc_jw_begin_object(sc_jw *w)
{
    jw_pre_value(w);
    fputc('{', w->out);
    jw_push(w, 1);
}

void sc_jw_end_object(sc_jw *w)
{
    jw_pop(w, 1, '}');
}

void sc_jw_begin_array(sc_jw *w)
{
    jw_pre_value(w);
    fputc('[', w->out);
    jw_push(w, 0);
}

void sc_jw_end_array(sc_jw *w)
{
    jw_pop(w, 0, ']');
}

void sc_jw_key(sc_jw *w, const char *key)
{
    if (w->depth == 0 || !(w->count[w->depth - 1] & 1) || w->after_key) {
        w->bad = 1;
        return;
    }
    if (w->count[w->depth - 1] & 2)
        fputc(',', w->out);
    w->count[w->depth - 1] |= 2;
    jw_indent(w);
    fputc('"', w->out);
    sc_json_escape(w->out, key);
    fputs("\": ", w->out);
    w->after_key = 1;
}

void sc_jw_string(sc_jw *w, const char *s)
{
    if (!s) {
        sc_jw_null(w);
        return;
    }
    jw_pre_value(w);
    fputc('"', w->out);
    sc_json_escape(w->out, s);
    fputc('"', w->out);
}

void sc_jw_u64(sc_jw *w, uint64_t v)
{
    jw_pre_value(w);
    fprintf(w->out, "%" PRIu64, v);
}

void sc_jw_i64(sc_jw *w, int64_t v)
{
    jw_pre_value(w);
    fprintf(w->out, "%" PRId64, v);
}

void sc_jw_micro(sc_jw *w, int64_t v)
{
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    jw_pre_value(w);
    fprintf(w->out, "%s%" PRIu64 ".%06u", v < 0 ? "-" : "", m / 1000000, (unsigned)(m % 1000000));
}

void sc_jw_bool(sc_jw *w, int v)
{
    jw_pre_value(w);
    fputs(v ? "true" : "false", w->out);
}

void sc_jw_null(sc_jw *w)
{
    jw_pre_value(w);
    fputs("null", w->out);
}

int sc_jw_finish(sc_jw *w)
{
    fputc('\n', w->out);
    if (w->bad || w->depth != 0 || w->after_key) {
        errno = EINVAL;
        return -1;
    }
    if (ferror(w->out)) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}
