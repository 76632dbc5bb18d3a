#!/bin/sh
# report-cli.sh: `streamcheck report` (sc_cli_report, through the
# tests/unit/report-cli driver): merging, formats, exit statuses, and one
# clear line on stderr for every bad input.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
. "$top_srcdir/tests/golden/tap.sh"
gold=$top_srcdir/tests/golden
golden=$top_builddir/tests/golden/golden-report
cli=$top_builddir/tests/unit/report-cli
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")

# Runs the report tool; leaves stdout, stderr and the status.
cli() { "$cli" "$@" >"$tmp/out" 2>"$tmp/err"; st=$?; }
status_is() {
    if [ "$st" -eq "$1" ]; then ok "$2 (exit $st)"; else not_ok "$2: exit $st, want $1"; diag <"$tmp/err"; fi
}
# One line on stderr, containing the text.
error_is() {
    if [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$1" "$tmp/err"; then
        ok "$2: $(cat "$tmp/err")"
    else
        not_ok "$2: stderr is not one line with '$1'"
        diag <"$tmp/err"
    fi
}
same() {
    if cmp -s "$1" "$2"; then ok "$3"; else not_ok "$3"; diff -u "$1" "$2" | head -40 | diag; fi
}

"$golden" single json >"$tmp/a.json" && "$golden" b json >"$tmp/b.json" &&
    "$golden" empty json >"$tmp/empty.json" || { echo "Bail out! golden-report failed"; exit 1; }

# --- merging and formats ---
cli "$tmp/a.json" "$tmp/b.json"
status_is 1 "merge with an error finding: default --fail-on error"
sed "s/^@ streamcheck 0.1.0-golden report\$/@ streamcheck $version report/" "$gold/merged.txt" >"$tmp/want.txt"
same "$tmp/want.txt" "$tmp/out" "merged text on stdout matches the golden merge"
[ -s "$tmp/err" ] && not_ok "nothing on stderr" || ok "nothing on stderr"

cli --fail-on never "$tmp/a.json" "$tmp/b.json"
status_is 0 "--fail-on never"

mkdir "$tmp/o"
cli --format all --output "$tmp/o" --name job --fail-on never "$tmp/a.json" "$tmp/b.json"
status_is 0 "--format all --output DIR --name job"
for ext in txt json sarif xml html md; do
    [ -s "$tmp/o/job.streamcheck.$ext" ] && ok "wrote job.streamcheck.$ext" || not_ok "wrote job.streamcheck.$ext"
done
[ -s "$tmp/out" ] && not_ok "--output: nothing on stdout" || ok "--output: nothing on stdout"
ls -A "$tmp/o" | grep -v '^job\.streamcheck\.' | diag
[ "$(ls -A "$tmp/o" | wc -l)" -eq 6 ] && ok "no temporary files left" || not_ok "no temporary files left"

# Markdown read back from JSON: the golden merge, byte for byte.
cli --format=md --srcroot /home/ci/proj/ --output "$tmp/md" --fail-on never "$tmp/a.json" "$tmp/b.json"
status_is 0 "--format=md FILE.json FILE.json"
same "$gold/merged.md" "$tmp/md/merged.streamcheck.md" "the Markdown of the merge matches the golden merge"
cli --format markdown --output "$tmp/md2" --fail-on never "$tmp/a.json"
status_is 0 "--format markdown (the alias)"
[ -s "$tmp/md2/merged.streamcheck.md" ] && [ "$(ls -A "$tmp/md2" | wc -l)" -eq 1 ] &&
    ok "wrote merged.streamcheck.md alone" || not_ok "wrote merged.streamcheck.md alone"

# Format names as STREAMCHECK_FORMAT takes them (src/common/formats.c): any
# case, blanks, xml for junit, trace (the processes' tracks only: JSON
# reports carry no timeline).
cli --format ' XML , Trace,' --output "$tmp/f" --fail-on never "$tmp/a.json" "$tmp/b.json"
status_is 0 "--format ' XML , Trace,'"
[ -s "$tmp/f/merged.streamcheck.xml" ] && [ -s "$tmp/f/merged.streamcheck.trace.json" ] &&
    [ "$(ls -A "$tmp/f" | wc -l)" -eq 2 ] && ok "wrote the JUnit file and the trace" ||
    not_ok "wrote the JUnit file and the trace"

# Reading the merged JSON back and writing it again changes nothing.
cli --format json --output "$tmp/o2" --name again --fail-on never "$tmp/o/job.streamcheck.json"
status_is 0 "re-merge the merged JSON (creates the output directory)"
same "$tmp/o/job.streamcheck.json" "$tmp/o2/again.streamcheck.json" "merging a merged report is the identity"

cli --format text --srcroot / --fail-on never "$tmp/empty.json"
status_is 0 "a report without findings"
tail -n 1 "$tmp/out" | grep -qx 'streamcheck: 0 findings (0 errors, 0 warnings, 0 notes)' &&
    ok "summary line last" || not_ok "summary line last"

# --- exit status ---
cli "$tmp/b.json"
status_is 0 "warnings only, default --fail-on error"
cli --fail-on warning --error-exitcode 3 "$tmp/b.json"
status_is 3 "--fail-on warning --error-exitcode 3 with warnings"
cli --fail-on error --error-exitcode 3 "$tmp/b.json"
status_is 0 "--fail-on error --error-exitcode 3 with warnings only"
cli --fail-on note "$tmp/b.json"
status_is 1 "--fail-on note, default --error-exitcode"
cli --fail-on warning --error-exitcode 0 "$tmp/b.json"
status_is 0 "--error-exitcode 0"

# --- filters ---
cli --ignore SC203,sync-memcpy --fail-on warning "$tmp/b.json"
status_is 0 "--ignore drops every finding"
grep -q '^  Findings suppressed : 2$' "$tmp/out" && ok "--ignore counts suppressed findings" ||
    not_ok "--ignore counts suppressed findings"
cli --rules SC201 --format json --output "$tmp/r" --fail-on never "$tmp/b.json"
grep -c '"rule":' "$tmp/r/merged.streamcheck.json" | grep -qx 1 && ok "--rules keeps one rule" ||
    not_ok "--rules keeps one rule"
printf '# test\nSC203 train.py:42\n' >"$tmp/good.supp"
cli --suppressions "$tmp/good.supp" --fail-on warning "$tmp/b.json"
status_is 1 "suppressions drop SC203; SC201 remains a warning"
grep -q 'SC203' "$tmp/out" && not_ok "SC203 suppressed" || ok "SC203 suppressed"

# --- expectations ---
printf 'finding SC203 train.py:42 64\nfinding SC201 data.py:17 10\napi cuMemcpyDtoH_v2 10\n' >"$tmp/b.exp"
cli --expect "$tmp/b.exp" "$tmp/b.json"
status_is 0 "--expect: exact expectations hold"
grep -q '^streamcheck: expectations met' "$tmp/out" && ok "--expect says so" || not_ok "--expect says so"
printf 'finding SC203 train.py:42 64\n' >"$tmp/short.exp"
cli --expect "$tmp/short.exp" "$tmp/b.json"
status_is 1 "--expect: an unexpected finding fails"
grep -qx '+ finding SC201 data.py:17 10 device=1' "$tmp/out" && ok "--expect prints the diff" || not_ok "--expect prints the diff"
printf 'finding SC203 train.py\n' >"$tmp/bad.exp"
cli --expect "$tmp/bad.exp" "$tmp/b.json"
status_is 2 "--expect: a bad expectation file"
error_is "bad.exp:1: expected 'finding RULE FILE:LINE COUNT [SEVERITY] [device=N]'" "bad expectation line"

# --- bad input: exit 2, one line naming the file ---
printf '{"schema_version": 1,\n "tool": tru}\n' >"$tmp/bad.json"
cli "$tmp/a.json" "$tmp/bad.json"
status_is 2 "malformed JSON"
error_is "bad.json: not valid JSON: 2:10: invalid literal (expected 'true')" "malformed JSON message"
sed 's/"schema_version": 4/"schema_version": 5/' "$tmp/b.json" >"$tmp/v5.json"
cli "$tmp/v5.json"
status_is 2 "wrong schema version"
error_is "v5.json: schema_version 5 is not supported (this streamcheck reads version 4)" "wrong schema version message"
sed 's/"count": 64/"count": "64"/' "$tmp/b.json" >"$tmp/type.json"
cli "$tmp/type.json"
status_is 2 "wrong field type"
error_is "type.json: findings[0].count: expected a non-negative integer below 2^64, found a string" "wrong field type message"
: >"$tmp/zero.json"
cli "$tmp/zero.json"
status_is 2 "empty file"
error_is "zero.json: empty file" "empty file message"
cli "$tmp/missing.json"
status_is 2 "missing file"
error_is "missing.json: No such file or directory" "missing file message"
printf 'SC203 train.py:42\n\nSC999 foo\n' >"$tmp/bad.supp"
cli --suppressions "$tmp/bad.supp" "$tmp/b.json"
status_is 2 "bad suppression line"
error_is "bad.supp:3: unknown rule 'SC999'" "bad suppression message names FILE:LINE"

# --- bad options ---
cli --bogus "$tmp/b.json"
status_is 2 "unknown option"
error_is "unknown option '--bogus'" "unknown option message"
cli -Z "$tmp/b.json"
status_is 2 "unknown short option"
error_is "unknown option '-Z'" "unknown short option message"
cli "$tmp/b.json" --format
status_is 2 "missing option argument"
error_is "option '--format' needs an argument" "missing argument message"
cli --format pdf "$tmp/b.json"
status_is 2 "unknown format"
error_is "--format: unknown format 'pdf'" "unknown format message"
cli --fail-on sometimes "$tmp/b.json"
status_is 2 "bad --fail-on"
error_is "--fail-on: 'sometimes' is not error, warning, note or never" "bad --fail-on message"
cli --error-exitcode 256 "$tmp/b.json"
status_is 2 "bad --error-exitcode"
error_is "--error-exitcode: '256' is not a number from 0 to 255" "bad --error-exitcode message"
cli --rules SC101,nosuchrule "$tmp/b.json"
status_is 2 "unknown rule in --rules"
error_is "--rules: unknown rule 'nosuchrule'" "unknown rule message"
cli --name a/b "$tmp/b.json"
status_is 2 "bad --name"
cli
status_is 2 "no files"
error_is "no report files given" "no files message"
: >"$tmp/notadir"
cli --output "$tmp/notadir" "$tmp/b.json"
status_is 2 "--output is not a directory"
error_is "notadir: Not a directory" "--output message"

# --- one bad file is skipped, a file named twice is read once ---
cli --fail-on never "$tmp/a.json" >/dev/null
cp "$tmp/out" "$tmp/a-only.txt"
cli --fail-on never "$tmp/a.json" "$tmp/bad.json"
status_is 2 "a bad file among good ones: exit 2"
error_is "bad.json: not valid JSON: 2:10: invalid literal (expected 'true'); skipped" "the bad file is named and skipped"
same "$tmp/a-only.txt" "$tmp/out" "the good file is merged and rendered all the same"
cli --format json --output "$tmp/once" --name once --fail-on never "$tmp/b.json"
ln -s "$tmp/b.json" "$tmp/link.json"
cli --format json --output "$tmp/once" --name twice --fail-on never "$tmp/b.json" "$tmp/link.json" "$tmp/b.json"
status_is 0 "the same file three times (once through a link)"
same "$tmp/once/once.streamcheck.json" "$tmp/once/twice.streamcheck.json" "a file named twice is merged once"
[ "$(grep -c 'read once$' "$tmp/err")" -eq 2 ] && ok "each repeat is said" || { not_ok "each repeat is said"; diag <"$tmp/err"; }

# --- --error-exitcode alone fails on a warning, as compute-sanitizer's does ---
cli --error-exitcode 3 "$tmp/b.json"
status_is 3 "--error-exitcode 3 alone, with warnings"
cli --error-exitcode 3 "$tmp/empty.json"
status_is 0 "--error-exitcode 3 alone, without findings"
cli --error-exitcode 3 --fail-on never "$tmp/b.json"
status_is 0 "--error-exitcode 3 --fail-on never"

# --- help and rules ---
cli --help
status_is 0 "--help"
grep -q '^Usage: streamcheck report \[OPTION\]... FILE.json...$' "$tmp/out" && ok "--help prints the usage" ||
    not_ok "--help prints the usage"
cli --list-rules
status_is 0 "--list-rules"
[ "$(grep -c '^SC[0-9][0-9][0-9]  ' "$tmp/out")" -eq "$(grep -c '^SC_RULE(' "$top_srcdir/src/common/rules.def")" ] &&
    ok "--list-rules lists every rule of rules.def" || not_ok "--list-rules lists every rule of rules.def"

tap_done
