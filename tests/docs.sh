#!/bin/sh
# docs.sh: the manual matches the code.  Every STREAMCHECK_* setting of
# src/common/options.def and every option of the launcher is in streamcheck(1), and
# every option is in --help.  The committed results and documents name no
# folder of the machine they were made on (bench/seeds.py, portable).  TAP.
. "${top_builddir:-.}/tests/env.sh"
man="$abs_top_srcdir/man/streamcheck.1"
echo "1..4"
miss=
for v in $(sed -n 's/^SC_OPT(\([A-Z_]*\),.*/\1/p' "$abs_top_srcdir/src/common/options.def"); do
    grep -q "STREAMCHECK_$v" "$man" || miss="$miss STREAMCHECK_$v"
done
if [ -z "$miss" ]; then echo "ok 1 - every setting is in streamcheck(1)"; else echo "not ok 1 - not in streamcheck(1):$miss"; fi
# The launcher's options: the settings' flags and its own.
opts=$(sed -n 's/^ *FLAG("\([a-z-]*\)".*/\1/p' "$abs_top_srcdir/src/common/options.def"
       sed -n 's/^SC_ARG([a-z_]*, "\([a-z-]*\)".*/\1/p' "$abs_top_srcdir/src/cli/args.def")
miss=
for o in $opts; do
    esc=$(echo "$o" | sed 's/-/\\\\-/g')
    grep -q "\\\\-\\\\-$esc" "$man" || miss="$miss --$o"
done
if [ -n "$opts" ] && [ -z "$miss" ]; then echo "ok 2 - every launcher option is in streamcheck(1)"; else echo "not ok 2 - not in streamcheck(1):$miss"; fi
help=$("$SC_CLI" --help)
miss=
for o in $opts; do
    echo "$help" | grep -q -- "--$o" || miss="$miss --$o"
done
if [ -z "$miss" ]; then echo "ok 3 - every launcher option is in --help"; else echo "not ok 3 - not in --help:$miss"; fi
# /tmp, /root, /work: a lent GPU's scratch and output folders, this checkout.
found=$(cd "$abs_top_srcdir" && grep -lE '(^|[^a-z.])/(tmp|root|work)/' docs/*.md docs/*.json README.md man/*.1 man/*.7.in 2>/dev/null)
if [ -z "$found" ]; then echo "ok 4 - docs and results name no machine folder"; else echo "not ok 4 - machine folders in:" $found; fi
