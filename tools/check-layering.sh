#!/bin/sh
# check-layering.sh: the layering rules of docs/ARCHITECTURE.md ("Layering"),
# checked on the built objects and the sources.  TAP; run by make check.
#
# 1. The link-level module graph of the shim has no cycle.  A module is one
#    object of src/shim/libscshim.a; module A depends on B when nm shows a
#    symbol undefined in A and defined in B.  The graph goes to tsort, which
#    fails on a cycle and prints it.  Inline functions of headers (the hot
#    path) are compiled into their callers, so their calls count there.  The
#    pthread and semaphore functions hb_pthread.c interposes are the C library's to
#    their callers: they make no edge.
# 2. core (globals, log, init, fork, exit) is a leaf: it uses no symbol of
#    another shim module.  Modules reach it through sc_part_register; it
#    reaches them only through the function pointers they registered, which
#    nm does not see: the one allowed back edge.
# 3. The include graph of src/shim has no cycle: a node per file name
#    without its extension (x.c and x.h are module x), an edge for each
#    #include "y.h" of a header of src/shim.
# 4. No file under src/report, src/cli or src/common includes a shim header.
# 5. No .c file under src/ declares, at file scope, an extern or a function
#    prototype that is not a definition (static forward declarations and
#    typedefs excepted): what crosses files is declared in a header.
# 6. Every file of src/shim that has a pthread_mutex_t registers an sc_part
#    with a lock and a child reset (SC_PART_REGISTER), so the fork handler
#    takes that lock and the child re-initializes it.
# 7. The link-level module graph of src/report (libscreport.a) has no cycle,
#    as in 1: the model and the helpers never call a renderer; render.c
#    reaches the renderers through the format table.
# 8. The same for src/cli: libsccli.a and the launcher's own objects.
# 9. docs/ARCHITECTURE.md's module order (the block after "module order, as
#    tools/check-layering.sh computes it") is the shim's graph of 1: each
#    module on the level one above the highest module it uses, so a
#    newcomer reads the shim from the bottom as nm sees it.
# 10. No function of src/shim, src/report, src/cli or src/common runs over
#    100 lines, and no file over 1,000 (the generated cbid_names.h aside):
#    a room does one job.
. "${top_builddir:-.}/tests/env.sh"
src="$abs_top_srcdir/src"
lib="$abs_top_builddir/src/shim/$LT_OBJDIR/libscshim.a"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-layering.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..10"

# module_graph PREFIX SKIP FILE...: the link-level module graph of the
# objects in FILE (archives or objects).  A module is one object, named
# after its source (libtool's "lib_la-" and automake's "prog-" prefixes
# dropped); A depends on B when nm shows a symbol undefined in A and
# defined in B.  Definitions whose "module symbol" matches the awk regex
# SKIP make no edge.  Writes PREFIX.syms ("D|U symbol module") and
# PREFIX.edges ("A B symbol").
module_graph() {
    prefix=$1 skip=$2; shift 2
    # "path:member:addr T name", "path:member: U name", "obj:addr T name"
    nm -A "$@" 2>/dev/null | awk -v skip="$skip" '{
        n = split($1, a, ":"); m = a[n - 1]; sub(/^.*\//, "", m); sub(/^.*_la-/, "", m)
        sub(/^[a-z_]*-/, "", m); sub(/\.o$/, "", m)
        if ($2 == "U") print "U", $3, m
        else if ($2 ~ /^[TDBRVGSWu]$/ && !(skip != "" && (m " " $3) ~ skip)) print "D", $3, m
    }' > "$prefix.syms"
    awk '$1 == "D" { def[$2] = $3 }
         $1 == "U" { n++; sym[n] = $2; mod[n] = $3 }
         END { for (i = 1; i <= n; i++)
                   if ((sym[i] in def) && def[sym[i]] != mod[i]) print mod[i], def[sym[i]], sym[i] }' \
        "$prefix.syms" | sort -u > "$prefix.edges"
}

# acyclic N WHAT MIN PREFIX [DIRECTIVE]: TAP line N for the graph of
# module_graph PREFIX, which must have at least MIN modules.
acyclic() {
    nmods=$(awk '{ print $3 }' "$4.syms" | sort -u | wc -l)
    nedges=$(awk '{ print $1, $2 }' "$4.edges" | sort -u | wc -l)
    if [ "$nmods" -lt "$3" ]; then
        echo "not ok $1 - only $nmods modules in $2$5"
    elif awk '{ print $1, $2 }' "$4.edges" | sort -u | tsort > /dev/null 2> "$tmp/loop"; then
        echo "ok $1 - $2's $nmods modules and $nedges dependencies have no cycle$5"
    else
        echo "not ok $1 - $2's modules depend on each other in a cycle:$5"
        sed 's/^/# /' "$tmp/loop"
        awk '{ print "#   " $1 " -> " $2 " (" $3 ")" }' "$4.edges"
    fi
}

