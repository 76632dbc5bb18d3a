/* json.h: a small strict JSON parser (RFC 8259) and a streaming writer.
 *
 * The parser reads untrusted files (reports from other machines, fuzzed
 * input), so it is strict and bounded: UTF-8 only, no byte order mark, no
 * duplicate object keys, a nesting limit and a size limit, and every error
 * says LINE:COLUMN (1-based; the column counts bytes).  Numbers are kept as
 * written and converted on request, so 64-bit counters survive exactly.
 *
 * The writer prints with a fixed layout (two-space indentation, members in
 * the order they are written), so the same calls give the same bytes.
 */
#ifndef SC_JSON_H
#define SC_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum sc_json_type {
    SC_JSON_NULL,
    SC_JSON_FALSE,
    SC_JSON_TRUE,
    SC_JSON_NUMBER,
    SC_JSON_STRING,
    SC_JSON_ARRAY,
    SC_JSON_OBJECT,
} sc_json_type;

typedef struct sc_json sc_json;
typedef struct sc_json_member sc_json_member;

struct sc_json {
    sc_json_type type;
    unsigned line, col;          /* where the value starts */
    char *s;                     /* STRING: UTF-8, NUL-terminated (may hold \u0000);
                                    NUMBER: the number as written */
    size_t len;                  /* STRING: bytes in s; ARRAY/OBJECT: entries */
    sc_json *items;              /* ARRAY */
    sc_json_member *members;     /* OBJECT, in input order */
};

struct sc_json_member {
    char *key;
    size_t keylen;
    unsigned line, col;          /* where the key starts */
    sc_json value;
};

#define SC_JSON_MAX_DEPTH 64
#define SC_JSON_MAX_SIZE ((size_t)256 << 20)

typedef struct sc_json_limits {
    size_t max_depth;            /* 0: SC_JSON_MAX_DEPTH */
    size_t max_size;             /* 0: SC_JSON_MAX_SIZE */
} sc_json_limits;

/* Parses text[0..len).  Returns the root value, or NULL with
   "LINE:COL: reason" in err (or a reason without position for limits and
   memory).  lim may be NULL. */
sc_json *sc_json_parse(const char *text, size_t len, const sc_json_limits *lim,
                       char *err, size_t errlen);
void sc_json_free(sc_json *root);

/* The member of an object by key, or NULL (also when v is not an object). */
const sc_json *sc_json_get(const sc_json *obj, const char *key);
/* "null", "a string", "an object", ... for messages. */
const char *sc_json_type_desc(sc_json_type t);

/* Conversions of a NUMBER; each returns 0, or -1 when v is not a number of
   that kind or does not fit. */
int sc_json_u64(const sc_json *v, uint64_t *out);   /* non-negative integer */
int sc_json_i64(const sc_json *v, int64_t *out);    /* integer */
/* A plain decimal (no exponent) as integer millionths, rounded half away
   from zero: "1717243200.250000" -> 1717243200250000.  Locale-independent. */
int sc_json_micro(const sc_json *v, int64_t *out);

/* ---- writer ---- */
#define SC_JW_MAX_DEPTH 32

typedef struct sc_jw {
    FILE *out;
    int depth;
    int after_key;                       /* a key was written; the value follows */
    unsigned char count[SC_JW_MAX_DEPTH];/* 0: container still empty */
    int bad;                             /* misuse (unbalanced, too deep) */
} sc_jw;

void sc_jw_init(sc_jw *w, FILE *out);
void sc_jw_begin_object(sc_jw *w);
void sc_jw_end_object(sc_jw *w);
void sc_jw_begin_array(sc_jw *w);
void sc_jw_end_array(sc_jw *w);
void sc_jw_key(sc_jw *w, const char *key);
void sc_jw_string(sc_jw *w, const char *s);   /* NULL writes null */
void sc_jw_u64(sc_jw *w, uint64_t v);
void sc_jw_i64(sc_jw *w, int64_t v);
void sc_jw_micro(sc_jw *w, int64_t millionths);/* as a decimal with 6 places */
void sc_jw_bool(sc_jw *w, int v);
void sc_jw_null(sc_jw *w);
/* Ends the document with a newline.  Returns 0, or -1 (errno set) when the
   stream had an error or the calls were unbalanced. */
int sc_jw_finish(sc_jw *w);

/* Writes s as JSON string content (no quotes): escapes what JSON requires
   and replaces invalid UTF-8 with U+FFFD, so the output is always valid. */
void sc_json_escape(FILE *out, const char *s);

/* Decodes one UTF-8 sequence at s (n bytes available).  Returns its length
   and the code point in *cp, or 0 when it is invalid (overlong, surrogate,
   above U+10FFFF, truncated). */
size_t sc_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif /* SC_JSON_H */
