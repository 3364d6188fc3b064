"""Compiles the test token with the npm `solc` package (solcjs), offline, in about a second and a half."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CONTRACTS = Path(__file__).with_name("contracts")
ROOT = Path(__file__).resolve().parents[3]


class CompileError(Exception):
    """solcjs is missing or rejected the source; the message says which."""


@dataclass(frozen=True)
class Compiled:
    abi: list[dict[str, Any]]
    bytecode: str  # 0x… creation code


def solcjs() -> str:
    local = ROOT / "node_modules" / ".bin" / "solcjs"
    found = str(local) if local.exists() else shutil.which("solcjs")
    if not found:
        raise CompileError("solcjs not found: run `npm install` (package.json lists solc)")
    return found


def compile_contract(name: str = "TestToken") -> Compiled:
    source = (CONTRACTS / f"{name}.sol").read_text()
    request = {
        "language": "Solidity",
        "sources": {f"{name}.sol": {"content": source}},
        "settings": {"optimizer": {"enabled": True, "runs": 200}, "evmVersion": "cancun",
                     "outputSelection": {"*": {name: ["abi", "evm.bytecode.object"]}}},
    }
    done = subprocess.run([solcjs(), "--standard-json"], input=json.dumps(request), capture_output=True,
                          text=True, timeout=120)
    # solcjs may print warnings before the JSON document.
    out = done.stdout[done.stdout.find("{"):] if "{" in done.stdout else ""
    try:
        result = json.loads(out)
    except json.JSONDecodeError:
        raise CompileError(f"solcjs failed: {(done.stderr or done.stdout).strip()[:500]}") from None
    errors = [e["formattedMessage"] for e in result.get("errors", []) if e.get("severity") == "error"]
    if errors:
        raise CompileError(errors[0])
    contract = result["contracts"][f"{name}.sol"][name]
    return Compiled(abi=contract["abi"], bytecode="0x" + contract["evm"]["bytecode"]["object"])