# --- 1, 2: nm ------------------------------------------------------------
if [ ! -f "$lib" ]; then
    echo "not ok 1 - no $lib"; echo "not ok 2 - no $lib"
else
    # The C library's pthread and semaphore functions that hb_pthread.c
    # interposes are the C library's to every caller, not its API: no edge.
    module_graph "$tmp/shim" '^hb_pthread (pthread_|sem_)' "$lib"
    acyclic 1 "the shim" 10 "$tmp/shim"
    core_out=$(awk '$1 == "core" { print "#   core -> " $2 " (" $3 ")" }' "$tmp/shim.edges")
    if ! grep -q " core$" "$tmp/shim.syms"; then
        echo "not ok 2 - no core module in $lib"
    elif [ -z "$core_out" ]; then
        echo "ok 2 - core uses no other module (they register with it)"
    else
        echo "not ok 2 - core names other modules:"
        echo "$core_out"
    fi
fi

# --- 3: includes of src/shim ---------------------------------------------
: > "$tmp/inc"
for f in "$src"/shim/*.c "$src"/shim/*.h "$src"/shim/*.S; do
    [ -f "$f" ] || continue
    b=$(basename "$f"); b=${b%.*}
    sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)\.h".*/\1/p' "$f" | while read -r h; do
        [ -f "$src/shim/$h.h" ] && [ "$h" != "$b" ] && echo "$b $h"
    done >> "$tmp/inc"
done
if sort -u "$tmp/inc" | tsort > /dev/null 2> "$tmp/loop"; then
    echo "ok 3 - the includes of src/shim have no cycle ($(sort -u "$tmp/inc" | wc -l) edges)"
else
    echo "not ok 3 - the includes of src/shim form a cycle:"
    sed 's/^/# /' "$tmp/loop"
fi

# --- 4: report, cli and common do not include the shim ---------------------
bad=
for d in report cli common; do
    for f in "$src/$d"/*.c "$src/$d"/*.h; do
        [ -f "$f" ] || continue
        for h in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
            hb=$(basename "$h")
            if [ -f "$src/shim/$hb" ] && [ ! -f "$src/$d/$hb" ] && [ "$hb" != config.h ]; then
                bad="$bad ${f#$src/}:$h"
            fi
        done
    done
done
if [ -z "$bad" ]; then
    echo "ok 4 - src/report, src/cli and src/common include no shim header"
else
    echo "not ok 4 - shim headers included from outside the shim:$bad"
fi

# --- 5: declarations in .c files ------------------------------------------
# Comments, strings, preprocessor lines and everything inside braces are
# skipped; each file-scope statement ending in ';' is judged.
find "$src" -name '*.c' | sort | xargs awk '
function judge(   t) {
    t = stmt; gsub(/[ \t]+/, " ", t); sub(/^ /, "", t); stmt = ""
    if (t ~ /^(typedef|static|_Static_assert)[ (]/ || t ~ / static /) return
    if (t ~ /^extern / || t ~ /\)( __attribute__\(\(.*\)\))? ?;$/)
        printf "# %s:%d: %s\n", FILENAME, sline, t
}
FNR == 1 { depth = 0; incom = 0; cont = 0; stmt = "" }
{
    line = $0; out = ""
    while (length(line)) {
        if (incom) {
            i = index(line, "*/"); if (!i) { line = ""; break }
            line = substr(line, i + 2); incom = 0; continue
        }
        i = index(line, "/*"); j = index(line, "//")
        if (j && (!i || j < i)) { out = out substr(line, 1, j - 1); line = ""; break }
        if (!i) { out = out line; line = ""; break }
        out = out substr(line, 1, i - 1) " "; line = substr(line, i + 2); incom = 1
    }
    line = out
    if (cont || line ~ /^[ \t]*#/) { cont = (line ~ /\\$/); next }
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line); gsub(/\047([^\047\\]|\\.)*\047/, "0", line)
    for (k = 1; k <= length(line); k++) {
        c = substr(line, k, 1)
        if (c == "{") { if (depth == 0) stmt = ""; depth++; continue }
        if (c == "}") { depth--; if (depth == 0) stmt = ""; continue }
        if (depth > 0) continue
        if (c == ";") { stmt = stmt c; judge(); continue }
        if (stmt == "" && c ~ /[ \t]/) continue
        if (stmt == "") sline = FNR
        stmt = stmt c
    }
    if (depth == 0 && stmt != "") stmt = stmt " "
}' > "$tmp/decls"
if [ -s "$tmp/decls" ]; then
    echo "not ok 5 - declarations in .c files under src/ (put them in a header):"
    cat "$tmp/decls"
else
    echo "ok 5 - no extern or prototype at file scope in a .c file under src/"
fi

