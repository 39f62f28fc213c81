#!/usr/bin/env python3
"""Validate perft's JSON output against docs/schema/ with Python's standard
`jsonschema` package (an implementation independent of the Rust tests').

    python3 scripts/validate_json.py FILE_OR_DIR...
    perft count 3 kiwipete --stats --json | python3 scripts/validate_json.py -
    python3 scripts/validate_json.py --schema count report.json

Which schema a document needs is found from the document itself, unless
--schema names one (the file name without `.schema.json`):

* a `--json` report: its `kind` (`count`, `divide`, ..., `merge`);
* a job's `manifest.json` (`kind` `perft-job`): manifest;
* `unit-NNNNN.jsonl`: every line against unit-line;
* `unit-NNNNN.result.jsonl`: every line against result-line;
* a directory: every `.json` and `.jsonl` file below it (a job directory,
  or the dump the Rust tests write with PERFT_SCHEMA_DUMP=DIR).

With no argument it checks docs/schema/ itself: every schema declares draft
2020-12 and is a valid schema, and every example in docs/schema/examples/
validates. Exit 0 when everything is valid, 1 otherwise (every error is
listed), 2 on bad usage. Uses Python's `jsonschema` (4.18 or later;
installed with pip when missing).
"""

import argparse
from importlib.metadata import version
import json
import re
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from scriptlib import ensure_module  # noqa: E402

ensure_module("jsonschema", "jsonschema>=4.18", "validate_json.py")
import jsonschema  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DRAFT = "https://json-schema.org/draft/2020-12/schema"
UNIT_RE = re.compile(r"^unit-\d+\.jsonl$")
RESULT_RE = re.compile(r"^unit-\d+\.result\.jsonl$")


class Checker:
    def __init__(self, schema_dir):
        self.schema_dir = schema_dir
        self.validators = {}
        self.errors = 0
        self.documents = 0

    def validator(self, name):
        if name not in self.validators:
            path = self.schema_dir / f"{name}.schema.json"
            if not path.is_file():
                return None
            schema = json.loads(path.read_text())
            if schema.get("$schema") != DRAFT:
                self.fail(path, f"$schema is {schema.get('$schema')!r}, not {DRAFT}")
            jsonschema.Draft202012Validator.check_schema(schema)
            self.validators[name] = jsonschema.Draft202012Validator(
                schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
            )
        return self.validators[name]

    def fail(self, where, message):
        self.errors += 1
        print(f"INVALID {where}: {message}")

    def check(self, doc, name, where):
        self.documents += 1
        v = self.validator(name)
        if v is None:
            self.fail(where, f"no schema {name}.schema.json in {self.schema_dir}")
            return
        errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errs:
            path = "$" + "".join(
                f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path
            )
            self.fail(where, f"{path}: {e.message} (against {name})")

    def schema_of(self, doc):
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if kind == "perft-job":
            return "manifest"
        return kind

    def file(self, path, forced):
        name = path.name
        if path.suffix == ".jsonl" or forced in ("unit-line", "result-line"):
            schema = forced or (
                "result-line" if RESULT_RE.match(name) else "unit-line" if UNIT_RE.match(name) else None
            )
            if schema is None:
                self.fail(path, "a .jsonl file that is neither unit-NNNNN.jsonl nor unit-NNNNN.result.jsonl: give --schema")
                return
            for n, line in enumerate(path.read_text().splitlines(), 1):
                try:
                    doc = json.loads(line)
                except json.JSONDecodeError as e:
                    self.fail(f"{path}:{n}", f"not JSON: {e}")
                    continue
                self.check(doc, schema, f"{path}:{n}")
            return
        self.text(path.read_text(), forced, str(path))

    def text(self, text, forced, where):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            self.fail(where, f"not one JSON document: {e}")
            return
        schema = forced or self.schema_of(doc)
        if schema is None:
            self.fail(where, "no `kind` field: give --schema")
            return
        self.check(doc, schema, where)

    def target(self, arg, forced):
        if arg == "-":
            self.text(sys.stdin.read(), forced, "<stdin>")
            return
        p = Path(arg)
        if p.is_dir():
            files = sorted(x for x in p.rglob("*") if x.suffix in (".json", ".jsonl") and x.is_file())
            if not files:
                self.fail(p, "no .json or .jsonl file in the directory")
            for f in files:
                self.file(f, forced)
        elif p.is_file():
            self.file(p, forced)
        else:
            self.fail(p, "no such file or directory")

    def self_check(self):
        schemas = sorted(self.schema_dir.glob("*.schema.json"))
        if not schemas:
            self.fail(self.schema_dir, "no *.schema.json")
        for s in schemas:
            name = s.name[: -len(".schema.json")]
            try:
                self.validator(name)
            except jsonschema.SchemaError as e:
                self.fail(s, f"not a valid 2020-12 schema: {e.message}")
                continue
            examples = sorted((self.schema_dir / "examples").glob(f"{name}.*"))
            if not examples:
                self.fail(s, f"no example docs/schema/examples/{name}.json(l)")
            for ex in examples:
                self.file(ex, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="*", help="files, directories, or - for stdin")
    ap.add_argument("--schema", help="schema name (file name without .schema.json)")
    ap.add_argument("--schema-dir", type=Path, default=ROOT / "docs" / "schema")
    args = ap.parse_args()
    c = Checker(args.schema_dir)
    if args.schema and c.validator(args.schema) is None:
        print(f"validate_json.py: no schema {args.schema}.schema.json in {args.schema_dir}", file=sys.stderr)
        return 2
    if args.targets:
        for t in args.targets:
            c.target(t, args.schema)
    else:
        c.self_check()
    status = "ok" if c.errors == 0 else "FAILED"
    print(f"{status}: {c.documents} documents checked, {c.errors} errors (python jsonschema {version('jsonschema')})")
    return 0 if c.errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
