#!/usr/bin/env python3
"""validate.py SCHEMA FILE...: validates SARIF logs against the OASIS SARIF
2.1.0 schema (JSON Schema draft 4) and prints one TAP line per file.  As a
control, it also checks that a deliberately broken log is rejected, so the
test cannot pass by validating nothing."""
import copy
import json
import sys

import jsonschema


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft4Validator.check_schema(schema)
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    files = sys.argv[2:]
    print(f"1..{len(files) + 1}")
    failed = 0
    first = None
    for n, path in enumerate(files, 1):
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"not ok {n} - {path}: {e}")
            failed += 1
            continue
        first = first if first is not None else doc
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            failed += 1
            print(f"not ok {n} - {path}: {len(errors)} schema errors")
            for e in errors[:10]:
                print(f"#   at {'/'.join(map(str, e.path))}: {e.message[:300]}")
        else:
            print(f"ok {n} - {path} is valid SARIF 2.1.0")
    broken = copy.deepcopy(first) if first is not None else {"version": "2.1.0", "runs": []}
    broken["version"] = "2.0.0"
    if broken.get("runs"):
        broken["runs"][0]["results"] = [{"ruleId": "SC101", "level": "fatal", "message": {"text": "x"}}]
    if any(True for _ in validator.iter_errors(broken)):
        print(f"ok {len(files) + 1} - a broken log is rejected")
    else:
        failed += 1
        print(f"not ok {len(files) + 1} - a broken log is rejected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
