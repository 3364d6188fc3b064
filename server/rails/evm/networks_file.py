"""Writes one network's entry into a networks file (TOML), keeping every other entry of the file."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

HEADER = "# Networks file (see server/catalogue/catalogue.py). `paygate devchain` rewrites its ETH-TEST entry.\n"


def upsert_network(path: Path, entry: dict[str, Any]) -> None:
    """Replaces the [[networks]] entry with `entry["id"]` (or adds it); atomic, so a reader never sees half a file."""
    data: dict[str, Any] = {}
    if path.exists():
        with path.open("rb") as f:
            data = tomllib.load(f)
    networks = [n for n in data.get("networks", []) if n.get("id") != entry["id"]]
    data["networks"] = [*networks, entry]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(HEADER + dumps(data))
    os.replace(tmp, path)


def dumps(data: dict[str, Any]) -> str:
    """TOML for the networks file's shapes: top-level scalars, arrays of tables whose values are scalars,
    lists and inline tables."""
    lines = [f"{k} = {_value(v)}" for k, v in data.items() if not _is_table_array(v)]
    for key, tables in data.items():
        if not _is_table_array(tables):
            continue
        for table in tables:
            lines += ["", f"[[{key}]]"]
            for k, v in table.items():
                if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                    lines.append(f"{k} = [")
                    lines += [f"  {_value(x)}," for x in v]
                    lines.append("]")
                else:
                    lines.append(f"{k} = {_value(v)}")
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, dict) for x in value)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)
