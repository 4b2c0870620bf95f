#!/usr/bin/env python3
"""Validates JSON documents against one of AMWA's NMOS JSON schemas (draft-04, with $ref to sibling files).

Usage: validate.py SCHEMA.json DOCUMENT.json [DOCUMENT.json ...]
Prints "DOCUMENT.json: ok" for each valid document and the first error of each invalid one, and exits 1 if any is
invalid, 0 if all are valid.
"""
import json
import pathlib
import sys

import jsonschema


def main():
    schema_path = pathlib.Path(sys.argv[1]).resolve()
    schema = json.loads(schema_path.read_text())
    resolver = jsonschema.RefResolver(base_uri=schema_path.as_uri(), referrer=schema)
    validator = jsonschema.validators.validator_for(schema)(schema, resolver=resolver)
    status = 0
    for document_path in sys.argv[2:]:
        document = json.loads(pathlib.Path(document_path).read_text())
        errors = sorted(validator.iter_errors(document), key=str)
        if not errors:
            print(f"{document_path}: ok")
            continue
        where = "/".join(str(part) for part in errors[0].absolute_path)
        print(f"{document_path}: invalid against {schema_path.name} at '{where}': {errors[0].message}")
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
