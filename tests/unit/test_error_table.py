"""The README's error table names every `error_code` paygate answers with (issue 31: `verification_amount_invalid`
and others were missing), each under its HTTP status."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import server
from server.errors import DomainError

ROOT = Path(__file__).resolve().parents[2]
HTTP_OF_GRPC = {"INVALID_ARGUMENT": "400", "FAILED_PRECONDITION": "400", "UNAUTHENTICATED": "401",
                "PERMISSION_DENIED": "403", "NOT_FOUND": "404", "ALREADY_EXISTS": "409", "ABORTED": "409",
                "RESOURCE_EXHAUSTED": "429", "INTERNAL": "500", "UNIMPLEMENTED": "501", "UNAVAILABLE": "503"}


def _error_classes() -> list[type[DomainError]]:
    for module in pkgutil.walk_packages(server.__path__, "server."):
        importlib.import_module(module.name)
    found, todo = [], [DomainError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def _codes() -> dict[str, str]:
    """error_code → HTTP status: the classes' `reason`, and every `reason="…"` given to an error's constructor."""
    classes = _error_classes()
    codes = {c.reason: HTTP_OF_GRPC[c.code.name] for c in classes if "<" not in c.reason}
    # DomainError itself is built only for the 500 answer, whose code is set after construction (rpc/pipeline.py).
    by_name = {c.__name__: c for c in classes if c is not DomainError}
    for path in (ROOT / "server").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in by_name):
                continue
            for kw in node.keywords:
                if kw.arg == "reason" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    codes[kw.value.value] = HTTP_OF_GRPC[by_name[node.func.id].code.name]
    return codes


def _table() -> dict[str, set[str]]:
    """HTTP status → the codes its README row names."""
    text = (ROOT / "README.md").read_text()
    start = text.index("| HTTP | error_code | when |")
    rows: dict[str, set[str]] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        status, names = line.split("|")[1].strip(), line.split("|")[2]
        for one in re.split(r"\s*/\s*", status):
            rows.setdefault(one, set()).update(re.findall(r"`([A-Za-z_<>]+)`", names))
    return rows


def test_every_error_code_is_in_the_readmes_table() -> None:
    listed = set().union(*_table().values())
    missing = sorted(code for code in _codes() if code not in listed)
    assert missing == []


def test_each_error_code_is_listed_under_its_http_status() -> None:
    table = _table()
    wrong = sorted(f"{code}: {status}" for code, status in _codes().items() if code not in table.get(status, set()))
    assert wrong == []


def test_the_codes_found_include_ones_the_readme_once_left_out() -> None:
    # The check must see codes defined on classes and passed to constructors alike.
    codes = _codes()
    assert codes["verification_amount_invalid"] == "400" and codes["approver_key_restricted"] == "403"
    assert codes["payment_link_active"] == "409"
