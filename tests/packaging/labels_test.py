#!/usr/bin/env python3
"""Every test this build registers carries at least one CTest label, and only labels of the one
scheme (cmake/TestLabels.cmake): `ctest -L` and the `quick` preset must not miss a test silently.

usage: labels_test.py CTEST BUILD_DIR LABEL...
"""
import json
import subprocess
import sys


def main() -> int:
    ctest, build, known = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    listing = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], check=True,
                             capture_output=True, text=True).stdout
    tests = json.loads(listing)["tests"]
    unlabelled, unknown = [], []
    for test in tests:
        labels = next((p["value"] for p in test.get("properties", []) if p["name"] == "LABELS"), [])
        if not labels:
            unlabelled.append(test["name"])
        unknown += [f"{test['name']}: {label}" for label in labels if label not in known]
    for name in unlabelled:
        print(f"no label: {name}")
    for entry in unknown:
        print(f"label outside cmake/TestLabels.cmake: {entry}")
    print(f"{len(tests)} tests, {len(unlabelled)} without a label, {len(unknown)} unknown labels")
    return 1 if unlabelled or unknown or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
