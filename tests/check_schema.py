#!/usr/bin/python3
"""Validate a memtopo JSON report against its JSON Schema (draft 2020-12).

Usage: /usr/bin/python3 tests/check_schema.py SCHEMA.json REPORT.json
Exit 0 and "ok: ..." when valid; exit 1 with a one-line reason otherwise
(also for unreadable files or a missing jsonschema module).
Uses Debian's python3-jsonschema; no network access (the schema has no
remote $refs).  Schema 2 (objects with named findings): a finding must have
exactly the members of its kind, which the message then names."""
import json
import sys


def main(argv):
    if len(argv) != 3:
        print("usage: check_schema.py SCHEMA.json REPORT.json")
        return 1
    try:
        import jsonschema
    except ImportError as e:
        print("error: python module jsonschema not available: %s" % e)
        return 1
    try:
        with open(argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        with open(argv[2], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("error: %s" % str(e).replace("\n", " "))
        return 1
    cls = jsonschema.Draft202012Validator
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print("error: %s: invalid schema: %s" % (argv[1], e.message))
        return 1
    errors = list(cls(schema).iter_errors(doc))
    if errors:
        # best_match descends into oneOf/anyOf alternatives, so a bad unit
        # inside a nullable finding is named instead of "not valid under any".
        e = jsonschema.exceptions.best_match(errors)
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        msg = e.message.replace("\n", " ")
        if e.schema is False and e.absolute_path:
            # "properties": {"lo": false} in a finding kind's rule: say so
            # instead of jsonschema's "False schema does not allow 1".
            parent = e.absolute_path[-1]
            kind = None
            try:
                owner = doc
                for p in list(e.absolute_path)[:-1]:
                    owner = owner[p]
                kind = owner.get("kind") if isinstance(owner, dict) else None
            except (KeyError, IndexError, TypeError):
                pass
            msg = "%r is not allowed here%s" % (
                parent, " (a %r finding)" % kind if kind else "")
        if len(msg) > 200:
            msg = msg[:197] + "..."
        more = " (+%d more)" % (len(errors) - 1) if len(errors) > 1 else ""
        print("invalid: %s: at %s: %s%s" % (argv[2], where, msg, more))
        return 1
    print("ok: %s is valid" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
