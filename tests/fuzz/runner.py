"""Runs schemathesis (the CLI, pinned in pyproject.toml) against a running paygate and reads its JSON report.

The merchant's test secret key authenticates every request. Path ids point at real objects of that merchant
(tests/seed.py), so the fuzzer reaches the servicers and not only the 404 of an unknown id. RPCs the server does
not implement yet (501 by design) are left out and listed in the result.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests import seed
from tests.harness import TLS, Service
from tests.operations import unimplemented_operation_ids

# What the document promises, checked on every answer: no 5xx; status, content type, headers and body as documented.
CHECKS = ("not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_headers_conformance", "response_schema_conformance")
# Path templates (as regular expressions) and the kind of object their `{id}` names.
PATH_IDS = {
    r"^/v1/customers/\{id\}": "customer",
    r"^/v1/products/\{id\}": "product",
    r"^/v1/payment_links/\{id\}": "payment_link",
    r"^(/v1)?/payment_intents/(link/)?\{id\}": "payment_intent",
    r"^/v1/webhook_endpoints/\{id\}": "webhook_endpoint",
    r"^/v1/events/\{id\}": "event",
}


@dataclass
class Outcome:
    requests: int
    failures: list[dict[str, Any]]
    errors: list[Any]
    left_out: list[str]
    output: str


def _config(ids: dict[str, str], merchant_id: str) -> str:
    lines = []
    for regex, kind in PATH_IDS.items():
        lines += ["[[operations]]", f"include-path-regex = {json.dumps(regex)}",
                  f"parameters = {{ \"path.id\" = {json.dumps(ids[kind])} }}", ""]
    lines += ["[[operations]]", 'include-path-regex = "^/merchants/"',
              f"parameters = {{ \"path.merchant_id\" = {json.dumps(merchant_id)} }}", ""]
    return "\n".join(lines)


def run(service: Service, merchant: dict[str, Any], workdir: Path, *, seed_value: int, examples: int,
        phases: str) -> Outcome:
    workdir.mkdir(parents=True, exist_ok=True)
    key = merchant["test"]["secret_key"]
    with httpx.Client(base_url=service.http_url, auth=httpx.BasicAuth(key, ""), timeout=30, verify=TLS) as api:
        ids = {kind: factory(api)["id"] for kind, factory in seed.FACTORIES.items()}
    config = workdir / "schemathesis.toml"
    config.write_text(_config(ids, merchant["merchant_id"]))
    left_out = unimplemented_operation_ids()
    command = [str(Path(sys.executable).parent / "schemathesis"), "--config-file", str(config), "run",
               f"{service.http_url}/openapi.json", "--auth", f"{key}:", "--seed", str(seed_value),
               "--max-examples", str(examples), "--phases", phases, "--mode", "all", "--workers", "1",
               "--checks", ",".join(CHECKS), "--generation-database", "none", "--no-color",
               "--report", "json", "--report-json-path", str(workdir / "report.json")]
    if left_out:
        command += ["--exclude-operation-id-regex", "^(" + "|".join(left_out) + ")$"]
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    report = json.loads((workdir / "report.json").read_text())
    return Outcome(requests=report["test_cases"]["generated"], failures=report["failures"],
                   errors=report["errors"], left_out=left_out, output=done.stdout + done.stderr)
