#!/bin/sh
# selftest-sim.sh: `streamcheck --selftest --simulate` over the build tree:
# every test app on the CPU simulator, plain and under the shim, with
# byte-identical output and exactly the findings it declares.  TAP.
. "${top_builddir:-.}/tests/env.sh"
out=$("$SC_CLI" --selftest --simulate 2>&1)
status=$?
n=0
echo "$out" | awk '$NF == "pass" || $NF == "FAIL" || $(NF-2) == "skip"' >/dev/null
total=$(echo "$out" | awk '$NF == "pass" || $NF == "FAIL" || / skip \(/' | wc -l)
echo "1..$total"
echo "$out" | while IFS= read -r line; do
    case "$line" in
        *" pass") n=$((n + 1)); echo "ok $n - ${line%% *}" ;;
        *" FAIL") n=$((n + 1)); echo "not ok $n - ${line%% *}" ;;
        *" skip ("*) n=$((n + 1)); echo "ok $n - ${line%% *} # SKIP ${line##*skip }" ;;
        *) echo "# $line" ;;
    esac
done
exit 0
