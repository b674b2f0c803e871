#!/usr/bin/env python3
"""The schema check can fail: answers taken from the golden transcripts pass, and each way an
answer can break the contract (a size as a string, a capitalised key, a null without its reason,
a field the schema does not know, a schema with no file, no schema, not JSON) is rejected.

    validator_test.py REPO_DIR WORK_DIR
"""
import copy
import json
import pathlib
import subprocess
import sys

repo, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
validator = repo / "tests" / "schema" / "validate_json.py"
schemas = repo / "docs" / "schema"
work.mkdir(parents=True, exist_ok=True)
failures = []


def golden_answer(scenario, schema):
    """The first answer of SCHEMA in a golden transcript (the out| lines after a --json run).
    golden_test.sh masks what differs between checkouts and users in status's "helper" (uid,
    gid, mode); read back here as a root-owned 0755 file, which the schema accepts as printed."""
    lines = (repo / "tests" / "golden" / "expected" / f"{scenario}.txt").read_text().splitlines()
    for line in lines:
        if line.startswith("out| {"):
            line = line.replace('"uid":<UID>', '"uid":0').replace('"gid":<GID>', '"gid":0')
            answer = json.loads(line[5:].replace('"mode":"<MODE>"', '"mode":"0755"'))
            if answer.get("schema") == schema:
                return answer
    sys.exit(f"no {schema} answer in golden {scenario}")


def validate(name, text):
    path = work / f"{name}.json"
    path.write_text(text)
    r = subprocess.run([sys.executable, str(validator), str(schemas), str(path)], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(name, text, passes):
    code, out = validate(name, text)
    if (code == 0) != passes:
        failures.append(f"{name}: expected {'pass' if passes else 'failure'}, got exit {code}:\n{out}")
    else:
        print(f"ok   {name}: {'passes' if passes else 'rejected'}")


def broken(answer, change):
    a = copy.deepcopy(answer)
    change(a)
    return json.dumps(a, separators=(",", ":"))


status = golden_answer("status_m2ultra_192", "wiredcap.status/2")
error = golden_answer("cli_conventions", "wiredcap.error/1")
compact = lambda a: json.dumps(a, separators=(",", ":"))

expect("status_as_printed", compact(status), True)
expect("error_as_printed", compact(error), True)
expect("size_as_string", broken(status, lambda a: a["wired_limit"].update(value=str(a["wired_limit"]["value"]))), False)
expect("size_negative", broken(status, lambda a: a["memsize"].update(value=-1)), False)
expect("size_fractional", broken(status, lambda a: a["headroom"].update(value=1.5)), False)
expect("capitalised_key", broken(status, lambda a: a.update(MiB=98304)), False)
expect("bytes_beside_value", broken(status, lambda a: a["memsize"].update(bytes=206158430208)), False)
expect("null_without_reason", broken(status, lambda a: a["effective_cap"].update(value=None)), False)
expect("reason_beside_value", broken(status, lambda a: a["effective_cap"].update(why_unknown="x")), False)
expect("binding_missing", broken(status, lambda a: a.pop("binding")), False)
expect("version_missing", broken(status, lambda a: a.pop("version")), False)
expect("binding_not_an_enum", broken(status, lambda a: a["binding"].update(by="the knob")), False)
expect("error_exit_zero", broken(error, lambda a: a.update(exit=0)), False)
expect("error_without_message", broken(error, lambda a: a.pop("error")), False)
expect("schema_without_file", broken(status, lambda a: a.update(schema="wiredcap.status/9")), False)
expect("no_schema", broken(status, lambda a: a.pop("schema")), False)
expect("empty_stdout", "", False)
expect("two_objects", compact(error) + "\n" + compact(error), False)

if failures:
    print("FAIL:\n" + "\n".join(failures))
    sys.exit(1)
print("PASS: the validator accepts the golden answers and rejects every broken one")
