"""Structured logs: one JSON object per line, with the request id when there is one.

Logs never carry a secret: every URL in a line (a chain's RPC URL often holds a provider's API key in its path,
a webhook URL may hold a token in its query, a database URL a password) is cut to its scheme and host, whatever
logged it (a message, an extra field, an exception's text). SQL parameters are kept out at the source
(`hide_parameters` on every engine, server/db/engine.py).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any

from server.context import request_id

# scheme://[userinfo@]host[:port] then anything up to the end of the URL (not past a JSON string's quote or escape)
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)(?:[^\s/?#@\"\\]*@)?([^\s/?#\"\\]*)[^\s\"\\<>']*")
_RESERVED = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        rid = request_id.get()
        if rid:
            entry["request_id"] = rid
        for key, value in record.__dict__.items():
            if key not in _RESERVED and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(entry, default=str))


def redact(text: str) -> str:
    """`text` with every URL cut to `scheme://host[:port]/...` (no user, password, path, query or fragment)."""
    return _URL.sub(lambda m: f"{m.group(1)}{m.group(2)}/...", text)


def configure(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # `stripe` logs each request's form body at DEBUG, a card token included: never below WARNING.
    for noisy in ("uvicorn.access", "apscheduler.executors.default", "apscheduler.scheduler", "alembic", "stripe"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
