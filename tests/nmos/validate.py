#!/usr/bin/env python3
"""Validates JSON documents against AMWA's NMOS JSON schemas (draft-04, with $ref to sibling files).

Usage: validate.py SCHEMA.json DOCUMENT.json [DOCUMENT.json ...]
    Prints "DOCUMENT.json: ok" for each valid document and the first error of each invalid one, and exits 1 if any is
    invalid, 0 if all are valid.
Usage: validate.py --serve
    Prints "ready" once jsonschema is loaded, then reads requests from stdin, one a line: a schema's path, a tab and the
    document as JSON on one line. Answers each with one line: "ok", "invalid against ..." or "not validated: ...".
    Ends at the end of its input. A test process starts it once instead of paying Python's start for every document.
"""
import json
import pathlib
import sys
import warnings

import jsonschema

# Debian 12's jsonschema (4.10) resolves $ref with RefResolver only; later versions keep it and warn on every use.
warnings.filterwarnings("ignore", category=DeprecationWarning, module=__name__)


def validator_of(schema_path):
    schema = json.loads(schema_path.read_text())
    resolver = jsonschema.RefResolver(base_uri=schema_path.as_uri(), referrer=schema)
    return jsonschema.validators.validator_for(schema)(schema, resolver=resolver)


def verdict(validator, schema_path, document):
    errors = sorted(validator.iter_errors(document), key=str)
    if not errors:
        return "ok"
    where = "/".join(str(part) for part in errors[0].absolute_path)
    message = errors[0].message.replace("\n", " ")
    return f"invalid against {schema_path.name} at '{where}': {message}"


def check_files(schema_argument, document_paths):
    schema_path = pathlib.Path(schema_argument).resolve()
    validator = validator_of(schema_path)
    status = 0
    for document_path in document_paths:
        answer = verdict(validator, schema_path, json.loads(pathlib.Path(document_path).read_text()))
        print(f"{document_path}: {answer}")
        status = status if answer == "ok" else 1
    return status


def serve():
    validators = {}
    print("ready", flush=True)
    for line in sys.stdin:
        schema_argument, _, text = line.rstrip("\n").partition("\t")
        try:
            schema_path = pathlib.Path(schema_argument).resolve()
            if schema_path not in validators:
                validators[schema_path] = validator_of(schema_path)
            answer = verdict(validators[schema_path], schema_path, json.loads(text))
        # Whatever stops a check (a missing schema file, a line that is no JSON, a broken $ref) is said, never a pass.
        except Exception as error:  # pylint: disable=broad-except
            answer = f"not validated: {type(error).__name__}: {error}".replace("\n", " ")
        print(answer, flush=True)
    return 0


def main():
    if sys.argv[1:] == ["--serve"]:
        return serve()
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    return check_files(sys.argv[1], sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
