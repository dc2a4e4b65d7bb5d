#!/usr/bin/env python3
"""Checks protocol/examples against protocol/schema (run by the test suite).

Every request whose reply is ok must match request.schema.json, and the
reply's result must match the result schema of its op
(reply.schema.json#/$defs/<op>Result); every request rejected for its shape
(invalid_request, unknown_op, unknown_field, missing_field, invalid_field)
must not match. Every reply must match reply.schema.json and every event
event.schema.json. Byte limits (the x-maxBytes keyword) count UTF-8 bytes.

Transcript lines: "N> " a request on connection N, "N< " its reply, "*R " an
event (PROTOCOL.md, section 7).
Usage: validate.py [LINE-FILE...]  (extra files: one "kind<TAB>json" per
line; kind is request, reply, event, or result:OP)
"""
import json
import pathlib
import re
import sys

from jsonschema import Draft202012Validator, ValidationError, validators
from referencing import Registry, Resource

ROOT = pathlib.Path(__file__).resolve().parent
SHAPE_ERRORS = {"invalid_request", "unknown_op", "unknown_field", "missing_field", "invalid_field"}
REQUEST = re.compile(r"^([0-9]+)> (.*)$")
REPLY = re.compile(r"^([0-9]+)< (.*)$")
EVENT = re.compile(r"^\*(S|[0-9]+)(,(S|[0-9]+))* (.*)$")


def max_bytes(validator, limit, instance, schema):
    if isinstance(instance, str) and len(instance.encode("utf-8")) > limit:
        yield ValidationError(f"{instance[:20]!r}... is longer than {limit} bytes of UTF-8")


Validator = validators.extend(Draft202012Validator, {"x-maxBytes": max_bytes})


def main() -> int:
    schemas = {p.name: json.loads(p.read_text()) for p in (ROOT / "schema").glob("*.schema.json")}
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    checkers = {
        kind: Validator(schemas[f"{kind}.schema.json"], registry=registry) for kind in ("request", "reply", "event")
    }
    reply_id = schemas["reply.schema.json"]["$id"]
    results = {}
    failures, checked = [], 0

    def checker(kind):
        if kind.startswith("result:"):
            op = kind.split(":", 1)[1]
            if op not in results:
                results[op] = Validator({"$ref": f"{reply_id}#/$defs/{op}Result"}, registry=registry)
            return results[op]
        return checkers[kind]

    def check(kind, value, where, expect_valid=True):
        nonlocal checked
        checked += 1
        errors = list(checker(kind).iter_errors(value))
        if expect_valid and errors:
            failures.append(f"{where}: {kind} does not match its schema: {errors[0].message}")
        if not expect_valid and not errors:
            failures.append(f"{where}: {kind} was rejected by the server but matches the schema")

    for path in sorted((ROOT / "examples").glob("*.transcript")):
        pending = {}
        for number, line in enumerate(path.read_text().splitlines(), 1):
            where = f"{path.name}:{number}"
            if match := REQUEST.match(line):
                try:
                    pending[match[1]] = (json.loads(match[2]), where)
                except ValueError:
                    pending[match[1]] = None
            elif match := REPLY.match(line):
                reply = json.loads(match[2])
                check("reply", reply, where)
                request = pending.pop(match[1], None)
                if request and isinstance(request[0], dict):
                    if reply["ok"]:
                        check("request", request[0], request[1])
                        check(f"result:{request[0]['op']}", reply["result"], where)
                    elif reply["error"]["code"] in SHAPE_ERRORS:
                        check("request", request[0], request[1], expect_valid=False)
            elif match := EVENT.match(line):
                check("event", json.loads(match[4]), where)
            elif line and not line.startswith(("#", "@", "close ", "!run ")):
                failures.append(f"{where}: not a transcript line")
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
