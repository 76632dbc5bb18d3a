#!/bin/sh
# junit.sh: the JUnit XML output parses as XML and is consistent: one
# <testsuite name="streamcheck">, one <testcase> per rule of rules.def, and
# the failures attribute equal to the test cases that have a <failure>.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
. "$top_builddir/tests/env.sh"
[ -n "$PYTHON3" ] || { echo "1..0 # SKIP no python3 found by configure"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-junit.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$top_builddir/tests/golden/golden-report" merged json >"$tmp/m.json" &&
    "$top_builddir/tests/unit/report-cli" --format junit --fail-on note --output "$tmp" --name cli \
        "$tmp/m.json" 2>/dev/null
[ $? -eq 1 ] || { echo "Bail out! report-cli did not fail on notes"; exit 1; }
nrules=$(grep -c '^SC_RULE(' "$top_srcdir/src/common/rules.def")
"$PYTHON3" - "$nrules" "$top_srcdir/tests/golden/merged.xml:4" "$top_srcdir/tests/golden/merged-never.xml:0" \
    "$tmp/cli.streamcheck.xml:6" <<'PY'
import sys
import xml.etree.ElementTree as ET

nrules = int(sys.argv[1])
print(f"1..{len(sys.argv) - 2}")
for n, arg in enumerate(sys.argv[2:], 1):
    path, want = arg.rsplit(":", 1)
    try:
        root = ET.parse(path).getroot()
        cases = root.findall("testcase")
        failing = [c for c in cases if c.find("failure") is not None]
        problems = []
        if root.tag != "testsuite" or root.get("name") != "streamcheck":
            problems.append("root is not <testsuite name=\"streamcheck\">")
        if len(cases) != nrules or root.get("tests") != str(nrules):
            problems.append(f"{len(cases)} test cases, tests={root.get('tests')}, want {nrules}")
        if root.get("failures") != str(len(failing)) or len(failing) != int(want):
            problems.append(f"failures={root.get('failures')}, {len(failing)} <failure>s, want {want}")
        if any(not c.get("classname", "").startswith("SC") for c in cases):
            problems.append("a classname is not a rule id")
        if problems:
            print(f"not ok {n} - {path}: " + "; ".join(problems))
        else:
            print(f"ok {n} - {path}: {nrules} rules, {want} failing")
    except (OSError, ET.ParseError) as e:
        print(f"not ok {n} - {path}: {e}")
PY
