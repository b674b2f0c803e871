#!/usr/bin/env python3
"""Validates wiredcap's JSON answers against the published schemas (docs/schema/).

    validate_json.py SCHEMA_DIR FILE...     each FILE holds one answer (the stdout of one --json run)
    validate_json.py SCHEMA_DIR --schemas   checks the schema files themselves (JSON Schema 2020-12)

An answer names its schema ("schema": "wiredcap.status/2"), which is the file
SCHEMA_DIR/status-2.json. Every failure counts: a FILE that is not exactly one JSON object, an
answer without a schema, a schema with no file, and an answer the schema rejects. Exit 0 only
when every FILE passed; the validator is python3-jsonschema (Debian python3-jsonschema), and its
absence is a failure too, never a skip.
"""
import json
import pathlib
import re
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_json.py: the Python module jsonschema is missing (Debian: apt-get install python3-jsonschema)")

SCHEMA_NAME = re.compile(r"^wiredcap\.([a-z-]+)/([0-9]+)$")


def load_schemas(schema_dir):
    """Every schema file, by its $id and by its file name."""
    schemas = {}
    for path in sorted(schema_dir.glob("*.json")):
        schema = json.loads(path.read_text())
        schemas[path.name] = schema
    return schemas


def make_validator(schemas, schema):
    cls = jsonschema.Draft202012Validator
    try:  # jsonschema >= 4.18: the referencing library resolves $ref between files
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            (s["$id"], Resource.from_contents(s)) for s in schemas.values())
        return cls(schema, registry=registry, format_checker=cls.FORMAT_CHECKER)
    except ImportError:  # Debian 12's jsonschema 4.10: a RefResolver with every file in its store
        store = {s["$id"]: s for s in schemas.values()}
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return cls(schema, resolver=resolver, format_checker=cls.FORMAT_CHECKER)


def check_schemas(schemas):
    failures = 0
    for name, schema in schemas.items():
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.exceptions.SchemaError as e:
            print(f"FAIL {name}: not a valid JSON Schema 2020-12: {e.message}")
            failures += 1
            continue
        if not schema.get("$id", "").endswith("/" + name):
            print(f"FAIL {name}: its $id ({schema.get('$id')}) does not name the file")
            failures += 1
    print(f"{len(schemas)} schema files checked, {failures} failed")
    return failures


def check_answer(schemas, path):
    text = pathlib.Path(path).read_text()
    try:
        answer = json.loads(text)
    except json.JSONDecodeError as e:
        return f"not one JSON value ({e}): {text[:200]!r}"
    if not isinstance(answer, dict):
        return f"not a JSON object: {text[:200]!r}"
    if text.strip().count("\n") != 0:
        return "more than one line: an answer is one JSON object on one line"
    m = SCHEMA_NAME.match(str(answer.get("schema", "")))
    if not m:
        return f"names no schema (\"schema\": {answer.get('schema')!r})"
    file_name = f"{m.group(1)}-{m.group(2)}.json"
    if file_name not in schemas:
        return f"{answer['schema']}: no schema file {file_name} in the schema directory"
    validator = make_validator(schemas, schemas[file_name])
    errors = sorted(validator.iter_errors(answer), key=lambda e: list(e.absolute_path))
    if errors:
        lines = []
        for e in errors[:10]:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            lines.append(f"  at {where}: {e.message[:300]}")
        return f"{answer['schema']} does not match {file_name}:\n" + "\n".join(lines)
    return None


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    schema_dir = pathlib.Path(argv[1])
    schemas = load_schemas(schema_dir)
    if not schemas:
        sys.exit(f"validate_json.py: no schema files in {schema_dir}")
    if argv[2] == "--schemas":
        return 1 if check_schemas(schemas) else 0
    failures = 0
    for path in argv[2:]:
        problem = check_answer(schemas, path)
        if problem:
            failures += 1
            print(f"FAIL {path}: {problem}")
    print(f"{len(argv) - 2} JSON answers validated, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
