#!/bin/sh
# launcher.sh: the launcher's own options.  --help says what
# tests/launcher-help.txt says (streamcheck(1) follows it); each option sets
# the STREAMCHECK_* variable it stands for, converted as documented; a bad
# value is one line naming the option and what it accepts, exit 2, and the
# program does not run.  TAP.
. "${top_builddir:-.}/tests/env.sh"
unset STREAMCHECK_SYMBOLIZE_MS   # env.sh sets it for the apps; this test lists what the launcher sets
echo "1..7"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-launcher.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

"$SC_CLI" --help > "$tmp/help" 2>&1 && cmp -s "$tmp/help" "$abs_top_srcdir/tests/launcher-help.txt"
ok $? "--help is tests/launcher-help.txt"
[ $? -eq 0 ] || diff "$abs_top_srcdir/tests/launcher-help.txt" "$tmp/help" | sed 's/^/# /'
"$SC_CLI" -h > "$tmp/h" 2>&1 && cmp -s "$tmp/help" "$tmp/h" &&
    [ "$("$SC_CLI" --version)" = "streamcheck $(sed -n 's/^PACKAGE_VERSION = //p' "$abs_top_builddir/Makefile")" ] &&
    "$SC_CLI" --list-rules | grep -q '^SC101 '
ok $? "-h, --version, --list-rules"

# Every option that stands for a setting, through env(1) as the program.
mkdir "$tmp/src" && printf 'SC203 *\n' > "$tmp/supp" && printf 'TOP = 3\n' > "$tmp/cfg"
(cd "$tmp" && "$SC_CLI" --format=json,html --output=out/a --measure --redirect=per-thread \
    --redirect-method=entry --rules=SC101 --ignore=blocking-stream --suppressions=supp --range=step --source-root=src \
    --top=all --verbose --warn-cost=2.5ms --warn-share=1% --stack-depth=3 --python-depth=2 --log-level=quiet \
    --config=cfg -- env) 2>"$tmp/run.err" | grep '^STREAMCHECK_' |
    grep -Ev '^STREAMCHECK_(STATUS_DIR|DEFER_SYMBOLS|LIB|SIMDIR|TESTAPPS|TESTAPPS_LIST|PRELOAD_FIRST|PRELOAD_AFTER)=' |
    sed "s|$tmp|TMP|" | sort > "$tmp/env"
cat > "$tmp/want" <<END
STREAMCHECK_CONFIG=cfg
STREAMCHECK_FORMAT=json,html
STREAMCHECK_IGNORE=blocking-stream
STREAMCHECK_LOG_LEVEL=quiet
STREAMCHECK_MEASURE=1
STREAMCHECK_OUTPUT=TMP/out/a
STREAMCHECK_PYTHON_DEPTH=2
STREAMCHECK_RANGE=step
STREAMCHECK_REDIRECT=per-thread
STREAMCHECK_REDIRECT_METHOD=entry
STREAMCHECK_RULES=SC101
STREAMCHECK_SOURCE_ROOT=TMP/src
STREAMCHECK_STACK_DEPTH=3
STREAMCHECK_SUPPRESSIONS=supp
STREAMCHECK_TOP=0
STREAMCHECK_VERBOSE=1
STREAMCHECK_WARN_COST_US=2500
STREAMCHECK_WARN_SHARE_BP=100
END
sort -o "$tmp/want" "$tmp/want"
cmp -s "$tmp/want" "$tmp/env" && [ -d "$tmp/out/a" ]
ok $? "each option sets its variable; --output makes the directory"
[ $? -eq 0 ] || diff "$tmp/want" "$tmp/env" | sed 's/^/# /'

(cd "$tmp" && "$SC_CLI" --warn-cost 7 --warn-share 0.25 --top 12 -- env) 2>/dev/null |
    grep -E '^STREAMCHECK_(WARN_COST_US|WARN_SHARE_BP|TOP)=' | sort | tr '\n' ' ' > "$tmp/env2"
[ "$(cat "$tmp/env2")" = "STREAMCHECK_TOP=12 STREAMCHECK_WARN_COST_US=7 STREAMCHECK_WARN_SHARE_BP=25 " ]
ok $? "a bare --warn-cost is microseconds, a bare --warn-share a percentage"

