#!/bin/sh
# validate.sh: the SARIF output (golden files, and fresh output of the
# renderer and of `streamcheck report`) validates against the OASIS SARIF
# 2.1.0 schema.  Skipped only when configure found no python3 with the
# jsonschema module (HAVE_JSONSCHEMA; Debian package python3-jsonschema).
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
. "$top_builddir/tests/env.sh"
. "$top_builddir/tests/sarif/jsonschema.sh"
[ "$have_jsonschema" = yes ] ||
    { echo "1..0 # SKIP configure found no python3 with the jsonschema module (Debian: python3-jsonschema)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-sarif.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
golden=$top_builddir/tests/golden/golden-report
"$golden" single sarif >"$tmp/single.sarif" &&
    "$golden" merged json >"$tmp/merged.json" &&
    "$top_builddir/tests/unit/report-cli" --format sarif --output "$tmp" --name cli --fail-on never \
        "$tmp/merged.json" 2>/dev/null ||
    { echo "Bail out! could not render SARIF"; exit 1; }
"$PYTHON3" "$top_srcdir/tests/sarif/validate.py" "$top_srcdir/tests/sarif/sarif-schema-2.1.0.json" \
    "$top_srcdir/tests/golden/merged.sarif" "$top_srcdir/tests/golden/empty.sarif" \
    "$tmp/single.sarif" "$tmp/cli.streamcheck.sarif"
