#!/usr/bin/env python3
"""Validates JSON documents against one of AMWA's NMOS JSON schemas (draft-04, with $ref to sibling files).

Usage: validate.py SCHEMA.json DOCUMENT.json [DOCUMENT.json ...]
Prints the first error of each invalid document and exits 1 if any is invalid, 0 if all are valid.
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
        for error in sorted(validator.iter_errors(document), key=str)[:1]:
            where = "/".join(str(part) for part in error.absolute_path)
            print(f"{document_path}: invalid against {schema_path.name} at '{where}': {error.message}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