# --- 6: every lock of the shim is a registered part's -----------------------
bad=
for f in "$src"/shim/*.c; do
    grep -q 'pthread_mutex_t' "$f" || continue
    b=$(basename "$f")
    [ "$b" = core.c ] && continue   # the registry's own lock: the fork handler takes it first
    if ! grep -q '^SC_PART_REGISTER(' "$f"; then
        bad="$bad $b(not registered)"
    elif ! grep -q 'static const sc_part [a-z_]* = {"[a-z]*", [0-9]*, [a-z_]*lock[a-z_]*, [a-z_]*unlock[a-z_]*, [a-z_]*child[a-z_]*,' "$f"; then
        bad="$bad $b(part without lock, unlock and child reset)"
    fi
done
if [ -z "$bad" ]; then
    echo "ok 6 - every file of src/shim with a lock registers it for fork"
else
    echo "not ok 6 - locks the fork handler would not take:$bad"
fi

# --- 7, 8: the report library and the launcher ----------------------------
rlib="$abs_top_builddir/src/report/$LT_OBJDIR/libscreport.a"
if [ -f "$rlib" ]; then
    module_graph "$tmp/report" '' "$rlib"
    acyclic 7 "src/report" 10 "$tmp/report"
else
    echo "not ok 7 - no $rlib"
fi
clib="$abs_top_builddir/src/cli/$LT_OBJDIR/libsccli.a"
if [ -f "$clib" ]; then
    module_graph "$tmp/cli" '' "$clib" "$abs_top_builddir"/src/cli/streamcheck-*.o
    acyclic 8 "src/cli" 3 "$tmp/cli"
else
    echo "not ok 8 - no $clib"
fi

# --- 9: the module order docs/ARCHITECTURE.md gives ------------------------
# levels FILE.edges FILE.syms: "N: module module ..." from level 0 (uses no
# other module) up; a module's level is one above its highest dependency.
levels() {
    awk 'FNR == NR { dep[++n] = $1 " " $2; next }
         { mods[$3] = 1 }
         END {
             for (m in mods) lvl[m] = 0
             do {
                 changed = 0
                 for (i = 1; i <= n; i++) {
                     split(dep[i], e, " ")
                     if (lvl[e[1]] < lvl[e[2]] + 1) { lvl[e[1]] = lvl[e[2]] + 1; changed = 1 }
                 }
             } while (changed && ++rounds < 1000)
             for (m in mods) print lvl[m], m
         }' "$1" "$2" | sort -k1,1n -k2,2 |
        awk 'NR == 1 || $1 != last { if (NR > 1) print line; line = $1 ":"; last = $1 } { line = line " " $2 } END { print line }'
}
doc="$abs_top_srcdir/docs/ARCHITECTURE.md"
if [ ! -f "$tmp/shim.edges" ]; then
    echo "not ok 9 - no module graph of the shim"
else
    awk '{ print $1, $2 }' "$tmp/shim.edges" | sort -u > "$tmp/shim.pairs"
    levels "$tmp/shim.pairs" "$tmp/shim.syms" > "$tmp/levels"
    awk '/module order, as tools\/check-layering.sh computes it/ { want = 1; next }
         want && /^```/ { if (inside) exit; inside = 1; next }
         inside' "$doc" > "$tmp/doc-levels"
    if cmp -s "$tmp/levels" "$tmp/doc-levels"; then
        echo "ok 9 - docs/ARCHITECTURE.md gives the shim's module order as nm sees it ($(wc -l < "$tmp/levels") levels)"
    else
        echo "not ok 9 - docs/ARCHITECTURE.md's module order is not the shim's; put this block there:"
        sed 's/^/#   /' "$tmp/levels"
    fi
fi

# --- 10: functions and files of a readable length ---------------------------
# A function runs from the line its signature starts on (a line at column 0
# with a parenthesis, not a statement) to the closing brace at column 0.
find "$src/shim" "$src/report" "$src/cli" "$src/common" -name '*.[ch]' ! -name cbid_names.h | sort |
    xargs awk '
FNR == 1 { sig = 0; start = 0 }
/^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !/^(typedef|struct|enum|union)[ \t]/ { if (!start) sig = FNR }
/^\{/ { if (!start) start = sig ? sig : FNR; next }
/^[A-Za-z_].*\)[ \t]*\{[ \t]*$/ && !/^(typedef|struct|enum|union|static const)[ \t]/ { if (!start) start = FNR; next }
/^\}/ { if (start && FNR - start + 1 > 100) printf "#   %s:%d: a function of %d lines\n", FILENAME, start, FNR - start + 1
         start = 0; sig = 0 }
' > "$tmp/long" 2>&1
find "$src/shim" "$src/report" "$src/cli" "$src/common" -name '*.[ch]' ! -name cbid_names.h | sort | xargs wc -l |
    awk '$2 != "total" && $1 > 1000 { printf "#   %s: %d lines\n", $2, $1 }' >> "$tmp/long"
if [ -s "$tmp/long" ]; then
    echo "not ok 10 - functions over 100 lines or files over 1,000 (split them):"
    cat "$tmp/long"
else
    echo "ok 10 - no function over 100 lines, no file over 1,000 in src/shim, src/report, src/cli, src/common"
fi
