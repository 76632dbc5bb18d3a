/* formats.h: the report formats (formats.def) as C data, and the one
 * parser of format lists (STREAMCHECK_FORMAT, --format, `streamcheck report
 * --format`). */
#ifndef SC_FORMATS_H
#define SC_FORMATS_H

#include <stddef.h>

/* A format as a bit, so that a set of them is an unsigned. */
typedef enum sc_format {
#define SC_FORMAT(NAME, BIT, ID, LABEL, EXT, ALIAS, ALL, TERM, TIMELINE, DESCRIPTION) SC_FMT_##NAME = 1 << BIT,
#include "formats.def"
#undef SC_FORMAT
} sc_format;

enum {
#define SC_FORMAT(NAME, BIT, ID, LABEL, EXT, ALIAS, ALL, TERM, TIMELINE, DESCRIPTION) SC_FMT_INDEX_##NAME,
#include "formats.def"
#undef SC_FORMAT
    SC_NFORMATS
};

typedef struct sc_format_info {
    sc_format format;
    const char *name;         /* "junit" */
    const char *label;        /* "JUnit", in messages */
    const char *ext;          /* "xml" */
    const char *alias;        /* "xml"; "" for none */
    int in_all;               /* `all` includes it */
    int term;                 /* goes to stderr when its file cannot be written */
    int timeline;             /* draws measured mode's timeline (not in the JSON) */
    const char *description;
} sc_format_info;

/* By index: sc_formats[sc_format_index(f)] describes f. */
extern const sc_format_info sc_formats[SC_NFORMATS];

/* The index of one format (a single bit); -1 for anything else. */
int sc_format_index(sc_format fmt);
/* "txt", "json", "sarif", "xml", "trace.json", "html"; NULL for anything
   but one format. */
const char *sc_format_ext(sc_format fmt);
/* Parses a comma-separated list of format names into sc_format bits.
   Names and aliases in any case, blanks around them ignored, empty items
   skipped; "all" is every format whose ALL column is 1.  0, or -1 with a
   one-line reason in err ("unknown format 'pdf' (expected text, json,
   ...)") when an item is not a format or the list names none. */
int sc_formats_parse(const char *s, unsigned *out, char *err, size_t errlen);

#endif /* SC_FORMATS_H */
