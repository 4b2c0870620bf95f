#!/usr/bin/env python3
"""A small AMWA IS-04 v1.3 Registration API for process tests: what a registry does that a Node depends on.

Usage: registry.py SCHEMA_DIR [--port N] [--expiry-s SECONDS] [--tls-cert FILE --tls-key FILE] [--require-bearer]

SCHEMA_DIR holds AMWA's schemas (is-04-v1.3/...). Every POSTed body is validated against
registrationapi-resource-post-request.json and against the resource's own schema; an invalid one is refused with 400
and an NMOS error. Parents must be registered before their children (400 otherwise); an id registered under another
type is refused with 409. A node that sends no heartbeat for --expiry-s seconds (IS-04: 12) is garbage-collected with
everything below it, as a registry does; a heartbeat for an unknown node answers 404.

It also serves the read side controllers use, an IS-04 v1.3 Query API without paging or queries:
GET /x-nmos/query/v1.3/{nodes,devices,sources,flows,senders,receivers}[/ID].

With --tls-cert and --tls-key it serves HTTPS only. With --require-bearer every request to the Registration API without
"Authorization: Bearer <token>" is refused 401 with a Bearer challenge (IS-10), and "authorization" events list every
token it was sent, for the test to verify; the Query API and the test paths stay open.

Prints "registry: listening on 127.0.0.1:PORT" once bound. For tests, GET /x-mxl-test/events answers every request's
outcome in order and GET /x-mxl-test/resources what the registry holds, in registration order.
"""
import argparse
import http.server
import json
import pathlib
import re
import ssl
import sys
import threading
import time

import jsonschema

API = "/x-nmos/registration/v1.3"
RESOURCE_PATH = re.compile(r"^" + API + r"/resource/(nodes|devices|sources|flows|senders|receivers)/([^/]+)/?$")
QUERY = "/x-nmos/query/v1.3"
QUERY_PATH = re.compile(r"^" + QUERY + r"/(nodes|devices|sources|flows|senders|receivers)(?:/([^/]+))?/?$")
HEALTH_PATH = re.compile(r"^" + API + r"/health/nodes/([^/]+)/?$")
# What each type's parent fields name, and the parent's type: a child must come after its parents.
PARENTS = {
    "node": [],
    "device": [("node_id", "node")],
    "source": [("device_id", "device")],
    "flow": [("source_id", "source"), ("device_id", "device")],
    "sender": [("device_id", "device"), ("flow_id", "flow")],
    "receiver": [("device_id", "device")],
}


class Validator:
    def __init__(self, schema_dir):
        self._dir = pathlib.Path(schema_dir).resolve() / "is-04-v1.3"
        self._validators = {}

    def first_error(self, schema_name, document):
        if schema_name not in self._validators:
            path = self._dir / schema_name
            schema = json.loads(path.read_text())
            resolver = jsonschema.RefResolver(base_uri=path.as_uri(), referrer=schema)
            self._validators[schema_name] = jsonschema.validators.validator_for(schema)(schema, resolver=resolver)
        for error in sorted(self._validators[schema_name].iter_errors(document), key=str)[:1]:
            where = "/".join(str(part) for part in error.absolute_path)
            return f"invalid against {schema_name} at '{where}': {error.message}"
        return None


class Registry:
    def __init__(self, validator, expiry_s):
        self.validator = validator
        self.expiry_s = expiry_s
        self.lock = threading.Lock()
        # id -> {"type": ..., "data": ...}, in registration order.
        self.resources = {}
        # node id -> time.monotonic() of its registration or last heartbeat.
        self.heartbeats = {}
        self.events = []

    def node_of(self, resource_id):
        """The node a resource belongs to, following its parents."""
        while resource_id in self.resources:
            entry = self.resources[resource_id]
            if entry["type"] == "node":
                return resource_id
            field = PARENTS[entry["type"]][0][0]
            resource_id = entry["data"].get(field)
        return None

    def register(self, body):
        """(status, answer) of a POST /resource."""
        if not isinstance(body, dict) or not isinstance(body.get("data"), dict):
            return 400, error(400, "the body is not a JSON object with 'type' and 'data'")
        kind = body.get("type")
        # The resource's own schema first: its complaint is more precise than the request schema's oneOf.
        complaint = self.validator.first_error(f"{kind}.json", body["data"]) if kind in PARENTS else None
        if complaint is None:
            complaint = self.validator.first_error("registrationapi-resource-post-request.json", body)
        if complaint is not None:
            self.events.append({"kind": "rejected", "type": kind, "status": 400, "error": complaint})
            return 400, error(400, complaint)
        data = body["data"]
        resource_id = data["id"]
        held = self.resources.get(resource_id)
        if held is not None and held["type"] != kind:
            message = f"{resource_id} is registered as a {held['type']}, not a {kind}"
            self.events.append({"kind": "rejected", "type": kind, "id": resource_id, "status": 409, "error": message})
            return 409, error(409, message)
        for field, parent_type in PARENTS[kind]:
            parent = data.get(field)
            if parent is not None and self.resources.get(parent, {}).get("type") != parent_type:
                message = f"the {kind} {resource_id} names {field} {parent}, which is no registered {parent_type}"
                self.events.append({"kind": "rejected", "type": kind, "id": resource_id, "status": 400, "error": message})
                return 400, error(400, message)
        status = 200 if held is not None else 201
        self.resources[resource_id] = {"type": kind, "data": data}
        if kind == "node":
            self.heartbeats[resource_id] = time.monotonic()
        self.events.append({"kind": "post", "type": kind, "id": resource_id, "status": status, "data": data})
        return status, data

    def heartbeat(self, node_id):
        if self.resources.get(node_id, {}).get("type") != "node":
            self.events.append({"kind": "heartbeat", "id": node_id, "status": 404})
            return 404, error(404, f"no node {node_id} is registered")
        self.heartbeats[node_id] = time.monotonic()
        self.events.append({"kind": "heartbeat", "id": node_id, "status": 200})
        return 200, {"health": str(int(time.time()))}

    def delete(self, plural, resource_id):
        kind = plural[:-1]
        if self.resources.get(resource_id, {}).get("type") != kind:
            self.events.append({"kind": "delete", "type": kind, "id": resource_id, "status": 404})
            return 404, error(404, f"no {kind} {resource_id} is registered")
        del self.resources[resource_id]
        self.heartbeats.pop(resource_id, None)
        self.events.append({"kind": "delete", "type": kind, "id": resource_id, "status": 204})
        return 204, None

    def collect_garbage(self):
        now = time.monotonic()
        for node_id, last in list(self.heartbeats.items()):
            if now - last < self.expiry_s:
                continue
            owned = [rid for rid in self.resources if self.node_of(rid) == node_id]
            for rid in owned:
                del self.resources[rid]
            del self.heartbeats[node_id]
            self.events.append({"kind": "expired", "id": node_id, "resources": len(owned)})