# OPTIONS|message: each must exit 2 with that one line, without running
# the program.
: > "$tmp/bad"
while IFS='|' read -r args msg; do
    # shellcheck disable=SC2086
    (cd "$tmp" && "$SC_CLI" $args -- sh -c 'echo ran') > "$tmp/run.out" 2> "$tmp/run.err"
    st=$?
    if [ $st -ne 2 ] || [ -s "$tmp/run.out" ] || [ "$(cat "$tmp/run.err")" != "streamcheck: $msg" ]; then
        echo "# $args: exit $st, said: $(cat "$tmp/run.err")" >> "$tmp/bad"
    fi
done <<'END'
--bogus|unknown option '--bogus' (see streamcheck --help)
-x|unknown option '-x' (see streamcheck --help)
--measure=1|unknown option '--measure=1' (see streamcheck --help)
--stack-depth=65|--stack-depth '65' is not valid (expected an integer from 1 to 64) (see streamcheck --help)
--python-depth=x|--python-depth 'x' is not valid (expected an integer from 0 to 32) (see streamcheck --help)
--redirect=on|--redirect 'on' is not valid (expected off or per-thread) (see streamcheck --help)
--redirect-method=default|--redirect-method 'default' is not valid (expected stream, entry or handle) (see streamcheck --help)
--log-level=loud|--log-level 'loud' is not valid (expected quiet, warning, info or debug) (see streamcheck --help)
--rules=SC1|--rules 'SC1' is not valid STREAMCHECK_RULES: 'SC1' is not a rule id or name (see streamcheck --list-rules) (see streamcheck --help)
--top=none|--top 'none' is not valid (expected an integer from 0 to 1000000 (0: all)) (see streamcheck --help)
--warn-cost=2h|--warn-cost '2h' is not a duration (e.g. 1ms, 500us, 2s) (see streamcheck --help)
--warn-cost=3601s|--warn-cost '3601s' is not a duration (e.g. 1ms, 500us, 2s) (see streamcheck --help)
--warn-share=101|--warn-share '101' is not a percentage from 0 to 100 (e.g. 0.5%) (see streamcheck --help)
--fail-on=sometimes|--fail-on 'sometimes' is not valid (expected error, warning, note or never) (see streamcheck --help)
--error-exitcode=256|--error-exitcode '256' is not valid (expected an integer from 0 to 255) (see streamcheck --help)
--config=nonexistent|--config 'nonexistent' cannot be read (see streamcheck --help)
--suppressions=nonexistent|--suppressions 'nonexistent' cannot be read (see streamcheck --help)
--source-root=supp|--source-root 'supp' is not a directory (see streamcheck --help)
--output=supp/x|--output: cannot create 'supp/x': Not a directory (see streamcheck --help)
END
"$SC_CLI" --top > "$tmp/run.out" 2> "$tmp/run.err"
[ $? -eq 2 ] && [ "$(cat "$tmp/run.err")" = "streamcheck: option '--top' needs a value (see streamcheck --help)" ] ||
    echo "# --top without a value: $(cat "$tmp/run.err")" >> "$tmp/bad"
[ ! -s "$tmp/bad" ]
ok $? "a bad option or value: exit 2, one line, the program not run"
cat "$tmp/bad"

printf 'zzz\n' > "$tmp/badsupp"
(cd "$tmp" && "$SC_CLI" --suppressions=badsupp -- sh -c 'echo ran') > "$tmp/run.out" 2> "$tmp/run.err"
[ $? -eq 2 ] && [ ! -s "$tmp/run.out" ] &&
    [ "$(cat "$tmp/run.err")" = "streamcheck: badsupp:1: expected 'RULE PATTERN', found only 'zzz'" ]
ok $? "a malformed suppressions file: its line in the message, exit 2"

# The README's `./src/streamcheck --selftest` from a build tree, without
# tests/env.sh's variables: the launcher finds the apps built beside it.
(cd "$tmp" && env -u STREAMCHECK_TESTAPPS -u STREAMCHECK_TESTAPPS_LIST -u STREAMCHECK_LIB -u STREAMCHECK_SIMDIR \
    STREAMCHECK_SELFTEST_ONLY=pageable_copy "$SC_CLI" --selftest --simulate) > "$tmp/self.out" 2>&1
st=$?
[ $st -eq 0 ] && grep -Eq '^pageable_copy +sim +SC203x5 +SC203x5 +pass$' "$tmp/self.out" &&
    grep -qF "(apps in $(cd "$abs_top_builddir" && pwd -P)/testapps)" "$tmp/self.out"
st=$?
ok $st "--selftest from the build tree, without tests/env.sh"
[ $st -eq 0 ] || sed 's/^/# /' "$tmp/self.out"
