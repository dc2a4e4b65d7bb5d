#!/usr/bin/env python3
"""Checks protocol/examples against protocol/schema (run by the test suite).

Every request whose reply is ok must match request.schema.json; every request
rejected for its shape (invalid_request, unknown_op, unknown_field,
missing_field, invalid_field) must not. Every reply must match
reply.schema.json and every event event.schema.json.
Usage: validate.py [LINE-FILE...]  (extra files: one "kind<TAB>json" per line)
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = pathlib.Path(__file__).resolve().parent
SHAPE_ERRORS = {"invalid_request", "unknown_op", "unknown_field", "missing_field", "invalid_field"}


def main() -> int:
    schemas = {p.name: json.loads(p.read_text()) for p in (ROOT / "schema").glob("*.schema.json")}
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    validators = {
        kind: Draft202012Validator(schemas[f"{kind}.schema.json"], registry=registry)
        for kind in ("request", "reply", "event")
    }
    failures, checked = [], 0

    def check(kind, value, where, expect_valid=True):
        nonlocal checked
        checked += 1
        errors = list(validators[kind].iter_errors(value))
        if expect_valid and errors:
            failures.append(f"{where}: {kind} does not match its schema: {errors[0].message}")
        if not expect_valid and not errors:
            failures.append(f"{where}: {kind} was rejected by the server but matches the schema")

    for path in sorted((ROOT / "examples").glob("*.transcript")):
        pending = None
        for number, line in enumerate(path.read_text().splitlines(), 1):
            where = f"{path.name}:{number}"
            if line.startswith("> "):
                try:
                    pending = (json.loads(line[2:]), where)
                except ValueError:
                    pending = None
            elif line.startswith("< "):
                reply = json.loads(line[2:])
                check("reply", reply, where)
                if pending and isinstance(pending[0], dict):
                    if reply["ok"]:
                        check("request", pending[0], pending[1])
                    elif reply["error"]["code"] in SHAPE_ERRORS:
                        check("request", pending[0], pending[1], expect_valid=False)
                pending = None
            elif line.startswith("* "):
                check("event", json.loads(line[2:]), where)
    for extra in sys.argv[1:]:
        for number, line in enumerate(pathlib.Path(extra).read_text().splitlines(), 1):
            kind, _, text = line.partition("\t")
            check(kind, json.loads(text), f"{extra}:{number}")
    for failure in failures:
        print(failure)
    print(f"{checked} lines checked, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