def error(code, message):
    return {"code": code, "error": message, "debug": None}


def make_handler(registry, require_bearer):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, document, location=None):
            body = b"" if document is None else json.dumps(document).encode()
            self.send_response(status)
            if document is not None:
                self.send_header("Content-Type", "application/json")
            if location is not None:
                self.send_header("Location", location)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def refused_without_bearer(self):
            """True, having answered 401, when the Registration API is asked without a bearer token."""
            if not require_bearer or not self.path.startswith(API):
                return False
            header = self.headers.get("Authorization", "")
            with registry.lock:
                registry.events.append({"kind": "authorization", "method": self.command, "path": self.path, "token": header[7:]
                                        if header.startswith("Bearer ") else None})
            if header.startswith("Bearer ") and len(header) > 7:
                return False
            body = json.dumps(error(401, "no bearer access token")).encode()
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Bearer realm="registry"')
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return True

        def do_GET(self):
            if self.refused_without_bearer():
                return
            path = self.path.rstrip("/") if self.path != "/" else self.path
            listings = {
                "/x-nmos": ["registration/", "query/"],
                "/x-nmos/registration": ["v1.3/"],
                API: ["resource/", "health/"],
                "/x-nmos/query": ["v1.3/"],
                QUERY: ["nodes/", "devices/", "sources/", "flows/", "senders/", "receivers/"],
            }
            with registry.lock:
                if path in listings:
                    return self.answer(200, listings[path])
                if path == "/x-mxl-test/events":
                    return self.answer(200, registry.events)
                if path == "/x-mxl-test/resources":
                    return self.answer(200, list(registry.resources.values()))
                match = RESOURCE_PATH.match(self.path)
                if match and registry.resources.get(match[2], {}).get("type") == match[1][:-1]:
                    return self.answer(200, registry.resources[match[2]]["data"])
                match = QUERY_PATH.match(self.path)
                if match:
                    held = [entry["data"] for entry in registry.resources.values() if entry["type"] == match[1][:-1]]
                    if match[2] is None:
                        return self.answer(200, held)
                    found = [data for data in held if data["id"] == match[2]]
                    if found:
                        return self.answer(200, found[0])
                match = HEALTH_PATH.match(self.path)
                if match and match[1] in registry.heartbeats:
                    return self.answer(200, {"health": str(int(time.time()))})
            self.answer(404, error(404, f"no resource {self.path}"))

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            text = self.rfile.read(length)
            if self.refused_without_bearer():
                return
            with registry.lock:
                if self.path.rstrip("/") == API + "/resource":
                    try:
                        body = json.loads(text)
                    except ValueError as problem:
                        registry.events.append({"kind": "rejected", "status": 400, "error": str(problem)})
                        return self.answer(400, error(400, f"the body is not JSON: {problem}"))
                    status, document = registry.register(body)
                    location = f"{API}/resource/{body['type']}s/{document['id']}" if status == 201 else None
                    return self.answer(status, document, location)
                match = HEALTH_PATH.match(self.path)
                if match:
                    return self.answer(*registry.heartbeat(match[1]))
            self.answer(404, error(404, f"no resource {self.path}"))

        def do_DELETE(self):
            if self.refused_without_bearer():
                return
            with registry.lock:
                match = RESOURCE_PATH.match(self.path)
                if match:
                    return self.answer(*registry.delete(match[1], match[2]))
            self.answer(404, error(404, f"no resource {self.path}"))

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("schema_dir")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--expiry-s", type=float, default=12.0)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--require-bearer", action="store_true")
    arguments = parser.parse_args()
    registry = Registry(Validator(arguments.schema_dir), arguments.expiry_s)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", arguments.port), make_handler(registry, arguments.require_bearer))
    server.daemon_threads = True
    if arguments.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(arguments.tls_cert, arguments.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)

    def collect():
        while True:
            time.sleep(0.1)
            with registry.lock:
                registry.collect_garbage()

    threading.Thread(target=collect, daemon=True).start()
    print(f"registry: listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
